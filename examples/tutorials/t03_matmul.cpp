// Tutorial 03: matrix multiplication. Checker setup; the kernel is in t03_matmul.hpp, the
// inputs and the spec in matmul_check.cpp.
//   3              C = A @ B, fp16, A and B row-major (the tutorial)
//   3/leaky_relu   the same with the leaky_relu epilogue (the tutorial's ACTIVATION)
//   3/bT           B stored column-major (b.T of a row-major N x K): the same kernel, other strides
//   3/fp8          the tutorial's fp8 inputs: A and B float8e5, B column-major, C fp16
#include <utility>

#include "matmul_check.hpp"
#include "t03_matmul.hpp"

namespace {
using namespace tutorials;
// BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M
constexpr const char* constexpr_names[] = {"B0", "B1", "B_MID", "B2"};
using blocks = puzzles::configs<puzzles::cfg<64, 64, 32, 8>, puzzles::cfg<32, 32, 32, 2>, puzzles::cfg<128, 128, 64, 8>>;

template <activation Act, b_layout BL>
puzzle matmul_tutorial(std::string id, std::string title) {
  puzzle p;
  describe_matmul(p, BL);
  p.id = std::move(id);
  p.number = 3;
  p.title = std::move(title);
  p.formula = "C = A @ B (fp16, float32 accumulator), grouped program order, pointer blocks advanced along K";
  p.compiled = blocks::list(constexpr_names);
  p.run = [](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
      constexpr int BM = decltype(c)::v[0], BN = decltype(c)::v[1], BK = decltype(c)::v[2], GM = decltype(c)::v[3];
      matmul_problem m = make_matmul(r, BL);
      outcome o;
      o.report = tl::launch<matmul_kernel<BM, BN, BK, GM, Act>>(
          tl::grid(tl::cdiv(m.M, BM) * tl::cdiv(m.N, BN)), r.launch, tl::ptr(std::as_const(m.a), "a"),
          tl::ptr(std::as_const(m.b), "b"), tl::ptr(m.c, "c"), m.M, m.N, m.K, m.K, 1, m.stride_bk, m.stride_bn, m.N, 1);
      check_matmul(o, m, Act == activation::leaky_relu);
      return o;
    });
  };
  return p;
}
// The fp8 variant: the inputs rounded to float8e5 (2 mantissa bits), their products exact in
// float32; C in fp16 within a few of its ulps of the exact sums, plus what wgmma's fp8
// accumulation (fewer bits than float32 on Hopper, as Triton's) loses over K.
puzzle matmul_tutorial_fp8() {
  using F8 = tl::fp8e5;
  puzzle p;
  describe_matmul(p, b_layout::column_major);
  p.id = "3/fp8";
  p.number = 3;
  p.title = "matmul, fp8 inputs";
  p.formula = "C = A @ B (float8e5 inputs, B column-major, float32 accumulator, fp16 C)";
  p.compiled = blocks::list(constexpr_names);
  p.run = [](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
      constexpr int BM = decltype(c)::v[0], BN = decltype(c)::v[1], BK = decltype(c)::v[2], GM = decltype(c)::v[3];
      const int M = r.n.N0, N = r.n.N1, K = r.n.MID;
      rng g(r.seed);
      std::vector<float> a_values = puzzles::random_floats(std::size_t(M) * K, g);
      std::vector<float> b_values = puzzles::random_floats(std::size_t(K) * N, g);  // (k, n) at k * N + n
      std::vector<F8> a(a_values.size()), b(b_values.size());
      for (std::size_t i = 0; i < a.size(); ++i) a_values[i] = float(a[i] = F8(a_values[i]));
      for (int k = 0; k < K; ++k)
        for (int n = 0; n < N; ++n) {
          float& v = b_values[std::size_t(k) * N + n];
          v = float(b[std::size_t(n) * K + k] = F8(v));  // stored column by column
        }
      std::vector<tl::fp16> out = puzzles::poisoned<tl::fp16>(std::size_t(M) * N);
      outcome o;
      o.report = tl::launch<matmul_kernel<BM, BN, BK, GM, activation::none, F8, tl::fp16>>(
          tl::grid(tl::cdiv(M, BM) * tl::cdiv(N, BN)), r.launch, tl::ptr(std::as_const(a), "a"),
          tl::ptr(std::as_const(b), "b"), tl::ptr(out, "c"), M, N, K, K, 1, 1, K, N, 1);
      check_matmul_values(o, M, N, K, a_values, b_values, out, false, 1e-2, 4e-3);
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
puzzle tutorial_03_fp8() { return matmul_tutorial_fp8(); }
}  // namespace tutorials
