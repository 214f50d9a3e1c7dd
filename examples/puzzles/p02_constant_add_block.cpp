// Puzzle 2: constant add block. Spec and checker setup; the kernel is in p02_constant_add_block.hpp.
#include "harness.hpp"
#include <p02_constant_add_block.hpp>  // the kernel: found by the include path (CMakeLists.txt)

static std::vector<double> add2_spec(const std::vector<float>& x) {
  std::vector<double> z(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) z[i] = double(x[i]) + 10.0;
  return z;
}

namespace {
// The compile-time parameters, in the order of the configurations compiled below.
constexpr const char* constexpr_names[] = {"B0"};
using blocks = puzzles::configs<puzzles::cfg<32>, puzzles::cfg<16>, puzzles::cfg<128>>;
}  // namespace

namespace puzzles {
puzzle puzzle_02() {
  puzzle p;
  p.id = "2";
  p.number = 2;
  p.title = "constant add block";
  p.formula = "z[i] = x[i] + 10, blocks of B0 < N0";
  p.size_names = {"N0"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.puzzle_sizes = {.N0 = 200};
  p.puzzle_constexprs = {.B0 = 32};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = [](const constexprs&, rng& g) { return sizes{.N0 = random_int(g, 1, 2000)}; };
  p.buffer_shapes = [](const sizes& n, const constexprs&) {
    return std::map<std::string, std::vector<int>>{{"x", {n.N0}}, {"z", {n.N0}}};
  };
  p.run = [](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
      constexpr int B0 = decltype(c)::v[0];
      rng g(r.seed);
      auto x = random_floats(r.n.N0, g);
      auto z = poisoned(r.n.N0);
      outcome o;
      o.report = tl::launch<add_mask2_kernel<B0>>(tl::grid(tl::cdiv(r.n.N0, B0)), r.launch, tl::ptr(x, "x"),
                                                   tl::ptr(z, "z"), r.n.N0);
      compare(o, z, add2_spec(x), {r.n.N0});
      return o;
    });
  };
  return p;
}
}  // namespace puzzles
