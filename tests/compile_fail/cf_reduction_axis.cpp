// cause: axis_out_of_range; tl::shape<4, 8>; (<tl::shape<4, 8>, 2,|Axis=2)
// expect: axis is out of range
#include <tl/kernel.hpp>
int main() {
  auto x = tl::zeros<4, 8>(tl::float32);
#ifdef TL_COMPILE_FAIL
  auto s = tl::sum<2>(x);
#else
  auto s = tl::sum<1>(x);
#endif
  (void)s;
}
