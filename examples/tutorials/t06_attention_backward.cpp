// Tutorial 06: fused attention, backward (causal). Spec and checker setup; the kernels are in
// t06_attention_backward.hpp.
//   6/backward          HEAD_DIM 64
//   6/backward-hd128    HEAD_DIM 128
// The checker runs both kernels (attn_bwd_preprocess, then attn_bwd) on inputs the spec derives
// from random q, k, v, do: arg_k = k sm_scale / ln 2 in fp16 as the tutorial's wrapper makes it,
// and the forward pass's o and M, exact. It checks dq, dk and dv, stacked in that order, and
// Delta.
#include <algorithm>
#include <cmath>
#include <utility>

#include "t06_attention_backward.hpp"
#include "tutorials.hpp"

namespace {
using namespace tutorials;
// BLOCK_M1, BLOCK_N1, BLOCK_M2, BLOCK_N2 (BLK_SLICE_FACTOR 2)
constexpr const char* constexpr_names[] = {"B0", "B1", "B_MID", "B2"};
using blocks_64 = puzzles::configs<puzzles::cfg<32, 128, 128, 32>, puzzles::cfg<32, 64, 64, 32>>;
using blocks_128 = puzzles::configs<puzzles::cfg<32, 128, 128, 32>>;
constexpr int pre_block = 128;  // the preprocess kernel's BLOCK_M (the tutorial's PRE_BLOCK)

struct attention_grads {
  std::vector<double> o, M, delta, dq, dk, dv;
};

// The causal backward pass in double for b = Z H heads of n rows, from q, kp (k pre-scaled by
// sm_scale / ln 2: scores in base-2 units) and v: the forward's o and M (log2 of each row's sum
// of 2^s), Delta = rowsum(o do) with o as the kernel reads it (fp16), and the gradients as the
// tutorial scales them: dk = sm_scale ds^T q, dq = ln 2 ds kp, dv = p^T do.
attention_grads backward_spec(const std::vector<float>& q, const std::vector<float>& kp, const std::vector<float>& v,
                              const std::vector<float>& dout, int heads, int n, int d, double sm_scale) {
  attention_grads g;
  const std::size_t total = std::size_t(heads) * n * d;
  g.o.assign(total, 0.0);
  g.dq.assign(total, 0.0);
  g.dk.assign(total, 0.0);
  g.dv.assign(total, 0.0);
  g.M.assign(std::size_t(heads) * n, 0.0);
  g.delta.assign(std::size_t(heads) * n, 0.0);
  std::vector<double> p(std::size_t(n) * n), dp(std::size_t(n) * n);
  for (int b = 0; b < heads; ++b) {
    const std::size_t base = std::size_t(b) * n * d;
    auto at = [&](const std::vector<float>& x, int row, int c) { return double(x[base + std::size_t(row) * d + c]); };
    for (int i = 0; i < n; ++i) {
      double m = -INFINITY, sum = 0;
      for (int j = 0; j <= i; ++j) {
        double s = 0;
        for (int c = 0; c < d; ++c) s += at(q, i, c) * at(kp, j, c);
        p[std::size_t(i) * n + j] = s;
        m = std::max(m, s);
      }
      for (int j = 0; j <= i; ++j) sum += std::exp2(p[std::size_t(i) * n + j] - m);
      const double M = m + std::log2(sum);
      g.M[std::size_t(b) * n + i] = M;
      for (int j = 0; j < n; ++j) p[std::size_t(i) * n + j] = j <= i ? std::exp2(p[std::size_t(i) * n + j] - M) : 0.0;
      double delta = 0;
      for (int c = 0; c < d; ++c) {
        double o = 0;
        for (int j = 0; j <= i; ++j) o += p[std::size_t(i) * n + j] * at(v, j, c);
        g.o[base + std::size_t(i) * d + c] = o;
        delta += double(float(tl::fp16(float(o)))) * at(dout, i, c);
      }
      g.delta[std::size_t(b) * n + i] = delta;
      for (int j = 0; j <= i; ++j) {
        double x = 0;
        for (int c = 0; c < d; ++c) x += at(dout, i, c) * at(v, j, c);
        dp[std::size_t(i) * n + j] = x;
      }
    }
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) {
        const double pij = p[std::size_t(i) * n + j];
        const double ds = pij * (dp[std::size_t(i) * n + j] - g.delta[std::size_t(b) * n + i]);
        for (int c = 0; c < d; ++c) {
          g.dv[base + std::size_t(j) * d + c] += pij * at(dout, i, c);
          g.dk[base + std::size_t(j) * d + c] += sm_scale * ds * at(q, i, c);
          g.dq[base + std::size_t(i) * d + c] += std::log(2.0) * ds * at(kp, j, c);
        }
      }
  }
  return g;
}

template <class Blocks, int HEAD_DIM>
puzzle backward_tutorial(std::string id, std::string title) {
  puzzle p;
  p.noun = "tutorial";
  p.id = std::move(id);
  p.number = 6;
  p.title = std::move(title);
  p.formula = "dq, dk, dv of o = softmax(q k^T sm_scale, causal) v, from do, the forward's M and Delta = rowsum(o do)";
  p.size_names = {"N0", "N1", "T"};
  p.size_labels = {"Z", "H", "N_CTX"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.constexpr_labels = {"BLOCK_M1", "BLOCK_N1", "BLOCK_M2", "BLOCK_N2"};
  p.puzzle_sizes = {.N0 = 1, .N1 = 2, .T = 256};
  p.puzzle_constexprs = {.B0 = 32, .B1 = 128, .B2 = 32, .B_MID = 128};
  p.compiled = Blocks::list(constexpr_names);
  p.random_sizes = [](const constexprs&, rng& g) {  // N_CTX a multiple of 128, as the tutorial needs
    return sizes{.N0 = puzzles::random_int(g, 1, 2), .N1 = puzzles::random_int(g, 1, 2), .T = 128 * puzzles::random_int(g, 1, 2)};
  };
  p.buffer_shapes = [](const sizes& n, const constexprs&) {
    const int rows = n.N0 * n.N1 * n.T;
    return std::map<std::string, std::vector<int>>{
        {"q", {rows, HEAD_DIM}},  {"k", {rows, HEAD_DIM}},  {"v", {rows, HEAD_DIM}}, {"do", {rows, HEAD_DIM}},
        {"dq", {rows, HEAD_DIM}}, {"dk", {rows, HEAD_DIM}}, {"dv", {rows, HEAD_DIM}}, {"o", {rows, HEAD_DIM}},
        {"M", {rows}},            {"Delta", {rows}}};
  };
  p.run = [](const request& r) {
    return Blocks::dispatch(constexpr_names, r.c, [&](auto c) {
      constexpr int BM1 = decltype(c)::v[0], BN1 = decltype(c)::v[1], BM2 = decltype(c)::v[2], BN2 = decltype(c)::v[3];
      const int Z = r.n.N0, H = r.n.N1, N_CTX = r.n.T;
      if (N_CTX % BN1 != 0 || N_CTX % BM2 != 0 || N_CTX % pre_block != 0)
        throw tl::usage_error("attention backward: N_CTX (" + std::to_string(N_CTX) +
                              ") must be a multiple of BLOCK_N1, BLOCK_M2 and 128");
      rng g(r.seed);
      const std::size_t n = std::size_t(Z) * H * N_CTX * HEAD_DIM;
      auto values = [&] {
        auto f = puzzles::random_floats(n, g);
        for (auto& x : f) x = float(tl::fp16(2 * x));  // in [-1, 1), as fp16
        return f;
      };
      const float sm_scale = 0.5f;
      const auto qf = values(), kf = values(), vf = values(), dof = values();
      std::vector<float> kpf(n);  // the tutorial's arg_k = k * (sm_scale / ln 2), in fp16
      for (std::size_t i = 0; i < n; ++i) kpf[i] = float(tl::fp16(kf[i] * (sm_scale * 1.4426950408889634f)));
      const auto spec = backward_spec(qf, kpf, vf, dof, Z * H, N_CTX, HEAD_DIM, sm_scale);
      auto as_fp16 = [](const auto& f) {
        std::vector<tl::fp16> h(f.size());
        for (std::size_t i = 0; i < f.size(); ++i) h[i] = tl::fp16(float(f[i]));
        return h;
      };
      const auto q = as_fp16(qf), kp = as_fp16(kpf), v = as_fp16(vf), dout = as_fp16(dof), o = as_fp16(spec.o);
      std::vector<float> M(spec.M.begin(), spec.M.end());
      auto delta = puzzles::poisoned(std::size_t(Z) * H * N_CTX);
      auto dq = puzzles::poisoned<tl::fp16>(n), dk = puzzles::poisoned<tl::fp16>(n), dv = puzzles::poisoned<tl::fp16>(n);
      outcome out;
      out.report = tl::launch<attn_bwd_preprocess<pre_block, HEAD_DIM>>(
          tl::grid(N_CTX / pre_block, Z * H), r.launch, tl::ptr(o, "o"), tl::ptr(dout, "do"), tl::ptr(delta, "Delta"), Z,
          H, N_CTX);
      if (out.report.ok()) {
        const int stride_tok = HEAD_DIM, stride_h = N_CTX * HEAD_DIM, stride_z = H * stride_h;
        out.report = tl::launch<attn_bwd<BM1, BN1, BM2, BN2, 2, HEAD_DIM>>(
            tl::grid(N_CTX / BN1, 1, Z * H), r.launch, tl::ptr(q, "q"), tl::ptr(kp, "k"), tl::ptr(v, "v"), sm_scale,
            tl::ptr(dout, "do"), tl::ptr(dq, "dq"), tl::ptr(dk, "dk"), tl::ptr(dv, "dv"), tl::ptr(std::as_const(M), "M"),
            tl::ptr(std::as_const(delta), "Delta"), stride_z, stride_h, stride_tok, 1, H, N_CTX);
      }
      // dq, dk, dv stacked: rows of HEAD_DIM.
      std::vector<float> yours;
      std::vector<double> want;
      yours.reserve(3 * n);
      want.reserve(3 * n);
      for (const auto* grad : {&dq, &dk, &dv})
        for (const auto x : *grad) yours.push_back(float(x));
      for (const auto* grad : {&spec.dq, &spec.dk, &spec.dv}) want.insert(want.end(), grad->begin(), grad->end());
      // fp16 probabilities and ds in the dots, fp16 outputs.
      puzzles::compare(out, yours, want, {3 * Z * H * N_CTX, HEAD_DIM}, 5e-3, 5e-3);
      outcome delta_check;  // Delta, the first kernel's output
      puzzles::compare(delta_check, delta, spec.delta, {Z * H, N_CTX}, 1e-3, 1e-3);
      add_second_output(out, delta_check);
      return out;
    });
  };
  return p;
}
}  // namespace

namespace tutorials {
puzzle tutorial_06_backward() { return backward_tutorial<blocks_64, 64>("6/backward", "fused attention backward, causal"); }
puzzle tutorial_06_backward_hd128() {
  return backward_tutorial<blocks_128, 128>("6/backward-hd128", "fused attention backward, causal, HEAD_DIM 128");
}
}  // namespace tutorials
