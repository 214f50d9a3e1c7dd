// cause: dot_inner_sizes_differ; tl::shape<16, 32>; tl::shape<16, 16>
// expect: the inner sizes differ
#include <tl/kernel.hpp>
int main() {
  auto a = tl::zeros<16, 32>(tl::float16);
#ifdef TL_COMPILE_FAIL
  auto b = tl::zeros<16, 16>(tl::float16);
#else
  auto b = tl::zeros<32, 16>(tl::float16);
#endif
  auto c = tl::dot(a, b);
  (void)c;
}
