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

#include "nodes.hpp"

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

}  // namespace tl::detail
