// cause: descriptor_lists_of_another_rank; (shape<1, 16, 16>|BlockShape=tl::shape<1, 16, 16>)
// expect: the shape and the strides must have one value for each axis of the block shape
// A rank-2 tensor's shape and strides with a rank-3 block shape (C++ would fill the short lists
// with zeros, and every load would read zeros).
#include <tl/kernel.hpp>
TL_KERNEL void k(tl::ptr<const float> x, int M, int N) {
#ifdef TL_COMPILE_FAIL
  auto d = tl::make_tensor_descriptor(x, {M, N}, {N, 1}, tl::block_shape<1, 16, 16>);
#else
  auto d = tl::make_tensor_descriptor(x, {1, M, N}, {M * N, N, 1}, tl::block_shape<1, 16, 16>);
#endif
  (void)d.load({0, 0, 0});
}
int main() {}
