// Puzzle 7: long sum. Spec and checker setup; the kernel is in p07_long_sum.hpp.
#include "harness.hpp"
#include <p07_long_sum.hpp>  // the kernel: found by the include path (CMakeLists.txt)

static std::vector<double> sum_spec(const std::vector<float>& x, int n0, int t) {
  std::vector<double> z(n0, 0.0);
  for (int i = 0; i < n0; ++i)
    for (int j = 0; j < t; ++j) z[i] += x[std::size_t(i) * t + j];
  return z;
}

namespace {
// The compile-time parameters, in the order of the configurations compiled below.
constexpr const char* constexpr_names[] = {"B0", "B1"};
using blocks = puzzles::configs<puzzles::cfg<1, 32>, puzzles::cfg<4, 64>, puzzles::cfg<2, 16>>;
}  // namespace

namespace puzzles {
puzzle puzzle_07() {
  puzzle p;
  p.id = "7";
  p.number = 7;
  p.title = "long sum";
  p.formula = "z[i] = sum_j x[i,j], a loop over T in steps of B1";
  p.size_names = {"N0", "T"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.puzzle_sizes = {.N0 = 4, .T = 200};
  p.puzzle_constexprs = {.B0 = 1, .B1 = 32};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = [](const constexprs&, rng& g) { return sizes{.N0 = random_int(g, 1, 20), .T = random_int(g, 1, 500)}; };
  p.buffer_shapes = [](const sizes& n, const constexprs&) {
    return std::map<std::string, std::vector<int>>{{"x", {n.N0, n.T}}, {"z", {n.N0}}};
  };
  p.run = [](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
      constexpr int B0 = decltype(c)::v[0], B1 = decltype(c)::v[1];
      rng g(r.seed);
      auto x = random_floats(std::size_t(r.n.N0) * r.n.T, g);
      auto z = poisoned(r.n.N0);
      outcome o;
      o.report = tl::launch<sum_kernel<B0, B1>>(tl::grid(tl::cdiv(r.n.N0, B0)), r.launch, tl::ptr(x, "x"),
                                                 tl::ptr(z, "z"), r.n.N0, r.n.T);
      compare(o, z, sum_spec(x, r.n.N0, r.n.T), {r.n.N0});
      return o;
    });
  };
  return p;
}
}  // namespace puzzles
