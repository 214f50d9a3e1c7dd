// Tutorial 03: matrix multiplication. Spec and checker setup; the kernel is in t03_matmul.hpp.
//   3              C = A @ B, fp16, A and B row-major (the tutorial)
//   3/leaky_relu   the same with the leaky_relu epilogue (the tutorial's ACTIVATION)
//   3/bT           B stored column-major (b.T of a row-major N x K): the same kernel, other strides
#include <utility>

#include "t03_matmul.hpp"
#include "tutorials.hpp"

namespace {
// BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M
constexpr const char* constexpr_names[] = {"B0", "B1", "B_MID", "B2"};
using blocks = puzzles::configs<puzzles::cfg<64, 64, 32, 8>, puzzles::cfg<32, 32, 32, 2>, puzzles::cfg<128, 128, 64, 8>>;

enum class b_layout { row_major, column_major };

std::vector<float> fp16_values(std::vector<float> v) {
  for (auto& x : v) x = float(tl::fp16(x));
  return v;
}

template <activation Act, b_layout BL>
puzzles::puzzle matmul_tutorial(std::string id, std::string title) {
  using namespace tutorials;
  puzzle p;
  p.noun = "tutorial";
  p.id = std::move(id);
  p.number = 3;
  p.title = std::move(title);
  p.formula = "C = A @ B (fp16, float32 accumulator), grouped program order, pointer blocks advanced along K";
  p.size_names = {"N0", "N1", "MID"};
  p.size_labels = {"M", "N", "K"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.constexpr_labels = {"BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M"};
  p.puzzle_sizes = {.N0 = 512, .N1 = 512, .MID = 512};
  p.puzzle_constexprs = {.B0 = 64, .B1 = 64, .B2 = 8, .B_MID = 32};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = [](const constexprs&, rng& g) {
    return sizes{.N0 = puzzles::random_int(g, 1, 200), .N1 = puzzles::random_int(g, 1, 200),
                 .MID = puzzles::random_int(g, 1, 200)};
  };
  p.buffer_shapes = [](const sizes& n, const constexprs&) {
    const std::vector<int> b = BL == b_layout::row_major ? std::vector<int>{n.MID, n.N1} : std::vector<int>{n.N1, n.MID};
    return std::map<std::string, std::vector<int>>{{"a", {n.N0, n.MID}}, {"b", b}, {"c", {n.N0, n.N1}}};
  };
  p.run = [](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
      constexpr int BM = decltype(c)::v[0], BN = decltype(c)::v[1], BK = decltype(c)::v[2], GM = decltype(c)::v[3];
      rng g(r.seed);
      const int M = r.n.N0, N = r.n.N1, K = r.n.MID;
      const auto af = fp16_values(puzzles::random_floats(std::size_t(M) * K, g));
      const auto bf = fp16_values(puzzles::random_floats(std::size_t(K) * N, g));  // element (k, n) at k * N + n
      std::vector<tl::fp16> a(af.size()), b(bf.size());
      for (std::size_t i = 0; i < af.size(); ++i) a[i] = tl::fp16(af[i]);
      const int stride_bk = BL == b_layout::row_major ? N : 1, stride_bn = BL == b_layout::row_major ? 1 : K;
      for (int k = 0; k < K; ++k)
        for (int n = 0; n < N; ++n) b[std::size_t(k) * stride_bk + std::size_t(n) * stride_bn] = tl::fp16(bf[std::size_t(k) * N + n]);
      auto out = poisoned<tl::fp16>(std::size_t(M) * N);
      outcome o;
      o.report = tl::launch<matmul_kernel<BM, BN, BK, GM, Act>>(
          tl::grid(tl::cdiv(M, BM) * tl::cdiv(N, BN)), r.launch, tl::ptr(std::as_const(a), "a"),
          tl::ptr(std::as_const(b), "b"), tl::ptr(out, "c"), M, N, K, K, 1, stride_bk, stride_bn, N, 1);
      std::vector<double> spec(std::size_t(M) * N);
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
          double s = 0;
          for (int k = 0; k < K; ++k) s += double(af[std::size_t(i) * K + k]) * double(bf[std::size_t(k) * N + j]);
          if (Act == activation::leaky_relu && s < 0) s *= 0.01;
          spec[std::size_t(i) * N + j] = s;
        }
      std::vector<float> yours(out.size());
      for (std::size_t i = 0; i < out.size(); ++i) yours[i] = float(out[i]);
      // fp16 output: within a few of its ulps (2^-11 relative) of the exact result
      puzzles::compare(o, yours, spec, {M, N}, 2e-3, 2e-3);
      return o;
    });
  };
  return p;
}
}  // namespace

namespace tutorials {
puzzle tutorial_03() { return matmul_tutorial<activation::none, b_layout::row_major>("3", "matrix multiplication"); }
puzzle tutorial_03_leaky_relu() {
  return matmul_tutorial<activation::leaky_relu, b_layout::row_major>("3/leaky_relu", "matmul, leaky_relu epilogue");
}
puzzle tutorial_03_b_transposed() {
  return matmul_tutorial<activation::none, b_layout::column_major>("3/bT", "matmul, B column-major");
}
}  // namespace tutorials
