// cause: trans_without_axes_needs_2d; tl::shape<2, 4, 8>
// expect: without axes transposes a 2-D block
// trans() of a 3-D block without saying which axes.
#include <tl/kernel.hpp>
int main() {
  auto x = tl::zeros<2, 4, 8>(tl::float32);
#ifdef TL_COMPILE_FAIL
  auto t = tl::trans(x);
#else
  auto t = tl::trans<0, 2, 1>(x);
#endif
  (void)t;
}
