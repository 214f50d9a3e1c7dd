// tl/ops/atomic.hpp: the atomics (Triton's tl.atomic_*), on a pointer block or one pointer.
//
//   auto old = tl::atomic_add(p + offs, x, mask);      Triton: tl.atomic_add(p + offs, x, mask=mask)
//   tl::atomic_max(p + offs, x, mask, tl::relaxed);    Triton: tl.atomic_max(..., sem="relaxed")
//   auto was = tl::atomic_cas(lock, 0, 1, tl::acquire);   Triton: tl.atomic_cas(lock, 0, 1, sem="acquire")
//   tl::atomic_xchg(lock, 0, tl::release, tl::cta);    Triton: tl.atomic_xchg(lock, 0, sem="release", scope="cta")
//   auto f = tl::atomic_load(flag);                    Triton: f = tl.atomic_load(flag)
//   tl::atomic_store(flag, 1);                         Triton: tl.atomic_store(flag, 1)
//   auto ok = tl::atomic_poll(flag, 1, tl::timeout_ns{1000});   Triton: tl.atomic_poll(flag, 1, timeout_ns=1000)
//
// Each masked-in lane reads its element, combines it with the lane's value and writes the
// result back, as one indivisible step; the op returns the values read (the old values), in
// a block of the pointers' shape (rank 0, a scalar, for one pointer). Masked-off lanes do
// nothing and return 0. Lanes whose pointers coincide each take their turn. The memory
// semantics and scope (core/memory_order.hpp) come after the mask, in either order; the default
// is acq_rel at gpu scope, as in Triton. atomic_cas(ptrs, cmp, val) writes val where the element
// equals cmp, and has no mask (as in Triton).
//
// Element types: add on int32, uint32, int64, uint64, float16, bfloat16, float32, float64;
// max and min on the 32- and 64-bit integers and floats (floats in IEEE order, -0.0 below
// +0.0); and, or, xor on the 32- and 64-bit integers; xchg and cas on the 32- and
// 64-bit integers and floats; atomic_load and atomic_store (one indivisible read or write,
// acquire / release by default) on integers and floats of 8 to 64 bits; atomic_poll on 16-,
// 32- and 64-bit integers. Every lane is checked against its buffer like a store's. The
// lowerings: backend/cpu/atomic.hpp (the host threads' atomics) and backend/cuda/atomic.hpp
// (the hardware's atom instructions).
#pragma once

#include <cstdint>
#include <type_traits>

#include "../backend/lowering.hpp"
#include "../core/memory_order.hpp"
#include "../core/ptr.hpp"
#include "../expr/block.hpp"

namespace tl {
namespace detail {

// The atomic operations' names in diagnostics.
template <atomic_op A>
using atomic_op_tag = std::conditional_t<
    A == atomic_op::add, op::atomic_add,
    std::conditional_t<A == atomic_op::max, op::atomic_max,
    std::conditional_t<A == atomic_op::min, op::atomic_min,
    std::conditional_t<A == atomic_op::bit_and, op::atomic_and,
    std::conditional_t<A == atomic_op::bit_or, op::atomic_or,
    std::conditional_t<A == atomic_op::bit_xor, op::atomic_xor,
    std::conditional_t<A == atomic_op::xchg, op::atomic_xchg,
    std::conditional_t<A == atomic_op::cas, op::atomic_cas,
    std::conditional_t<A == atomic_op::load, op::atomic_load, op::atomic_store>>>>>>>>>;

// May `A` work on elements of type T?
template <atomic_op A, class T>
inline constexpr bool atomic_supports = [] {
  constexpr bool int32_64 = std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t> ||
                            std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>;
  constexpr bool float32_64 = std::is_same_v<T, float> || std::is_same_v<T, double>;
  if constexpr (A == atomic_op::load || A == atomic_op::store)
    return (is_int_v<T> || is_float_v<T>) && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
  else if constexpr (A == atomic_op::add) return int32_64 || float32_64 || std::is_same_v<T, fp16> || std::is_same_v<T, bf16>;
  else if constexpr (A == atomic_op::bit_and || A == atomic_op::bit_or || A == atomic_op::bit_xor) return int32_64;
  else return int32_64 || float32_64;
}();

// A semantics or scope tag (core/memory_order.hpp), or the absence of an argument.
struct no_atomic_arg {};
template <class T>
inline constexpr int atomic_option_kind = 0;  // 0: not an option
template <memory_sem S>
inline constexpr int atomic_option_kind<sem_t<S>> = 1;
template <memory_scope S>
inline constexpr int atomic_option_kind<scope_t<S>> = 2;
template <>
inline constexpr int atomic_option_kind<no_atomic_arg> = 3;

template <int Kind, class... O>
inline constexpr int atomic_option_count = ((atomic_option_kind<O> == Kind ? 1 : 0) + ...);

// The semantics asked for, or the op's default: acquire for a load, release for a store,
// acq_rel for the read-modify-writes (Triton's).
template <atomic_op A, class... O>
constexpr memory_sem atomic_sem() {
  memory_sem s = A == atomic_op::load ? memory_sem::acquire : A == atomic_op::store ? memory_sem::release : memory_sem::acq_rel;
  ([&] {
    if constexpr (atomic_option_kind<O> == 1) s = O::value;
  }(), ...);
  return s;
}
template <class... O>
constexpr memory_scope atomic_scope() {
  memory_scope s = memory_scope::gpu;
  ([&] {
    if constexpr (atomic_option_kind<O> == 2) s = O::value;
  }(), ...);
  return s;
}

// The shape of an atomic: the pointers', value's, cmp's and mask's broadcast together (a scalar
// pointer with a block of values updates that one element once per lane, as in Triton).
template <class Op, class A, class B>
constexpr bool atomic_shapes_agree() {
  return check<error::operands_have_incompatible_shapes<Op, A, B, broadcastable_v<A, B>>>;
}
template <class A, class B>
using atomic_shape_t = std::conditional_t<broadcastable_v<A, B>, broadcast_t<A, B>, A>;

template <atomic_op A, class P, class C, class V, class M, class... O>
TL_HD auto atomic_pointers(const P& ptrs_in, const C& cmp_in, const V& value_in, const M& mask_in, source_location where) {
  using EP = as_expr_t<P>;
  using PT = value_of_t<EP>;
  using Q = typename pointee<PT>::type;
  using T = std::remove_const_t<Q>;
  using EC = as_expr_t<C>;
  using EV = as_expr_t<V>;
  using EM = as_expr_t<M>;
  using Op = atomic_op_tag<A>;
  using SP = shape_of_t<EP>;
  using S1 = atomic_shape_t<SP, shape_of_t<EV>>;
  using S2 = atomic_shape_t<S1, shape_of_t<EC>>;
  using S = atomic_shape_t<S2, shape_of_t<EM>>;
  constexpr bool writable = !std::is_const_v<Q> || A == atomic_op::load;  // a load reads through a pointer to const too
  static_assert(check<error::atomic_through_pointer_to_const<Q, writable>>);
  static_assert(check<error::atomic_element_type_not_supported<Op, T, atomic_supports<A, T>>>);
  static_assert(check<error::mask_must_be_boolean<value_of_t<EM>, is_bool_v<value_of_t<EM>>>>);
  constexpr memory_sem sem = atomic_sem<A, O...>();
  static_assert(check<error::atomic_semantics_not_allowed<Op, sem_t<sem>,
                                                          (A != atomic_op::load || sem == memory_sem::acquire || sem == memory_sem::relaxed) &&
                                                              (A != atomic_op::store || sem == memory_sem::release ||
                                                               sem == memory_sem::relaxed)>>);
  constexpr bool shapes_ok = atomic_shapes_agree<Op, SP, shape_of_t<EV>>() && atomic_shapes_agree<Op, S1, shape_of_t<EC>>() &&
                             atomic_shapes_agree<Op, S2, shape_of_t<EM>>();
  block_t<T, S> old;
  if constexpr (writable && atomic_supports<A, T> && shapes_ok) {
    const EP p(as_expr(ptrs_in));
    if constexpr (std::is_same_v<SP, S>)
      lowering::atomic<A, atomic_sem<A, O...>(), atomic_scope<O...>(), T, S>(p, EC(as_expr(cmp_in)), EV(as_expr(value_in)),
                                                                          EM(as_expr(mask_in)), where, old);
    else
      lowering::atomic<A, atomic_sem<A, O...>(), atomic_scope<O...>(), T, S>(view<EP, S, broadcast_map>{{}, p}, EC(as_expr(cmp_in)),
                                                                          EV(as_expr(value_in)), EM(as_expr(mask_in)), where, old);
  }
  return old;
}

// The front of the masked ops: (ptrs, val [, mask] [, sem] [, scope]). A1..A3 are what follows
// the value: a mask first if any, then options.
template <atomic_op A, class P, class V, class A1, class A2, class A3>
TL_HD auto atomic_rmw(const P& ptrs, const V& value, A1 a1, A2, A3, source_location where) {
  using PT = value_of_t<as_expr_t<P>>;
  constexpr bool has_mask = atomic_option_kind<A1> == 0;
  static_assert(check<error::atomic_options_after_mask<atomic_op_tag<A>, A2, A3, atomic_option_kind<A2> != 0 && atomic_option_kind<A3> != 0>>);
  static_assert(check<error::atomic_option_given_twice<atomic_op_tag<A>, A1, A2, A3,
                                                       atomic_option_count<1, A1, A2, A3> <= 1 && atomic_option_count<2, A1, A2, A3> <= 1>>);
  // What comes first and is no option is the mask: a block or a scalar.
  static_assert(check<error::mask_must_be_boolean<A1, !has_mask || is_operand_v<A1>>>);
  if constexpr (check<error::load_store_needs_pointer_block<PT, is_ptr_v<PT>>> && is_ptr_v<PT>) {
    if constexpr (has_mask) {
      if constexpr (is_operand_v<A1>) return atomic_pointers<A, P, int, V, A1, A2, A3>(ptrs, 0, value, a1, where);
      else return 0;
    } else {
      return atomic_pointers<A, P, int, V, bool, A1, A2, A3>(ptrs, 0, value, true, where);
    }
  } else {
    return 0;
  }
}

}  // namespace detail

// atomic_add(ptrs, val [, mask] [, sem] [, scope]): *p += val where mask holds; the old values.
template <class P, class V, class A1 = detail::no_atomic_arg, class A2 = detail::no_atomic_arg, class A3 = detail::no_atomic_arg>
  requires(detail::is_operand_v<P> && detail::is_operand_v<V>)
TL_HD auto atomic_add(const P& ptrs, const V& val, A1 a1 = {}, A2 a2 = {}, A3 a3 = {},
                      source_location where = source_location::current()) {
  return detail::atomic_rmw<detail::atomic_op::add>(ptrs, val, a1, a2, a3, where);
}
// atomic_max(ptrs, val [, mask] [, sem] [, scope]): *p = max(*p, val); the old values.
template <class P, class V, class A1 = detail::no_atomic_arg, class A2 = detail::no_atomic_arg, class A3 = detail::no_atomic_arg>
  requires(detail::is_operand_v<P> && detail::is_operand_v<V>)
TL_HD auto atomic_max(const P& ptrs, const V& val, A1 a1 = {}, A2 a2 = {}, A3 a3 = {},
                      source_location where = source_location::current()) {
  return detail::atomic_rmw<detail::atomic_op::max>(ptrs, val, a1, a2, a3, where);
}
// atomic_min(ptrs, val [, mask] [, sem] [, scope]): *p = min(*p, val); the old values.
template <class P, class V, class A1 = detail::no_atomic_arg, class A2 = detail::no_atomic_arg, class A3 = detail::no_atomic_arg>
  requires(detail::is_operand_v<P> && detail::is_operand_v<V>)
TL_HD auto atomic_min(const P& ptrs, const V& val, A1 a1 = {}, A2 a2 = {}, A3 a3 = {},
                      source_location where = source_location::current()) {
  return detail::atomic_rmw<detail::atomic_op::min>(ptrs, val, a1, a2, a3, where);
}
// atomic_and(ptrs, val [, mask] [, sem] [, scope]): *p &= val; the old values.
template <class P, class V, class A1 = detail::no_atomic_arg, class A2 = detail::no_atomic_arg, class A3 = detail::no_atomic_arg>
  requires(detail::is_operand_v<P> && detail::is_operand_v<V>)
TL_HD auto atomic_and(const P& ptrs, const V& val, A1 a1 = {}, A2 a2 = {}, A3 a3 = {},
                      source_location where = source_location::current()) {
  return detail::atomic_rmw<detail::atomic_op::bit_and>(ptrs, val, a1, a2, a3, where);
}
// atomic_or(ptrs, val [, mask] [, sem] [, scope]): *p |= val; the old values.
template <class P, class V, class A1 = detail::no_atomic_arg, class A2 = detail::no_atomic_arg, class A3 = detail::no_atomic_arg>
  requires(detail::is_operand_v<P> && detail::is_operand_v<V>)
TL_HD auto atomic_or(const P& ptrs, const V& val, A1 a1 = {}, A2 a2 = {}, A3 a3 = {},
                     source_location where = source_location::current()) {
  return detail::atomic_rmw<detail::atomic_op::bit_or>(ptrs, val, a1, a2, a3, where);
}
// atomic_xor(ptrs, val [, mask] [, sem] [, scope]): *p ^= val; the old values.
template <class P, class V, class A1 = detail::no_atomic_arg, class A2 = detail::no_atomic_arg, class A3 = detail::no_atomic_arg>
  requires(detail::is_operand_v<P> && detail::is_operand_v<V>)
TL_HD auto atomic_xor(const P& ptrs, const V& val, A1 a1 = {}, A2 a2 = {}, A3 a3 = {},
                      source_location where = source_location::current()) {
  return detail::atomic_rmw<detail::atomic_op::bit_xor>(ptrs, val, a1, a2, a3, where);
}
// atomic_xchg(ptrs, val [, mask] [, sem] [, scope]): *p = val; the old values.
template <class P, class V, class A1 = detail::no_atomic_arg, class A2 = detail::no_atomic_arg, class A3 = detail::no_atomic_arg>
  requires(detail::is_operand_v<P> && detail::is_operand_v<V>)
TL_HD auto atomic_xchg(const P& ptrs, const V& val, A1 a1 = {}, A2 a2 = {}, A3 a3 = {},
                       source_location where = source_location::current()) {
  return detail::atomic_rmw<detail::atomic_op::xchg>(ptrs, val, a1, a2, a3, where);
}
// atomic_cas(ptrs, cmp, val [, sem] [, scope]): *p = val where *p == cmp (bit for bit); the old
// values (equal to cmp where the swap happened).
template <class P, class C, class V, class A1 = detail::no_atomic_arg, class A2 = detail::no_atomic_arg>
  requires(detail::is_operand_v<P> && detail::is_operand_v<C> && detail::is_operand_v<V>)
TL_HD auto atomic_cas(const P& ptrs, const C& cmp, const V& val, A1 = {}, A2 = {},
                      source_location where = source_location::current()) {
  using PT = detail::value_of_t<detail::as_expr_t<P>>;
  static_assert(detail::check<error::atomic_cas_takes_options_only<op::atomic_cas, A1, A2,
                                                                   detail::atomic_option_kind<A1> != 0 &&
                                                                       detail::atomic_option_kind<A2> != 0>>);
  if constexpr (detail::check<error::load_store_needs_pointer_block<PT, detail::is_ptr_v<PT>>> && detail::is_ptr_v<PT>)
    return detail::atomic_pointers<detail::atomic_op::cas, P, C, V, bool, A1, A2>(ptrs, cmp, val, true, where);
  else
    return 0;
}

// atomic_load(ptrs [, mask] [, sem] [, scope]): the values at ptrs, each read in one
// indivisible step (Triton's tl.atomic_load); sem tl::acquire (the default) or tl::relaxed.
// Masked-off lanes read nothing and give 0.
template <class P, class A1 = detail::no_atomic_arg, class A2 = detail::no_atomic_arg, class A3 = detail::no_atomic_arg>
  requires detail::is_operand_v<P>
TL_HD auto atomic_load(const P& ptrs, A1 a1 = {}, A2 a2 = {}, A3 a3 = {}, source_location where = source_location::current()) {
  return detail::atomic_rmw<detail::atomic_op::load>(ptrs, 0, a1, a2, a3, where);
}
// atomic_store(ptrs, val [, mask] [, sem] [, scope]): *p = val in one indivisible step where mask
// holds (Triton's tl.atomic_store); sem tl::release (the default) or tl::relaxed. A release store
// gives back a lock that an atomic_cas took (a spin lock's unlock).
template <class P, class V, class A1 = detail::no_atomic_arg, class A2 = detail::no_atomic_arg, class A3 = detail::no_atomic_arg>
  requires(detail::is_operand_v<P> && detail::is_operand_v<V>)
TL_HD void atomic_store(const P& ptrs, const V& val, A1 a1 = {}, A2 a2 = {}, A3 a3 = {},
                        source_location where = source_location::current()) {
  (void)detail::atomic_rmw<detail::atomic_op::store>(ptrs, val, a1, a2, a3, where);
}

namespace detail {
// atomic_poll's arguments after expected: the atomics' options, or (kind 4) its time budget.
template <class T>
inline constexpr int poll_option_kind = atomic_option_kind<T>;
template <>
inline constexpr int poll_option_kind<timeout_ns> = 4;
template <class... O>
TL_HD unsigned long long poll_timeout(const O&... o) {
  unsigned long long t = ~0ull;  // none: poll until the value comes
  ([&] {
    if constexpr (poll_option_kind<O> == 4) t = o.ns;
  }(), ...);
  return t;
}
}  // namespace detail

// atomic_poll(ptrs, expected [, sem] [, scope] [, tl::timeout_ns{n}]): waits until the value
// at each pointer equals expected, reading it atomically (Triton's tl.atomic_poll); true where
// it came, false where the shared time budget ran out first (each element is read at least
// once). sem tl::acquire (the default: what the writer did before its release store is seen
// after the poll) or tl::relaxed. 16-, 32- and 64-bit integers.
template <class P, class E, class A1 = detail::no_atomic_arg, class A2 = detail::no_atomic_arg, class A3 = detail::no_atomic_arg>
  requires(detail::is_operand_v<P> && detail::is_operand_v<E>)
TL_HD auto atomic_poll(const P& ptrs, const E& expected, A1 a1 = {}, A2 a2 = {}, A3 a3 = {},
                       source_location where = source_location::current()) {
  using EP = detail::as_expr_t<P>;
  using PT = detail::value_of_t<EP>;
  using EE = detail::as_expr_t<E>;
  using Op = op::atomic_poll;
  static_assert(detail::check<error::atomic_option_given_twice<
                    Op, A1, A2, A3,
                    detail::atomic_option_count<1, A1, A2, A3> <= 1 && detail::atomic_option_count<2, A1, A2, A3> <= 1 &&
                        ((detail::poll_option_kind<A1> == 4) + (detail::poll_option_kind<A2> == 4) +
                         (detail::poll_option_kind<A3> == 4)) <= 1>>);
  static_assert(detail::check<error::atomic_poll_takes_options_only<Op, A1, A2, A3, detail::poll_option_kind<A1> != 0 &&
                                                                                    detail::poll_option_kind<A2> != 0 &&
                                                                                    detail::poll_option_kind<A3> != 0>>);
  if constexpr (detail::check<error::load_store_needs_pointer_block<PT, detail::is_ptr_v<PT>>> && detail::is_ptr_v<PT>) {
    using Q = typename detail::pointee<PT>::type;
    using T = std::remove_const_t<Q>;
    using S = detail::atomic_shape_t<detail::shape_of_t<EP>, detail::shape_of_t<EE>>;
    constexpr memory_sem sem = detail::atomic_sem<detail::atomic_op::load, A1, A2, A3>();
    constexpr bool ints = detail::is_int_v<T> && (sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);
    static_assert(detail::check<error::atomic_poll_needs_integers<Op, T, ints>>);
    static_assert(detail::check<error::atomic_semantics_not_allowed<Op, sem_t<sem>, sem == memory_sem::acquire || sem == memory_sem::relaxed>>);
    constexpr bool shapes_ok = detail::atomic_shapes_agree<Op, detail::shape_of_t<EP>, detail::shape_of_t<EE>>();
    detail::block_t<bool, S> came;
    if constexpr (ints && shapes_ok) {
      const unsigned long long budget = detail::poll_timeout(a1, a2, a3);
      if constexpr (std::is_same_v<detail::shape_of_t<EP>, S>)
        detail::lowering::atomic_poll<sem, detail::atomic_scope<A1, A2, A3>(), T, S>(EP(detail::as_expr(ptrs)), EE(detail::as_expr(expected)),
                                                                                     budget, where, came);
      else
        detail::lowering::atomic_poll<sem, detail::atomic_scope<A1, A2, A3>(), T, S>(
            detail::view<EP, S, detail::broadcast_map>{{}, EP(detail::as_expr(ptrs))}, EE(detail::as_expr(expected)), budget, where, came);
    }
    return came;
  } else {
    return false;
  }
}

}  // namespace tl
