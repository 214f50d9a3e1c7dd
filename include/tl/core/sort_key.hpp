// tl/core/sort_key.hpp: the total order tl::sort uses, as an unsigned key per element: integers
// by value, floats by value with -0.0 before +0.0 and every NaN after +inf (by payload), so
// that elements tie only when their bits are equal and every backend sorts to the same bits.
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

// The bitonic network both backends sort a line of K (a power of two) with: in stage k and
// step j, pair p of the K / 2 compares positions lo and lo + j (bitonic_low), and puts them in
// order, ascending where (lo & k) == 0 unless Descending (bitonic_exchange).
TL_INLINE constexpr int bitonic_low(int pair, int j) { return (pair / j) * 2 * j + pair % j; }
template <bool Descending, class T>
TL_INLINE void bitonic_exchange(T& a, T& b, int lo, int k) {
  const bool up = ((lo & k) == 0) != Descending;
  if (up ? sort_key(b) < sort_key(a) : sort_key(a) < sort_key(b)) {
    const T t = a;
    a = b;
    b = t;
  }
}

}  // namespace tl::detail
