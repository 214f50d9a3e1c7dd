// Puzzle 5: fused outer multiplication. Spec and checker setup; the kernel is in p05_fused_outer_multiplication.hpp.
#include "harness.hpp"
#include <p05_fused_outer_multiplication.hpp>  // the kernel: found by the include path (CMakeLists.txt)

namespace {
// The compile-time parameters, in the order of the configurations compiled below.
constexpr const char* constexpr_names[] = {"B0", "B1"};
using blocks = puzzles::configs<puzzles::cfg<32, 32>, puzzles::cfg<16, 64>, puzzles::cfg<64, 8>>;
}  // namespace

namespace puzzles {
puzzle puzzle_05() {
  puzzle p;
  p.id = "5";
  p.number = 5;
  p.title = "fused outer multiplication";
  p.formula = "z[j,i] = relu(x[i] * y[j])";
  p.size_names = {"N0", "N1"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.puzzle_sizes = {.N0 = 100, .N1 = 90};
  p.puzzle_constexprs = {.B0 = 32, .B1 = 32};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = random_sizes_2d;
  p.buffer_shapes = [](const sizes& n, const constexprs&) {
    return std::map<std::string, std::vector<int>>{{"x", {n.N0}}, {"y", {n.N1}}, {"z", {n.N1, n.N0}}};
  };
  p.run = [](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
      constexpr int B0 = decltype(c)::v[0], B1 = decltype(c)::v[1];
      rng g(r.seed);
      auto x = random_floats(r.n.N0, g);
      auto y = random_floats(r.n.N1, g);
      auto z = poisoned(std::size_t(r.n.N1) * r.n.N0);
      outcome o;
      o.report = tl::launch<mul_relu_block_kernel<B0, B1>>(tl::grid(tl::cdiv(r.n.N0, B0), tl::cdiv(r.n.N1, B1)), r.launch,
                                                            tl::ptr(x, "x"), tl::ptr(y, "y"), tl::ptr(z, "z"), r.n.N0, r.n.N1);
      compare(o, z, outer_spec(x, y, [](double xi, double yj) { return std::max(0.0, xi * yj); }), {r.n.N1, r.n.N0});
      return o;
    });
  };
  return p;
}
}  // namespace puzzles
