// cause: lazy_expression_cannot_be_rebound; tl::detail::binary
// expect: it cannot be rebound to another expression
// Triton's `p = p.to(tl.float16)` on an auto expression: the fix is a tl::block.
#include <tl/kernel.hpp>
int main() {
  auto x = tl::zeros<16>(tl::float32);
#ifdef TL_COMPILE_FAIL
  auto p = x * 2.0f;
  p = x + 1.0f;
#else
  tl::block<float, 16> p = x * 2.0f;
  p = x + 1.0f;
#endif
  (void)p;
}
