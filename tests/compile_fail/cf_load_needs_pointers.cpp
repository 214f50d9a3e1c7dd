// cause: load_store_needs_pointer_block; (<int, false>|Type=int)
// expect: the first argument must be a pointer or a block of pointers
// Loading from the offsets instead of from x + offsets.
#include <tl/kernel.hpp>
int main() {
  float data[8] = {};
  tl::ptr<float> x(data, 8);
  auto offs = tl::arange<0, 8>();
#ifdef TL_COMPILE_FAIL
  auto v = tl::load(offs);
#else
  auto v = tl::load(x + offs);
#endif
  (void)v;
}
