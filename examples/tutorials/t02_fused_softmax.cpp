// Tutorial 02: fused softmax. Spec and checker setup; the kernel is in t02_fused_softmax.hpp.
#include <algorithm>
#include <cmath>

#include "t02_fused_softmax.hpp"
#include "tutorials.hpp"

namespace {
constexpr const char* constexpr_names[] = {"B0"};
using blocks = puzzles::configs<puzzles::cfg<1024>, puzzles::cfg<128>>;

std::vector<double> softmax_spec(const std::vector<float>& x, int rows, int cols) {
  std::vector<double> z(x.size());
  for (int i = 0; i < rows; ++i) {
    const float* row = &x[std::size_t(i) * cols];
    double m = -INFINITY, sum = 0;
    for (int j = 0; j < cols; ++j) m = std::max(m, double(row[j]));
    for (int j = 0; j < cols; ++j) sum += std::exp(double(row[j]) - m);
    for (int j = 0; j < cols; ++j) z[std::size_t(i) * cols + j] = std::exp(double(row[j]) - m) / sum;
  }
  return z;
}
}  // namespace

namespace tutorials {
puzzle tutorial_02() {
  puzzle p;
  p.noun = "tutorial";
  p.id = "2";
  p.number = 2;
  p.title = "fused softmax";
  p.formula = "y[i,:] = exp(x[i,:] - max x[i,:]) / sum exp(..), one row a step, programs walk the rows";
  p.size_names = {"N0", "N1"};
  p.size_labels = {"n_rows", "n_cols"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.constexpr_labels = {"BLOCK_SIZE"};
  p.puzzle_sizes = {.N0 = 1823, .N1 = 781};
  p.puzzle_constexprs = {.B0 = 1024};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = [](const constexprs& c, rng& g) {
    return sizes{.N0 = puzzles::random_int(g, 1, 300), .N1 = puzzles::random_int(g, 1, c.B0)};
  };
  p.buffer_shapes = [](const sizes& n, const constexprs&) {
    return std::map<std::string, std::vector<int>>{{"input", {n.N0, n.N1}}, {"output", {n.N0, n.N1}}};
  };
  p.run = [](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
      constexpr int BLOCK_SIZE = decltype(c)::v[0];
      rng g(r.seed);
      const int rows = r.n.N0, cols = r.n.N1;
      if (cols > BLOCK_SIZE)
        throw tl::usage_error("softmax: n_cols (" + std::to_string(cols) + ") is more than BLOCK_SIZE (" +
                              std::to_string(BLOCK_SIZE) + "): a row is one block");
      auto x = puzzles::random_floats(std::size_t(rows) * cols, g);
      for (auto& v : x) v *= 8;  // a wider range than [-0.5, 0.5): the maximum matters
      const std::vector<float>& input = x;
      auto output = puzzles::poisoned(std::size_t(rows) * cols);
      // Fewer programs than rows, so that each walks several (the tutorial sizes its grid to
      // fill the multiprocessors).
      const int programs = std::min(rows, 64);
      outcome o;
      o.report = tl::launch<softmax_kernel<BLOCK_SIZE>>(tl::grid(programs), r.launch, tl::ptr(output, "output"),
                                                        tl::ptr(input, "input"), cols, cols, rows, cols);
      puzzles::compare(o, output, softmax_spec(x, rows, cols), {rows, cols}, 1e-6, 1e-4);
      return o;
    });
  };
  return p;
}
}  // namespace tutorials
