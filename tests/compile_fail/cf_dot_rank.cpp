// cause: dot_operands_must_be_2d_or_3d_of_equal_rank; tl::shape<16, 16>; tl::shape<2, 16, 16>
// expect: must both be 2-D
#include <tl/kernel.hpp>
int main() {
  auto a = tl::zeros<16, 16>(tl::float32);
#ifdef TL_COMPILE_FAIL
  auto b = tl::zeros<2, 16, 16>(tl::float32);
#else
  auto b = tl::zeros<16, 16>(tl::float32);
#endif
  auto c = tl::dot(a, b);
  (void)c;
}
