// tl/ops/reduce.hpp: sum, max, min, argmax, argmin along an axis (or over the whole block).
//
//   tl::sum<1>(x)                 Triton: tl.sum(x, axis=1)
//   tl::sum<1>(x, tl::keep_dims)  Triton: tl.sum(x, axis=1, keep_dims=True)
//   tl::sum(x)                    Triton: tl.sum(x)        (every axis; a rank-0 block)
//
// Result types follow Triton: sum keeps the dtype, except integers narrower than 32 bits
// (int32, or uint32 for unsigned ones and bool, which Triton counts as unsigned int1);
// max/min widen types narrower than 32 bits to float32 or int32; arg* give int32.
// 16-bit floats accumulate in float32. A reducer says what a reduction computes (init, step,
// combine, finish); each backend's reduce() says how (backend/cpu/reduce.hpp,
// backend/cuda/reduce.hpp).
#pragma once

#include <limits>

#include "../backend/lowering.hpp"
#include "../expr/block.hpp"
#include "elementwise.hpp"

namespace tl {
namespace detail {

template <class T>
struct sum_result {
  using type = std::conditional_t<(std::is_integral_v<T> && sizeof(T) < 4),
                                  std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>, T>;
};
template <class T>
struct minmax_result {
  using type = std::conditional_t<(sizeof(T) < 4), std::conditional_t<is_float_v<T>, float, std::int32_t>, T>;
};

struct sum_reducer {
  static constexpr bool indexed = false;  // combine() ignores the index
  template <class T> using result = typename sum_result<T>::type;
  template <class T> using acc = compute_t<result<T>>;
  template <class T> TL_INLINE static acc<T> init() { return acc<T>(0); }
  template <class T> TL_INLINE static void step(acc<T>& a, int&, const T& v, int) { a = op::add{}(a, convert<acc<T>>(v)); }
  template <class T> TL_INLINE static result<T> finish(const acc<T>& a, int) { return convert<result<T>>(a); }
  // Joins two partial results (the CUDA backend reduces in parallel).
  template <class T> TL_INLINE static void combine(acc<T>& a, int&, const acc<T>& b, int) { a = op::add{}(a, b); }
};

// argmax / argmin: the value and its index along the axis.
template <bool IsMax>
struct arg_extreme_reducer {
  static constexpr bool indexed = true;
  template <class T> using result = std::int32_t;
  template <class T> using acc = compute_t<typename minmax_result<T>::type>;
  template <class T>
  TL_INLINE static acc<T> init() {
    if constexpr (std::is_floating_point_v<acc<T>>) return IsMax ? -std::numeric_limits<acc<T>>::infinity() : std::numeric_limits<acc<T>>::infinity();
    else return IsMax ? std::numeric_limits<acc<T>>::lowest() : std::numeric_limits<acc<T>>::max();
  }
  // Ties keep the first index (Triton's tie_break_left); NaN never replaces a value (fmax).
  // (Selects, not branches: the same answer, and a reduction's unrolled steps stay one block
  // of straight-line code, which the GPU's compiler optimizes much faster.)
  template <class T>
  TL_INLINE static void step(acc<T>& a, int& idx, const T& v, int k) {
    const acc<T> x = convert<acc<T>>(v);
    const bool take = idx < 0 || (x == x && (!(a == a) || (IsMax ? (x > a) : (x < a))));
    a = take ? x : a;
    idx = take ? k : idx;
  }
  // Joins two partial results (idx < 0: empty) so that the answer is the sequential one:
  // NaN only if everything was NaN, ties to the lower index.
  template <class T>
  TL_INLINE static void combine(acc<T>& a, int& ia, const acc<T>& b, int ib) {
    const bool a_nan = !(a == a), b_nan = !(b == b);
    const bool better = IsMax ? (b > a) : (b < a);
    const bool take = ib >= 0 && (ia < 0 || (a_nan ? (!b_nan || ib < ia) : (!b_nan && (better || (b == a && ib < ia)))));
    a = take ? b : a;
    ia = take ? ib : ia;
  }
  template <class T> TL_INLINE static result<T> finish(const acc<T>&, int idx) { return idx; }
};

// max and min keep no index: fmax/fmin (the GPU's max.f32) join partial results in any
// order, one instruction per element. Starting from NaN, which fmax drops, a result is NaN
// only if every element was, as with the indexed version above.
template <bool IsMax>
struct extreme_value_reducer {
  static constexpr bool indexed = false;  // combine() ignores the index
  template <class T> using result = typename minmax_result<T>::type;
  template <class T> using acc = compute_t<result<T>>;
  template <class T>
  TL_INLINE static acc<T> init() {
    if constexpr (std::is_floating_point_v<acc<T>>) return std::numeric_limits<acc<T>>::quiet_NaN();
    else return IsMax ? std::numeric_limits<acc<T>>::lowest() : std::numeric_limits<acc<T>>::max();
  }
  template <class T>
  TL_INLINE static void step(acc<T>& a, int& i, const T& v, int) { combine<T>(a, i, convert<acc<T>>(v), 0); }
  template <class T>
  TL_INLINE static void combine(acc<T>& a, int&, const acc<T>& b, int) {
    if constexpr (IsMax) a = op::maximum{}(a, b);
    else a = op::minimum{}(a, b);
  }
  template <class T> TL_INLINE static result<T> finish(const acc<T>& a, int) { return convert<result<T>>(a); }
};

using max_reducer = extreme_value_reducer<true>;
using min_reducer = extreme_value_reducer<false>;
using argmax_reducer = arg_extreme_reducer<true>;
using argmin_reducer = arg_extreme_reducer<false>;

template <class Red, int Axis, bool Keep, class E>
TL_INLINE auto reduce_axis(const E& e) {
  using S = shape_of_t<E>;
  using T = value_of_t<E>;
  constexpr int axis = normalize_axis<S, Axis>;
  static_assert(check<error::axis_out_of_range<S, Axis, (axis >= 0 && axis < S::rank)>>);
  if constexpr (axis >= 0 && axis < S::rank) {
    using R = typename Red::template result<T>;
    using kept = typename reduce_shape<S, axis, true>::type;
    using out_shape = typename reduce_shape<S, axis, Keep>::type;
    block_t<R, out_shape> out;
    lowering::reduce<Red, axis, S, kept>(e, out);
    return out;
  } else {
    return block_t<T, shape<>>{};
  }
}

template <class Red, class E>
TL_INLINE auto reduce_all(const E& e) {
  using S = shape_of_t<E>;
  return reduce_axis<Red, 0, false>(view<E, shape<int(S::size)>, reshape_map>{{}, e});
}

}  // namespace detail

// A run-time axis (Triton's habit: tl.sum(x, 1)) stops at a named error.
#define TL_REDUCTION_(name, reducer)                                                          \
  template <int Axis, class E>                                                                \
    requires detail::is_expr_v<E>                                                             \
  TL_INLINE auto name(const E& e) {                                                           \
    return detail::reduce_axis<reducer, Axis, false>(e);                                      \
  }                                                                                           \
  template <int Axis, class E>                                                                \
    requires detail::is_expr_v<E>                                                             \
  TL_INLINE auto name(const E& e, keep_dims_t) {                                              \
    return detail::reduce_axis<reducer, Axis, true>(e);                                       \
  }                                                                                           \
  template <class E, class A, class... K>                                                     \
    requires(detail::is_expr_v<E> && std::is_integral_v<A>)                                   \
  TL_INLINE auto name(const E& e, A, K...) {                                                  \
    static_assert(detail::check<error::axis_is_a_template_argument<op::name, A, false>>);     \
    return detail::reduce_axis<reducer, 0, false>(e);                                         \
  }
TL_REDUCTION_(sum, detail::sum_reducer)
TL_REDUCTION_(max, detail::max_reducer)
TL_REDUCTION_(min, detail::min_reducer)
TL_REDUCTION_(argmax, detail::argmax_reducer)
TL_REDUCTION_(argmin, detail::argmin_reducer)
#undef TL_REDUCTION_

// Over every axis: a rank-0 block (converts to a scalar).
template <class E>
  requires detail::is_expr_v<E>
TL_INLINE auto sum(const E& e) {
  return detail::reduce_all<detail::sum_reducer>(e);
}
template <class E>
  requires detail::is_expr_v<E>
TL_INLINE auto max(const E& e) {
  return detail::reduce_all<detail::max_reducer>(e);
}
template <class E>
  requires detail::is_expr_v<E>
TL_INLINE auto min(const E& e) {
  return detail::reduce_all<detail::min_reducer>(e);
}

// softmax<Dim>(x): exp(x - max) / sum along Dim (the last axis by default), in x's shape
// (Triton's tl.softmax(x, dim)); softmax<Dim>(x, tl::keep_dims) is the same (Triton's keep_dims
// only matters for the shape of its intermediate reductions).
template <int Dim = -1, class E, class... K>
  requires(detail::is_expr_v<E> && (std::is_same_v<K, keep_dims_t> && ...) && sizeof...(K) <= 1)
TL_INLINE auto softmax(const E& e, K...) {
  using S = detail::shape_of_t<E>;
  constexpr int axis = detail::normalize_axis<S, Dim>;
  static_assert(detail::check<error::axis_out_of_range<S, Dim, (axis >= 0 && axis < S::rank)>>);
  constexpr int a = (axis >= 0 && axis < S::rank) ? axis : 0;
  const auto x = detail::block_t<detail::compute_t<detail::value_of_t<E>>, S>(e.to(tl::dtype<detail::compute_t<detail::value_of_t<E>>>{}));
  const auto z = detail::block_t<detail::compute_t<detail::value_of_t<E>>, S>(x - max<a>(x, keep_dims));
  const auto num = detail::block_t<detail::compute_t<detail::value_of_t<E>>, S>(exp(z));
  return num / sum<a>(num, keep_dims);
}

}  // namespace tl
