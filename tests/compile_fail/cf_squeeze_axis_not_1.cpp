// cause: squeezed_axis_is_not_1; tl::shape<4, 8>; (<tl::shape<4, 8>, 1,|Axis=1)
// expect: the axis removed must have size 1
#include <tl/kernel.hpp>
int main() {
  auto x = tl::arange<0, 8>()(tl::None, tl::_) + tl::arange<0, 4>()(tl::_, tl::None);
#ifdef TL_COMPILE_FAIL
  auto y = tl::squeeze<1>(x);
#else
  auto y = tl::squeeze<0>(tl::expand_dims<0>(x));
#endif
  (void)y;
}
