// tl-bench cases: puzzle 9 (flash attention on scalars) and puzzle 10 (a 2-D convolution) with
// Triton's default 4 warps; puzzle 10 with 8 is in cases_8warps.cu.
#include <algorithm>
#include <cmath>

#include "bench.hpp"
#include "p09_simple_flash_attention.hpp"
#include "p10_conv2d.hpp"

namespace bench {

void add_attention_cases(std::vector<bench_case>& cs) {
  using tl::cdiv;
  using tl::grid;
  {  // 9: flash attention on scalars
    bench_case c;
    c.id = "9";
    c.blocks = "B0=B1=128";
    c.scaled = {.N0 = 1 << 16, .T = 1 << 16};
    c.small = {.N0 = 300, .T = 400};
    c.size_text = [](const sizes& n) { return "N0=T=" + pow2(n.N0); };
    c.layout = [](const sizes& n) {
      return std::vector<array_spec>{{"q", std::size_t(n.N0), kind::f32},
                                     {"k", std::size_t(n.T), kind::f32},
                                     {"v", std::size_t(n.T), kind::f32},
                                     {"z", std::size_t(n.N0), kind::output}};
    };
    c.output = 3;
    c.launch = [](const arrays& a, const sizes& n, const tl::launch_options& o) {
      tl::launch<flashatt_kernel<128, 128>>(grid(cdiv(n.N0, 128)), o, a.f32(0), a.f32(1), a.f32(2), a.f32(3), n.N0,
                                            n.T);
    };
    c.spec_at = [](const input_fn& in, const sizes& n, std::uint64_t i) {
      const double q = in(0, i);
      double m = -INFINITY, s = 0, z = 0;
      for (int j = 0; j < n.T; ++j) m = std::max(m, q * in(1, j));
      for (int j = 0; j < n.T; ++j) {
        const double p = std::exp(q * in(1, j) - m);
        s += p;
        z += p * in(2, j);
      }
      return z / s;
    };
    c.unit = "Gpair/s";
    c.amount = [](const sizes& n) { return double(n.N0) * n.T; };
    c.target = 11.0;  // ms
    cs.push_back(c);
  }
  // 10 with 4 warps, for comparison with Triton's default (no target)
  cs.push_back(conv_case("10 4w", 4, [](const arrays& a, const sizes& n, const tl::launch_options& o) {
    tl::launch<conv2d_kernel<4, 4, 32>>(grid(cdiv(n.N0, 32)), o, a.f32(0), a.f32(1), a.f32(2), n.N0, n.H, n.W);
  }));
}

}  // namespace bench
