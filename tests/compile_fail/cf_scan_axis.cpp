// cause: axis_out_of_range; (shape<32>|Shape=tl::shape<32>)
// expect: the axis is out of range for this block
// cumsum along axis 1 of a 1-D block.
#include <tl/kernel.hpp>
int main() {
  auto x = tl::zeros<32>(tl::int32);
#ifdef TL_COMPILE_FAIL
  auto s = tl::cumsum<1>(x);
#else
  auto s = tl::cumsum<0>(x);
#endif
  (void)s;
}
