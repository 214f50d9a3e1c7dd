// Elementwise programs, the first ten (the kernels: elementwise.hpp); the rest in
// elementwise_more.cpp.
#include "elementwise.hpp"

namespace difftest {

void add_elementwise_programs(std::vector<program>& ps) {
  using tl::bf16;
  using tl::fp16;
  using i32 = std::int32_t;
  const tolerance f32{1e-6, 1e-5}, half{1e-3, 2e-3}, brain{1e-2, 1.6e-2}, exact{0, 0};
  const double big = 2147483647.0;
  ps.push_back(elementwise<op_add, float, float, float, float, 32, 32, bcast::full>(-4, 4, -4, 4, f32));
  ps.back().backends_exact = true;
  ps.push_back(elementwise<op_add, fp16, fp16, fp16, fp16, 16, 64, bcast::row>(-4, 4, -4, 4, half));
  ps.back().backends_exact = true;
  ps.push_back(elementwise<op_mul, bf16, bf16, bf16, float, 64, 16, bcast::col>(-4, 4, -4, 4, brain));
  ps.back().backends_exact = true;
  ps.push_back(elementwise<op_div, float, float, float, float, 8, 128, bcast::full>(-4, 4, 0.25, 4, f32));
  ps.push_back(elementwise<op_sub, fp16, float, float, float, 32, 64, bcast::row>(-4, 4, -4, 4, f32));
  ps.back().backends_exact = true;
  ps.push_back(elementwise<op_maximum, float, float, float, float, 32, 32, bcast::col>(-4, 4, -4, 4, exact));
  ps.back().backends_exact = true;
  ps.push_back(elementwise<op_minimum, i32, i32, i32, i32, 16, 16, bcast::full>(-big, big, -big, big, exact));
  ps.back().backends_exact = true;
  ps.push_back(elementwise<op_where, fp16, fp16, fp16, fp16, 64, 64, bcast::full>(-4, 4, -4, 4, exact));
  ps.back().backends_exact = true;
  ps.push_back(elementwise<op_exp2_add, float, float, float, float, 128, 8, bcast::full>(-8, 8, -4, 4, f32));
  ps.push_back(elementwise<op_sqrt_mul, float, float, float, float, 64, 32, bcast::row>(-9, 9, -4, 4, f32));
  add_more_elementwise_programs(ps);
}

}  // namespace difftest
