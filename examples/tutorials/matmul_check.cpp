#include "matmul_check.hpp"

namespace tutorials {

matmul_problem make_matmul(const request& r, b_layout bl) {
  matmul_problem p;
  rng g(r.seed);
  p.M = r.n.N0, p.N = r.n.N1, p.K = r.n.MID;
  auto rounded = [](std::vector<float> v) {
    for (auto& x : v) x = float(tl::fp16(x));
    return v;
  };
  p.a_values = rounded(puzzles::random_floats(std::size_t(p.M) * p.K, g));
  p.b_values = rounded(puzzles::random_floats(std::size_t(p.K) * p.N, g));
  p.a.resize(p.a_values.size());
  p.b.resize(p.b_values.size());
  for (std::size_t i = 0; i < p.a.size(); ++i) p.a[i] = tl::fp16(p.a_values[i]);
  p.stride_bk = bl == b_layout::row_major ? p.N : 1;
  p.stride_bn = bl == b_layout::row_major ? 1 : p.K;
  for (int k = 0; k < p.K; ++k)
    for (int n = 0; n < p.N; ++n)
      p.b[std::size_t(k) * p.stride_bk + std::size_t(n) * p.stride_bn] = tl::fp16(p.b_values[std::size_t(k) * p.N + n]);
  p.c = puzzles::poisoned<tl::fp16>(std::size_t(p.M) * p.N);
  return p;
}

void check_matmul_values(outcome& o, int M, int N, int K, const std::vector<float>& a_values,
                         const std::vector<float>& b_values, const std::vector<tl::fp16>& c, bool leaky_relu, double atol,
                         double rtol) {
  std::vector<double> spec(std::size_t(M) * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k) s += double(a_values[std::size_t(i) * K + k]) * double(b_values[std::size_t(k) * N + j]);
      if (leaky_relu && s < 0) s *= 0.01;
      spec[std::size_t(i) * N + j] = s;
    }
  std::vector<float> yours(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) yours[i] = float(c[i]);
  puzzles::compare(o, yours, spec, {M, N}, atol, rtol);
}

void check_matmul(outcome& o, const matmul_problem& p, bool leaky_relu) {
  check_matmul_values(o, p.M, p.N, p.K, p.a_values, p.b_values, p.c, leaky_relu, 2e-3, 2e-3);
}

void describe_matmul(puzzle& p, b_layout bl) {
  p.noun = "tutorial";
  p.size_names = {"N0", "N1", "MID"};
  p.size_labels = {"M", "N", "K"};
  p.constexpr_names = {"B0", "B1", "B_MID", "B2"};
  p.constexpr_labels = {"BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M"};
  p.puzzle_sizes = {.N0 = 512, .N1 = 512, .MID = 512};
  p.puzzle_constexprs = {.B0 = 64, .B1 = 64, .B2 = 8, .B_MID = 32};
  p.random_sizes = [](const constexprs&, rng& g) {
    return sizes{.N0 = puzzles::random_int(g, 1, 200), .N1 = puzzles::random_int(g, 1, 200),
                 .MID = puzzles::random_int(g, 1, 200)};
  };
  p.buffer_shapes = [bl](const sizes& n, const constexprs&) {
    const std::vector<int> b = bl == b_layout::row_major ? std::vector<int>{n.MID, n.N1} : std::vector<int>{n.N1, n.MID};
    return std::map<std::string, std::vector<int>>{{"a", {n.N0, n.MID}}, {"b", b}, {"c", {n.N0, n.N1}}};
  };
}

}  // namespace tutorials
