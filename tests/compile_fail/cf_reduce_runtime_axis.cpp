// cause: axis_is_a_template_argument; (sum|Op=tl::op::sum)
// expect: the axis is a template argument
// Triton's tl.sum(x, axis=1) written with the axis as a function argument.
#include <tl/kernel.hpp>
int main() {
  auto x = tl::zeros<4, 8>(tl::float32);
#ifdef TL_COMPILE_FAIL
  auto s = tl::sum(x, 1);
#else
  auto s = tl::sum<1>(x);
#endif
  (void)s;
}
