// Puzzle 10: two-dimensional convolution. Spec and checker setup; the kernel is in p10_conv2d.hpp.
#include "harness.hpp"
#include <p10_conv2d.hpp>  // the kernel: found by the include path (CMakeLists.txt)

static std::vector<double> conv2d_spec(const std::vector<float>& x, const std::vector<float>& k, int n0, int h,
                                       int w, int kh, int kw) {
  std::vector<double> z(std::size_t(n0) * h * w, 0.0);
  for (int i = 0; i < n0; ++i)
    for (int r = 0; r < h; ++r)
      for (int c = 0; c < w; ++c) {
        double acc = 0;
        for (int a = 0; a < kh; ++a)
          for (int b = 0; b < kw; ++b)
            if (r + a < h && c + b < w) acc += double(k[a * kw + b]) * double(x[(std::size_t(i) * h + r + a) * w + c + b]);
        z[(std::size_t(i) * h + r) * w + c] = acc;
      }
  return z;
}

namespace {
// The compile-time parameters, in the order of the configurations compiled below.
constexpr const char* constexpr_names[] = {"KH", "KW", "B0"};
using blocks = puzzles::configs<puzzles::cfg<4, 4, 1>, puzzles::cfg<4, 4, 2>, puzzles::cfg<2, 4, 4>>;
}  // namespace

namespace puzzles {
puzzle puzzle_10() {
  puzzle p;
  p.id = "10";
  p.number = 10;
  p.title = "2D convolution";
  p.formula = "z[i,h,w] = sum_{a<KH,b<KW} k[a,b] x[i,h+a,w+b], zero past the edges";
  p.size_names = {"N0", "H", "W"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.puzzle_sizes = {.N0 = 4, .H = 8, .W = 8};
  p.puzzle_constexprs = {.B0 = 1, .KH = 4, .KW = 4};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = [](const constexprs&, rng& g) {
    return sizes{.N0 = random_int(g, 1, 9), .H = random_int(g, 1, 12), .W = random_int(g, 1, 12)};
  };
  p.buffer_shapes = [](const sizes& n, const constexprs& c) {
    return std::map<std::string, std::vector<int>>{{"x", {n.N0, n.H, n.W}}, {"k", {c.KH, c.KW}}, {"z", {n.N0, n.H, n.W}}};
  };
  p.run = [](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
      constexpr int KH = decltype(c)::v[0], KW = decltype(c)::v[1], B0 = decltype(c)::v[2];
      rng g(r.seed);
      auto x = random_floats(std::size_t(r.n.N0) * r.n.H * r.n.W, g);
      auto k = random_floats(KH * KW, g);
      auto z = poisoned(x.size());
      outcome o;
      o.report = tl::launch<conv2d_kernel<KH, KW, B0>>(tl::grid(tl::cdiv(r.n.N0, B0)), r.launch, tl::ptr(x, "x"),
                                                        tl::ptr(k, "k"), tl::ptr(z, "z"), r.n.N0, r.n.H, r.n.W);
      compare(o, z, conv2d_spec(x, k, r.n.N0, r.n.H, r.n.W, KH, KW), {r.n.N0 * r.n.H, r.n.W});
      return o;
    });
  };
  return p;
}
}  // namespace puzzles
