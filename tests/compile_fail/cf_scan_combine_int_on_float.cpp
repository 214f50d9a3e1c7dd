// cause: combine_function_types_do_not_fit; (op::associative_scan|Op=tl::op::associative_scan); float
// expect: the combine function's parameters and result must have the block's element type
// An int combine on a float block: every partial sum would be truncated.
#include <tl/kernel.hpp>
int main() {
  auto x = tl::zeros<4, 8>(tl::float32);
#ifdef TL_COMPILE_FAIL
  auto s = tl::associative_scan<1>(x, [](int a, int b) { return a + b; });
#else
  auto s = tl::associative_scan<1>(x, [](float a, float b) { return a + b; });
#endif
  (void)s;
}
