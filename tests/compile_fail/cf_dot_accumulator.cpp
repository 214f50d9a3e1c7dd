// cause: dot_accumulator_shape_mismatch; tl::shape<16, 32>; tl::shape<32, 16>
// expect: the accumulator must have the shape of the product
// An accumulator sized N x M for an M x N product.
#include <tl/kernel.hpp>
int main() {
  auto a = tl::zeros<32, 16>(tl::float16);
  auto b = tl::zeros<16, 16>(tl::float16);
#ifdef TL_COMPILE_FAIL
  auto acc = tl::zeros<16, 32>(tl::float32);
#else
  auto acc = tl::zeros<32, 16>(tl::float32);
#endif
  auto c = tl::dot(a, b, acc);
  (void)c;
}
