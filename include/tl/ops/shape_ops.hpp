// tl/ops/shape_ops.hpp: expand_dims (unsqueeze), squeeze, broadcast_to, reshape, ravel, permute,
// trans, flip, join, split, interleave, cat.
// (None-style indexing, x(tl::None, tl::_), lives on expr_base in tl/expr/expr.hpp.)
// All are views: no data moves until the result is evaluated.
#pragma once

#include <tuple>

#include "../backend/lowering.hpp"
#include "../expr/block.hpp"
#include "creation.hpp"
#include "elementwise.hpp"

namespace tl {
namespace detail {
template <class S, int Axis, class Seq = std::make_integer_sequence<int, S::rank + 1>>
struct expand_shape;
template <class S, int Axis, int... I>
struct expand_shape<S, Axis, std::integer_sequence<int, I...>> {
  static constexpr int dim(int i) { return i < Axis ? S::dim(i) : (i == Axis ? 1 : S::dim(i - 1)); }
  using type = shape<dim(I)...>;
};
template <int Axis>
struct expand_plan {
  TL_HD static constexpr bool is_new(int i) { return i == Axis; }
};

template <class S, class Seq>
struct permuted_shape;
template <class S, int... P>
struct permuted_shape<S, std::integer_sequence<int, P...>> {
  using type = shape<S::dim(P)...>;
  TL_HD static constexpr bool valid() {
    if (int(sizeof...(P)) != S::rank) return false;
    constexpr int p[] = {P..., 0};
    for (int i = 0; i < S::rank; ++i) {
      if (p[i] < 0 || p[i] >= S::rank) return false;
      for (int j = 0; j < i; ++j)
        if (p[i] == p[j]) return false;
    }
    return true;
  }
};
// flip: coordinate k along Axis reads N - 1 - k.
template <int Axis>
struct flip_map {
  template <class Out, class In>
  TL_INLINE static constexpr coord<In::rank> apply(const coord<Out::rank>& c) {
    coord<In::rank> r = c;
    r[Axis] = In::dim(Axis) - 1 - c[Axis];
    return r;
  }
};
// split: the input's last coordinate fixed to K.
template <int K>
struct last_fixed_map {
  template <class Out, class In>
  TL_INLINE static constexpr coord<In::rank> apply(const coord<Out::rank>& c) {
    coord<In::rank> r{};
    for (int i = 0; i < Out::rank; ++i) r[i] = c[i];
    r[In::rank - 1] = K;
    return r;
  }
};
// cat: the output's coordinate along Axis, less Offset, clamped into the operand (the other
// operand's positions read its edge, which where() then discards).
template <int Axis, int Offset>
struct shifted_map {
  template <class Out, class In>
  TL_INLINE static constexpr coord<In::rank> apply(const coord<Out::rank>& c) {
    coord<In::rank> r = c;
    const int k = c[Axis] - Offset;
    r[Axis] = k < 0 ? 0 : (k >= In::dim(Axis) ? In::dim(Axis) - 1 : k);
    return r;
  }
};
template <class S, int Axis, int N, class Seq = std::make_integer_sequence<int, S::rank>>
struct resized_shape;
template <class S, int Axis, int N, int... I>
struct resized_shape<S, Axis, N, std::integer_sequence<int, I...>> {
  using type = shape<(I == Axis ? N : S::dim(I))...>;
};
template <class S, class Seq = std::make_integer_sequence<int, S::rank - 1>>
struct drop_last;
template <class S, int... I>
struct drop_last<S, std::integer_sequence<int, I...>> {
  using type = shape<S::dim(I)...>;
};
template <int Axis>
struct axis_index_map {
  template <class Out, class In>
  TL_INLINE static constexpr coord<1> apply(const coord<Out::rank>& c) {
    coord<1> r{};
    r[0] = c[Axis];
    return r;
  }
};
// The coordinate along Axis of shape S, as a block of S (for where()).
template <class S, int Axis>
TL_INLINE auto axis_index() {
  return view<arange_expr<0, S::dim(Axis)>, S, axis_index_map<Axis>>{};
}
}  // namespace detail

// expand_dims<axis>(x): insert a size-1 axis at `axis` (negative counts from the end, -1
// appends). Triton: tl.expand_dims(x, axis) or x.expand_dims(axis).
template <int Axis, class E>
  requires detail::is_expr_v<E>
TL_INLINE auto expand_dims(const E& e) {
  using S = detail::shape_of_t<E>;
  constexpr int axis = Axis < 0 ? Axis + S::rank + 1 : Axis;
  static_assert(detail::check<error::axis_out_of_range<S, Axis, (axis >= 0 && axis <= S::rank)>>);
  using out = typename detail::expand_shape<S, axis>::type;
  return detail::view<E, out, detail::insert_axes_map<detail::expand_plan<axis>>>{{}, e};
}

// unsqueeze<axis>(x): expand_dims under the name Triton also gives it (tl.unsqueeze(x, dim)).
template <int Axis, class E>
  requires detail::is_expr_v<E>
TL_INLINE auto unsqueeze(const E& e) {
  return expand_dims<Axis>(e);
}

namespace detail {
template <class S, int Axis, class Seq = std::make_integer_sequence<int, (S::rank > 0 ? S::rank - 1 : 0)>>
struct squeeze_shape;
template <class S, int Axis, int... I>
struct squeeze_shape<S, Axis, std::integer_sequence<int, I...>> {
  using type = shape<S::dim(I < Axis ? I : I + 1)...>;
};
}  // namespace detail

// squeeze<axis>(x): remove an axis of size 1 (negative counts from the end); the inverse of
// unsqueeze (Triton's tl.squeeze(x, dim)).
template <int Axis, class E>
  requires detail::is_expr_v<E>
TL_INLINE auto squeeze(const E& e) {
  using S = detail::shape_of_t<E>;
  constexpr int axis = Axis < 0 ? Axis + S::rank : Axis;
  constexpr bool in_range = axis >= 0 && axis < S::rank;
  static_assert(detail::check<error::axis_out_of_range<S, Axis, in_range>>);
  static_assert(detail::check<error::squeezed_axis_is_not_1<S, Axis, !in_range || S::dim(in_range ? axis : 0) == 1>>);
  using out = typename detail::squeeze_shape<S, in_range ? axis : 0>::type;
  return detail::view<E, out, detail::reshape_map>{{}, e};
}

// broadcast_to<D...>(x): stretch size-1 axes (and add leading axes) to shape D...
template <int... D, class E>
  requires detail::is_expr_v<E>
TL_INLINE auto broadcast_to(const E& e) {
  using S = detail::shape_of_t<E>;
  static_assert(detail::check<error::cannot_broadcast_to_shape<S, shape<D...>, detail::broadcastable_to_v<S, shape<D...>>>>);
  return detail::view<E, shape<D...>, detail::broadcast_map>{{}, e};
}

// reshape<D...>(x): the same elements in row-major order, in shape D... (Triton's
// tl.reshape / x.reshape(...)).
template <int... D, class E>
  requires detail::is_expr_v<E>
TL_INLINE auto reshape(const E& e) {
  using S = detail::shape_of_t<E>;
  static_assert(detail::check<error::reshape_changes_the_number_of_elements<S, shape<D...>, S::size == shape<D...>::size>>);
  return detail::view<E, shape<D...>, detail::reshape_map>{{}, e};
}

// permute<P...>(x): output axis i is input axis P[i] (Triton's tl.permute).
template <int... P, class E>
  requires detail::is_expr_v<E>
TL_INLINE auto permute(const E& e) {
  using S = detail::shape_of_t<E>;
  using ps = detail::permuted_shape<S, std::integer_sequence<int, P...>>;
  static_assert(detail::check<error::permutation_invalid<std::integer_sequence<int, P...>, ps::valid()>>);
  if constexpr (ps::valid()) return detail::view<E, typename ps::type, detail::permute_map<P...>>{{}, e};
  else return e;
}

// trans(x): a 2-D transpose; trans<P...>(x) is permute<P...>(x) (Triton's tl.trans).
template <int... P, class E>
  requires detail::is_expr_v<E>
TL_INLINE auto trans(const E& e) {
  if constexpr (sizeof...(P) == 0) {
    constexpr bool is_2d = detail::shape_of_t<E>::rank == 2;
    if constexpr (detail::check<error::trans_without_axes_needs_2d<detail::shape_of_t<E>, is_2d>> && is_2d)
      return permute<1, 0>(e);
    else
      return e;
  } else {
    return permute<P...>(e);
  }
}

// broadcast(a, b): both blocks stretched to their common shape, as a std::tuple (Triton's
// tl.broadcast(a, b)).
template <class A, class B>
  requires(detail::is_expr_v<A> && detail::is_expr_v<B>)
TL_INLINE auto broadcast(const A& a, const B& b) {
  using SA = detail::shape_of_t<A>;
  using SB = detail::shape_of_t<B>;
  static_assert(detail::check<error::operands_have_incompatible_shapes<op::broadcast_to, SA, SB, detail::broadcastable_v<SA, SB>>>);
  using S = typename detail::broadcast_all<SA, SB>::type;
  return std::tuple{detail::view<A, S, detail::broadcast_map>{{}, a}, detail::view<B, S, detail::broadcast_map>{{}, b}};
}

// ravel(x): the elements in row-major order as a 1-D block (Triton's tl.ravel).
template <class E>
  requires detail::is_expr_v<E>
TL_INLINE auto ravel(const E& e) {
  return detail::view<E, shape<int(detail::shape_of_t<E>::size)>, detail::reshape_map>{{}, e};
}

// flip<Dim>(x): the elements along Dim in reverse order; flip(x) along the last axis (Triton's
// tl.flip(x, dim)).
template <int Dim = -1, class E>
  requires detail::is_expr_v<E>
TL_INLINE auto flip(const E& e) {
  using S = detail::shape_of_t<E>;
  constexpr int axis = detail::normalize_axis<S, Dim>;
  static_assert(detail::check<error::axis_out_of_range<S, Dim, (axis >= 0 && axis < S::rank)>>);
  return detail::view<E, S, detail::flip_map<(axis >= 0 && axis < S::rank) ? axis : 0>>{{}, e};
}

// join(a, b): a and b (of one shape after broadcasting) side by side along a new last axis of
// 2 (Triton's tl.join).
template <class A, class B>
  requires(detail::is_expr_v<A> && detail::is_expr_v<B>)
TL_INLINE auto join(const A& a, const B& b) {
  using S = typename detail::broadcast_all<detail::shape_of_t<A>, detail::shape_of_t<B>>::type;
  static_assert(detail::check<error::operands_have_incompatible_shapes<op::join, detail::shape_of_t<A>, detail::shape_of_t<B>,
                                                                       detail::broadcastable_v<detail::shape_of_t<A>, detail::shape_of_t<B>>>>);
  using S2 = typename detail::expand_shape<S, S::rank>::type;  // S x 1
  auto a2 = expand_dims<-1>(detail::view<A, S, detail::broadcast_map>{{}, a});
  auto b2 = expand_dims<-1>(detail::view<B, S, detail::broadcast_map>{{}, b});
  (void)sizeof(S2);
  return where(arange<0, 2>() == 0, a2, b2);
}

// split(x): the two halves of x's last axis of 2, as a std::tuple (Triton's a, b = tl.split(x)).
template <class E>
  requires detail::is_expr_v<E>
TL_INLINE auto split(const E& e) {
  using S = detail::shape_of_t<E>;
  static_assert(detail::check<error::split_needs_a_last_axis_of_2<S, (S::rank >= 1 && S::dim(S::rank - 1) == 2)>>);
  if constexpr (S::rank >= 1 && S::dim(S::rank - 1) == 2) {
    using out = typename detail::drop_last<S>::type;
    return std::tuple{detail::view<E, out, detail::last_fixed_map<0>>{{}, e}, detail::view<E, out, detail::last_fixed_map<1>>{{}, e}};
  } else if constexpr (S::rank >= 1) {
    // After the error, halves of the shape the kernel expects, so that its uses add no errors.
    using out = typename detail::drop_last<S>::type;
    return std::tuple{detail::view<E, out, detail::last_fixed_map<0>>{{}, e}, detail::view<E, out, detail::last_fixed_map<0>>{{}, e}};
  } else {
    return std::tuple{e, e};
  }
}

// interleave(a, b): a's and b's elements alternating along the last axis, twice as long
// (Triton's tl.interleave).
template <class A, class B>
  requires(detail::is_expr_v<A> && detail::is_expr_v<B>)
TL_INLINE auto interleave(const A& a, const B& b) {
  auto j = join(a, b);
  using J = detail::shape_of_t<decltype(j)>;
  using out = typename detail::resized_shape<typename detail::drop_last<J>::type, J::rank - 2, J::dim(J::rank - 2) * 2>::type;
  return detail::view<decltype(j), out, detail::reshape_map>{{}, j};
}

// cat(a, b): b's elements after a's along the first axis; the other axes must agree (Triton's
// tl.cat, which keeps the order here: can_reorder is not needed).
template <class A, class B>
  requires(detail::is_expr_v<A> && detail::is_expr_v<B>)
TL_INLINE auto cat(const A& a, const B& b) {
  using SA = detail::shape_of_t<A>;
  using SB = detail::shape_of_t<B>;
  constexpr bool ok = SA::rank == SB::rank && SA::rank >= 1 && std::is_same_v<typename detail::resized_shape<SA, 0, 1>::type,
                                                                              typename detail::resized_shape<SB, 0, 1>::type>;
  static_assert(detail::check<error::cat_needs_equal_trailing_axes<SA, SB, ok>>);
  if constexpr (ok) {
    constexpr int na = SA::dim(0);
    using out = typename detail::resized_shape<SA, 0, na + SB::dim(0)>::type;
    auto va = detail::view<A, out, detail::shifted_map<0, 0>>{{}, a};
    auto vb = detail::view<B, out, detail::shifted_map<0, na>>{{}, b};
    return where(detail::axis_index<out, 0>() < na, va, vb);
  } else {
    return a;
  }
}

}  // namespace tl
