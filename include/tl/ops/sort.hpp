// tl/ops/sort.hpp: ops whose data movement depends on the values: sort, topk, bitonic_merge, gather,
// histogram.
//
//   tl::sort(x), tl::sort<0>(x, tl::descending)   Triton: tl.sort(x), tl.sort(x, 0, descending=True)
//   tl::topk<8>(x)                                Triton: tl.topk(x, 8)
//   tl::bitonic_merge(x)                          Triton: tl.bitonic_merge(x)
//   tl::gather<1>(src, index)                     Triton: tl.gather(src, index, 1)
//   tl::histogram<64>(x [, mask])                 Triton: tl.histogram(x, 64, mask=mask)
//
// sort runs Triton's bitonic network with Triton's compare-and-swap (core/sort_key.hpp), so
// that both backends give Triton's bits: values in order; where a line holds NaN, or -0.0 and
// +0.0, Triton's copies instead of exchanges (the line then is no permutation of its elements:
// ascending, NaN spreads; -0.0 and +0.0 come out with one sign). topk gives the K largest along Dim in
// descending order. gather's out-of-range indices read 0. histogram counts the values v with
// 0 <= v < NumBins (int32), others and masked-off ones ignored.
#pragma once

#include "../backend/lowering.hpp"
#include "../expr/block.hpp"
#include "../expr/pack.hpp"
#include "shape_ops.hpp"

namespace tl {

struct descending_t {};
inline constexpr descending_t descending{};  // tl::sort<0>(x, tl::descending): Triton's descending=True

namespace detail {
template <int Dim, class S>
TL_INLINE constexpr bool sortable_axis() {
  constexpr int axis = normalize_axis<S, Dim>;
  static_assert(check<error::axis_out_of_range<S, Dim, (axis >= 0 && axis < S::rank)>>);
  if constexpr (axis >= 0 && axis < S::rank) {
    constexpr int n = S::dim(axis);
    static_assert(check<error::sort_axis_not_a_power_of_two<S, axis, (n & (n - 1)) == 0>>);
    return (n & (n - 1)) == 0;
  } else {
    return false;
  }
}

template <int Axis, bool Descending, class E, bool MergeOnly = false>
TL_INLINE auto sort_axis(const E& e) {
  using S = shape_of_t<E>;
  block_t<value_of_t<E>, S> out;
  lowering::sort<Axis, Descending, S, MergeOnly>(e, out);
  return out;
}
}  // namespace detail

// sort<Dim>(x [, tl::descending]): x's elements along Dim (the last axis by default) in order.
template <int Dim = -1, class E, class... D>
  requires(detail::is_expr_v<E> && (std::is_same_v<D, descending_t> && ...) && sizeof...(D) <= 1)
TL_INLINE auto sort(const E& e, D...) {
  using S = detail::shape_of_t<E>;
  if constexpr (detail::sortable_axis<Dim, S>()) return detail::sort_axis<detail::normalize_axis<S, Dim>, sizeof...(D) == 1>(e);
  else return detail::block_t<detail::value_of_t<E>, S>{};
}

// bitonic_merge<Dim>(x [, tl::descending]): the last stage of the bitonic sorting network along
// Dim (the last axis by default): compare-exchanges at distances K / 2, K / 4, ..., 1, all in
// one direction, which puts a bitonic line (rising then falling, or the reverse) in order
// (Triton's tl.bitonic_merge), with Triton's compare-and-swap as tl::sort.
template <int Dim = -1, class E, class... D>
  requires(detail::is_expr_v<E> && (std::is_same_v<D, descending_t> && ...) && sizeof...(D) <= 1)
TL_INLINE auto bitonic_merge(const E& e, D...) {
  using S = detail::shape_of_t<E>;
  if constexpr (detail::sortable_axis<Dim, S>())
    return detail::sort_axis<detail::normalize_axis<S, Dim>, sizeof...(D) == 1, E, true>(e);
  else
    return detail::block_t<detail::value_of_t<E>, S>{};
}

// topk<K, Dim>(x): the K largest elements along Dim (the last axis by default), largest first
// (Triton's tl.topk(x, k, dim)).
template <int K, int Dim = -1, class E>
  requires detail::is_expr_v<E>
TL_INLINE auto topk(const E& e) {
  using S = detail::shape_of_t<E>;
  constexpr int axis = detail::normalize_axis<S, Dim>;
  if constexpr (detail::sortable_axis<Dim, S>()) {
    static_assert(detail::check<error::topk_k_out_of_range<S, K, (K >= 1 && K <= S::dim(axis) && (K & (K - 1)) == 0)>>);
    auto sorted = detail::sort_axis<axis, true>(e);
    using out = typename detail::resized_shape<S, axis, K>::type;
    return detail::block_t<detail::value_of_t<E>, out>(detail::view<decltype(sorted), out, detail::shifted_map<axis, 0>>{{}, sorted});
  } else {
    return detail::block_t<detail::value_of_t<E>, S>{};
  }
}

// gather<Axis>(src, index): out[..., i, ...] = src[..., index[..., i, ...], ...] along Axis;
// index has src's rank and sizes but along Axis (Triton's tl.gather(src, index, axis)).
template <int Axis, class E, class I>
  requires(detail::is_expr_v<E> && detail::is_expr_v<I>)
TL_INLINE auto gather(const E& src, const I& index) {
  using S = detail::shape_of_t<E>;
  using SI = detail::shape_of_t<I>;
  using VI = detail::value_of_t<I>;
  constexpr int axis = detail::normalize_axis<S, Axis>;
  static_assert(detail::check<error::axis_out_of_range<S, Axis, (axis >= 0 && axis < S::rank)>>);
  constexpr bool shapes_ok = [] {
    if constexpr (axis >= 0 && axis < S::rank && SI::rank == S::rank)
      return std::is_same_v<typename detail::resized_shape<S, axis, 1>::type, typename detail::resized_shape<SI, axis, 1>::type>;
    else return false;
  }();
  static_assert(detail::check<error::gather_index_shape<S, SI, shapes_ok>>);
  static_assert(detail::check<error::op_needs_integer_operands<op::gather, VI, detail::is_int_v<VI>>>);
  detail::block_t<detail::value_of_t<E>, SI> out;
  if constexpr (shapes_ok && detail::is_int_v<VI>) detail::lowering::gather<axis, S>(src, index, out);
  return out;
}

// histogram<NumBins>(x [, mask]): how many elements of the integer block x (where mask
// holds) equal each of 0 .. NumBins - 1; an int32 block of NumBins (Triton's tl.histogram).
template <int NumBins, class E, class M>
  requires(detail::is_expr_v<E> && detail::is_operand_v<M>)
TL_INLINE auto histogram(const E& x, const M& mask) {
  using V = detail::value_of_t<E>;
  using EM = detail::as_expr_t<M>;
  constexpr bool integers = detail::is_int_v<V>, bins_ok = NumBins >= 1 && (NumBins & (NumBins - 1)) == 0;
  constexpr bool mask_ok = detail::broadcastable_to_v<detail::shape_of_t<EM>, detail::shape_of_t<E>>;
  static_assert(detail::check<error::histogram_needs_integer_values<V, integers>>);
  static_assert(detail::check<error::histogram_bins_not_power_of_two<NumBins, bins_ok>>);
  static_assert(detail::check<error::mask_or_value_not_broadcastable_to_pointers<op::histogram, detail::shape_of_t<EM>,
                                                                                 detail::shape_of_t<E>, mask_ok>>);
  constexpr int bins = bins_ok ? NumBins : 1;  // after an error, a block the kernel's uses accept
  detail::block_t<std::int32_t, shape<bins>> out;
  if constexpr (integers && bins_ok && mask_ok) detail::lowering::histogram<NumBins>(x, detail::as_expr(mask), out);
  return out;
}
template <int NumBins, class E>
  requires detail::is_expr_v<E>
TL_INLINE auto histogram(const E& x) {
  return histogram<NumBins>(x, true);
}

}  // namespace tl
