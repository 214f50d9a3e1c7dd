// cause: hint_needs_one_value_an_axis
// expect: a list of hint values needs one value for each axis of the block
// Three hint values for a 2-D block (Triton's list has one an axis).
#include <tl/kernel.hpp>
int main() {
  auto offs = tl::arange<0, 4>()(tl::_, tl::None) * 16 + tl::arange<0, 16>()(tl::None, tl::_);
#ifdef TL_COMPILE_FAIL
  auto o = tl::multiple_of(offs, {16, 1, 1});
#else
  auto o = tl::multiple_of(offs, {16, 1});
#endif
  (void)o;
}
