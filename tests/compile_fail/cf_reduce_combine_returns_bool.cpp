// cause: combine_function_types_do_not_fit; (op::reduce|Op=tl::op::reduce)
// expect: the combine function's parameters and result must have the block's element type
// A combine that returns a comparison: C++ would convert the bool to 0 or 1 (Triton's combine_fn
// returns the larger value).
#include <tl/kernel.hpp>
int main() {
  auto x = tl::zeros<4, 8>(tl::float32);
#ifdef TL_COMPILE_FAIL
  auto m = tl::reduce<0>(x, [](float a, float b) { return a > b; });
#else
  auto m = tl::reduce<0>(x, [](float a, float b) { return a > b ? a : b; });
#endif
  (void)m;
}
