// Helpers of the GPU tests: random inputs, running one kernel on both backends, comparing.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <tl/kernel.hpp>

namespace gpu_testing {

inline std::mt19937_64& rng() {
  static std::mt19937_64 g(977);
  return g;
}

inline int random_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng()); }

template <class T = float>
std::vector<T> random_values(std::size_t n, double lo = -2, double hi = 2) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_integral_v<T>) x = static_cast<T>(std::floor(d(rng())));
    else x = static_cast<T>(static_cast<float>(d(rng())));
  }
  return v;
}

// Multiples of 1/4 in [-2, 2]: exact in every element type (fp8 included), and so are the sums of
// their products in float32, whatever order the tensor cores add them in.
template <class T>
std::vector<T> random_quarters(std::size_t n) {
  std::vector<T> v(n);
  for (auto& e : v) e = T(float(random_int(-8, 8)) / 4);
  return v;
}

// The CPU reference runs note outputs left partly unwritten without printing them: many cases
// write a tile of a larger, poisoned buffer on purpose.
inline constexpr tl::launch_options cpu{.backend = tl::backend::cpu, .unwritten = tl::unwritten::note};
inline constexpr tl::launch_options cuda{.backend = tl::backend::cuda};

template <class T>
double as_double(const T& x) {
  return double(static_cast<tl::detail::compute_t<T>>(x));
}

// Every element of gpu equals cpu's within atol + rtol |cpu| (NaN matches NaN).
template <class T>
void require_agree(const std::vector<T>& cpu_out, const std::vector<T>& gpu_out, double atol = 0, double rtol = 0,
                   const std::string& what = "") {
  REQUIRE(cpu_out.size() == gpu_out.size());
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < cpu_out.size(); ++i) {
    const double a = as_double(cpu_out[i]), b = as_double(gpu_out[i]);
    const bool same = (std::isnan(a) && std::isnan(b)) || a == b || std::abs(a - b) <= atol + rtol * std::abs(a);
    if (!same && bad++ == 0) first = i;
  }
  INFO(what << ": " << bad << " of " << cpu_out.size() << " differ; first at " << first << ": cpu "
            << (bad ? as_double(cpu_out[first]) : 0.0) << ", gpu " << (bad ? as_double(gpu_out[first]) : 0.0));
  REQUIRE(bad == 0);
}

}  // namespace gpu_testing
