// cause: dot_unsupported_type; (<int, false>|T=int)
// expect: operands must be float16, bfloat16, float32, float64 or int8
#include <tl/kernel.hpp>
int main() {
#ifdef TL_COMPILE_FAIL
  auto a = tl::zeros<16, 16>(tl::int32);
#else
  auto a = tl::zeros<16, 16>(tl::int8);
#endif
  auto c = tl::dot(a, a);
  (void)c;
}
