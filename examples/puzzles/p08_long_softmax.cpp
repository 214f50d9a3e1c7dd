// Puzzle 8: long softmax. Spec and checker setup; the kernel is in p08_long_softmax.hpp.
#include "harness.hpp"
#include <p08_long_softmax.hpp>  // the kernel: found by the include path (CMakeLists.txt)

static std::vector<double> softmax_spec(const std::vector<float>& x, int n0, int t) {
  std::vector<double> z(x.size());
  for (int i = 0; i < n0; ++i) {
    const float* row = x.data() + std::size_t(i) * t;
    double m = -INFINITY, d = 0;
    for (int j = 0; j < t; ++j) m = std::max(m, double(row[j]));
    for (int j = 0; j < t; ++j) d += std::exp(double(row[j]) - m);
    for (int j = 0; j < t; ++j) z[std::size_t(i) * t + j] = std::exp(double(row[j]) - m) / d;
  }
  return z;
}

namespace {
// The compile-time parameters, in the order of the configurations compiled below.
constexpr const char* constexpr_names[] = {"B0", "B1"};
using blocks = puzzles::configs<puzzles::cfg<1, 32>, puzzles::cfg<4, 64>, puzzles::cfg<2, 16>>;
}  // namespace

namespace puzzles {
template <template <int, int> class Kernel>
static outcome run_softmax(const request& r) {
  return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
    constexpr int B0 = decltype(c)::v[0], B1 = decltype(c)::v[1];
    rng g(r.seed);
    auto x = random_floats(std::size_t(r.n.N0) * r.n.T, g);
    auto z = poisoned(x.size());
    outcome o;
    o.report = tl::launch<Kernel<B0, B1>::run>(tl::grid(tl::cdiv(r.n.N0, B0)), r.launch, tl::ptr(x, "x"),
                                                tl::ptr(z, "z"), r.n.N0, r.n.T);
    compare(o, z, softmax_spec(x, r.n.N0, r.n.T), {r.n.N0, r.n.T});
    return o;
  });
}

template <int B0, int B1>
struct two_loops {
  static constexpr auto run = softmax_kernel<B0, B1>;
};
template <int B0, int B1>
struct three_loops {
  static constexpr auto run = softmax_kernel_three_loops<B0, B1>;
};

static puzzle softmax_puzzle(std::string id, std::string formula) {
  puzzle p;
  p.id = std::move(id);
  p.number = 8;
  p.title = "long softmax";
  p.formula = std::move(formula);
  p.size_names = {"N0", "T"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.puzzle_sizes = {.N0 = 4, .T = 200};
  p.puzzle_constexprs = {.B0 = 1, .B1 = 32};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = [](const constexprs&, rng& g) { return sizes{.N0 = random_int(g, 1, 20), .T = random_int(g, 1, 500)}; };
  p.buffer_shapes = [](const sizes& n, const constexprs&) {
    return std::map<std::string, std::vector<int>>{{"x", {n.N0, n.T}}, {"z", {n.N0, n.T}}};
  };
  return p;
}

puzzle puzzle_08() {
  puzzle p = softmax_puzzle("8", "z[i,:] = softmax(x[i,:]), two loops (online max and denominator)");
  p.run = run_softmax<two_loops>;
  return p;
}

puzzle puzzle_08_three_loops() {
  puzzle p = softmax_puzzle("8/3loop", "z[i,:] = softmax(x[i,:]), three loops (max, denominator, output)");
  p.run = run_softmax<three_loops>;
  return p;
}
}  // namespace puzzles
