// cause: mask_or_value_not_broadcastable_to_pointers; tl::op::load; tl::shape<8>; tl::shape<4>
// expect: must broadcast to the shape of the pointer block
#include <tl/kernel.hpp>
int main() {
  float data[4] = {};
  tl::ptr<float> p(data, 4);
  auto offs = tl::arange<0, 4>();
#ifdef TL_COMPILE_FAIL
  auto x = tl::load(p + offs, tl::arange<0, 8>() < 4);
#else
  auto x = tl::load(p + offs, offs < 4);
#endif
  (void)x;
}
