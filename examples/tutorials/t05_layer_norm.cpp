// Tutorial 05: layer normalization, forward and backward. Specs and checker setup; the kernels
// are in t05_layer_norm.hpp.
#include <cmath>
#include <utility>

#include "t05_layer_norm.hpp"
#include "tutorials.hpp"

namespace {
using namespace tutorials;

constexpr float eps = 1e-5f;
constexpr const char* fwd_names[] = {"B0"};
using fwd_blocks = puzzles::configs<puzzles::cfg<1024>, puzzles::cfg<256>>;
constexpr const char* bwd_names[] = {"B0", "B1"};
using bwd_blocks = puzzles::configs<puzzles::cfg<64, 1024>, puzzles::cfg<16, 256>>;

// The mean and 1 / std of each row of x (M x N), in double.
void row_moments(const std::vector<float>& x, int M, int N, std::vector<double>& mean, std::vector<double>& rstd) {
  mean.assign(std::size_t(M), 0.0);
  rstd.assign(std::size_t(M), 0.0);
  for (int r = 0; r < M; ++r) {
    double s = 0, v = 0;
    for (int c = 0; c < N; ++c) s += x[std::size_t(r * N + c)];
    const double m = s / N;
    for (int c = 0; c < N; ++c) v += (x[std::size_t(r * N + c)] - m) * (x[std::size_t(r * N + c)] - m);
    mean[std::size_t(r)] = m;
    rstd[std::size_t(r)] = 1.0 / std::sqrt(v / N + double(eps));
  }
}

puzzle forward() {
  puzzle p;
  p.noun = "tutorial";
  p.id = "5";
  p.number = 5;
  p.title = "layer norm, forward";
  p.formula = "y = (x - mean(x)) / sqrt(var(x) + eps) * w + b per row; mean and 1/std kept";
  p.size_names = {"N0", "N1"};
  p.size_labels = {"M", "N"};
  p.constexpr_names = {std::begin(fwd_names), std::end(fwd_names)};
  p.constexpr_labels = {"BLOCK_SIZE"};
  p.puzzle_sizes = {.N0 = 1151, .N1 = 1024};
  p.puzzle_constexprs = {.B0 = 1024};
  p.compiled = fwd_blocks::list(fwd_names);
  p.random_sizes = [](const constexprs& c, rng& g) {  // N beyond the block: the loops take several steps
    return sizes{.N0 = puzzles::random_int(g, 1, 64), .N1 = puzzles::random_int(g, 1, 3 * c.B0)};
  };
  p.buffer_shapes = [](const sizes& n, const constexprs&) {
    return std::map<std::string, std::vector<int>>{{"X", {n.N0, n.N1}}, {"Y", {n.N0, n.N1}}, {"W", {n.N1}},
                                                   {"B", {n.N1}},       {"Mean", {n.N0}},    {"Rstd", {n.N0}}};
  };
  p.run = [](const request& r) {
    return fwd_blocks::dispatch(fwd_names, r.c, [&](auto c) {
      constexpr int BLOCK_SIZE = decltype(c)::v[0];
      rng g(r.seed);
      const int M = r.n.N0, N = r.n.N1;
      const auto x = puzzles::random_floats(std::size_t(M) * N, g);
      auto w = puzzles::random_floats(std::size_t(N), g);
      for (auto& e : w) e += 1.0f;
      const auto b = puzzles::random_floats(std::size_t(N), g);
      auto y = puzzles::poisoned(std::size_t(M) * N);
      auto mean = puzzles::poisoned(std::size_t(M)), rstd = puzzles::poisoned(std::size_t(M));
      outcome o;
      o.report = tl::launch<layer_norm_fwd_fused<BLOCK_SIZE, float>>(
          tl::grid(M), r.launch, tl::ptr(x, "X"), tl::ptr(y, "Y"), tl::ptr(w, "W"), tl::ptr(b, "B"), tl::ptr(mean, "Mean"),
          tl::ptr(rstd, "Rstd"), N, N, eps);
      std::vector<double> m, s;
      row_moments(x, M, N, m, s);
      std::vector<double> spec(std::size_t(M) * N), moments(2 * std::size_t(M));
      for (int i = 0; i < M; ++i) {
        for (int j = 0; j < N; ++j) {
          const std::size_t k = std::size_t(i) * N + j;
          spec[k] = (x[k] - m[std::size_t(i)]) * s[std::size_t(i)] * w[std::size_t(j)] + b[std::size_t(j)];
        }
        moments[std::size_t(i)] = m[std::size_t(i)];
        moments[std::size_t(M + i)] = s[std::size_t(i)];
      }
      puzzles::compare(o, y, spec, {M, N});
      std::vector<float> got = mean;
      got.insert(got.end(), rstd.begin(), rstd.end());
      outcome second;
      puzzles::compare(second, got, moments, {2, M});
      add_second_output(o, second);
      return o;
    });
  };
  return p;
}

puzzle backward() {
  puzzle p;
  p.noun = "tutorial";
  p.id = "5/bwd";
  p.number = 5;
  p.title = "layer norm, backward (locks)";
  p.formula = "dx per row; dw = sum_rows(dy * x_hat), db = sum_rows(dy) through GROUP_SIZE_M locked partial rows";
  p.size_names = {"N0", "N1"};
  p.size_labels = {"M", "N"};
  p.constexpr_names = {std::begin(bwd_names), std::end(bwd_names)};
  p.constexpr_labels = {"GROUP_SIZE_M", "BLOCK_SIZE_N"};
  p.puzzle_sizes = {.N0 = 1151, .N1 = 1000};
  p.puzzle_constexprs = {.B0 = 64, .B1 = 1024};
  p.compiled = bwd_blocks::list(bwd_names);
  p.random_sizes = [](const constexprs& c, rng& g) {  // more rows than partial rows: the locks contend
    return sizes{.N0 = puzzles::random_int(g, 1, 300), .N1 = puzzles::random_int(g, 1, c.B1)};
  };
  p.buffer_shapes = [](const sizes& n, const constexprs& c) {
    return std::map<std::string, std::vector<int>>{{"DX", {n.N0, n.N1}}, {"DY", {n.N0, n.N1}}, {"X", {n.N0, n.N1}},
                                                   {"W", {n.N1}},         {"DW", {c.B0, n.N1}},  {"DB", {c.B0, n.N1}},
                                                   {"Mean", {n.N0}},      {"Rstd", {n.N0}},      {"Lock", {2 * c.B0}}};
  };
  p.run = [](const request& r) {
    return bwd_blocks::dispatch(bwd_names, r.c, [&](auto c) {
      constexpr int GROUP_SIZE_M = decltype(c)::v[0], BLOCK_SIZE_N = decltype(c)::v[1];
      rng g(r.seed);
      const int M = r.n.N0, N = r.n.N1;
      const auto x = puzzles::random_floats(std::size_t(M) * N, g);
      const auto dy = puzzles::random_floats(std::size_t(M) * N, g);
      auto w = puzzles::random_floats(std::size_t(N), g);
      for (auto& e : w) e += 1.0f;
      std::vector<double> m, s;
      row_moments(x, M, N, m, s);
      std::vector<float> mean(m.begin(), m.end()), rstd(s.begin(), s.end());
      auto dx = puzzles::poisoned(std::size_t(M) * N);
      std::vector<float> partial_dw(std::size_t(GROUP_SIZE_M) * N, 0.0f), partial_db(std::size_t(GROUP_SIZE_M) * N, 0.0f);
      std::vector<int> locks(2 * std::size_t(GROUP_SIZE_M), 0);
      auto dw = puzzles::poisoned(std::size_t(N)), db = puzzles::poisoned(std::size_t(N));
      outcome o;
      o.report = tl::launch<layer_norm_bwd_dx_fused<GROUP_SIZE_M, BLOCK_SIZE_N, float>>(
          tl::grid(M), r.launch, tl::ptr(dx, "DX"), tl::ptr(dy, "DY"), tl::ptr(partial_dw, "DW"), tl::ptr(partial_db, "DB"),
          tl::ptr(x, "X"), tl::ptr(w, "W"), tl::ptr(mean, "Mean"), tl::ptr(rstd, "Rstd"), tl::ptr(locks, "Lock"), N, N);
      if (o.report.ok())
        o.report = tl::launch<layer_norm_bwd_dwdb<32, 128, float>>(
            tl::grid(tl::cdiv(N, 128)), r.launch, tl::ptr<const float>(partial_dw, "DW"), tl::ptr<const float>(partial_db, "DB"),
            tl::ptr(dw, "FINAL_DW"), tl::ptr(db, "FINAL_DB"), std::min(GROUP_SIZE_M, M), N);
      // dx, then dw and db as two more rows.
      std::vector<double> spec(std::size_t(M + 2) * N, 0.0);
      for (int i = 0; i < M; ++i) {
        double c1 = 0, c2 = 0;
        for (int j = 0; j < N; ++j) {
          const std::size_t k = std::size_t(i) * N + j;
          const double xhat = (x[k] - m[std::size_t(i)]) * s[std::size_t(i)], wdy = double(w[std::size_t(j)]) * dy[k];
          c1 += xhat * wdy;
          c2 += wdy;
          spec[std::size_t(M) * N + j] += dy[k] * xhat;
          spec[std::size_t(M + 1) * N + j] += dy[k];
        }
        c1 /= N;
        c2 /= N;
        for (int j = 0; j < N; ++j) {
          const std::size_t k = std::size_t(i) * N + j;
          const double xhat = (x[k] - m[std::size_t(i)]) * s[std::size_t(i)], wdy = double(w[std::size_t(j)]) * dy[k];
          spec[k] = (wdy - (xhat * c1 + c2)) * s[std::size_t(i)];
        }
      }
      std::vector<float> got = dx;
      got.insert(got.end(), dw.begin(), dw.end());
      got.insert(got.end(), db.begin(), db.end());
      puzzles::compare(o, got, spec, {M + 2, N});
      return o;
    });
  };
  return p;
}
}  // namespace

namespace tutorials {
puzzle tutorial_05() { return forward(); }
puzzle tutorial_05_backward() { return backward(); }
}  // namespace tutorials
