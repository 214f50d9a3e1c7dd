// cause: dot_operand_types_differ; tl::fp16; float
// expect: both operands must have the same element type
#include <tl/kernel.hpp>
int main() {
  auto a = tl::zeros<16, 16>(tl::float16);
#ifdef TL_COMPILE_FAIL
  auto b = tl::zeros<16, 16>(tl::float32);
#else
  auto b = tl::zeros<16, 16>(tl::float32).to(tl::float16);
#endif
  auto c = tl::dot(a, b);
  (void)c;
}
