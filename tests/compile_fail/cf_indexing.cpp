// cause: indexing_needs_one_colon_per_axis; arange_expr<0, 8>
// expect: takes tl::_ for each axis of x
// Two colons on a 1-D block (x[:, :] in Triton fails the same way).
#include <tl/kernel.hpp>
int main() {
  auto x = tl::arange<0, 8>();
#ifdef TL_COMPILE_FAIL
  auto y = x(tl::_, tl::_);
#else
  auto y = x(tl::_, tl::None);
#endif
  (void)y;
}
