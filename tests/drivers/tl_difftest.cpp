// tl-difftest: seeded differential testing of the backends (tests/drivers/difftest/difftest.hpp).
//
//   tl-difftest [--seed S] [--cases N] [--backend cpu|cuda]
//       draws N cases (programs in turn, run-time parameters from the seed), runs each on the
//       CPU backend (and the CUDA backend), compares every output element with the reference
//       and the backends with each other; a failing case is shrunk to a minimal one and printed
//       with the command that reruns it. Exit 1 if anything failed.
//   tl-difftest --program I --set m=3,n=17,... [--backend cuda]     one case, as printed
//   tl-difftest --list                                              the programs
#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <exception>
#include <map>
#include <optional>
#include <sstream>

#include "cli_numbers.hpp"
#include "difftest/difftest.hpp"

namespace {

using namespace difftest;

std::vector<program> all_programs() {
  std::vector<program> ps;
  add_elementwise_programs(ps);
  add_reduction_programs(ps);
  add_dot_programs(ps);
  add_scan_programs(ps);
  return ps;
}

// Sizes that find edge bugs: 1, a block minus one, a block, a block plus one, a few blocks.
int draw_size(std::mt19937_64& g, int block, int max_blocks) {
  std::uniform_int_distribution<int> pick(0, 6);
  switch (pick(g)) {
    case 0: return 1;
    case 1: return std::max(1, block - 1);
    case 2: return block;
    case 3: return block + 1;
    case 4: return std::uniform_int_distribution<int>(1, 8)(g);
    default: return std::uniform_int_distribution<int>(1, max_blocks * block)(g);
  }
}

params draw_params(const program& pr, std::uint64_t seed, int case_index) {
  std::mt19937_64 g(seed * 0x2545F4914F6CDD1Dull + std::uint64_t(case_index) * 0x9E3779B97F4A7C15ull + 1);
  params p;
  p.m = draw_size(g, pr.bm, 3);
  p.n = draw_size(g, pr.bn, 3);
  if (pr.bk) p.k = draw_size(g, pr.bk, 4);
  p.lay = layout(std::uniform_int_distribution<int>(0, 2)(g));
  const double keeps[] = {1.0, 1.0, 0.9, 0.5, 0.1};
  p.keep = keeps[std::uniform_int_distribution<int>(0, 4)(g)];
  const double others[] = {0.0, -1.5, 2.0, 3.25, -100.0};
  p.other = others[std::uniform_int_distribution<int>(0, 4)(g)];
  p.data = g();
  return p;
}

// "m=3,n=17,layout=col,..." applied over p.
params apply_settings(params p, const std::string& settings) {
  std::stringstream ss(settings);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw CLI::ValidationError("--set", "'" + item + "' is not key=value");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "m") p.m = std::stoi(value);
    else if (key == "n") p.n = std::stoi(value);
    else if (key == "k") p.k = std::stoi(value);
    else if (key == "keep") p.keep = std::stod(value);
    else if (key == "other") p.other = std::stod(value);
    else if (key == "data") p.data = std::stoull(value);
    else if (key == "layout") p.lay = value == "col" ? layout::col : value == "padded" ? layout::padded : layout::row;
    else throw CLI::ValidationError("--set", "unknown key '" + key + "' (m, n, k, layout, keep, other, data)");
  }
  if (p.m < 1 || p.n < 1 || p.k < 1) throw CLI::ValidationError("--set", "sizes must be at least 1");
  return p;
}

std::string number(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

// The first difference between two outputs, in words; empty if they agree.
struct difference {
  std::size_t count = 0, compared = 0, exact = 0;
  std::string first;
};
difference compare(const std::vector<double>& got, const std::vector<double>& want, const std::vector<double>& scale,
                   const tolerance& tol, const params& p, const char* got_name, const char* want_name) {
  difference d;
  d.compared = want.size();
  if (got.size() != want.size()) {
    d.count = 1;
    d.first = std::string(got_name) + " has " + std::to_string(got.size()) + " elements, " + want_name + " " +
              std::to_string(want.size());
    return d;
  }
  for (std::size_t e = 0; e < want.size(); ++e) {
    const double x = got[e], y = want[e];
    const bool both_nan = std::isnan(x) && std::isnan(y);
    if (x == y || both_nan) ++d.exact;
    const double allowed = tol.abs * (scale.empty() ? 1.0 : scale[e]) + tol.rel * std::abs(y);
    if (both_nan || x == y || std::abs(x - y) <= allowed) continue;
    if (d.count++ == 0) {
      std::string where = "element " + std::to_string(e);
      if (want.size() == std::size_t(p.m) * std::size_t(p.n) && p.n > 0)
        where += " (" + std::to_string(e / std::size_t(p.n)) + ", " + std::to_string(e % std::size_t(p.n)) + ")";
      d.first = where + ": " + got_name + " " + number(x) + ", " + want_name + " " + number(y) + " (allowed " +
                number(allowed) + ")";
    }
  }
  return d;
}

struct case_result {
  bool ok = true;
  std::string why;
  std::size_t compared = 0, exact_between_backends = 0, compared_between_backends = 0;
};

case_result run_case(const program& pr, const params& p, bool on_cuda) {
  case_result r;
  auto fail = [&](const std::string& why) {
    r.ok = false;
    if (r.why.empty()) r.why = why;
  };
  try {
    const std::vector<double> want = pr.reference(p);
    const std::vector<double> scale = pr.scale ? pr.scale(p) : std::vector<double>{};
    const outcome cpu = pr.run(p, tl::backend::cpu);
    if (!cpu.report.ok()) fail("the CPU backend reports: " + cpu.report.str());
    const difference dc = compare(cpu.out, want, scale, pr.tol, p, "cpu", "reference");
    r.compared += dc.compared;
    if (dc.count)
      fail("cpu differs from the reference at " + std::to_string(dc.count) + " of " + std::to_string(dc.compared) +
           " elements; first at " + dc.first);
    if (on_cuda) {
      const outcome gpu = pr.run(p, tl::backend::cuda);
      if (!gpu.report.ok()) fail("the CUDA backend reports: " + gpu.report.str());
      const difference dg = compare(gpu.out, want, scale, pr.tol, p, "cuda", "reference");
      const difference db = compare(gpu.out, cpu.out, scale, pr.backends_exact ? tolerance{} : pr.tol, p, "cuda", "cpu");
      r.compared += dg.compared + db.compared;
      r.exact_between_backends += db.exact;
      r.compared_between_backends += db.compared;
      if (dg.count)
        fail("cuda differs from the reference at " + std::to_string(dg.count) + " of " + std::to_string(dg.compared) +
             " elements; first at " + dg.first);
      if (db.count)
        fail("cuda differs from cpu at " + std::to_string(db.count) + " of " + std::to_string(db.compared) +
             " elements; first at " + db.first);
    }
  } catch (const std::exception& e) {
    fail(std::string("the launch threw: ") + e.what());
  }
  return r;
}

// The smallest parameters found that still fail: sizes cut, the mask, layout and `other` made
// plain, one change at a time while the case keeps failing (at most 300 runs).
params shrink(const program& pr, params p, bool on_cuda, int& runs) {
  for (bool changed = true; changed && runs < 300;) {
    changed = false;
    std::vector<params> tries;
    auto with = [&](auto change) {
      params q = p;
      change(q);
      if (q.m >= 1 && q.n >= 1 && q.k >= 1 && q.str(true) != p.str(true)) tries.push_back(q);
    };
    with([](params& q) { q.m = 1; });
    with([](params& q) { q.n = 1; });
    if (pr.bk) with([](params& q) { q.k = 1; });
    with([](params& q) { q.m /= 2; });
    with([](params& q) { q.n /= 2; });
    if (pr.bk) with([](params& q) { q.k /= 2; });
    with([](params& q) { q.m -= 1; });
    with([](params& q) { q.n -= 1; });
    if (pr.bk) with([](params& q) { q.k -= 1; });
    with([](params& q) { q.keep = 1.0; });
    with([](params& q) { q.lay = layout::row; });
    with([](params& q) { q.other = 0.0; });
    for (const params& q : tries) {
      ++runs;
      if (!run_case(pr, q, on_cuda).ok) {
        p = q;
        changed = true;
        break;
      }
    }
  }
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tl-difftest: the CPU and CUDA backends against references on seeded random block programs"};
  std::uint64_t seed = 1;
  int cases = 200;
  std::string backend_name = "cpu";
  std::optional<int> only_program;
  std::string settings;
  bool list = false, verbose = false, self_check = false;
  tl_cli::add_number(app, "--seed", seed, "seed of the cases (printed with every finding)", std::uint64_t(0),
                     std::numeric_limits<std::uint64_t>::max());
  tl_cli::add_number(app, "--cases", cases, "how many cases to draw", 1, 100000000);
  app.add_option("--backend", backend_name, "cpu: the CPU backend against the references; cuda: both backends too")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  int program_index = -1;
  tl_cli::add_number(app, "--program", program_index, "only this program (an index of --list)", 0, 1000000);
  app.add_option("--set", settings, "with --program: run one case with these parameters (m=..,n=..,k=..,layout=.."
                                    ",keep=..,other=..,data=..), as a finding prints them");
  app.add_flag("--list", list, "list the programs");
  app.add_flag("-v,--verbose", verbose, "print every case");
  app.add_flag("--self-check", self_check,
               "run program 0 against a reference made wrong at element (2, 5): it must be found and shrunk to "
               "m=3,n=6 (the test that this tool can fail)");
  CLI11_PARSE(app, argc, argv);
  if (program_index >= 0) only_program = program_index;

  std::vector<program> programs = all_programs();
  if (self_check) {  // a reference off by one at (2, 5): every case that reaches it must fail
    program& p0 = programs[0];
    p0.reference = [ref = p0.reference](const params& p) {
      std::vector<double> want = ref(p);
      if (p.m > 2 && p.n > 5) want[std::size_t(2) * std::size_t(p.n) + 5] += 1;
      return want;
    };
    only_program = 0;
  }
  if (list) {
    for (std::size_t i = 0; i < programs.size(); ++i)
      std::printf("%3zu  %-11s %s\n", i, programs[i].family.c_str(), programs[i].name.c_str());
    return 0;
  }
  if (only_program && (*only_program < 0 || *only_program >= int(programs.size()))) {
    std::fprintf(stderr, "tl-difftest: --program %d: there are %zu programs (0 to %zu; see --list)\n", *only_program,
                 programs.size(), programs.size() - 1);
    return 2;
  }
  if (!settings.empty() && !only_program) {
    std::fprintf(stderr, "tl-difftest: --set needs --program\n");
    return 2;
  }
  const bool on_cuda = backend_name == "cuda";
#if !defined(__CUDACC__)
  if (on_cuda) {
    std::fprintf(stderr, "tl-difftest: this build has no CUDA backend (configure with TL_CUDA=ON)\n");
    return 2;
  }
#else
  if (on_cuda) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
      std::printf("SKIPPED: --backend cuda needs a CUDA device; there is none here\n");
      return 77;
    }
  }
#endif

  if (!settings.empty()) {  // one case, as a finding printed it
    const program& pr = programs[std::size_t(*only_program)];
    const params p = apply_settings(draw_params(pr, seed, 0), settings);
    const case_result r = run_case(pr, p, on_cuda);
    std::printf("program #%d \"%s\" with %s: %s\n", *only_program, pr.name.c_str(), p.str(pr.bk > 0).c_str(),
                r.ok ? "all outputs agree" : r.why.c_str());
    return r.ok ? 0 : 1;
  }

  std::map<std::string, int> per_family;
  std::size_t compared = 0, exact = 0, between = 0;
  int findings = 0, shrink_runs = 0;
  for (int c = 0; c < cases; ++c) {
    const int index = only_program ? *only_program : c % int(programs.size());
    const program& pr = programs[std::size_t(index)];
    const params p = draw_params(pr, seed, c);
    ++per_family[pr.family];
    const case_result r = run_case(pr, p, on_cuda);
    compared += r.compared;
    exact += r.exact_between_backends;
    between += r.compared_between_backends;
    if (verbose) std::printf("case %d: #%d %s %s: %s\n", c, index, pr.name.c_str(), p.str(pr.bk > 0).c_str(),
                             r.ok ? "ok" : "FAILED");
    if (r.ok) continue;
    ++findings;
    int runs = 0;
    const params small = shrink(pr, p, on_cuda, runs);
    shrink_runs += runs;
    const case_result rs = run_case(pr, small, on_cuda);
    std::printf("FINDING %d: seed %llu, case %d, program #%d \"%s\" (%s)\n", findings, (unsigned long long)seed, c,
                index, pr.name.c_str(), pr.family.c_str());
    std::printf("  drawn:  %s\n          %s\n", p.str(pr.bk > 0).c_str(), r.why.c_str());
    std::printf("  minimal reproduction: %s\n          %s\n", small.str(pr.bk > 0).c_str(), rs.why.c_str());
    std::printf("  rerun:  tl-difftest --backend %s --program %d --set %s%s\n", backend_name.c_str(), index,
                small.str(pr.bk > 0).c_str(), self_check ? " --self-check" : "");
  }
  std::string families;
  for (const auto& [f, n] : per_family) families += (families.empty() ? "" : ", ") + f + " " + std::to_string(n);
  std::printf("tl-difftest: seed %llu, %d cases (%s) over %zu programs, %s against the references: %zu elements "
              "compared, %d finding(s)\n",
              (unsigned long long)seed, cases, families.c_str(), only_program ? std::size_t(1) : programs.size(),
              on_cuda ? "cpu and cuda backends" : "cpu backend", compared, findings);
  if (findings) std::printf("tl-difftest: %d runs shrank the findings\n", shrink_runs);
  if (on_cuda && between)
    std::printf("tl-difftest: cuda and cpu outputs bit for bit equal in %.2f%% of %zu elements\n",
                100.0 * double(exact) / double(between), between);
  return findings ? 1 : 0;
}
