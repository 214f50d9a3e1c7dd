// cause: op_needs_integer_operands; tl::op::shr; (<tl::op::shr, float|Type=float)
// expect: need integer or boolean blocks
#include <tl/kernel.hpp>
int main() {
  auto x = tl::zeros<4>(tl::float32);
#ifdef TL_COMPILE_FAIL
  auto y = x >> 1;
#else
  auto y = x.to(tl::int32) >> 1;
#endif
  (void)y;
}
