// cause: mask_or_value_not_broadcastable_to_pointers; tl::op::store; tl::shape<4, 8>; tl::shape<8, 4>
// expect: must broadcast to the shape of the pointer block
// Storing a 4 x 8 tile through an 8 x 4 block of pointers (the tile was meant transposed).
#include <tl/kernel.hpp>
int main() {
  float data[32] = {};
  tl::ptr<float> p(data, 32);
  auto rows = tl::arange<0, 8>();
  auto cols = tl::arange<0, 4>();
  auto tile = tl::zeros<4, 8>(tl::float32);
#ifdef TL_COMPILE_FAIL
  tl::store(p + rows(tl::_, tl::None) * 4 + cols(tl::None, tl::_), tile);
#else
  tl::store(p + rows(tl::_, tl::None) * 4 + cols(tl::None, tl::_), tl::trans(tile));
#endif
}
