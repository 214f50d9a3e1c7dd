// tl-bench cases: the memory-bound puzzles (2, 4, 5, 6, 7, 8), each against copy bandwidth.
#include <algorithm>
#include <cmath>

#include "bench.hpp"
#include "p02_constant_add_block.hpp"
#include "p04_outer_vector_add_block.hpp"
#include "p05_fused_outer_multiplication.hpp"
#include "p06_fused_outer_multiplication_backwards.hpp"
#include "p07_long_sum.hpp"
#include "p08_long_softmax.hpp"

namespace bench {

int softmax_programs_per_sm = 0;

namespace {
double relu(double x) { return x > 0 ? x : 0; }

// Puzzles 4 and 5: an outer op of a row and a column into an N1 x N0 tile grid.
template <class Launch, class F>
bench_case outer(std::string id, Launch launch, F f) {
  bench_case c;
  c.id = std::move(id);
  c.blocks = "B0=B1=64";
  c.scaled = {.N0 = 1 << 14, .N1 = 1 << 14};
  c.small = {.N0 = 200, .N1 = 150};
  c.size_text = [](const sizes& n) { return "N0=N1=" + pow2(n.N0); };
  c.layout = [](const sizes& n) {
    return std::vector<array_spec>{
        {"x", std::size_t(n.N0), kind::f32}, {"y", std::size_t(n.N1), kind::f32}, {"z", std::size_t(n.N0) * n.N1, kind::output}};
  };
  c.output = 2;
  c.launch = launch;
  c.spec_at = [=](const input_fn& in, const sizes& n, std::uint64_t e) { return f(in(0, e % n.N0), in(1, e / n.N0)); };
  c.unit = "GB/s";
  c.amount = [](const sizes& n) { return 4.0 * (n.N0 + n.N1 + double(n.N0) * n.N1); };
  c.roof = ceiling::copy;
  c.target = 0.95;
  return c;
}
}  // namespace

void add_streaming_cases(std::vector<bench_case>& cs) {
  using tl::cdiv;
  using tl::grid;
  {  // 2: z = x + 10
    bench_case c;
    c.id = "2";
    c.blocks = "B0=1024";
    c.scaled = {.N0 = 1 << 28};
    c.small = {.N0 = 3 * 1024 + 77};
    c.size_text = [](const sizes& n) { return "N0=" + pow2(n.N0); };
    c.layout = [](const sizes& n) {
      return std::vector<array_spec>{{"x", std::size_t(n.N0), kind::f32}, {"z", std::size_t(n.N0), kind::output}};
    };
    c.output = 1;
    c.launch = [](const arrays& a, const sizes& n, const tl::launch_options& o) {
      tl::launch<add_mask2_kernel<1024>>(grid(cdiv(n.N0, 1024)), o, a.f32(0), a.f32(1), n.N0);
    };
    c.spec_at = [](const input_fn& in, const sizes&, std::uint64_t i) { return in(0, i) + 10.0; };
    c.unit = "GB/s";
    c.amount = [](const sizes& n) { return 8.0 * n.N0; };
    c.roof = ceiling::copy;
    c.target = 0.95;
    cs.push_back(c);
  }
  cs.push_back(outer(
      "4",
      [](const arrays& a, const sizes& n, const tl::launch_options& o) {
        tl::launch<add_vec_block_kernel<64, 64>>(grid(cdiv(n.N0, 64), cdiv(n.N1, 64)), o, a.f32(0), a.f32(1), a.f32(2),
                                                 n.N0, n.N1);
      },
      [](double x, double y) { return x + y; }));
  cs.push_back(outer(
      "5",
      [](const arrays& a, const sizes& n, const tl::launch_options& o) {
        tl::launch<mul_relu_block_kernel<64, 64>>(grid(cdiv(n.N0, 64), cdiv(n.N1, 64)), o, a.f32(0), a.f32(1), a.f32(2),
                                                  n.N0, n.N1);
      },
      [](double x, double y) { return relu(x * y); }));
  {  // 6: dx = (x y > 0 ? y : 0) dz
    bench_case c;
    c.id = "6";
    c.blocks = "B0=B1=64";
    c.scaled = {.N0 = 1 << 14, .N1 = 1 << 14};
    c.small = {.N0 = 200, .N1 = 150};
    c.size_text = [](const sizes& n) { return "N0=N1=" + pow2(n.N0); };
    c.layout = [](const sizes& n) {
      const std::size_t nn = std::size_t(n.N0) * n.N1;
      return std::vector<array_spec>{
          {"x", nn, kind::f32}, {"y", std::size_t(n.N1), kind::f32}, {"dz", nn, kind::f32}, {"dx", nn, kind::output}};
    };
    c.output = 3;
    c.launch = [](const arrays& a, const sizes& n, const tl::launch_options& o) {
      tl::launch<mul_relu_block_back_kernel<64, 64>>(grid(cdiv(n.N0, 64), cdiv(n.N1, 64)), o, a.f32(0), a.f32(1),
                                                     a.f32(2), a.f32(3), n.N0, n.N1);
    };
    c.spec_at = [](const input_fn& in, const sizes& n, std::uint64_t e) {
      const double x = in(0, e), y = in(1, e / n.N0), dz = in(2, e);
      return (x * y > 0 ? y : 0.0) * dz;
    };
    c.unit = "GB/s";
    c.amount = [](const sizes& n) { return 4.0 * (3.0 * n.N0 * n.N1 + n.N1); };
    c.roof = ceiling::copy;
    c.target = 0.95;
    cs.push_back(c);
  }
  {  // 7: row sums
    bench_case c;
    c.id = "7";
    c.blocks = "B0=4, B1=1024";
    c.scaled = {.N0 = 1 << 14, .T = 1 << 14};
    c.small = {.N0 = 10, .T = 3000};
    c.size_text = [](const sizes& n) { return "N0=T=" + pow2(n.N0); };
    c.layout = [](const sizes& n) {
      return std::vector<array_spec>{{"x", std::size_t(n.N0) * n.T, kind::f32}, {"z", std::size_t(n.N0), kind::output}};
    };
    c.output = 1;
    c.launch = [](const arrays& a, const sizes& n, const tl::launch_options& o) {
      tl::launch<sum_kernel<4, 1024>>(grid(cdiv(n.N0, 4)), o, a.f32(0), a.f32(1), n.N0, n.T);
    };
    c.spec_at = [](const input_fn& in, const sizes& n, std::uint64_t i) {
      double s = 0;
      for (int j = 0; j < n.T; ++j) s += in(0, i * n.T + j);
      return s;
    };
    c.unit = "GB/s";
    c.amount = [](const sizes& n) { return 4.0 * n.N0 * n.T; };
    c.roof = ceiling::copy;
    c.target = 0.95;
    cs.push_back(c);
  }
  {  // 8: softmax, two loops (online max and denominator)
    bench_case c;
    c.id = "8";
    c.blocks = "B0=1, B1=1024";
    c.scaled = {.N0 = 1 << 14, .T = 1 << 14};
    c.small = {.N0 = 5, .T = 3000};
    c.size_text = [](const sizes& n) { return "N0=T=" + pow2(n.N0); };
    c.layout = [](const sizes& n) {
      const std::size_t nn = std::size_t(n.N0) * n.T;
      return std::vector<array_spec>{{"x", nn, kind::f32}, {"z", nn, kind::output}};
    };
    c.output = 1;
    if (softmax_programs_per_sm > 0) c.blocks += ", " + std::to_string(softmax_programs_per_sm) + "/SM";
    c.launch = [](const arrays& a, const sizes& n, const tl::launch_options& o) {
      tl::launch_options capped = o;
      capped.programs_per_sm = softmax_programs_per_sm;
      tl::launch<softmax_kernel<1, 1024>>(grid(n.N0), capped, a.f32(0), a.f32(1), n.N0, n.T);
    };
    c.spec_at = [](const input_fn& in, const sizes& n, std::uint64_t e) {
      const std::uint64_t row = e / n.T * n.T;
      double m = -INFINITY, s = 0;
      for (int j = 0; j < n.T; ++j) m = std::max(m, in(0, row + j));
      for (int j = 0; j < n.T; ++j) s += std::exp(in(0, row + j) - m);
      return std::exp(in(0, e) - m) / s;
    };
    c.unit = "GB/s";
    c.amount = [](const sizes& n) { return 8.0 * n.N0 * n.T; };
    c.roof = ceiling::copy;
    c.target = 0.75;
    cs.push_back(c);
  }
}

}  // namespace bench
