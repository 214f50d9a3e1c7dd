// tl/ops/creation.hpp: arange, zeros, full (and their _like forms), to_tensor.
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

// Triton's largest block, in elements (tl.TRITON_MAX_TENSOR_NUMEL), for kernels that size
// their blocks by it. tl itself sets no such limit: a program's registers are the practical one.
inline constexpr int TRITON_MAX_TENSOR_NUMEL = 1048576;

// to_tensor(x): a C++ value as a rank-0 block of the type it stands for (a float or double as
// float32, an int as int32; Triton's tl.to_tensor, which types a Python float as float32 and an
// int as int32); a block or block expression is returned as it is.
template <class V>
  requires detail::is_operand_v<V>
TL_INLINE auto to_tensor(const V& x) {
  if constexpr (detail::is_expr_v<V>) return x;
  else {
    using T = std::remove_cvref_t<V>;  // a weak scalar as the dtype it stands for (docs/03-types.md), others as they are
    using D = std::conditional_t<detail::is_weak_scalar_v<T>, typename detail::weak_dtype<T>::type, detail::canonical_t<T>>;
    return full<>(x, dtype<D>{});
  }
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
