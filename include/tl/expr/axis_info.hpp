// tl/expr/axis_info.hpp: what the type of an integer or pointer expression says about its
// values along the last axis (Triton's AxisInfo, reduced to what the CUDA loads need).
//
//   last_axis_stride<E>() == 1   E(.., j + 1) == E(.., j) + 1 for every coordinate: offsets
//                                like pid * B + tl::arange<0, B>(), or off_y(_, None) * N0
//                                + off_x(None, _); a chunk of consecutive elements of a
//                                pointer block is then one contiguous run of memory
//                      == 0      the same value all along the last axis (scalars, x(_, None))
//                      == -1     unknown (loaded values, products of arange, ...)
// The loads and stores use it to skip the per-lane contiguity test (backend/cuda/memory.hpp).
#pragma once

#include "block.hpp"

namespace tl::detail {

template <class E>
constexpr int last_axis_stride();

// Operand O read at the last axis of a node of shape Parent: broadcast along it, or not.
template <class Parent, class O>
constexpr int operand_stride() {
  using OS = shape_of_t<O>;
  constexpr int parent_last = Parent::rank > 0 ? Parent::dim(Parent::rank - 1) : 1;
  constexpr int own_last = OS::rank > 0 ? OS::dim(OS::rank - 1) : 1;
  if constexpr (own_last == 1 && parent_last != 1) return 0;  // broadcast: constant along the axis
  else return last_axis_stride<O>();
}

constexpr int add_strides(int a, int b) { return a < 0 || b < 0 ? -1 : a + b > 1 ? -1 : a + b; }

template <class X>
struct stride_of {
  static constexpr int value = -1;
};
template <class T, bool W>
struct stride_of<scalar_expr<T, W>> {
  static constexpr int value = 0;
};
template <int Start, int End>
struct stride_of<arange_expr<Start, End>> {
  static constexpr int value = 1;
};
template <class A, class B>
struct stride_of<binary<op::add, A, B>> {
  using S = typename binary<op::add, A, B>::shape_type;
  static constexpr int value = add_strides(operand_stride<S, A>(), operand_stride<S, B>());
};
template <class A, class B>
struct stride_of<binary<op::sub, A, B>> {
  using S = typename binary<op::sub, A, B>::shape_type;
  static constexpr int value = operand_stride<S, B>() == 0 ? operand_stride<S, A>() : -1;
};
template <class A, class B>
struct stride_of<binary<op::mul, A, B>> {  // constant times constant stays constant
  using S = typename binary<op::mul, A, B>::shape_type;
  static constexpr int value = operand_stride<S, A>() == 0 && operand_stride<S, B>() == 0 ? 0 : -1;
};
template <class Op, class P, class O>
struct stride_of<pointer_offset<Op, P, O>> {
  using S = typename pointer_offset<Op, P, O>::shape_type;
  static constexpr int value = std::is_same_v<Op, op::add> ? add_strides(operand_stride<S, P>(), operand_stride<S, O>())
                               : operand_stride<S, O>() == 0 ? operand_stride<S, P>()
                                                             : -1;
};
template <class T, class E>
struct stride_of<cast<T, E>> {  // widening integer casts keep the steps
  static constexpr int value =
      std::is_integral_v<T> && std::is_integral_v<value_of_t<E>> && sizeof(T) >= sizeof(value_of_t<E>) ? last_axis_stride<E>() : -1;
};
// x(None, _), x(_, None), ...: a new last axis is constant; an old one keeps its steps.
template <class E, class Shape, class Plan>
struct stride_of<view<E, Shape, insert_axes_map<Plan>>> {
  static constexpr int value = Plan::is_new(Shape::rank - 1)                 ? 0
                               : shape_of_t<E>::rank == 0                    ? 0
                                                                             : last_axis_stride<E>();
};

template <class E>
constexpr int last_axis_stride() {
  return stride_of<std::remove_cvref_t<E>>::value;
}

// ---- affine offsets and convex masks (the CUDA loads' and stores' fast path) ----
//
//   uniform_v<E>      the same value at every coordinate (scalars and arithmetic on them)
//   affine_v<E>       an integer expression a0 + sum_d a_d c_d of the coordinates c: aranges,
//                     scalars, sums, differences, products by a uniform factor, None-axes
//   affine_ptr_v<E>   a pointer plus an affine offset (x_ptr + off_j(_, None) * N + off_k)
//   convex_mask_v<E>  an AND of comparisons (<, <=, >, >=) of affine expressions: the set of
//                     coordinates it lets in is convex, so it is true on a whole block as soon
//                     as it is true at the block's corners
// All of them hold no block (registers): they can be evaluated at any coordinate by any
// thread. The reasoning treats integers as unbounded; offsets that wrap around their type
// inside one block are out of its scope (they would address the wrong memory anyway).

template <class X>
struct is_mod_node : std::false_type {};
template <class A, class B>
struct is_mod_node<binary<op::mod, A, B>> : std::true_type {};

template <class X>
struct uniform_of : std::false_type {};
template <class T, bool W>
struct uniform_of<scalar_expr<T, W>> : std::true_type {};
template <class Op, class A, class B>
struct uniform_of<binary<Op, A, B>> : std::bool_constant<uniform_of<A>::value && uniform_of<B>::value> {};
template <class Op, class E>
struct uniform_of<unary<Op, E>> : uniform_of<E> {};
template <class T, class E>
struct uniform_of<cast<T, E>> : uniform_of<E> {};
template <origin O, class T>
struct uniform_of<basic_block<O, T>> : std::true_type {};  // a rank-0 block: one value, every thread holds it
template <class E>
inline constexpr bool uniform_v = uniform_of<std::remove_cvref_t<E>>::value;

template <class E>
inline constexpr bool integral_expr_v = std::is_integral_v<value_of_t<E>> && !std::is_same_v<value_of_t<E>, bool>;

// Views that keep coordinates linear: new size-1 axes and broadcasts (not reshapes).
template <class Map>
struct linear_map : std::false_type {};
template <class Plan>
struct linear_map<insert_axes_map<Plan>> : std::true_type {};
template <>
struct linear_map<broadcast_map> : std::true_type {};

template <class X>
struct affine_of : std::false_type {};
template <class T, bool W>
struct affine_of<scalar_expr<T, W>> : std::bool_constant<std::is_integral_v<T> && !std::is_same_v<T, bool>> {};
template <int Start, int End>
struct affine_of<arange_expr<Start, End>> : std::true_type {};
template <class A, class B>
struct affine_of<binary<op::add, A, B>> : std::bool_constant<affine_of<A>::value && affine_of<B>::value> {};
template <class A, class B>
struct affine_of<binary<op::sub, A, B>> : std::bool_constant<affine_of<A>::value && affine_of<B>::value> {};
template <class A, class B>
struct affine_of<binary<op::mul, A, B>>
    : std::bool_constant<integral_expr_v<binary<op::mul, A, B>> &&
                         ((affine_of<A>::value && uniform_of<B>::value) || (uniform_of<A>::value && affine_of<B>::value))> {};
// x % m with x affine and m uniform: affine wherever it does not wrap, that is where 0 <= x < m,
// which the fast path checks at run time at the block's corners (wraps_hold below). Triton's
// tutorials write their row offsets so ((pid_m * BLOCK_M + arange) % M): every block but a
// partial last one is then affine.
template <class A, class B>
struct affine_of<binary<op::mod, A, B>>
    : std::bool_constant<integral_expr_v<binary<op::mod, A, B>> && affine_of<A>::value && uniform_of<B>::value> {};
template <class T, class E>
struct affine_of<cast<T, E>> : std::bool_constant<std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                                  sizeof(T) >= sizeof(value_of_t<E>) && affine_of<E>::value> {};
template <class E, class Shape, class Map>
struct affine_of<view<E, Shape, Map>> : std::bool_constant<linear_map<Map>::value && affine_of<E>::value> {};
template <class E>
inline constexpr bool affine_v = affine_of<std::remove_cvref_t<E>>::value;

template <class X>
struct affine_ptr_of : std::false_type {};
template <class T, bool W>
struct affine_ptr_of<scalar_expr<T, W>> : std::true_type {};  // a pointer argument
template <origin O, class T>
struct affine_ptr_of<basic_block<O, T>> : std::bool_constant<is_ptr_v<T>> {};  // a rank-0 block of a pointer (made from an address)
template <class Op, class P, class O>
struct affine_ptr_of<pointer_offset<Op, P, O>> : std::bool_constant<affine_ptr_of<P>::value && affine_of<O>::value> {};
template <class E, class Shape, class Map>
struct affine_ptr_of<view<E, Shape, Map>> : std::bool_constant<linear_map<Map>::value && affine_ptr_of<E>::value> {};
template <class E>
inline constexpr bool affine_ptr_v = affine_ptr_of<std::remove_cvref_t<E>>::value;

template <class Op>
inline constexpr bool ordering_v = std::is_same_v<Op, op::lt> || std::is_same_v<Op, op::le> ||
                                   std::is_same_v<Op, op::gt> || std::is_same_v<Op, op::ge>;
template <class X>
struct convex_of : std::false_type {};
template <bool W>
struct convex_of<scalar_expr<bool, W>> : std::true_type {};
template <class Op, class A, class B>
struct convex_of<binary<Op, A, B>>
    : std::bool_constant<(ordering_v<Op> && affine_of<A>::value && affine_of<B>::value) ||
                         ((std::is_same_v<Op, op::bit_and> || std::is_same_v<Op, op::logical_and>) && convex_of<A>::value &&
                          convex_of<B>::value)> {};
template <class E, class Shape, class Map>
struct convex_of<view<E, Shape, Map>> : std::bool_constant<linear_map<Map>::value && convex_of<E>::value> {};
template <class E>
inline constexpr bool convex_mask_v = convex_of<std::remove_cvref_t<E>>::value;

// where(c, x, y) with c convex and x, y affine integers: x wherever c holds on the whole block,
// which the fast path checks at its corners as it checks wraps (Triton's tutorials clamp
// offsets so: tl.where(offs_am < M, offs_am, 0)). (Declared here, after convex_of, which it
// uses; nothing instantiates affine_of before the end of this header.)
template <class C, class A, class B>
struct affine_of<select<C, A, B>>
    : std::bool_constant<integral_expr_v<select<C, A, B>> && convex_of<C>::value && affine_of<A>::value &&
                         affine_of<B>::value> {};

// ---- run-time conditions of the affine form ----
// An affine expression with wraps (x % m, where(c, x, y) above) is affine on a block when no
// wrap acts there: 0 <= x < m, c true, at every coordinate, which for affine x (convex c) holds
// on the whole block when it holds at its corners. wraps_hold(e, c) checks every wrap of e at
// coordinate c (a corner); unwrapped_at(e, c) evaluates e as if no wrap acted (x for both).
template <class X>
struct has_wrap : std::false_type {};
template <class Op, class A, class B>
struct has_wrap<binary<Op, A, B>>
    : std::bool_constant<(std::is_same_v<Op, op::mod> && !uniform_of<A>::value) || has_wrap<A>::value || has_wrap<B>::value> {};
template <class Op, class P, class O>
struct has_wrap<pointer_offset<Op, P, O>> : std::bool_constant<has_wrap<P>::value || has_wrap<O>::value> {};
template <class C, class A, class B>
struct has_wrap<select<C, A, B>> : std::bool_constant<!uniform_of<C>::value || has_wrap<A>::value || has_wrap<B>::value> {};
template <class T, class E>
struct has_wrap<cast<T, E>> : has_wrap<E> {};
template <class E, class Shape, class Map>
struct has_wrap<view<E, Shape, Map>> : has_wrap<E> {};
template <class E>
inline constexpr bool has_wrap_v = has_wrap<std::remove_cvref_t<E>>::value;

// The coordinate of operand X inside a node of shape Parent (broadcast where X is smaller).
template <class Parent, class X>
TL_INLINE coord<shape_of_t<X>::rank> operand_coord(const coord<Parent::rank>& c) {
  if constexpr (std::is_same_v<shape_of_t<X>, Parent>) return c;
  else return broadcast_coord<shape_of_t<X>>(c);
}

// The value of an affine expression at c with every wrap taken as the identity (x % m as x):
// its value wherever wraps_hold, at no division's cost.
template <class E>
TL_INLINE auto unwrapped_at(const E& e, const coord<shape_of_t<E>::rank>& c) {
  if constexpr (!has_wrap_v<E>) {
    return e.at(c);
  } else if constexpr (requires { typename E::map_type; }) {  // a view
    return unwrapped_at(e.e, E::map_type::template apply<shape_of_t<E>, shape_of_t<decltype(e.e)>>(c));
  } else if constexpr (requires { e.p; }) {  // pointer_offset
    using S = shape_of_t<E>;
    return E::apply(unwrapped_at(e.p, operand_coord<S, decltype(e.p)>(c)), unwrapped_at(e.o, operand_coord<S, decltype(e.o)>(c)));
  } else if constexpr (is_mod_node<E>::value) {
    return convert<value_of_t<E>>(unwrapped_at(e.a, operand_coord<shape_of_t<E>, decltype(e.a)>(c)));
  } else if constexpr (requires { e.cond; }) {  // where(c, x, y): x
    return convert<value_of_t<E>>(unwrapped_at(e.a, operand_coord<shape_of_t<E>, decltype(e.a)>(c)));
  } else if constexpr (requires { e.b; }) {  // binary
    using S = shape_of_t<E>;
    return E::apply(unwrapped_at(e.a, operand_coord<S, decltype(e.a)>(c)), unwrapped_at(e.b, operand_coord<S, decltype(e.b)>(c)));
  } else {  // cast
    return E::apply(unwrapped_at(e.e, c));
  }
}

template <class E>
TL_INLINE bool wraps_hold(const E& e, const coord<shape_of_t<E>::rank>& c) {
  if constexpr (!has_wrap_v<E>) {
    return true;
  } else if constexpr (requires { typename E::map_type; }) {  // a view
    return wraps_hold(e.e, E::map_type::template apply<shape_of_t<E>, shape_of_t<decltype(e.e)>>(c));
  } else if constexpr (requires { e.p; }) {  // pointer_offset
    using S = shape_of_t<E>;
    return wraps_hold(e.p, operand_coord<S, decltype(e.p)>(c)) && wraps_hold(e.o, operand_coord<S, decltype(e.o)>(c));
  } else if constexpr (requires { e.cond; }) {  // where(c, x, y): c holds (so x is taken)
    using S = shape_of_t<E>;
    return convert<bool>(operand_at<S>(e.cond, c)) && wraps_hold(e.a, operand_coord<S, decltype(e.a)>(c));
  } else if constexpr (requires { e.b; }) {  // binary
    using S = shape_of_t<E>;
    const auto ca = operand_coord<S, decltype(e.a)>(c);
    bool ok = wraps_hold(e.a, ca) && wraps_hold(e.b, operand_coord<S, decltype(e.b)>(c));
    if constexpr (is_mod_node<E>::value) {
      const auto x = static_cast<std::int64_t>(unwrapped_at(e.a, ca));
      const auto m = static_cast<std::int64_t>(operand_at<S>(e.b, c));
      ok = ok && x >= 0 && x < m;
    }
    return ok;
  } else {  // cast
    return wraps_hold(e.e, c);
  }
}

}  // namespace tl::detail
