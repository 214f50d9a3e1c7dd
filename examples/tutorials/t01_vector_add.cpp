// Tutorial 01: vector addition. Spec and checker setup; the kernel is in t01_vector_add.hpp.
#include <utility>

#include "t01_vector_add.hpp"
#include "tutorials.hpp"

namespace {
constexpr const char* constexpr_names[] = {"B0"};
using blocks = puzzles::configs<puzzles::cfg<1024>, puzzles::cfg<256>>;
}  // namespace

namespace tutorials {
puzzle tutorial_01() {
  puzzle p;
  p.noun = "tutorial";
  p.id = "1";
  p.number = 1;
  p.title = "vector addition";
  p.formula = "output[i] = x[i] + y[i], BLOCK_SIZE elements a program";
  p.size_names = {"N0"};
  p.size_labels = {"n_elements"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.constexpr_labels = {"BLOCK_SIZE"};
  p.puzzle_sizes = {.N0 = 98432};
  p.puzzle_constexprs = {.B0 = 1024};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = [](const constexprs&, rng& g) { return sizes{.N0 = puzzles::random_int(g, 1, 5000)}; };
  p.buffer_shapes = [](const sizes& n, const constexprs&) {
    return std::map<std::string, std::vector<int>>{{"x", {n.N0}}, {"y", {n.N0}}, {"output", {n.N0}}};
  };
  p.run = [](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
      constexpr int BLOCK_SIZE = decltype(c)::v[0];
      rng g(r.seed);
      const int n = r.n.N0;
      const auto x = puzzles::random_floats(std::size_t(n), g);
      const auto y = puzzles::random_floats(std::size_t(n), g);
      auto output = puzzles::poisoned(std::size_t(n));
      outcome o;
      o.report = tl::launch<add_kernel<BLOCK_SIZE>>(tl::grid(tl::cdiv(n, BLOCK_SIZE)), r.launch, tl::ptr(x, "x"),
                                                    tl::ptr(y, "y"), tl::ptr(output, "output"), n);
      std::vector<double> spec(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) spec[std::size_t(i)] = double(x[std::size_t(i)]) + double(y[std::size_t(i)]);
      puzzles::compare(o, output, spec, {n});
      return o;
    });
  };
  return p;
}
}  // namespace tutorials
