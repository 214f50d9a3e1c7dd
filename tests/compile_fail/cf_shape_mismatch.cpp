// cause: operands_have_incompatible_shapes; tl::op::add; tl::shape<4>; tl::shape<8>
// expect: cannot be broadcast together
// Adding a 4-block to an 8-block: the message names the op and both shapes.
#include <tl/kernel.hpp>
int main() {
  auto a = tl::arange<0, 4>();
  auto b = tl::arange<0, 8>();
#ifdef TL_COMPILE_FAIL
  auto c = a + b;
#else
  auto c = a(tl::_, tl::None) + b(tl::None, tl::_);  // the outer sum was meant
#endif
  (void)c;
}
