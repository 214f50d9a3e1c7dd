// cause: dot_scaled_format_unknown
// expect: tl::dot_scaled: a format must be "e2m1", "e4m3", "e5m2", "bf16" or "fp16"
// A format Triton does not name ("e3m2" is not an OCP microscaling element format).
#include <cstdint>
#include <tl/kernel.hpp>
int main() {
  tl::block<std::uint8_t, 16, 32> a;
  tl::block<std::uint8_t, 16, 2> a_scale;
  tl::block<std::uint8_t, 64, 16> b;
  tl::block<std::uint8_t, 16, 2> b_scale;
#ifdef TL_COMPILE_FAIL
  auto c = tl::dot_scaled<"e2m1", "e3m2">(a, a_scale, b, b_scale);
#else
  auto c = tl::dot_scaled<"e2m1", "e4m3">(a, a_scale, b, b_scale);
#endif
  (void)c;
}
