// Puzzle 11: matrix multiplication. Spec and checker setup; the kernel is in p11_matmul.hpp.
#include "harness.hpp"
#include <p11_matmul.hpp>  // the kernel: found by the include path (CMakeLists.txt)

static std::vector<double> dot_spec(const std::vector<float>& x, const std::vector<float>& y, int n0, int n1, int n2,
                                    int mid) {
  std::vector<double> z(std::size_t(n2) * n0 * n1, 0.0);
  for (int i = 0; i < n2; ++i)
    for (int j = 0; j < n0; ++j)
      for (int k = 0; k < n1; ++k) {
        double acc = 0;
        for (int l = 0; l < mid; ++l)
          acc += double(x[(std::size_t(i) * n0 + j) * mid + l]) * double(y[(std::size_t(i) * mid + l) * n1 + k]);
        z[(std::size_t(i) * n0 + j) * n1 + k] = acc;
      }
  return z;
}

namespace {
// The compile-time parameters, in the order of the configurations compiled below.
constexpr const char* constexpr_names[] = {"B0", "B1", "B2", "B_MID"};
using blocks = puzzles::configs<puzzles::cfg<16, 16, 1, 16>, puzzles::cfg<32, 16, 1, 32>, puzzles::cfg<16, 32, 2, 16>>;
}  // namespace

namespace puzzles {
puzzle puzzle_11() {
  puzzle p;
  p.id = "11";
  p.number = 11;
  p.title = "matrix multiplication";
  p.formula = "z[i,j,k] = sum_l x[i,j,l] y[i,l,k], tl::dot over B_MID steps";
  p.size_names = {"N0", "N1", "N2", "MID"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.puzzle_sizes = {.N0 = 32, .N1 = 32, .N2 = 4, .MID = 64};
  p.puzzle_constexprs = {.B0 = 16, .B1 = 16, .B2 = 1, .B_MID = 16};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = [](const constexprs&, rng& g) {
    return sizes{.N0 = random_int(g, 1, 80), .N1 = random_int(g, 1, 80), .N2 = random_int(g, 1, 4),
                 .MID = random_int(g, 1, 100)};
  };
  p.buffer_shapes = [](const sizes& n, const constexprs&) {
    return std::map<std::string, std::vector<int>>{{"x", {n.N2, n.N0, n.MID}}, {"y", {n.N2, n.MID, n.N1}}, {"z", {n.N2, n.N0, n.N1}}};
  };
  p.run = [](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
          constexpr int B0 = decltype(c)::v[0], B1 = decltype(c)::v[1], B2 = decltype(c)::v[2], B_MID = decltype(c)::v[3];
          rng g(r.seed);
          auto x = random_floats(std::size_t(r.n.N2) * r.n.N0 * r.n.MID, g);
          auto y = random_floats(std::size_t(r.n.N2) * r.n.MID * r.n.N1, g);
          auto z = poisoned(std::size_t(r.n.N2) * r.n.N0 * r.n.N1);
          outcome o;
          o.report = tl::launch<dot_kernel<B0, B1, B2, B_MID>>(
              tl::grid(tl::cdiv(r.n.N0, B0), tl::cdiv(r.n.N1, B1), tl::cdiv(r.n.N2, B2)), r.launch, tl::ptr(x, "x"),
              tl::ptr(y, "y"), tl::ptr(z, "z"), r.n.N0, r.n.N1, r.n.N2, r.n.MID);
          compare(o, z, dot_spec(x, y, r.n.N0, r.n.N1, r.n.N2, r.n.MID), {r.n.N2 * r.n.N0, r.n.N1});
          return o;
        });
  };
  return p;
}
}  // namespace puzzles
