// cause: split_needs_a_last_axis_of_2; (shape<4, 3>|S=tl::shape<4, 3>)
// expect: tl::split: the block's last axis must have 2 elements
// A split of a last axis of 3, its halves then used as a split's are: one error, no cascade.
#include <tl/kernel.hpp>
TL_KERNEL void k(tl::ptr<float> y) {
#ifdef TL_COMPILE_FAIL
  auto x = tl::zeros<4, 3>(tl::float32);
#else
  auto x = tl::zeros<4, 2>(tl::float32);
#endif
  auto [a, b] = tl::split(x);
  tl::store(y + tl::arange<0, 4>(), a + b);
}
int main() {}
