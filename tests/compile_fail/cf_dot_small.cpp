// cause: dot_sizes_below_16; tl::shape<8, 16>; tl::shape<16, 16>
// expect: at least 16
#include <tl/kernel.hpp>
int main() {
#ifdef TL_COMPILE_FAIL
  auto a = tl::zeros<8, 16>(tl::float32);
#else
  auto a = tl::zeros<16, 16>(tl::float32);
#endif
  auto b = tl::zeros<16, 16>(tl::float32);
  auto c = tl::dot(a, b);
  (void)c;
}
