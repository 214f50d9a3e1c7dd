// cause: combine_function_does_not_fit; (associative_scan|Op=tl::op::associative_scan)
// expect: the combine function must take two values
// A combine function of one argument (Triton's combine_fn takes two).
#include <tl/kernel.hpp>
int main() {
  auto x = tl::zeros<4, 8>(tl::float32);
#ifdef TL_COMPILE_FAIL
  auto s = tl::associative_scan<1>(x, [](float a) { return a; });
#else
  auto s = tl::associative_scan<1>(x, [](float a, float b) { return a + b; });
#endif
  (void)s;
}
