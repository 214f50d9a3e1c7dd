// Puzzle 9: simple flash attention. Spec and checker setup; the kernel is in p09_simple_flash_attention.hpp.
#include "harness.hpp"
#include <p09_simple_flash_attention.hpp>  // the kernel: found by the include path (CMakeLists.txt)

static std::vector<double> flashatt_spec(const std::vector<float>& q, const std::vector<float>& k,
                                         const std::vector<float>& v) {
  std::vector<double> z(q.size());
  for (std::size_t i = 0; i < q.size(); ++i) {
    double m = -INFINITY, d = 0, acc = 0;
    for (std::size_t j = 0; j < k.size(); ++j) m = std::max(m, double(q[i]) * double(k[j]));
    for (std::size_t j = 0; j < k.size(); ++j) {
      const double e = std::exp(double(q[i]) * double(k[j]) - m);
      d += e;
      acc += e * double(v[j]);
    }
    z[i] = acc / d;
  }
  return z;
}

namespace {
// The compile-time parameters, in the order of the configurations compiled below.
constexpr const char* constexpr_names[] = {"B0", "B1"};
using blocks = puzzles::configs<puzzles::cfg<64, 32>, puzzles::cfg<16, 16>, puzzles::cfg<32, 64>>;
}  // namespace

namespace puzzles {
puzzle puzzle_09() {
  puzzle p;
  p.id = "9";
  p.number = 9;
  p.title = "simple flash attention";
  p.formula = "z[i] = sum_j softmax_j(q[i] k[j]) v[j], one loop with the online softmax";
  p.size_names = {"N0", "T"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.puzzle_sizes = {.N0 = 200, .T = 200};
  p.puzzle_constexprs = {.B0 = 64, .B1 = 32};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = [](const constexprs&, rng& g) { return sizes{.N0 = random_int(g, 1, 400), .T = random_int(g, 1, 400)}; };
  p.buffer_shapes = [](const sizes& n, const constexprs&) {
    return std::map<std::string, std::vector<int>>{{"q", {n.N0}}, {"k", {n.T}}, {"v", {n.T}}, {"z", {n.N0}}};
  };
  p.run = [](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
      constexpr int B0 = decltype(c)::v[0], B1 = decltype(c)::v[1];
      rng g(r.seed);
      auto q = random_floats(r.n.N0, g);
      auto k = random_floats(r.n.T, g);
      auto v = random_floats(r.n.T, g);
      auto z = poisoned(r.n.N0);
      outcome o;
      o.report = tl::launch<flashatt_kernel<B0, B1>>(tl::grid(tl::cdiv(r.n.N0, B0)), r.launch, tl::ptr(q, "q"),
                                                      tl::ptr(k, "k"), tl::ptr(v, "v"), tl::ptr(z, "z"), r.n.N0, r.n.T);
      compare(o, z, flashatt_spec(q, k, v), {r.n.N0});
      return o;
    });
  };
  return p;
}
}  // namespace puzzles
