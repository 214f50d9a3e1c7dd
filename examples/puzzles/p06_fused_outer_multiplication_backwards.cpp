// Puzzle 6: fused outer multiplication, backwards. Spec and checker setup; the kernel is in p06_fused_outer_multiplication_backwards.hpp.
#include "harness.hpp"
#include <p06_fused_outer_multiplication_backwards.hpp>  // the kernel: found by the include path (CMakeLists.txt)

static std::vector<double> mul_relu_block_back_spec(const std::vector<float>& x, const std::vector<float>& y,
                                                    const std::vector<float>& dz) {
  const std::size_t n0 = x.size() / y.size();
  std::vector<double> dx(x.size());
  for (std::size_t j = 0; j < y.size(); ++j)
    for (std::size_t i = 0; i < n0; ++i) {
      const std::size_t k = j * n0 + i;
      dx[k] = (double(x[k]) * double(y[j]) > 0 ? double(y[j]) : 0.0) * double(dz[k]);
    }
  return dx;
}

namespace {
// The compile-time parameters, in the order of the configurations compiled below.
constexpr const char* constexpr_names[] = {"B0", "B1"};
using blocks = puzzles::configs<puzzles::cfg<32, 32>, puzzles::cfg<16, 64>, puzzles::cfg<64, 8>>;
}  // namespace

namespace puzzles {
puzzle puzzle_06() {
  puzzle p;
  p.id = "6";
  p.number = 6;
  p.title = "fused outer multiplication, backwards";
  p.formula = "dx[j,i] = (x[j,i] * y[j] > 0 ? y[j] : 0) * dz[j,i]";
  p.size_names = {"N0", "N1"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.puzzle_sizes = {.N0 = 100, .N1 = 90};
  p.puzzle_constexprs = {.B0 = 32, .B1 = 32};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = random_sizes_2d;
  p.buffer_shapes = [](const sizes& n, const constexprs&) {
    return std::map<std::string, std::vector<int>>{{"x", {n.N1, n.N0}}, {"y", {n.N1}}, {"dz", {n.N1, n.N0}}, {"dx", {n.N1, n.N0}}};
  };
  p.run = [](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
      constexpr int B0 = decltype(c)::v[0], B1 = decltype(c)::v[1];
      rng g(r.seed);
      const std::size_t n = std::size_t(r.n.N1) * r.n.N0;
      auto x = random_floats(n, g);
      auto y = random_floats(r.n.N1, g);
      auto dz = random_floats(n, g);
      auto dx = poisoned(n);
      outcome o;
      o.report = tl::launch<mul_relu_block_back_kernel<B0, B1>>(
          tl::grid(tl::cdiv(r.n.N0, B0), tl::cdiv(r.n.N1, B1)), r.launch, tl::ptr(x, "x"), tl::ptr(y, "y"),
          tl::ptr(dz, "dz"), tl::ptr(dx, "dx"), r.n.N0, r.n.N1);
      compare(o, dx, mul_relu_block_back_spec(x, y, dz), {r.n.N1, r.n.N0});
      return o;
    });
  };
  return p;
}
}  // namespace puzzles
