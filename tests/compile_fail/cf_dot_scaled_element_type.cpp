// cause: dot_scaled_element_type_does_not_fit
// expect: tl::dot_scaled: an operand's element type does not fit its format
// A float32 block given as "bf16" (Triton's formats name 16-bit floats, fp8 and packed fp4).
#include <cstdint>
#include <tl/kernel.hpp>
int main() {
  tl::block<std::uint8_t, 64, 16> b;
  tl::block<std::uint8_t, 16, 2> b_scale;
#ifdef TL_COMPILE_FAIL
  tl::block<float, 16, 64> a;
#else
  tl::block<tl::bf16, 16, 64> a;
#endif
  auto c = tl::dot_scaled<"bf16", "e4m3">(a, tl::None, b, b_scale);
  (void)c;
}
