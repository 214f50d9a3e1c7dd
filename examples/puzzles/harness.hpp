// The puzzles' shared harness: sizes, random inputs, poisoned outputs, the check against
// the spec, and the registry that tl-puzzles and the tests read.
//
// Each puzzle file holds three things, in this order: the kernel (read it next to its
// Triton twin), the spec (plain loops in double precision), and puzzle_NN(), which says
// how to make inputs, launch and check.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <span>
#include <string_view>
#include <string>
#include <vector>

#include <tl/kernel.hpp>

namespace puzzles {

// The runtime sizes of a puzzle (its kernel's integer arguments).
struct sizes {
  int N0 = 1, N1 = 1, N2 = 1, T = 1, MID = 1, H = 1, W = 1;
};

// The compile-time parameters (tl.constexpr in Triton): block sizes and conv kernel sizes.
struct constexprs {
  int B0 = 1, B1 = 1, B2 = 1, B_MID = 1, KH = 1, KW = 1;
};

struct request {
  sizes n;
  constexprs c;
  std::uint64_t seed = 0;
  tl::launch_options launch{.backend = tl::backend::cpu, .failure = tl::on_failure::collect};
};

struct outcome {
  bool ran = false;   // false: no compiled configuration matched, or an exception stopped it
  std::string error;  // why it did not run
  tl::launch_report report;
  std::vector<int> shape;  // of the output
  std::vector<float> yours;
  std::vector<double> spec;
  std::int64_t mismatches = 0;  // elements outside atol + rtol * |spec| (NaN counts)
  double max_abs_error = 0;
  bool passed() const { return ran && report.ok() && mismatches == 0; }
};

// A checked kernel: a puzzle, or a tutorial (examples/tutorials) through the same harness.
struct puzzle {
  std::string noun = "puzzle";  // what the reports call it: "puzzle", "tutorial"
  std::string id;  // "1" .. "12"; variants as "8/3loop"
  int number = 0;
  std::string title;
  std::string formula;
  sizes puzzle_sizes;
  constexprs puzzle_constexprs;
  std::vector<constexprs> compiled;  // the configurations instantiated in this build
  std::function<sizes(const constexprs&, std::mt19937_64&)> random_sizes;
  std::function<outcome(const request&)> run;
  std::string sizes_text(const sizes& n) const;
  std::string constexprs_text(const constexprs& c) const;
  std::vector<std::string> size_names, constexpr_names;  // the ones this puzzle uses
  // What the reports call the sizes, in size_names' order, when not their field names (a
  // tutorial's M, N, K held in N0, N1, MID); tl-puzzles' --sizes accepts either.
  std::vector<std::string> size_labels;
  std::vector<std::string> constexpr_labels;  // the same for the constexprs (BLOCK_SIZE_M held in B0)
  std::string size_label(std::size_t i) const { return i < size_labels.size() ? size_labels[i] : size_names[i]; }
  std::string constexpr_label(std::size_t i) const {
    return i < constexpr_labels.size() ? constexpr_labels[i] : constexpr_names[i];
  }
  // The shapes of the buffers the kernel reads and writes, by name (row-major), at given sizes:
  // how an access picture draws them (tl-puzzles draw).
  std::function<std::map<std::string, std::vector<int>>(const sizes&, const constexprs&)> buffer_shapes;
};

const std::vector<puzzle>& all();
// Empty if the puzzles can run on the CUDA backend here; else why not.
std::string cuda_unavailable();
// The puzzles whose id is `id`, or whose number is `id` (so "8" also finds "8/3loop").
std::vector<const puzzle*> find(const std::string& id);
std::vector<const puzzle*> find(const std::vector<puzzle>& in, const std::string& id);  // the same in another registry

// ---- helpers for the puzzle files ----
using rng = std::mt19937_64;
std::vector<float> random_floats(std::size_t n, rng& g);                 // uniform in [-0.5, 0.5)
std::vector<int> random_ints(std::size_t n, rng& g, int lo, int hi);     // uniform in [lo, hi)
// NaN (of any float element type), so a missing store fails.
template <class T = float>
std::vector<T> poisoned(std::size_t n) {
  return std::vector<T>(n, T(std::numeric_limits<float>::quiet_NaN()));
}
int random_int(rng& g, int lo, int hi);                                  // uniform in [lo, hi]

// z[j * x.size() + i] = f(x[i], y[j]) in double: the spec of the outer-product puzzles (3, 4, 5).
template <class F>
std::vector<double> outer_spec(const std::vector<float>& x, const std::vector<float>& y, F f) {
  std::vector<double> z(x.size() * y.size());
  for (std::size_t j = 0; j < y.size(); ++j)
    for (std::size_t i = 0; i < x.size(); ++i) z[j * x.size() + i] = f(double(x[i]), double(y[j]));
  return z;
}

// N0 and N1 uniform in [1, 300]: the random sizes of the 2-D grid puzzles (4, 5, 6).
sizes random_sizes_2d(const constexprs&, rng& g);

// Compares yours with the spec (atol = rtol = 1e-3 unless given) and fills the outcome.
void compare(outcome& o, const std::vector<float>& yours, const std::vector<double>& spec, std::vector<int> shape,
             double atol = 1e-3, double rtol = 1e-3);

// A compiled configuration: the constexpr values it was instantiated with.
template <int... V>
struct cfg {
  static constexpr int v[] = {V...};
  static constexpr std::size_t n = sizeof...(V);
};

int constexpr_value(const constexprs& c, std::string_view name);
constexprs constexprs_from(std::span<const char* const> names, const int* v, std::size_t n);

// The configurations a puzzle compiles; `names` says which constexpr each value sets.
template <class... Cfg>
struct configs {
  // Calls f(Cfg{}) for the Cfg whose values are c's; an outcome saying so if none is.
  template <class F>
  static outcome dispatch(std::span<const char* const> names, const constexprs& c, F&& f) {
    outcome result;
    bool found = false;
    auto try_one = [&](auto cfg_value) {
      using C = decltype(cfg_value);
      if (found || C::n != names.size()) return;
      for (std::size_t i = 0; i < C::n; ++i)
        if (C::v[i] != constexpr_value(c, names[i])) return;
      found = true;
      try {
        result = f(cfg_value);
        result.ran = true;
      } catch (const std::exception& e) {
        result.ran = false;
        result.error = e.what();
      }
    };
    (try_one(Cfg{}), ...);
    if (!found) result.error = "this configuration of constexpr parameters is not compiled in (see `tl-puzzles list`)";
    return result;
  }

  // The same configurations as values, for puzzle::compiled.
  static std::vector<constexprs> list(std::span<const char* const> names) {
    return {constexprs_from(names, Cfg::v, Cfg::n)...};
  }
};

}  // namespace puzzles
