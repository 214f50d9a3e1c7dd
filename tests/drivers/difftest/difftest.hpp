// tests/drivers/difftest: differential testing of the two backends. A "program" is a block kernel
// with its compile-time choices made (op, element types, block sizes: one instantiation);
// a "case" is a program with run-time parameters drawn from a seed (sizes, the layout of its
// input, a random mask, the masked loads' `other`, the input values). Each case runs on the
// CPU backend, on the CUDA backend if asked, and through a reference written with plain
// loops in double (or in 64-bit integers, wrapped to the result's width); every output
// element is compared. tl-difftest (tl_difftest.cpp) draws the cases, shrinks a failing one
// to a minimal reproduction and prints it with its seed.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <tl/kernel.hpp>

namespace difftest {

// How the input `a` (m x n) lies in memory: row-major, column-major, or row-major with
// padded rows (a row stride of n + 3, the gaps filled with NaN or a large value).
enum class layout { row, col, padded };
inline const char* to_string(layout l) { return l == layout::row ? "row" : l == layout::col ? "col" : "padded"; }

// The run-time parameters of a case.
struct params {
  std::uint64_t data = 1;     // seeds the input values and the mask
  int m = 1, n = 1, k = 1;    // sizes (k: the inner size of a dot)
  layout lay = layout::row;   // of input a
  double keep = 1.0;          // the fraction of lanes the random mask keeps (1: no mask)
  double other = 0.0;         // the masked loads' `other`
  std::string str(bool with_k) const {
    std::string s = "m=" + std::to_string(m) + ",n=" + std::to_string(n);
    if (with_k) s += ",k=" + std::to_string(k);
    s += ",layout=" + std::string(to_string(lay)) + ",keep=" + std::to_string(keep).substr(0, 4);
    s += ",other=" + std::to_string(other).substr(0, 6) + ",data=" + std::to_string(data);
    return s;
  }
};

// Element types as values of double, both ways (16-bit floats through float).
template <class T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, tl::fp16> || std::is_same_v<T, tl::bf16>) return double(float(v));
  else return double(v);
}
template <class T>
T from_double(double d) {
  if constexpr (std::is_same_v<T, tl::fp16> || std::is_same_v<T, tl::bf16>) return T(float(d));
  else if constexpr (std::is_floating_point_v<T>) return T(d);
  else return T(std::int64_t(d));
}
template <class T>
inline constexpr bool is_float = std::is_floating_point_v<T> || std::is_same_v<T, tl::fp16> || std::is_same_v<T, tl::bf16>;

// A 64-bit integer wrapped to the width of integer type C, as tl's integer ops wrap.
template <class C>
std::int64_t wrap_as(std::int64_t v) {
  using U = std::make_unsigned_t<C>;
  return std::int64_t(static_cast<C>(static_cast<U>(static_cast<std::uint64_t>(v))));
}

// A value rounded as type C holds it: floats round to nearest, integers wrap.
template <class C>
double round_as(double v) {
  if constexpr (is_float<C>) {
    return to_double(from_double<C>(v));
  } else {
    return double(wrap_as<C>(std::int64_t(v)));
  }
}

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_same_v<T, tl::fp16>) return "f16";
  else if constexpr (std::is_same_v<T, tl::bf16>) return "bf16";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "i32";
  else if constexpr (std::is_same_v<T, std::int8_t>) return "i8";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "u8";
  else return "?";
}

// The poison an output holds before a launch: an element left unwritten shows as a mismatch.
template <class T>
T poison() {
  if constexpr (is_float<T>) return from_double<T>(std::numeric_limits<double>::quiet_NaN());
  else return T(std::numeric_limits<T>::max() / 3);
}

// Random values of T in [lo, hi] (integers: whole numbers), from a generator.
template <class T>
std::vector<T> random_values(std::mt19937_64& g, std::size_t count, double lo, double hi) {
  std::vector<T> v(count);
  if constexpr (is_float<T>) {
    std::uniform_real_distribution<double> d(lo, hi);
    for (auto& x : v) x = from_double<T>(d(g));
  } else {
    std::uniform_int_distribution<std::int64_t> d{std::int64_t(lo), std::int64_t(hi)};
    for (auto& x : v) x = T(d(g));
  }
  return v;
}

// Input a (m x n) in its layout: the storage, its strides, and a(i, j) for the references.
template <class T>
struct matrix_input {
  std::vector<T> storage;
  int stride_m = 0, stride_n = 0;
  double at(int i, int j) const { return to_double(storage[std::size_t(i) * stride_m + std::size_t(j) * stride_n]); }
};
template <class T>
matrix_input<T> make_matrix(std::mt19937_64& g, int m, int n, layout lay, double lo, double hi) {
  matrix_input<T> a;
  const int pad = lay == layout::padded ? 3 : 0;
  a.stride_m = lay == layout::col ? 1 : n + pad;
  a.stride_n = lay == layout::col ? m : 1;
  a.storage = random_values<T>(g, std::size_t(m) * std::size_t(n + pad), lo, hi);
  if (pad)  // gaps a correct kernel never reads
    for (int i = 0; i < m; ++i)
      for (int j = n; j < n + pad; ++j) a.storage[std::size_t(i) * a.stride_m + std::size_t(j)] = poison<T>();
  return a;
}

// The random mask: 1 where a lane is kept.
inline std::vector<std::uint8_t> make_keep(std::mt19937_64& g, int m, int n, double keep) {
  std::vector<std::uint8_t> k(std::size_t(m) * std::size_t(n), 1);
  if (keep < 1.0) {
    std::bernoulli_distribution d(keep);
    for (auto& x : k) x = d(g) ? 1 : 0;
  }
  return k;
}

// What one run of a case gives: the output as doubles (NaN stays NaN), and the report.
struct outcome {
  std::vector<double> out;
  tl::launch_report report;
};

// How close two outputs must be: |x - y| <= abs + rel * |reference| (exact: both 0), NaN
// equal to NaN. `scale` widens abs per element (a dot's sum of |a||b|).
struct tolerance {
  double abs = 0, rel = 0;
};

struct program {
  std::string name;   // "add f16,f16->f16 16x64 b:row"
  std::string family; // elementwise, reduction, dot, layout
  int bm = 1, bn = 1, bk = 0;  // block sizes (bk: dots)
  tolerance tol;               // against the reference, and between the backends
  bool backends_exact = false; // the backends agree bit for bit (tl guarantees it for the op)
  std::function<outcome(const params&, tl::backend)> run;
  std::function<std::vector<double>(const params&)> reference;
  // Per-element scale of the absolute tolerance (dots: sum over k of |a||b|); empty: 1.
  std::function<std::vector<double>(const params&)> scale;
};

// The families register their programs here (elementwise.cpp, reductions.cpp, dots.cpp, scans.cpp).
void add_elementwise_programs(std::vector<program>& programs);
void add_reduction_programs(std::vector<program>& programs);
void add_dot_programs(std::vector<program>& programs);
void add_scan_programs(std::vector<program>& programs);  // scans.cpp: scans, sorts, gathers, atomics

// A generator for one case's inputs: the same params give the same values.
inline std::mt19937_64 data_rng(const params& p) { return std::mt19937_64(p.data * 0x9E3779B97F4A7C15ull + 17); }

// The output buffer of a run, poisoned, and its conversion to doubles.
template <class T>
std::vector<double> as_doubles(const std::vector<T>& v) {
  std::vector<double> d(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) d[i] = to_double(v[i]);
  return d;
}

inline tl::launch_options options_for(tl::backend b) {
  tl::launch_options o;
  o.backend = b;
  o.failure = tl::on_failure::collect;
  return o;
}

}  // namespace difftest
