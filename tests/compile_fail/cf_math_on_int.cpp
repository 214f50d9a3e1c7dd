// cause: math_needs_floating_point; tl::op::exp2; (exp2, int,|Type=int)
// expect: needs a floating-point block
#include <tl/kernel.hpp>
int main() {
#ifdef TL_COMPILE_FAIL
  auto e = tl::exp2(tl::arange<0, 8>());
#else
  auto e = tl::exp2(tl::arange<0, 8>().to(tl::float32));
#endif
  (void)e;
}
