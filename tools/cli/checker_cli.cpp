// The command line of the checkers, tl-puzzles and tl-tutorials (checker_cli.hpp):
//
//   tl-puzzles list
//   tl-puzzles check all                 every puzzle at its puzzle size
//   tl-puzzles check 4 --random 20       puzzle 4, then 20 random sizes and block configurations
//   tl-puzzles run 8 --verbose           `run` is `check`, printing the output as well
//   tl-puzzles draw 4 -o p4.html         puzzle 4 on the CPU, every load and store drawn (HTML)
//
// Exit codes: 0 every check passed, 1 some failed, 2 a usage error.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>

#include <tl/runtime/access_picture.hpp>

#include "checker_cli.hpp"
#include "cli_numbers.hpp"
#include "puzzle_report.hpp"

namespace {

const checker::program* self = nullptr;  // the running checker

struct settings {
  std::string which = "all";
  std::string backend = "cpu";
  std::uint64_t seed = 0;
  int random = 0;
  bool verbose = false;
  bool sequential = false;
};

void print_indented(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) std::printf("    %s\n", line.c_str());
}

bool check_one(const puzzles::puzzle& p, const puzzles::sizes& n, const puzzles::constexprs& c, std::uint64_t seed,
               const settings& s, double& seconds) {
  puzzles::request r;
  r.n = n;
  r.c = c;
  r.seed = seed;
  r.launch.sequential = s.sequential;
  r.launch.backend = s.backend == "cuda" ? tl::backend::cuda : tl::backend::cpu;
  const puzzles::outcome o = p.run(r);
  seconds += o.report.seconds;
  std::printf("%s\n", puzzles::report::result_line(p, r, o).c_str());
  print_indented(puzzles::report::failure_details(o));
  if (s.verbose && o.passed()) {
    print_indented(puzzles::report::matrix_corner("yours", std::vector<double>(o.yours.begin(), o.yours.end()), o.shape));
    print_indented(puzzles::report::matrix_corner("spec", o.spec, o.shape));
  }
  return o.passed();
}

// "N0=40,N1=30" into sizes (or "B0=16" into constexprs): each name must be one the puzzle uses.
// Names may be the fields' (N0, B0) or the labels the puzzle gives them (M, BLOCK_SIZE_M).
template <class T>
bool parse_assignments(const std::string& text, const std::vector<std::string>& names,
                       const std::vector<std::string>& labels, T& into, const char* what) {
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    const auto eq = item.find('=');
    std::string name = item.substr(0, eq);
    for (std::size_t i = 0; i < labels.size() && i < names.size(); ++i)
      if (labels[i] == name) name = names[i];
    if (eq == std::string::npos || std::find(names.begin(), names.end(), name) == names.end()) {
      std::string known;
      for (std::size_t i = 0; i < names.size(); ++i)
        known += (known.empty() ? "" : ", ") + (i < labels.size() ? labels[i] : names[i]);
      std::fprintf(stderr, "%s: '%s' is not NAME=VALUE with a %s of this %s (%s)\n", self->name.c_str(), item.c_str(),
                   what, self->noun.c_str(), known.c_str());
      return false;
    }
    int value = 0;
    if (!tl_cli::parse_number(item.substr(eq + 1), 1, std::numeric_limits<int>::max(), value)) {
      std::fprintf(stderr, "%s: '%s': sizes and blocks are %s\n", self->name.c_str(), item.c_str(),
                   tl_cli::range_text(1, std::numeric_limits<int>::max()).c_str());
      return false;
    }
    if constexpr (std::is_same_v<T, puzzles::sizes>) {
      int* fields[] = {&into.N0, &into.N1, &into.N2, &into.T, &into.MID, &into.H, &into.W};
      const char* field_names[] = {"N0", "N1", "N2", "T", "MID", "H", "W"};
      for (int i = 0; i < 7; ++i)
        if (name == field_names[i]) *fields[i] = value;
    } else {
      int* fields[] = {&into.B0, &into.B1, &into.B2, &into.B_MID, &into.KH, &into.KW};
      const char* field_names[] = {"B0", "B1", "B2", "B_MID", "KH", "KW"};
      for (int i = 0; i < 6; ++i)
        if (name == field_names[i]) *fields[i] = value;
    }
  }
  return true;
}

// tl-puzzles draw: one puzzle on the CPU backend, traced, and its access picture written.
int draw(const puzzles::puzzle& p, const std::string& sizes_text, const std::string& blocks_text, std::string output,
         std::uint64_t seed) {
  puzzles::request r;
  r.n = p.puzzle_sizes;
  r.c = p.puzzle_constexprs;
  r.seed = seed;
  if (!parse_assignments(sizes_text, p.size_names, p.size_labels, r.n, "size") ||
      !parse_assignments(blocks_text, p.constexpr_names, p.constexpr_labels, r.c, "block size"))
    return 2;
  tl::trace t;
  r.launch.trace = &t;
  r.launch.sequential = true;
  const puzzles::outcome o = p.run(r);
  std::printf("%s\n", puzzles::report::result_line(p, r, o).c_str());
  print_indented(puzzles::report::failure_details(o));
  if (t.accesses.empty()) {
    std::fprintf(stderr, "%s: the kernel made no access to draw%s\n", self->name.c_str(), o.ran ? "" : " (it did not run)");
    return 1;
  }
  if (output.empty()) {
    output = p.noun + "-" + p.id + ".html";
    std::replace(output.begin(), output.end(), '/', '-');
  }
  try {
    tl::picture_options opt;
    opt.title = p.noun + " " + p.id + ": " + p.title + " (" + p.sizes_text(r.n) + ", " + p.constexprs_text(r.c) + ")";
    if (p.buffer_shapes) opt.shapes = p.buffer_shapes(r.n, r.c);
    tl::write_access_picture(t, output, opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", self->name.c_str(), e.what());
    return 2;
  }
  const int programs = t.grid[0] * t.grid[1] * t.grid[2];
  std::printf("wrote %s: every load and store of the %d program%s; open it in a browser\n", output.c_str(), programs,
              programs == 1 ? "" : "s");
  return o.passed() ? 0 : 1;
}

std::vector<const puzzles::puzzle*> find(const std::string& id) { return puzzles::find(self->all(), id); }

}  // namespace

int checker::main(int argc, char** argv, const program& prog) {
  self = &prog;
  const char* noun = prog.noun.c_str();
  const char* name = prog.name.c_str();
  CLI::App app{prog.description, prog.name};
  app.require_subcommand(1);
  settings s;

  auto* list = app.add_subcommand("list", prog.noun + "s, their sizes and the compiled block configurations");
  auto add_run_options = [&](CLI::App* cmd) {
    cmd->add_option(prog.noun, s.which, prog.which_help + ", or all")->required();
    cmd->add_option("--backend", s.backend, "cpu (checks every access) or cuda")
        ->check(CLI::IsMember({"cpu", "cuda"}));
    tl_cli::add_number(*cmd, "--seed", s.seed, "Seed of the random inputs (and of --random sizes)", std::uint64_t(0),
                       std::numeric_limits<std::uint64_t>::max());
    tl_cli::add_number(*cmd, "--random", s.random,
                       "Also check this many random sizes and block configurations per " + prog.noun, 0, 1000000);
    cmd->add_flag("--verbose,-v", s.verbose, "Print yours and the spec's output");
    cmd->add_flag("--sequential", s.sequential, "Run programs one at a time, in grid order");
  };
  auto* check = app.add_subcommand("check", "Run " + prog.noun + "s and check them against their specs");
  auto* run = app.add_subcommand("run", "The same as check (prints the output with --verbose)");
  add_run_options(check);
  add_run_options(run);
  std::string draw_output, draw_sizes, draw_blocks;
  auto* draw_cmd = app.add_subcommand(
      "draw", "Run one " + prog.noun + " on the CPU and draw every load and store as an HTML page (invalid accesses in red)");
  draw_cmd->add_option(prog.noun, s.which, prog.which_help)->required();
  draw_cmd->add_option("-o,--output", draw_output, "The page to write (default: " + prog.noun + "-N.html)");
  draw_cmd->add_option("--sizes", draw_sizes, "Sizes other than the " + prog.noun + "'s, as " + prog.sizes_example);
  draw_cmd->add_option("--blocks", draw_blocks, "A compiled block configuration other than the " + prog.noun + "'s, as " + prog.blocks_example);
  tl_cli::add_number(*draw_cmd, "--seed", s.seed, "Seed of the random inputs", std::uint64_t(0),
                     std::numeric_limits<std::uint64_t>::max());
  CLI11_PARSE(app, argc, argv);

  if (draw_cmd->parsed()) {
    const auto found = find(s.which);
    if (found.empty()) {
      std::fprintf(stderr, "%s: no %s '%s' (see %s list)\n", name, noun, s.which.c_str(), name);
      return 2;
    }
    const puzzles::puzzle* p = found.front();
    for (const auto* q : found)
      if (q->id == s.which) p = q;
    return draw(*p, draw_sizes, draw_blocks, draw_output, s.seed);
  }

  if (list->parsed()) {
    for (const auto& p : prog.all()) {
      std::printf("%s %-8s %s\n    %s\n    %s size: %s, %s\n    compiled:", noun, p.id.c_str(), p.title.c_str(),
                  p.formula.c_str(), noun, p.sizes_text(p.puzzle_sizes).c_str(),
                  p.constexprs_text(p.puzzle_constexprs).c_str());
      for (const auto& c : p.compiled) std::printf(" [%s]", p.constexprs_text(c).c_str());
      std::printf("\n");
    }
    return 0;
  }

  if (s.backend == "cuda") {
    if (const std::string why = puzzles::cuda_unavailable(); !why.empty()) {
      std::fprintf(stderr, "%s: cannot use the CUDA backend: %s; use --backend cpu\n", name, why.c_str());
      return 2;
    }
  }

  std::vector<const puzzles::puzzle*> chosen;
  if (s.which == "all") {
    for (const auto& p : prog.all()) chosen.push_back(&p);
  } else {
    chosen = find(s.which);
    if (chosen.empty()) {
      std::fprintf(stderr, "%s: no %s '%s' (see %s list)\n", name, noun, s.which.c_str(), name);
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
