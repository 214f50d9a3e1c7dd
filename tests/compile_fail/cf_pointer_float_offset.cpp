// cause: pointer_arithmetic_needs_integer_offsets; tl::op::add; (add, float,|Type=float)
// expect: only \+ and - with integer offsets
// A float offset block on a pointer: offsets must be integers.
#include <tl/kernel.hpp>
int main() {
  float data[8] = {};
  tl::ptr<float> p(data, 8);
#ifdef TL_COMPILE_FAIL
  auto x = tl::load(p + tl::arange<0, 8>().to(tl::float32));
#else
  auto x = tl::load(p + tl::arange<0, 8>());
#endif
  (void)x;
}
