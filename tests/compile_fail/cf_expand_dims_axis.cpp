// cause: axis_out_of_range; tl::shape<8>; (<tl::shape<8>, 3,|Axis=3)
// expect: the axis is out of range
#include <tl/kernel.hpp>
int main() {
  auto x = tl::arange<0, 8>();
#ifdef TL_COMPILE_FAIL
  auto y = tl::expand_dims<3>(x);
#else
  auto y = tl::expand_dims<1>(x);
#endif
  (void)y;
}
