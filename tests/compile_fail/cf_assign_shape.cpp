// cause: assigned_shape_differs; tl::shape<4>; tl::shape<4, 1>
// expect: another shape than the block
// A loop-carried accumulator keeps its shape: a keep_dims sum does not fit it.
#include <tl/kernel.hpp>
int main() {
  auto acc = tl::zeros<4>(tl::float32);
  auto x = tl::zeros<4, 8>(tl::float32);
#ifdef TL_COMPILE_FAIL
  acc = tl::sum<1>(x, tl::keep_dims);
#else
  acc = tl::sum<1>(x);
#endif
}
