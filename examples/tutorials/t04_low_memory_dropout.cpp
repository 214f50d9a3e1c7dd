// Tutorial 04: low-memory dropout. Specs and checker setup; the kernels are in
// t04_low_memory_dropout.hpp.
#include <utility>

#include "philox_reference.hpp"
#include "t04_low_memory_dropout.hpp"
#include "tutorials.hpp"

namespace {
using namespace tutorials;

constexpr const char* constexpr_names[] = {"B0"};
using blocks = puzzles::configs<puzzles::cfg<1024>, puzzles::cfg<256>>;

// The drop probability: 0.5 at the tutorial's sizes, else one of a few from the request's seed.
float drop_probability(const request& r) {
  constexpr float choices[] = {0.5f, 0.1f, 0.25f, 0.9f, 0.0f};
  return choices[r.seed % 5];
}

puzzle dropout_tutorial(bool seeded) {
  puzzle p;
  p.noun = "tutorial";
  p.id = seeded ? "4" : "4/mask";
  p.number = 4;
  p.title = seeded ? "low-memory dropout (tl::rand)" : "dropout, keep mask from memory";
  p.formula = seeded ? "output[i] = rand(seed, i) > p ? x[i] / (1 - p) : 0" : "output[i] = x_keep[i] ? x[i] / (1 - p) : 0";
  p.size_names = {"N0"};
  p.size_labels = {"n_elements"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.constexpr_labels = {"BLOCK_SIZE"};
  p.puzzle_sizes = {.N0 = 98432};
  p.puzzle_constexprs = {.B0 = 1024};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = [](const constexprs&, rng& g) { return sizes{.N0 = puzzles::random_int(g, 1, 5000)}; };
  p.buffer_shapes = [seeded](const sizes& n, const constexprs&) {
    std::map<std::string, std::vector<int>> shapes{{"x", {n.N0}}, {"output", {n.N0}}};
    if (!seeded) shapes["x_keep"] = {n.N0};
    return shapes;
  };
  p.run = [seeded](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
      constexpr int BLOCK_SIZE = decltype(c)::v[0];
      rng g(r.seed);
      const int n = r.n.N0;
      const float drop = drop_probability(r);
      const int seed = int(std::uint32_t(g()));
      const auto x = puzzles::random_floats(std::size_t(n), g);
      std::vector<std::int32_t> x_keep(static_cast<std::size_t>(n));
      for (auto& k : x_keep) k = (g() % 1000) >= std::uint64_t(drop * 1000) ? 1 : 0;
      auto output = puzzles::poisoned(std::size_t(n));
      outcome o;
      if (seeded)
        o.report = tl::launch<seeded_dropout<BLOCK_SIZE>>(tl::grid(tl::cdiv(n, BLOCK_SIZE)), r.launch, tl::ptr(x, "x"),
                                                          tl::ptr(output, "output"), n, drop, seed);
      else
        o.report = tl::launch<dropout<BLOCK_SIZE>>(tl::grid(tl::cdiv(n, BLOCK_SIZE)), r.launch, tl::ptr(x, "x"),
                                                   tl::ptr(x_keep, "x_keep"), tl::ptr(output, "output"), n, drop);
      std::vector<double> spec(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) {
        const bool keep = seeded ? tutorials::reference_uniform_f32(tutorials::reference_draw(seed, i, false)[0]) > drop
                                 : x_keep[std::size_t(i)] != 0;
        spec[std::size_t(i)] = keep ? double(x[std::size_t(i)]) / (1.0 - double(drop)) : 0.0;
      }
      puzzles::compare(o, output, spec, {n});
      return o;
    });
  };
  return p;
}
}  // namespace

namespace tutorials {
puzzle tutorial_04() { return dropout_tutorial(true); }
puzzle tutorial_04_mask() { return dropout_tutorial(false); }
}  // namespace tutorials
