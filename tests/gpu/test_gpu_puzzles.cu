// The 12 puzzles on the GPU: each equal to its spec, and to the CPU backend's output on the
// same inputs, at the puzzle sizes and at random sizes for every compiled block configuration.
#include "gpu_testing.hpp"
#include "harness.hpp"

namespace {

void check_puzzle_on_both(const puzzles::puzzle& p, const puzzles::sizes& n, const puzzles::constexprs& c,
                          std::uint64_t seed) {
  puzzles::request r;
  r.n = n;
  r.c = c;
  r.seed = seed;
  r.launch.backend = tl::backend::cpu;
  const auto on_cpu = p.run(r);
  r.launch.backend = tl::backend::cuda;
  const auto on_gpu = p.run(r);
  INFO("puzzle " << p.id << " sizes " << p.sizes_text(n) << " blocks " << p.constexprs_text(c) << "\n"
                 << on_gpu.error << on_gpu.report.str());
  REQUIRE(on_cpu.passed());
  REQUIRE(on_gpu.passed());
  gpu_testing::require_agree(on_cpu.yours, on_gpu.yours, 1e-4, 1e-4, "cpu vs gpu");
}

}  // namespace

TEST_CASE("every puzzle on the GPU matches its spec and the CPU backend", "[gpu][puzzles]") {
  puzzles::rng g(2026);
  for (const auto& p : puzzles::all()) {
    check_puzzle_on_both(p, p.puzzle_sizes, p.puzzle_constexprs, 1);
    for (const auto& c : p.compiled)
      for (int k = 0; k < 3; ++k) check_puzzle_on_both(p, p.random_sizes(c, g), c, 10 + std::uint64_t(k));
  }
}
