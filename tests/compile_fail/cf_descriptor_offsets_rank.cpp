// cause: descriptor_offsets_of_another_rank; (op::load|Op=tl::op::load); (shape<16, 16>|BlockShape=tl::shape<16, 16>)
// expect: a tensor descriptor's load and store take one offset for each axis of its block shape
// One offset for a rank-2 descriptor's load.
#include <tl/kernel.hpp>
TL_KERNEL void k(tl::ptr<const float> x, int M, int N) {
  auto d = tl::make_tensor_descriptor(x, {M, N}, {N, 1}, tl::block_shape<16, 16>);
#ifdef TL_COMPILE_FAIL
  (void)d.load({0});
#else
  (void)d.load({0, 0});
#endif
}
int main() {}
