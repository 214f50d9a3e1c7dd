// tl/ops/creation.hpp: arange, zeros, full (and their _like forms).
#pragma once

#include "../backend/lowering.hpp"
#include "../expr/block.hpp"

namespace tl {

// Infinity, for -tl::inf as in Triton's -float('inf').
inline constexpr float inf = __builtin_huge_valf();

// arange<Start, End>(): the int32 block Start, Start+1, ..., End-1 (Triton: tl.arange(Start, End)).
// Its length must be a power of two, as in Triton, so blocks map onto threads evenly.
template <int Start, int End>
TL_INLINE auto arange() {
  constexpr int n = End - Start;
  static_assert(detail::check<error::arange_length_not_power_of_two<Start, End, (n > 0 && (n & (n - 1)) == 0)>>);
  return detail::arange_expr<Start, End>{};
}

// full<D...>(value, dtype): a block of shape D... holding value (Triton: tl.full((D...), value, dtype)).
template <int... D, class V, class T>
TL_INLINE auto full(V value, dtype<T>) {
  detail::block_t<T, shape<D...>> b;
  const T v = detail::convert<T>(detail::canonical_t<V>(value));
  b.fill(v);
  b.keep_here();
  return b;
}

// zeros<D...>(dtype): a block of zeros (Triton: tl.zeros((D...), dtype)).
template <int... D, class T>
TL_INLINE auto zeros(dtype<T>) {
  detail::block_t<T, shape<D...>> b{};
  b.keep_here();
  return b;
}

template <class E>
  requires detail::is_expr_v<E>
TL_INLINE auto zeros_like(const E&) {
  detail::block_t<detail::value_of_t<E>, detail::shape_of_t<E>> b{};
  b.keep_here();
  return b;
}

template <class E, class V>
  requires detail::is_expr_v<E>
TL_INLINE auto full_like(const E&, V value) {
  using B = detail::block_t<detail::value_of_t<E>, detail::shape_of_t<E>>;
  B b;
  const auto v = detail::convert<detail::value_of_t<E>>(detail::canonical_t<V>(value));
  b.fill(v);
  b.keep_here();
  return b;
}

}  // namespace tl
