// cause: dot_out_dtype_unsupported; float; tl::fp16
// expect: out_dtype must be float32, or float16 for float16
#include <tl/kernel.hpp>
int main() {
  auto a = tl::zeros<16, 16>(tl::float32);
  auto b = tl::zeros<16, 16>(tl::float32);
#ifdef TL_COMPILE_FAIL
  auto c = tl::dot(a, b, tl::float16);
#else
  auto c = tl::dot(a, b, tl::float32);
#endif
  (void)c;
}
