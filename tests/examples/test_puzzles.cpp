// The 12 puzzles: at their puzzle sizes (each pNN_*.cpp, docs/puzzles/), at random sizes and
// block configurations, and deliberately wrong kernels whose invalid accesses the CPU backend must report.
#include "testing.hpp"

#include "harness.hpp"
#include "tutorials.hpp"

using tl::None;
using tl::_;

namespace {

void require_pass(const puzzles::puzzle& p, const puzzles::outcome& o, const puzzles::sizes& n,
                  const puzzles::constexprs& c) {
  INFO("puzzle " << p.id << " at " << p.sizes_text(n) << " with " << p.constexprs_text(c));
  INFO(o.error);
  INFO(o.report.str());
  REQUIRE(o.ran);
  REQUIRE(o.report.ok());
  REQUIRE(o.mismatches == 0);
  REQUIRE(!o.spec.empty());
  REQUIRE(o.yours.size() == o.spec.size());
}

}  // namespace

TEST_CASE("all puzzles pass at the puzzle sizes", "[puzzles]") {
  REQUIRE(puzzles::all().size() == 13);  // 12 puzzles and the three-loop softmax
  for (const auto& p : puzzles::all()) {
    for (std::uint64_t seed : {0u, 1u, 2u}) {
      puzzles::request r;
      r.n = p.puzzle_sizes;
      r.c = p.puzzle_constexprs;
      r.seed = seed;
      require_pass(p, p.run(r), r.n, r.c);
    }
  }
}

TEST_CASE("all puzzles pass at random sizes and every compiled block configuration", "[puzzles][random]") {
  puzzles::rng g(7);
  for (const auto& p : puzzles::all()) {
    for (const auto& c : p.compiled) {
      for (int k = 0; k < 8; ++k) {
        puzzles::request r;
        r.c = c;
        r.n = p.random_sizes(c, g);
        r.seed = g();
        require_pass(p, p.run(r), r.n, r.c);
      }
    }
  }
}

TEST_CASE("puzzle runs are the same sequential and parallel", "[puzzles]") {
  for (const auto& p : puzzles::all()) {
    puzzles::request r;
    r.n = p.puzzle_sizes;
    r.c = p.puzzle_constexprs;
    const auto a = p.run(r);
    r.launch.sequential = true;
    const auto b = p.run(r);
    REQUIRE(a.yours == b.yours);
  }
}

TEST_CASE("the check catches a wrong result and a missing store", "[puzzles]") {
  puzzles::outcome o;
  puzzles::compare(o, {1.0f, 2.0f, NAN}, {1.0, 2.0005, 3.0}, {3});
  REQUIRE(o.mismatches == 1);  // 2.0005 is within 1e-3 + 1e-3 * 2; the NaN (never written) is not
  REQUIRE(std::isinf(o.max_abs_error));
  puzzles::compare(o, {1.0f}, {1.01}, {1});
  REQUIRE(o.mismatches == 1);
  REQUIRE(o.max_abs_error == Approx(0.01).epsilon(1e-3));
}

TEST_CASE("a tutorial's second output counts, and the map shows it when only it is wrong", "[puzzles][tutorials]") {
  puzzles::outcome right, wrong_m;
  puzzles::compare(right, {1.0f, 2.0f}, {1.0, 2.0}, {2});
  puzzles::compare(wrong_m, {5.0f}, {6.0}, {1});
  tutorials::add_second_output(right, wrong_m);
  REQUIRE(right.mismatches == 1);
  REQUIRE(right.max_abs_error == Approx(1.0));
  REQUIRE(right.shape == std::vector<int>{1});
  REQUIRE(right.yours == std::vector<float>{5.0f});
  puzzles::outcome wrong_o;  // both wrong: the map keeps the first output
  puzzles::compare(wrong_o, {1.0f, 3.0f}, {1.0, 2.0}, {2});
  tutorials::add_second_output(wrong_o, wrong_m);
  REQUIRE(wrong_o.mismatches == 2);
  REQUIRE(wrong_o.shape == std::vector<int>{2});
}

TEST_CASE("an unknown configuration is refused with a message", "[puzzles]") {
  const auto& p = *puzzles::find("2").at(0);
  puzzles::request r;
  r.n = p.puzzle_sizes;
  r.c = {.B0 = 48};
  const auto o = p.run(r);
  REQUIRE_FALSE(o.ran);
  REQUIRE(o.error.find("not compiled") != std::string::npos);
  REQUIRE(puzzles::find("8").size() == 2);
  REQUIRE(puzzles::find("13").empty());
}

// ---- deliberately wrong kernels ----

// Puzzle 2 without its mask: the last program runs past N0.
template <int B0>
TL_KERNEL void add_mask2_no_mask(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, [[maybe_unused]] int N0) {
  auto pid = tl::program_id(0);
  auto off_x = pid * B0 + tl::arange<0, B0>();
  auto x = tl::load(x_ptr + off_x);
  tl::store(z_ptr + off_x, x + 10.0f);
}

// Puzzle 4 with an off-by-one mask (<= instead of <): element N0 of x and row N1 of z are touched.
template <int B0, int B1>
TL_KERNEL void add_vec_block_off_by_one(tl::ptr<float> x_ptr, tl::ptr<float> y_ptr, tl::ptr<float> z_ptr, int N0,
                                        int N1) {
  auto off_x = tl::program_id(0) * B0 + tl::arange<0, B0>();
  auto off_y = tl::program_id(1) * B1 + tl::arange<0, B1>();
  auto off_z = off_y(_, None) * N0 + off_x(None, _);
  auto mask_x = off_x <= N0;
  auto mask_y = off_y <= N1;
  auto x = tl::load(x_ptr + off_x, mask_x);
  auto y = tl::load(y_ptr + off_y, mask_y);
  tl::store(z_ptr + off_z, x(None, _) + y(_, None), mask_y(_, None) & mask_x(None, _));
}

// Puzzle 7 with the mask of the rows only: the last column block reads past each row.
template <int B0, int B1>
TL_KERNEL void sum_row_mask_only(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, int N0, int T) {
  auto off_i = tl::program_id(0) * B0 + tl::arange<0, B0>();
  auto mask_i = off_i < N0;
  auto z = tl::zeros<B0>(tl::float32);
  for (int j : tl::range(0, T, B1)) {
    auto off_j = j + tl::arange<0, B1>();
    auto x = tl::load(x_ptr + off_i(_, None) * T + off_j(None, _), mask_i(_, None));
    z += tl::sum<1>(x);
  }
  tl::store(z_ptr + off_i, z, mask_i);
}

TEST_CASE("wrong kernels: a missing mask is reported at the right program and offsets", "[puzzles][check]") {
  std::vector<float> x(200, 1.0f), z(200, 0.0f);
  auto r = tl::launch<add_mask2_no_mask<32>>(tl::grid(7), {.failure = tl::on_failure::collect}, tl::ptr(x, "x"),
                                              tl::ptr(z, "z"), 200);
  REQUIRE(r.invalid_ops == 2);
  for (const auto& a : r.invalid) {
    REQUIRE(a.program[0] == 6);  // 6 * 32 = 192: lanes 8..31 are 200..223
    REQUIRE(a.invalid_lanes == 24);
    REQUIRE(a.first.at(0).index[0] == 8);
    REQUIRE(a.first.at(0).offset == 200);
  }
}

TEST_CASE("wrong kernels: an off-by-one mask is reported on x, y and z", "[puzzles][check]") {
  const int n0 = 100, n1 = 90;
  std::vector<float> x(n0, 1.0f), y(n1, 1.0f), z(std::size_t(n0) * n1, 0.0f);
  auto r = tl::launch<add_vec_block_off_by_one<32, 32>>(tl::grid(4, 3), {.failure = tl::on_failure::collect},
                                                         tl::ptr(x, "x"), tl::ptr(y, "y"), tl::ptr(z, "z"), n0, n1);
  REQUIRE_FALSE(r.ok());
  bool saw_x = false, saw_y = false, saw_z = false;
  for (const auto& a : r.invalid) {
    if (a.buffer == "x") {  // programs (3, *) load x[100], lane 4
      saw_x = true;
      REQUIRE(a.program[0] == 3);
      REQUIRE(a.invalid_lanes == 1);
      REQUIRE(a.first.at(0).index[0] == 4);
      REQUIRE(a.first.at(0).offset == n0);
    } else if (a.buffer == "y") {  // programs (*, 2) load y[90], lane 26
      saw_y = true;
      REQUIRE(a.program[1] == 2);
      REQUIRE(a.first.at(0).index[0] == 26);
      REQUIRE(a.first.at(0).offset == n1);
    } else {  // the store's row 90 lies past z
      saw_z = true;
      REQUIRE(a.buffer == "z");
      REQUIRE(a.op == tl::access_kind::store);
      REQUIRE(a.program[1] == 2);
      REQUIRE(a.first.at(0).offset >= std::int64_t(n0) * n1);
    }
  }
  REQUIRE((saw_x && saw_y && saw_z));
}

TEST_CASE("wrong kernels: a row-only mask reads past the end of x", "[puzzles][check]") {
  const int n0 = 4, t = 200;
  std::vector<float> x(std::size_t(n0) * t, 1.0f), z(n0, 0.0f);
  auto r = tl::launch<sum_row_mask_only<1, 32>>(tl::grid(n0), {.failure = tl::on_failure::collect}, tl::ptr(x, "x"),
                                                 tl::ptr(z, "z"), n0, t);
  // Rows 0..2 read the next row's start (in bounds, wrong numbers); row 3 reads past the end.
  REQUIRE(r.invalid_ops == 1);
  REQUIRE(r.invalid[0].program[0] == 3);
  REQUIRE(r.invalid[0].invalid_lanes == 24);
  REQUIRE(r.invalid[0].first.at(0).offset == 800);
  REQUIRE(r.invalid[0].first.at(0).index[1] == 8);  // lane (0, 8) of the block loaded at j = 192
}

// ---- what tl-puzzles prints on a failure ----
#include "puzzle_report.hpp"

TEST_CASE("the failure report shows mismatches, unwritten elements and invalid accesses", "[puzzles][report]") {
  puzzles::outcome o;
  o.ran = true;
  // A 2 x 4 output: (0, 1) wrong, (1, 3) never written.
  puzzles::compare(o, {0, 9, 2, 3, 4, 5, 6, NAN}, {0, 1, 2, 3, 4, 5, 6, 7}, {2, 4});
  const std::string map = puzzles::report::mismatch_map(o);
  REQUIRE(map.find("  .X..\n  ...?\n") != std::string::npos);
  const std::string details = puzzles::report::failure_details(o);
  REQUIRE(details.find("2 of 8 elements differ") != std::string::npos);
  REQUIRE(details.find("z[0, 1]: yours 9, spec 1") != std::string::npos);
  REQUIRE(details.find("yours (2 x 4)") != std::string::npos);
  REQUIRE(details.find("spec (2 x 4)") != std::string::npos);

  // A real wrong kernel's report is part of the details.
  std::vector<float> x(200, 1.0f), z(200, 0.0f);
  o.report = tl::launch<add_mask2_no_mask<32>>(tl::grid(7), {.failure = tl::on_failure::collect}, tl::ptr(x, "x"),
                                                tl::ptr(z, "z"), 200);
  const std::string with_report = puzzles::report::failure_details(o);
  REQUIRE(with_report.find("program (6, 0, 0): invalid load") != std::string::npos);
  REQUIRE(with_report.find("lane (8) -> offset 200") != std::string::npos);

  // Large outputs are downsampled to at most 32 x 64 cells.
  puzzles::outcome big;
  std::vector<float> yours(100 * 200, 0.0f);
  std::vector<double> spec(100 * 200, 0.0);
  yours[150 * 1 + 99 * 200] = 1.0f;
  puzzles::compare(big, yours, spec, {100, 200});
  const std::string bmap = puzzles::report::mismatch_map(big);
  REQUIRE(bmap.find("each cell 4 x 4") != std::string::npos);
  const std::string cells = bmap.substr(bmap.find('\n'));  // below the legend
  REQUIRE(std::count(cells.begin(), cells.end(), 'X') == 1);
}
