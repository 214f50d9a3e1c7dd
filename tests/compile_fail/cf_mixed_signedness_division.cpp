// cause: integer_division_with_mixed_signedness; tl::op::div; (int, unsigned int|A=int32_t, B=uint32_t)
// expect: between signed and unsigned integer blocks are ambiguous
// Dividing an int32 block by a uint32 block.
#include <tl/kernel.hpp>
int main() {
  auto a = tl::arange<0, 8>();
#ifdef TL_COMPILE_FAIL
  auto b = tl::full<8>(2u, tl::uint32);
#else
  auto b = tl::full<8>(2, tl::int32);
#endif
  auto q = a / b;
  (void)q;
}
