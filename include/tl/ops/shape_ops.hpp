// tl/ops/shape_ops.hpp: expand_dims, broadcast_to, reshape, permute, trans.
// (None-style indexing, x(tl::None, tl::_), lives on expr_base in tl/expr/expr.hpp.)
// All are views: no data moves until the result is evaluated.
#pragma once

#include "../backend/lowering.hpp"
#include "../expr/block.hpp"

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

}  // namespace tl
