// tl-puzzles: run and check the 12 puzzles.
//
//   tl-puzzles list
//   tl-puzzles check all                 every puzzle at its puzzle size
//   tl-puzzles check 4 --random 20       puzzle 4, then 20 random sizes and block configurations
//   tl-puzzles run 8 --verbose           `run` is `check`, printing the output as well
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "harness.hpp"

namespace {

struct settings {
  std::string which = "all";
  std::string backend = "cpu";
  std::uint64_t seed = 0;
  int random = 0;
  bool verbose = false;
  bool sequential = false;
};

std::string fmt_double(double v, int prec = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", prec, v);
  return buf;
}

// Rows x columns view of the output: the last axis is the columns.
std::pair<int, int> as_matrix(const std::vector<int>& shape) {
  if (shape.empty()) return {1, 1};
  long long rows = 1;
  for (std::size_t i = 0; i + 1 < shape.size(); ++i) rows *= shape[i];
  return {int(rows), shape.back()};
}

bool element_ok(const puzzles::outcome& o, std::size_t i) {
  const double err = std::fabs(double(o.yours[i]) - o.spec[i]);
  return err <= 1e-3 + 1e-3 * std::fabs(o.spec[i]);
}

// '.' matches, 'X' differs, '?' never written (still the NaN poison). Large outputs are
// shown downsampled: a cell is X if any element under it differs.
void print_mismatch_map(const puzzles::outcome& o) {
  const auto [rows, cols] = as_matrix(o.shape);
  const int max_cols = 64, max_rows = 32;
  const int cstep = (cols + max_cols - 1) / max_cols, rstep = (rows + max_rows - 1) / max_rows;
  std::printf("    map of the output (%d x %d%s): . match, X mismatch, ? never written\n", rows, cols,
              (cstep > 1 || rstep > 1) ? (", each cell " + std::to_string(rstep) + " x " + std::to_string(cstep)).c_str()
                                       : "");
  for (int r0 = 0; r0 < rows; r0 += rstep) {
    std::string line = "    ";
    for (int c0 = 0; c0 < cols; c0 += cstep) {
      char ch = '.';
      for (int r = r0; r < std::min(rows, r0 + rstep); ++r)
        for (int c = c0; c < std::min(cols, c0 + cstep); ++c) {
          const std::size_t i = std::size_t(r) * cols + c;
          if (std::isnan(o.yours[i])) ch = '?';
          else if (!element_ok(o, i) && ch != '?') ch = 'X';
        }
      line += ch;
    }
    std::printf("%s\n", line.c_str());
  }
}

void print_first_mismatches(const puzzles::outcome& o, int limit) {
  const auto [rows, cols] = as_matrix(o.shape);
  (void)rows;
  int shown = 0;
  for (std::size_t i = 0; i < o.spec.size() && shown < limit; ++i) {
    if (element_ok(o, i)) continue;
    std::printf("    z[%zu, %zu]: yours %s, spec %s\n", i / cols, i % cols, fmt_double(o.yours[i], 7).c_str(),
                fmt_double(o.spec[i], 7).c_str());
    ++shown;
  }
}

void print_matrix(const char* name, const std::vector<double>& v, const std::vector<int>& shape) {
  const auto [rows, cols] = as_matrix(shape);
  std::printf("    %s (%d x %d%s):\n", name, rows, cols, (rows > 16 || cols > 12) ? ", top-left corner" : "");
  for (int r = 0; r < std::min(rows, 16); ++r) {
    std::string line = "     ";
    for (int c = 0; c < std::min(cols, 12); ++c) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " %9.4f", v[std::size_t(r) * cols + c]);
      line += buf;
    }
    std::printf("%s\n", line.c_str());
  }
}

bool check_one(const puzzles::puzzle& p, const puzzles::sizes& n, const puzzles::constexprs& c, std::uint64_t seed,
               const settings& s, double& seconds) {
  puzzles::request r;
  r.n = n;
  r.c = c;
  r.seed = seed;
  r.launch.sequential = s.sequential;
  const puzzles::outcome o = p.run(r);
  seconds += o.seconds + o.report.seconds;
  const bool pass = o.passed();
  std::printf("%s  puzzle %-8s %-38s %-26s %-24s", pass ? "PASS" : "FAIL", p.id.c_str(), p.title.c_str(),
              p.sizes_text(n).c_str(), p.constexprs_text(c).c_str());
  if (!o.ran) {
    std::printf(" did not run: %s\n", o.error.c_str());
    return false;
  }
  std::printf(" max|err| %-9s invalid %-3lld %7.3f ms\n", fmt_double(o.max_abs_error, 2).c_str(),
              (long long)o.report.invalid_lanes, o.report.seconds * 1e3);
  if (!o.report.ok()) {
    std::printf("    invalid accesses (a masked-in lane outside its buffer is never read or written):\n");
    std::istringstream lines(o.report.str());
    for (std::string line; std::getline(lines, line);) std::printf("    %s\n", line.c_str());
  }
  if (o.mismatches) {
    std::printf("    %lld of %zu elements differ from the spec (atol = rtol = 1e-3); first ones:\n",
                (long long)o.mismatches, o.spec.size());
    print_first_mismatches(o, 8);
    print_mismatch_map(o);
  }
  if (s.verbose || o.mismatches) {
    if (s.verbose) {
      std::vector<double> yours(o.yours.begin(), o.yours.end());
      print_matrix("yours", yours, o.shape);
      print_matrix("spec", o.spec, o.shape);
    }
  }
  return pass;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tl-puzzles: the 12 Triton puzzles, written in tl, checked against their specs"};
  app.require_subcommand(1);
  settings s;

  auto* list = app.add_subcommand("list", "List the puzzles, their sizes and the compiled block configurations");
  auto add_run_options = [&](CLI::App* cmd) {
    cmd->add_option("puzzle", s.which, "A puzzle number (1-12), a variant id such as 8/3loop, or all")->required();
    cmd->add_option("--backend", s.backend, "cpu (checks every access) or cuda")
        ->check(CLI::IsMember({"cpu", "cuda"}));
    cmd->add_option("--seed", s.seed, "Seed of the random inputs (and of --random sizes)");
    cmd->add_option("--random", s.random, "Also check this many random sizes and block configurations per puzzle")
        ->check(CLI::NonNegativeNumber);
    cmd->add_flag("--verbose,-v", s.verbose, "Print yours and the spec's output");
    cmd->add_flag("--sequential", s.sequential, "Run programs one at a time, in grid order");
  };
  auto* check = app.add_subcommand("check", "Run puzzles and check them against their specs");
  auto* run = app.add_subcommand("run", "The same as check (prints the output with --verbose)");
  add_run_options(check);
  add_run_options(run);
  CLI11_PARSE(app, argc, argv);

  if (list->parsed()) {
    for (const auto& p : puzzles::all()) {
      std::printf("puzzle %-8s %s\n    %s\n    puzzle size: %s, %s\n    compiled:", p.id.c_str(), p.title.c_str(),
                  p.formula.c_str(), p.sizes_text(p.puzzle_sizes).c_str(),
                  p.constexprs_text(p.puzzle_constexprs).c_str());
      for (const auto& c : p.compiled) std::printf(" [%s]", p.constexprs_text(c).c_str());
      std::printf("\n");
    }
    return 0;
  }

  if (s.backend == "cuda") {
    std::fprintf(stderr, "tl-puzzles: the CUDA backend is not part of this build; use --backend cpu\n");
    return 2;
  }

  std::vector<const puzzles::puzzle*> chosen;
  if (s.which == "all") {
    for (const auto& p : puzzles::all()) chosen.push_back(&p);
  } else {
    chosen = puzzles::find(s.which);
    if (chosen.empty()) {
      std::fprintf(stderr, "tl-puzzles: no puzzle '%s' (see tl-puzzles list)\n", s.which.c_str());
      return 2;
    }
  }

  int passed = 0, failed = 0;
  double seconds = 0;
  puzzles::rng sizes_rng(s.seed ^ 0x9e3779b97f4a7c15ULL);
  for (const auto* p : chosen) {
    (check_one(*p, p->puzzle_sizes, p->puzzle_constexprs, s.seed, s, seconds) ? passed : failed)++;
    for (int k = 0; k < s.random; ++k) {
      const auto& c = p->compiled[std::size_t(puzzles::random_int(sizes_rng, 0, int(p->compiled.size()) - 1))];
      const auto n = p->random_sizes(c, sizes_rng);
      (check_one(*p, n, c, s.seed + 1 + k, s, seconds) ? passed : failed)++;
    }
  }
  std::printf("\nbackend %s, seed %llu: kernels ran %.1f ms in all\n", s.backend.c_str(), (unsigned long long)s.seed,
              seconds * 1e3);
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
