// Helpers shared by the tests: random blocks and plain-loop evaluation of expressions.
#pragma once

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <tl/tl.hpp>

namespace testing {

inline std::mt19937_64& rng() {
  static std::mt19937_64 g(20261121);
  return g;
}

// A block of T filled with uniform values in [lo, hi).
template <class T, int... D>
tl::block<T, D...> random_block(double lo = -4, double hi = 4) {
  tl::block<T, D...> b;
  std::uniform_real_distribution<double> d(lo, hi);
  for (std::int64_t i = 0; i < b.size; ++i) {
    if constexpr (std::is_same_v<T, bool>) b[i] = d(rng()) > (lo + hi) / 2;
    else if constexpr (std::is_integral_v<T>) b[i] = static_cast<T>(std::floor(d(rng())));
    else b[i] = static_cast<T>(static_cast<float>(d(rng())));
  }
  return b;
}

// Every element of an expression, row-major, as double.
template <class E>
std::vector<double> values(const E& e) {
  using S = tl::detail::shape_of_t<E>;
  std::vector<double> out(std::size_t(S::size));
  for (std::int64_t i = 0; i < S::size; ++i) {
    const auto v = e.at(tl::detail::unravel<S>(i));
    if constexpr (tl::detail::is_ptr_v<std::remove_cvref_t<decltype(v)>>) out[std::size_t(i)] = double(v.offset);
    else out[std::size_t(i)] = static_cast<double>(static_cast<tl::detail::compute_t<std::remove_cvref_t<decltype(v)>>>(v));
  }
  return out;
}

template <class T>
double as_double(const T& v) {
  return static_cast<double>(static_cast<tl::detail::compute_t<T>>(v));
}

// What f writes to standard output (the CPU backend's device_print writes there), captured
// through a temporary file in place of file descriptor 1.
template <class F>
std::string captured_stdout(F&& f) {
  std::fflush(stdout);
  std::FILE* tmp = std::tmpfile();
  REQUIRE(tmp != nullptr);
  const int saved = dup(1);
  dup2(fileno(tmp), 1);
  f();
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  std::string out;
  std::rewind(tmp);
  for (int c; (c = std::fgetc(tmp)) != EOF;) out.push_back(char(c));
  std::fclose(tmp);
  return out;
}

}  // namespace testing
