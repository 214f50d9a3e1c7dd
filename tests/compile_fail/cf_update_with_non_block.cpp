// cause: operand_is_not_a_block_or_scalar; const char
// expect: neither a block expression nor a C\+\+ arithmetic scalar
// Adding a string to a block in place.
#include <tl/kernel.hpp>
int main() {
  tl::block<float, 8> acc = tl::zeros<8>(tl::float32);
#ifdef TL_COMPILE_FAIL
  acc += "1";
#else
  acc += 1.0f;
#endif
}
