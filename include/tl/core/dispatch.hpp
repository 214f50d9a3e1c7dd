// tl/core/dispatch.hpp: a block size chosen at run time, from the sizes a program compiled.
//
// Triton compiles a kernel for whatever BLOCK_SIZE = triton.next_power_of_2(N) turns out to be;
// C++ compiles a template for each size ahead of time. tl::dispatch names the compiled set once
// and calls f with the chosen size as a compile-time constant:
//
//   tl::dispatch<256, 512, 1024, 2048>(tl::next_power_of_2(N), [&](auto BLOCK_SIZE) {
//     tl::launch<layer_norm_fwd<BLOCK_SIZE>>(tl::grid(M), x, y, ..., N);
//   });
//
// A value outside the set throws std::invalid_argument naming the value and the set.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "../config.hpp"

namespace tl {

// The smallest power of two >= n (1 for n <= 1): Triton's triton.next_power_of_2.
TL_HD constexpr std::int64_t next_power_of_2(std::int64_t n) {
  std::int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

namespace detail {
template <int First, int... Rest>
inline constexpr int first_value = First;
}  // namespace detail

// f(std::integral_constant<int, V>{}) for the V of the set equal to value; what f returns.
template <int... V, class F>
auto dispatch(std::int64_t value, F&& f) {
  static_assert(sizeof...(V) > 0, "tl::dispatch<V...>: name at least one compiled value");
  using R = decltype(f(std::integral_constant<int, detail::first_value<V...>>{}));
  std::string set;
  ((set += (set.empty() ? "" : ", ") + std::to_string(V)), ...);
  const std::string missing = "tl::dispatch: " + std::to_string(value) + " is not one of the compiled values " + set +
                              " (add it to tl::dispatch<...>'s list)";
  if constexpr (std::is_void_v<R>) {
    const bool found = ((value == V ? (f(std::integral_constant<int, V>{}), true) : false) || ...);
    if (!found) throw std::invalid_argument(missing);
  } else {
    R result{};
    const bool found = ((value == V ? (result = f(std::integral_constant<int, V>{}), true) : false) || ...);
    if (!found) throw std::invalid_argument(missing);
    return result;
  }
}

}  // namespace tl
