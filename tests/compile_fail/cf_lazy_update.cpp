// cause: lazy_expression_is_not_assignable; tl::op::mul
// expect: Materialize it first
// `offsets += B1` on an auto expression: the fix is tl::eval (or a tl::block).
#include <tl/kernel.hpp>
int main() {
#ifdef TL_COMPILE_FAIL
  auto offsets = tl::arange<0, 32>() * 2;
#else
  auto offsets = tl::eval(tl::arange<0, 32>() * 2);
#endif
  offsets += 32;
}
