// Tutorial 06: fused attention, forward. Spec and checker setup; the kernel is in
// t06_fused_attention.hpp.
//   6            non-causal, HEAD_DIM 64
//   6/causal     causal, HEAD_DIM 64
//   6/hd128      non-causal, HEAD_DIM 128
#include <algorithm>
#include <cmath>
#include <utility>

#include "t06_fused_attention.hpp"
#include "tutorials.hpp"

namespace {
using namespace tutorials;
// BLOCK_M, BLOCK_N, HEAD_DIM
constexpr const char* constexpr_names[] = {"B0", "B1", "B_MID"};
using blocks_64 = puzzles::configs<puzzles::cfg<64, 32, 64>, puzzles::cfg<64, 64, 64>>;
using blocks_128 = puzzles::configs<puzzles::cfg<64, 64, 128>>;

// o = softmax(q k^T sm_scale, causal or not) v per (z, h), in double; lse[i] = log2 of the sum
// of exp(s) over row i's scores (what the kernel keeps in M for a backward pass).
std::vector<double> attention_spec(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                                   int ZH, int n, int d, double sm_scale, bool causal, std::vector<double>& lse) {
  std::vector<double> o(std::size_t(ZH) * n * d, 0.0), s(static_cast<std::size_t>(n));
  lse.assign(std::size_t(ZH) * n, 0.0);
  for (int b = 0; b < ZH; ++b) {
    const std::size_t base = std::size_t(b) * n * d;
    for (int i = 0; i < n; ++i) {
      double m = -INFINITY, sum = 0;
      const int last = causal ? i : n - 1;
      for (int j = 0; j <= last; ++j) {
        double x = 0;
        for (int c = 0; c < d; ++c) x += double(q[base + std::size_t(i) * d + c]) * double(k[base + std::size_t(j) * d + c]);
        s[std::size_t(j)] = x * sm_scale;
        m = std::max(m, s[std::size_t(j)]);
      }
      for (int j = 0; j <= last; ++j) sum += std::exp(s[std::size_t(j)] - m);
      lse[std::size_t(b) * n + i] = (m + std::log(sum)) / std::log(2.0);
      for (int j = 0; j <= last; ++j) {
        const double p = std::exp(s[std::size_t(j)] - m) / sum;
        for (int c = 0; c < d; ++c) o[base + std::size_t(i) * d + c] += p * double(v[base + std::size_t(j) * d + c]);
      }
    }
  }
  return o;
}

template <class Blocks, int Stage>
puzzle attention_tutorial(std::string id, std::string title, int head_dim) {
  puzzle p;
  p.noun = "tutorial";
  p.id = std::move(id);
  p.number = 6;
  p.title = std::move(title);
  p.formula = "o = softmax(q k^T sm_scale) v per head, online softmax over BLOCK_N keys, tensor descriptors";
  p.size_names = {"N0", "N1", "T"};
  p.size_labels = {"Z", "H", "N_CTX"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.constexpr_labels = {"BLOCK_M", "BLOCK_N", "HEAD_DIM"};
  p.puzzle_sizes = {.N0 = 1, .N1 = 2, .T = 256};
  p.puzzle_constexprs = {.B0 = 64, .B1 = head_dim == 64 ? 32 : 64, .B_MID = head_dim};
  p.compiled = Blocks::list(constexpr_names);
  p.random_sizes = [](const constexprs&, rng& g) {  // N_CTX a multiple of 128, as the tutorial needs
    return sizes{.N0 = puzzles::random_int(g, 1, 2), .N1 = puzzles::random_int(g, 1, 3), .T = 128 * puzzles::random_int(g, 1, 3)};
  };
  p.buffer_shapes = [head_dim](const sizes& n, const constexprs&) {
    const int rows = n.N0 * n.N1 * n.T;
    return std::map<std::string, std::vector<int>>{
        {"q", {rows, head_dim}}, {"k", {rows, head_dim}}, {"v", {rows, head_dim}}, {"o", {rows, head_dim}}, {"M", {rows}}};
  };
  p.run = [](const request& r) {
    return Blocks::dispatch(constexpr_names, r.c, [&](auto c) {
      constexpr int BM = decltype(c)::v[0], BN = decltype(c)::v[1], HD = decltype(c)::v[2];
      const int Z = r.n.N0, H = r.n.N1, N_CTX = r.n.T;
      if (N_CTX % BM != 0 || N_CTX % BN != 0)
        throw tl::usage_error("attention: N_CTX (" + std::to_string(N_CTX) + ") must be a multiple of BLOCK_M and BLOCK_N");
      rng g(r.seed);
      const std::size_t n = std::size_t(Z) * H * N_CTX * HD;
      auto values = [&] {
        auto f = puzzles::random_floats(n, g);
        for (auto& x : f) x = float(tl::fp16(2 * x));  // in [-1, 1), as fp16
        return f;
      };
      const auto qf = values(), kf = values(), vf = values();
      auto as_fp16 = [](const std::vector<float>& f) {
        std::vector<tl::fp16> h(f.size());
        for (std::size_t i = 0; i < f.size(); ++i) h[i] = tl::fp16(f[i]);
        return h;
      };
      const auto q = as_fp16(qf), k = as_fp16(kf), v = as_fp16(vf);
      auto o = puzzles::poisoned<tl::fp16>(n);
      auto M = puzzles::poisoned(std::size_t(Z) * H * N_CTX);
      const float sm_scale = 0.5f;
      outcome out;
      out.report = tl::launch<attn_fwd<HD, BM, BN, Stage>>(tl::grid(N_CTX / BM, Z * H), r.launch, sm_scale, tl::ptr(M, "M"),
                                                            Z, H, tl::ptr(q, "q"), tl::ptr(k, "k"), tl::ptr(v, "v"),
                                                            tl::ptr(o, "o"), N_CTX);
      std::vector<float> yours(n);
      for (std::size_t i = 0; i < n; ++i) yours[i] = float(o[i]);
      // fp16 probabilities times fp16 values, an fp16 output: a few fp16 ulps of the exact result
      std::vector<double> lse;
      const auto spec = attention_spec(qf, kf, vf, Z * H, N_CTX, HD, sm_scale, Stage == 3, lse);
      puzzles::compare(out, yours, spec, {Z * H * N_CTX, HD}, 4e-3, 1e-2);
      // M, the second output.
      outcome m_check;
      puzzles::compare(m_check, M, lse, {Z * H, N_CTX}, 1e-4, 1e-4);
      add_second_output(out, m_check);
      return out;
    });
  };
  return p;
}
}  // namespace

namespace tutorials {
puzzle tutorial_06() { return attention_tutorial<blocks_64, 1>("6", "fused attention", 64); }
puzzle tutorial_06_causal() { return attention_tutorial<blocks_64, 3>("6/causal", "fused attention, causal", 64); }
puzzle tutorial_06_hd128() { return attention_tutorial<blocks_128, 1>("6/hd128", "fused attention, HEAD_DIM 128", 128); }
}  // namespace tutorials
