// cause: dot_scaled_shapes_do_not_fit
// expect: tl::dot_scaled: lhs must be M x K and rhs K x N
// A scale block of one group per 16 elements (e8m0 scales cover 32: K/32 columns, here 2).
#include <cstdint>
#include <tl/kernel.hpp>
int main() {
  tl::block<std::uint8_t, 16, 32> a;
  tl::block<std::uint8_t, 64, 16> b;
  tl::block<std::uint8_t, 16, 2> b_scale;
#ifdef TL_COMPILE_FAIL
  tl::block<std::uint8_t, 16, 4> a_scale;
#else
  tl::block<std::uint8_t, 16, 2> a_scale;
#endif
  auto c = tl::dot_scaled<"e2m1", "e4m3">(a, a_scale, b, b_scale);
  (void)c;
}
