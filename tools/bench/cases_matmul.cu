// tl-bench cases: puzzle 11 in fp16 with 4 warps, and puzzle 12 (4-bit weights, tf32 dot).
#include "bench.hpp"
#include "p11_matmul.hpp"
#include "p12_quantized_matmul.hpp"

namespace bench {

void add_matmul_cases(std::vector<bench_case>& cs) {
  using tl::cdiv;
  using tl::grid;
  // 11 fp16 with 4 warps: with the dot copying the next K step ahead (num_stages), a step's
  // work is issued by half as many warps as with 8, each holding the 128 x 128 accumulator;
  // faster than 8 (docs/performance-history.md), which cases_8warps.cu times for comparison.
  auto c = matmul_case("fp16", kind::f16, 64, ceiling::cublas_f16_batched, 1e-4, TL_NUM_WARPS,
                       [](const arrays& a, const sizes& n, const tl::launch_options& o) {
                         tl::launch<dot_kernel<128, 128, 1, 64, tl::fp16, tl::ieee>>(
                             grid(cdiv(n.N0, 128), cdiv(n.N1, 128), n.N2), o, a.f16(0), a.f16(1), a.f32(2), n.N0, n.N1,
                             n.N2, n.MID);
                       });
  c.target = 0.70;
  cs.push_back(c);

  {  // 12: 4-bit quantized weights times float32 activations, tf32 dot
    bench_case d;
    d.id = "12 tf32";
    d.blocks = "B0=B1=128, B_MID=64";
    d.scaled = {.N0 = 8192, .N1 = 8192, .MID = 8192};
    d.small = {.N0 = 200, .N1 = 150, .MID = 192};
    d.size_text = [](const sizes& n) { return "N0=N1=MID=" + std::to_string(n.N0); };
    d.layout = [](const sizes& n) {
      return std::vector<array_spec>{{"scale", std::size_t(n.N0) * (n.MID / 8), kind::f32},
                                     {"offset", std::size_t(n.N0) * (n.MID / 64), kind::i32_bits},
                                     {"weight", std::size_t(n.N0) * (n.MID / 8), kind::i32_bits},
                                     {"activation", std::size_t(n.MID) * n.N1, kind::f32},
                                     {"z", std::size_t(n.N0) * n.N1, kind::output}};
    };
    d.output = 4;
    d.launch = [](const arrays& a, const sizes& n, const tl::launch_options& o) {
      tl::launch<quant_dot_kernel<128, 128, 64, tl::tf32>>(grid(cdiv(n.N0, 128), cdiv(n.N1, 128)), o, a.f32(0),
                                                           a.get<int>(1), a.get<int>(2), a.f32(3), a.f32(4), n.N0,
                                                           n.N1, n.MID);
    };
    d.spec_at = [](const input_fn& in, const sizes& n, std::uint64_t e) {
      const std::uint64_t j = e / n.N1, k = e % n.N1;
      double z = 0;
      for (int l = 0; l < n.MID; ++l) {
        const auto word = std::uint32_t(std::int32_t(in(2, j * (n.MID / 8) + l / 8)));
        const auto off = std::uint32_t(std::int32_t(in(1, j * (n.MID / 64) + l / 64)));
        const double w = double((word >> (4 * (l % 8))) & 0xF), shift = double((off >> (4 * (l / 8 % 8))) & 0xF);
        z += in(0, j * (n.MID / 8) + l / 8) * (w - shift) * in(3, std::uint64_t(l) * n.N1 + k);
      }
      return z;
    };
    d.spec_tolerance = 2e-3;
    d.unit = "TFLOP/s";
    d.amount = [](const sizes& n) { return 2.0 * n.N0 * n.N1 * n.MID; };
    d.roof = ceiling::cublas_f16_dense;
    d.target_rate = 150;
    cs.push_back(d);
  }
}

}  // namespace bench
