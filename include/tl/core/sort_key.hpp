// tl/core/sort_key.hpp: the bitonic network of tl::sort (Triton's), and a total order as an
// unsigned key per element (integers by value, floats by value with -0.0 before +0.0 and every
// NaN after +inf, by payload) for the ops that need one.
#pragma once

#include <cstdint>
#include <type_traits>

#include "dtype.hpp"

namespace tl::detail {

template <class T>
TL_INLINE auto sort_key(const T& x) {
  if constexpr (std::is_same_v<T, bool>) {
    return std::uint32_t(x);
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    constexpr U sign = std::is_signed_v<T> ? U(U(1) << (sizeof(T) * 8 - 1)) : U(0);
    return U(U(x) ^ sign);
  } else {
    using U = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::conditional_t<sizeof(T) == 4, std::uint32_t,
                                 std::conditional_t<sizeof(T) == 2, std::uint16_t, std::uint8_t>>>;
    constexpr U sign = U(U(1) << (sizeof(T) * 8 - 1));
    U u = bit_cast<U>(x);
    const auto v = static_cast<compute_t<T>>(x);
    if (!(v == v)) u = U(u & ~sign);  // NaN: above +inf whatever its sign
    return U((u & sign) ? ~u : (u | sign));
  }
}

// The bitonic network both backends sort a line of K (a power of two) with, Triton's: in stage
// k and step j, pair p of the K / 2 compares positions lo and lo + j (bitonic_low); the stages
// before the last put a pair ascending where (lo & k) == 0, descending elsewhere, the last
// (k == K) in the sort's direction (bitonic_exchange). Each of the two takes its partner's value
// as Triton's compare-and-swap decides, by the comparison x > y of the values: the lower
// position where it is greater than the upper one (ascending), the upper one where it is not
// greater than the lower. Values that compare unordered or equal with different bits (NaN,
// -0.0 and +0.0) are then copied rather than exchanged, as in Triton: a block holding NaN
// does not come out a permutation of its elements.
TL_INLINE constexpr int bitonic_low(int pair, int j) { return (pair / j) * 2 * j + pair % j; }
template <bool Descending, class T>
TL_INLINE void bitonic_exchange(T& a, T& b, int lo, int k, int K) {
  const bool up = k == K ? !Descending : (lo & k) == 0;
  const auto x = static_cast<compute_t<T>>(a), y = static_cast<compute_t<T>>(b);
  const bool a_above = x > y, b_above = y > x;
  const T na = a_above == up ? b : a;
  const T nb = b_above != up ? a : b;
  a = na;
  b = nb;
}

}  // namespace tl::detail
