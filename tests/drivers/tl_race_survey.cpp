// tl-race-survey: what race detection finds and what it costs, on either backend.
//
//   tl-race-survey planted [--backend cpu|cuda]
//     Kernels with a race planted in them, each a mistake users make (a forgotten program id,
//     overlapping tiles, an in-place shift, partial sums stored to one place, split-K without
//     atomics, two views of one buffer, ...), and kernels that look alike but do not race. Every
//     planted race must be reported on the buffer it is in, and nothing else; the table says
//     what each launch reported. Exit code 0 when all are found and no clean kernel is reported.
//
//   tl-race-survey cost [--backend cpu|cuda] [--reps N]
//     The puzzles and Triton's tutorials at their puzzle sizes, with race detection on and off:
//     each must pass with no race reported (no false report), and the table gives the median
//     time of the launch with and without the records, and the memory they took. On the CUDA
//     backend races are tracked only by kernels compiled with TL_DEVICE_CHECKS=1: the puzzles
//     are (TL_PUZZLES_DEVICE_CHECKS, on by default); the tutorials with TL_TUTORIALS_DEVICE_CHECKS=ON.
//     A kernel compiled without the checks shows "-".
//
// This file is compiled with TL_DEVICE_CHECKS=1, so the planted kernels are checked on the GPU.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <tl/tl.hpp>

#include "cli_numbers.hpp"
#include "harness.hpp"
#include "tutorials.hpp"

using tl::_;
using tl::None;

namespace {

// ---- planted races: each kernel is a mistake that makes two programs touch one element ----

// The program id forgotten: every program stores the same block.
template <int B>
TL_KERNEL void forgotten_program_id(tl::ptr<const float> x, tl::ptr<float> z, int n) {
  auto offs = tl::arange<0, B>();
  tl::store(z + offs, tl::load(x + offs, offs < n) * 2, offs < n);
}

// Tiles that overlap by one element: the stride between programs is B - 1.
template <int B>
TL_KERNEL void overlapping_tiles(tl::ptr<const float> x, tl::ptr<float> z, int n) {
  auto offs = tl::program_id(0) * (B - 1) + tl::arange<0, B>();
  tl::store(z + offs, tl::load(x + offs, offs < n) + 1, offs < n);
}

// An in-place shift left: a program reads the first element of the next program's block,
// which that program overwrites.
template <int B>
TL_KERNEL void in_place_shift(tl::ptr<float> x, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  auto next = tl::load(x + offs + 1, offs + 1 < n, 0.0f);
  tl::store(x + offs, next, offs < n);
}

// Partial sums stored to one place instead of added atomically.
template <int B>
TL_KERNEL void partial_sums_to_one_place(tl::ptr<const float> x, tl::ptr<float> total, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(total, tl::sum(tl::load(x + offs, offs < n, 0.0f)));
}

// Split-K without atomics: the programs of one output tile each multiply a slice of K and
// store their partial product over the same tile.
template <int BM, int BN, int BK>
TL_KERNEL void split_k_without_atomics(tl::ptr<const float> a, tl::ptr<const float> b, tl::ptr<float> c, int M, int N,
                                       int K) {
  auto rm = tl::program_id(0) * BM + tl::arange<0, BM>();
  auto rn = tl::arange<0, BN>();
  auto rk = tl::program_id(1) * BK + tl::arange<0, BK>();
  auto x = tl::load(a + rm(_, None) * K + rk(None, _), (rm(_, None) < M) & (rk(None, _) < K), 0.0f);
  auto y = tl::load(b + rk(_, None) * N + rn(None, _), (rk(_, None) < K) & (rn(None, _) < N), 0.0f);
  tl::store(c + rm(_, None) * N + rn(None, _), tl::dot(x, y), (rm(_, None) < M) & (rn(None, _) < N));
}

// Two views of one allocation: each program stores through `out` and loads through `in`,
// which starts a few elements later in the same memory (a caller's aliasing mistake).
template <int B>
TL_KERNEL void two_views_of_one_buffer(tl::ptr<float> in, tl::ptr<float> out, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(out + offs, tl::load(in + offs, offs < n, 0.0f) * 3, offs < n);
}

// A 2-D grid whose store ignores axis 1: the programs of one row of the grid store one tile.
template <int B0, int B1>
TL_KERNEL void tile_ignores_an_axis(tl::ptr<const float> x, tl::ptr<float> z, int m, int n) {
  auto r = tl::program_id(0) * B0 + tl::arange<0, B0>();
  auto c = tl::arange<0, B1>();
  auto mask = (r(_, None) < m) & (c(None, _) < n);
  tl::store(z + r(_, None) * n + c(None, _), tl::load(x + r(_, None) * n + c(None, _), mask), mask);
}

// Bytes: rows of an image written by programs whose blocks overlap by 4 bytes.
template <int B>
TL_KERNEL void overlapping_bytes(tl::ptr<const std::uint8_t> x, tl::ptr<std::uint8_t> z, int n) {
  auto offs = tl::program_id(0) * (B - 4) + tl::arange<0, B>();
  tl::store(z + offs, tl::load(x + offs, offs < n), offs < n);
}

// Half precision, in place: a program reads the last element of the previous program's block.
template <int B>
TL_KERNEL void fp16_previous_element(tl::ptr<tl::fp16> x, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  auto prev = tl::load(x + offs - 1, (offs >= 1) & (offs - 1 < n), tl::fp16(0.0f));
  tl::store(x + offs, prev, offs < n);
}

// In-place normalisation: every program reads the first element as the scale, and program 0
// overwrites it.
template <int B>
TL_KERNEL void scale_read_while_written(tl::ptr<float> x, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  auto scale = tl::load(x + 0);
  tl::store(x + offs, tl::load(x + offs, offs < n) / scale, offs < n);
}

// ---- look-alikes that do not race ----

// Each program in place on its own block, all reading one scale through a writable pointer.
template <int B>
TL_KERNEL void own_block_shared_scale(tl::ptr<float> x, tl::ptr<float> scale, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(x + offs, tl::load(x + offs, offs < n) * tl::load(scale + 0), offs < n);
}

// A program that stores its block twice, and loads what it stored.
template <int B>
TL_KERNEL void store_twice_then_load(tl::ptr<float> z, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(z + offs, tl::zeros<B>(tl::float32), offs < n);
  tl::store(z + offs, tl::load(z + offs, offs < n) + 1, offs < n);
}

// Two disjoint views of one allocation, one read and one written.
template <int B>
TL_KERNEL void disjoint_views(tl::ptr<float> in, tl::ptr<float> out, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(out + offs, tl::load(in + offs, offs < n), offs < n);
}

// Adjacent bytes stored by adjacent programs (a byte is an element of its own).
template <int B>
TL_KERNEL void adjacent_bytes(tl::ptr<std::uint8_t> z, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(z + offs, (offs & 255).to(tl::uint8), offs < n);
}

struct case_def {
  std::string name;
  std::vector<std::string> buffers;  // the names a race may be reported under; none: a kernel that does not race
  std::function<tl::launch_report(const tl::launch_options&)> launch;
};

std::vector<float> ramp(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 1.0f + float(i % 97) / 8.0f;
  return v;
}

constexpr int n = 1000;  // elements of the 1-D cases' buffers

std::vector<case_def> cases() {
  std::vector<case_def> c;
  c.push_back({"forgotten program id (store/store)", {"z"}, [](const tl::launch_options& o) {
                 auto x = ramp(n);
                 std::vector<float> z(n);
                 return tl::launch<forgotten_program_id<128>>(tl::grid(tl::cdiv(n, 128)), o, tl::ptr<const float>(x, "x"),
                                                              tl::ptr<float>(z, "z"), n);
               }});
  c.push_back({"tiles overlapping by one (store/store)", {"z"}, [](const tl::launch_options& o) {
                 auto x = ramp(n);
                 std::vector<float> z(n);
                 return tl::launch<overlapping_tiles<128>>(tl::grid(tl::cdiv(n, 127)), o, tl::ptr<const float>(x, "x"),
                                                           tl::ptr<float>(z, "z"), n);
               }});
  c.push_back({"in-place shift (load/store)", {"x"}, [](const tl::launch_options& o) {
                 auto x = ramp(n);
                 return tl::launch<in_place_shift<128>>(tl::grid(tl::cdiv(n, 128)), o, tl::ptr<float>(x, "x"), n);
               }});
  c.push_back({"partial sums to one place (scalar store/store)", {"total"}, [](const tl::launch_options& o) {
                 auto x = ramp(n);
                 std::vector<float> total(1);
                 return tl::launch<partial_sums_to_one_place<128>>(tl::grid(tl::cdiv(n, 128)), o,
                                                                   tl::ptr<const float>(x, "x"),
                                                                   tl::ptr<float>(total, "total"), n);
               }});
  c.push_back({"split-K without atomics (dot, store/store)", {"c"}, [](const tl::launch_options& o) {
                 constexpr int M = 64, N = 32, K = 128;
                 auto a = ramp(M * K), b = ramp(K * N);
                 std::vector<float> cc(M * N);
                 return tl::launch<split_k_without_atomics<32, 32, 32>>(
                     tl::grid(M / 32, K / 32), o, tl::ptr<const float>(a, "a"), tl::ptr<const float>(b, "b"),
                     tl::ptr<float>(cc, "c"), M, N, K);
               }});
  c.push_back({"two views of one buffer, 8 apart (load/store)", {"in", "out"}, [](const tl::launch_options& o) {
                 std::vector<float> mem = ramp(n + 8);
                 const std::span<float> all(mem);
                 return tl::launch<two_views_of_one_buffer<128>>(tl::grid(tl::cdiv(n, 128)), o,
                                                                 tl::ptr<float>(all.subspan(8, n), "in"),
                                                                 tl::ptr<float>(all.subspan(0, n), "out"), n);
               }});
  c.push_back({"2-D grid, store ignores axis 1 (store/store)", {"z"}, [](const tl::launch_options& o) {
                 constexpr int m = 64, w = 32;
                 auto x = ramp(m * w);
                 std::vector<float> z(m * w);
                 return tl::launch<tile_ignores_an_axis<16, 32>>(tl::grid(m / 16, 3), o, tl::ptr<const float>(x, "x"),
                                                                 tl::ptr<float>(z, "z"), m, w);
               }});
  c.push_back({"uint8 blocks overlapping by 4 bytes (store/store)", {"z"}, [](const tl::launch_options& o) {
                 std::vector<std::uint8_t> x(n, 200), z(n);
                 return tl::launch<overlapping_bytes<256>>(tl::grid(tl::cdiv(n, 252)), o,
                                                           tl::ptr<const std::uint8_t>(x, "x"),
                                                           tl::ptr<std::uint8_t>(z, "z"), n);
               }});
  c.push_back({"fp16 in place, previous element (load/store)", {"x"}, [](const tl::launch_options& o) {
                 std::vector<tl::fp16> x(n, tl::fp16(1.5f));
                 return tl::launch<fp16_previous_element<128>>(tl::grid(tl::cdiv(n, 128)), o,
                                                               tl::ptr<tl::fp16>(x, "x"), n);
               }});
  c.push_back({"scale read while program 0 writes it (load/store)", {"x"}, [](const tl::launch_options& o) {
                 auto x = ramp(n);
                 return tl::launch<scale_read_while_written<128>>(tl::grid(tl::cdiv(n, 128)), o,
                                                                  tl::ptr<float>(x, "x"), n);
               }});
  c.push_back({"clean: own block, a shared scale through a writable pointer", {}, [](const tl::launch_options& o) {
                 auto x = ramp(n);
                 std::vector<float> s(1, 0.5f);
                 return tl::launch<own_block_shared_scale<128>>(tl::grid(tl::cdiv(n, 128)), o, tl::ptr<float>(x, "x"),
                                                                tl::ptr<float>(s, "scale"), n);
               }});
  c.push_back({"clean: a program stores its block twice and loads it", {}, [](const tl::launch_options& o) {
                 std::vector<float> z(n);
                 return tl::launch<store_twice_then_load<128>>(tl::grid(tl::cdiv(n, 128)), o, tl::ptr<float>(z, "z"),
                                                               n);
               }});
  c.push_back({"clean: two disjoint views of one allocation", {}, [](const tl::launch_options& o) {
                 std::vector<float> mem = ramp(2 * n);
                 const std::span<float> all(mem);
                 return tl::launch<disjoint_views<128>>(tl::grid(tl::cdiv(n, 128)), o,
                                                        tl::ptr<float>(all.subspan(0, n), "in"),
                                                        tl::ptr<float>(all.subspan(n, n), "out"), n);
               }});
  c.push_back({"clean: adjacent bytes from adjacent programs", {}, [](const tl::launch_options& o) {
                 std::vector<std::uint8_t> z(n);
                 return tl::launch<adjacent_bytes<128>>(tl::grid(tl::cdiv(n, 128)), o, tl::ptr<std::uint8_t>(z, "z"),
                                                        n);
               }});
  return c;
}

int planted(tl::backend backend) {
  int found = 0, planted_count = 0, clean = 0, false_reports = 0, other_failures = 0;
  std::printf("%-60s %-7s %-6s %s\n", "kernel", "races", "result", "first record");
  for (const case_def& c : cases()) {
    tl::launch_options o{.backend = backend, .failure = tl::on_failure::collect};
    const tl::launch_report r = c.launch(o);
    const bool should_race = !c.buffers.empty();
    std::string first = "-";
    if (!r.races.empty()) {
      const tl::store_race& x = r.races[0];
      first = "'" + x.buffer + "' element " + std::to_string(x.offset) + ", line " + std::to_string(x.where.line);
    }
    // Invalid accesses or failed assertions make a case wrong whatever it reported of races.
    const bool clean_run = r.invalid_ops == 0 && r.asserts.empty();
    bool ok;
    if (should_race) {
      ++planted_count;
      ok = clean_run && r.race_count > 0 && !r.races.empty();
      // Each record names the pointer that made the access: one of the planted race's buffers.
      for (const tl::store_race& x : r.races)
        ok = ok && std::find(c.buffers.begin(), c.buffers.end(), x.buffer) != c.buffers.end();
      found += ok;
    } else {
      ++clean;
      ok = clean_run && r.race_count == 0;
      false_reports += r.race_count != 0;
      other_failures += !clean_run;
    }
    std::printf("%-60s %-7lld %-6s %s\n", c.name.c_str(), static_cast<long long>(r.race_count),
                ok ? (should_race ? "found" : "clean") : "WRONG", first.c_str());
    if (!ok) std::printf("%s\n", r.str().c_str());
  }
  std::printf("\nplanted races found: %d of %d; clean kernels reported: %d of %d\n", found, planted_count,
              false_reports, clean);
  if (other_failures) std::printf("FAILED: %d clean kernel(s) made invalid accesses or failed an assertion\n", other_failures);
  return found == planted_count && false_reports == 0 && other_failures == 0 ? 0 : 1;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int cost(tl::backend backend, int reps) {
  std::printf("%-26s %12s %12s %7s %12s %10s  %s\n", "kernel", "races on ms", "races off ms", "ratio", "records KiB",
              "unchecked", "result");
  int failures = 0;
  std::vector<double> ratios;
  auto survey = [&](const std::vector<puzzles::puzzle>& registry) {
    for (const puzzles::puzzle& p : registry) {
      double t[2] = {0, 0};
      puzzles::outcome last[2];
      for (int races = 1; races >= 0; --races) {
        std::vector<double> seconds;
        for (int k = 0; k < reps; ++k) {
          puzzles::request q{.n = p.puzzle_sizes, .c = p.puzzle_constexprs, .seed = 1};
          q.launch.backend = backend;
          q.launch.detect_races = races == 1;
          last[races] = p.run(q);
          seconds.push_back(last[races].report.seconds);
        }
        t[races] = median(seconds);
      }
      const puzzles::outcome& on = last[1];
      const bool tracked = on.report.race_check_bytes > 0;
      const bool ok = on.passed() && last[0].passed();
      failures += !ok;
      const std::string label = p.noun + " " + p.id;
      if (tracked && t[0] > 0) ratios.push_back(t[1] / t[0]);
      char on_ms[32] = "-", ratio[32] = "-", kib[32] = "-", unchecked[32] = "-";
      if (tracked) {
        if (backend == tl::backend::cuda)
          std::snprintf(unchecked, sizeof unchecked, "%lld", static_cast<long long>(on.report.race_unchecked));
        std::snprintf(on_ms, sizeof on_ms, "%.4f", t[1] * 1e3);
        std::snprintf(ratio, sizeof ratio, "%.2f", t[0] > 0 ? t[1] / t[0] : 0.0);
        std::snprintf(kib, sizeof kib, "%.0f", double(on.report.race_check_bytes) / 1024);
      }
      std::printf("%-26s %12s %12.4f %7s %12s %10s  %s\n", label.c_str(), on_ms, t[0] * 1e3, ratio, kib, unchecked,
                  ok ? "passed" : "FAILED");
      if (!ok) {
        if (!on.error.empty()) std::printf("  %s\n", on.error.c_str());
        std::printf("%s\n", on.report.str().c_str());
      }
    }
  };
  survey(puzzles::all());
  survey(tutorials::all());
  if (!ratios.empty()) {
    double log_sum = 0;
    for (double r : ratios) log_sum += std::log(r);
    std::printf("\ngeometric mean of races on / off over %zu tracked kernels: %.2f\n", ratios.size(),
                std::exp(log_sum / double(ratios.size())));
  }
  std::printf("%s\n", failures == 0 ? "no false report: every kernel passed with race detection on and off"
                                    : "FAILED: see the reports above");
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tl-race-survey: what race detection finds (planted races) and what it costs (puzzles, tutorials)"};
  app.require_subcommand(1);
  std::string backend_name = "cpu";
  int reps = 5;
  auto* planted_cmd = app.add_subcommand("planted", "Kernels with planted races, and look-alikes without");
  auto* cost_cmd = app.add_subcommand("cost", "The puzzles and tutorials with race detection on and off");
  for (auto* cmd : {planted_cmd, cost_cmd})
    cmd->add_option("--backend", backend_name, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  tl_cli::add_number(*cost_cmd, "--reps", reps, "launches timed per kernel and setting (the median is shown)", 1,
                     1000);
  CLI11_PARSE(app, argc, argv);
  const tl::backend backend = backend_name == "cuda" ? tl::backend::cuda : tl::backend::cpu;
  if (backend == tl::backend::cuda) {
    const std::string why = puzzles::cuda_unavailable();
    if (!why.empty()) {
      std::printf("SKIPPED: --backend cuda: %s\n", why.c_str());
      return 77;
    }
  }
  try {
    return planted_cmd->parsed() ? planted(backend) : cost(backend, reps);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tl-race-survey: %s\n", e.what());
    return 1;
  }
}
