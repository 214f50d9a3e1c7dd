// Elementwise programs after the first ten: integer ops and casts (the kernels: elementwise.hpp).
#include "elementwise.hpp"

namespace difftest {

void add_more_elementwise_programs(std::vector<program>& ps) {
  using tl::bf16;
  using tl::fp16;
  using i32 = std::int32_t;
  using i8 = std::int8_t;
  const tolerance f32{1e-6, 1e-5}, exact{0, 0};
  const double big = 2147483647.0;
  ps.push_back(elementwise<op_xor, i32, i32, i32, i32, 32, 32, bcast::full>(-big, big, -big, big, exact));
  ps.back().backends_exact = true;
  ps.push_back(elementwise<op_shl, i32, i32, i32, i32, 16, 32, bcast::row>(-big, big, 0, 100, exact));
  ps.back().backends_exact = true;
  ps.push_back(elementwise<op_add, i8, i8, i8, i8, 32, 32, bcast::full>(-128, 127, -128, 127, exact));
  ps.back().backends_exact = true;
  ps.push_back(elementwise<op_mul, i32, i32, i32, i32, 64, 8, bcast::col>(-big, big, -big, big, exact));
  ps.back().backends_exact = true;
  ps.push_back(elementwise<op_div, i32, i32, i32, i32, 16, 16, bcast::full>(-1000, 1000, -9, 9, exact));
  ps.back().backends_exact = true;
  ps.push_back(elementwise<op_fma, float, float, float, float, 32, 16, bcast::full>(-4, 4, -4, 4, f32));
  ps.back().backends_exact = true;
  ps.push_back(elementwise<op_cast, float, float, float, fp16, 32, 64, bcast::full>(-70000, 70000, 0, 1, exact));
  ps.back().backends_exact = true;
  ps.push_back(elementwise<op_cast, float, float, float, i32, 16, 32, bcast::full>(-1000, 1000, 0, 1, exact));
  ps.back().backends_exact = true;
  ps.push_back(elementwise<op_cast, i32, i32, i32, float, 32, 16, bcast::full>(-big, big, 0, 1, exact));
  ps.back().backends_exact = true;
  ps.push_back(elementwise<op_cast, float, float, float, bf16, 16, 16, bcast::full>(-1e30, 1e30, 0, 1, exact));
  ps.back().backends_exact = true;
}

}  // namespace difftest
