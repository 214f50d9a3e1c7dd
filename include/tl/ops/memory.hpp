// tl/ops/memory.hpp: load and store of pointer blocks (tl::ptr itself: core/ptr.hpp).
//
//   x = tl::load(x_ptr + offs, mask);           Triton: tl.load(x_ptr + offs, mask=mask)
//   x = tl::load(x_ptr + offs, mask, -INF);     Triton: tl.load(..., mask=mask, other=-inf)
//   tl::store(z_ptr + offs, z, mask);           Triton: tl.store(z_ptr + offs, z, mask=mask)
//   x = tl::load(x_ptr + offs, mask, 0, tl::evict_last);
//                                  Triton: tl.load(..., mask=mask, other=0, eviction_policy="evict_last")
//
// Every masked-in lane is checked against the buffer its pointer was made from (on the CUDA
// backend with TL_DEVICE_CHECKS=1): lanes outside it are never read or written; they are
// reported with the program id, the op, the source line and the offsets, and the launch
// fails. Masked-off lanes of a load are `other` (0 when not given). The lowerings:
// backend/cpu/memory.hpp and backend/cuda/memory.hpp.
#pragma once

#include "../backend/lowering.hpp"
#include "../core/eviction.hpp"
#include "../core/ptr.hpp"
#include "../expr/block.hpp"
#include "../expr/loaded.hpp"

namespace tl {
namespace detail {

template <eviction Ev = eviction::normal, class P, class M, class O, class Src = no_source>
TL_HD auto load_pointers(const P& ptrs_in, M mask_in, O other_in, source_location where, const Src& source = Src{}) {
  using EP = as_expr_t<P>;
  using PT = value_of_t<EP>;
  using T = std::remove_const_t<typename pointee<PT>::type>;
  using S = shape_of_t<EP>;
  using EM = as_expr_t<M>;
  using EO = as_expr_t<O>;
  static_assert(check<error::mask_must_be_boolean<value_of_t<EM>, is_bool_v<value_of_t<EM>>>>);
  static_assert(check<error::mask_or_value_not_broadcastable_to_pointers<op::load, shape_of_t<EM>, S,
                                                                         broadcastable_to_v<shape_of_t<EM>, S>>>);
  static_assert(check<error::mask_or_value_not_broadcastable_to_pointers<op::load, shape_of_t<EO>, S,
                                                                         broadcastable_to_v<shape_of_t<EO>, S>>>);
  // The elements, and where they came from (expr/loaded.hpp: tl::dot may read them again).
  loaded<T, S, EP, EM, EO, Src> out(as_expr(ptrs_in), as_expr(mask_in), as_expr(other_in), where, source);
  lowering::load<T, S, Ev>(out.ptrs, out.mask, out.other, where, out);
  return out;  // a scalar pointer gives a rank-0 block: a scalar tensor, as in Triton
}

template <eviction Ev = eviction::normal, class P, class V, class M>
TL_HD void store_pointers(const P& ptrs_in, V value_in, M mask_in, source_location where) {
  using EP = as_expr_t<P>;
  using PT = value_of_t<EP>;
  using Q = typename pointee<PT>::type;
  static_assert(check<error::store_through_pointer_to_const<Q, !std::is_const_v<Q>>>);
  using S = shape_of_t<EP>;
  using EV = as_expr_t<V>;
  using EM = as_expr_t<M>;
  static_assert(check<error::mask_must_be_boolean<value_of_t<EM>, is_bool_v<value_of_t<EM>>>>);
  static_assert(check<error::mask_or_value_not_broadcastable_to_pointers<op::store, shape_of_t<EV>, S,
                                                                         broadcastable_to_v<shape_of_t<EV>, S>>>);
  static_assert(check<error::mask_or_value_not_broadcastable_to_pointers<op::store, shape_of_t<EM>, S,
                                                                         broadcastable_to_v<shape_of_t<EM>, S>>>);
  if constexpr (!std::is_const_v<Q>)
    lowering::store<Q, S, Ev>(EP(as_expr(ptrs_in)), EV(as_expr(value_in)), EM(as_expr(mask_in)), where);
}

// The fronts: a first argument that is not a pointer block stops at its one tl::error.
template <eviction Ev = eviction::normal, class P, class M, class O>
TL_HD auto load_impl(const P& ptrs, M mask, O other, source_location where) {
  using PT = value_of_t<as_expr_t<P>>;
  if constexpr (check<error::load_store_needs_pointer_block<PT, is_ptr_v<PT>>> && is_ptr_v<PT>)
    return load_pointers<Ev>(ptrs, mask, other, where);
  else
    return 0;
}
template <eviction Ev = eviction::normal, class P, class V, class M>
TL_HD void store_impl(const P& ptrs, V value, M mask, source_location where) {
  using PT = value_of_t<as_expr_t<P>>;
  if constexpr (check<error::load_store_needs_pointer_block<PT, is_ptr_v<PT>>> && is_ptr_v<PT>)
    store_pointers<Ev>(ptrs, value, mask, where);
}

}  // namespace detail

// load(ptrs [, mask [, other]]): a block of the pointer block's shape (rank 0, which converts
// to a scalar, for a scalar pointer), which remembers its pointers (expr/loaded.hpp).
template <class P>
  requires detail::is_operand_v<P>
TL_HD auto load(const P& ptrs, source_location where = source_location::current()) {
  return detail::load_impl(ptrs, true, 0, where);
}
template <class P, class M>
  requires(detail::is_operand_v<P> && detail::is_operand_v<M>)
TL_HD auto load(const P& ptrs, M mask, source_location where = source_location::current()) {
  return detail::load_impl(ptrs, mask, 0, where);
}
template <class P, class M, class O>
  requires(detail::is_operand_v<P> && detail::is_operand_v<M> && detail::is_operand_v<O>)
TL_HD auto load(const P& ptrs, M mask, O other, source_location where = source_location::current()) {
  return detail::load_impl(ptrs, mask, other, where);
}
// The same with an eviction policy last: tl::load(p, mask, other, tl::evict_last).
template <class P, eviction E>
  requires detail::is_operand_v<P>
TL_HD auto load(const P& ptrs, eviction_policy<E>, source_location where = source_location::current()) {
  return detail::load_impl<E>(ptrs, true, 0, where);
}
template <class P, class M, eviction E>
  requires(detail::is_operand_v<P> && detail::is_operand_v<M>)
TL_HD auto load(const P& ptrs, M mask, eviction_policy<E>, source_location where = source_location::current()) {
  return detail::load_impl<E>(ptrs, mask, 0, where);
}
template <class P, class M, class O, eviction E>
  requires(detail::is_operand_v<P> && detail::is_operand_v<M> && detail::is_operand_v<O>)
TL_HD auto load(const P& ptrs, M mask, O other, eviction_policy<E>,
                source_location where = source_location::current()) {
  return detail::load_impl<E>(ptrs, mask, other, where);
}

// store(ptrs, value [, mask]): value (broadcast to the pointers' shape, converted to their
// element type) written where mask holds.
template <class P, class V>
  requires(detail::is_operand_v<P> && detail::is_operand_v<V>)
TL_HD void store(const P& ptrs, V value, source_location where = source_location::current()) {
  detail::store_impl(ptrs, value, true, where);
}
template <class P, class V, class M>
  requires(detail::is_operand_v<P> && detail::is_operand_v<V> && detail::is_operand_v<M>)
TL_HD void store(const P& ptrs, V value, M mask, source_location where = source_location::current()) {
  detail::store_impl(ptrs, value, mask, where);
}
// The same with an eviction policy last: tl::store(p, z, mask, tl::evict_first).
template <class P, class V, eviction E>
  requires(detail::is_operand_v<P> && detail::is_operand_v<V>)
TL_HD void store(const P& ptrs, V value, eviction_policy<E>, source_location where = source_location::current()) {
  detail::store_impl<E>(ptrs, value, true, where);
}
template <class P, class V, class M, eviction E>
  requires(detail::is_operand_v<P> && detail::is_operand_v<V> && detail::is_operand_v<M>)
TL_HD void store(const P& ptrs, V value, M mask, eviction_policy<E>,
                 source_location where = source_location::current()) {
  detail::store_impl<E>(ptrs, value, mask, where);
}

}  // namespace tl
