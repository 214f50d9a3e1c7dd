// tl/expr/nodes.hpp: the expression nodes. Each stores its operands and says what one
// element is: at(coord), from its operands' elements at the coordinates broadcasting maps it
// to, and the scalar rule apply() (which a backend that evaluates the operands itself calls).
// visit(f) calls f with the operands; for_each_operand and operand_types let a backend walk
// the tree (the CUDA backend stages the blocks an expression reads through broadcasts).
#pragma once

#include "expr.hpp"
#include "functors.hpp"

namespace tl::detail {

// ---- elementwise: unary, binary, ternary, conversions ----

template <class Op, class E>
struct unary : expr_base<unary<Op, E>> {
  using expr_base<unary<Op, E>>::operator=;
  using in_type = value_of_t<E>;
  using value_type = std::conditional_t<Op::logical, bool, in_type>;
  using shape_type = shape_of_t<E>;
  E e;
  using operand_types = type_list<E>;
  TL_INLINE value_type at(const coord<shape_type::rank>& c) const { return apply(e.at(c)); }
  // The element from its operand's element.
  TL_INLINE static value_type apply(const in_type& x) {
    using C = compute_t<in_type>;
    return convert<value_type>(Op{}(static_cast<C>(x)));
  }
  template <class F>
  TL_INLINE void for_each_operand(F&& f) { f(e); }
  template <class F>
  TL_INLINE decltype(auto) visit(F&& f) const { return f(e); }
};

// The element at coordinate c of a node of shape Parent, from operand x: at the same
// coordinate when x has the node's shape, else broadcast.
template <class Parent, class X>
TL_INLINE auto operand_at(const X& x, const coord<Parent::rank>& c) {
  using XS = typename X::shape_type;
  if constexpr (std::is_same_v<XS, Parent>) return x.at(c);
  else return x.at(broadcast_coord<XS>(c));
}

// An operand's element in the computation type C of a node of type T: a weak scalar (a C++
// number, Triton's Python number) is converted to T first, as Triton makes its constant of the
// result type (h * 0.1 on float16 multiplies by 0.1 rounded to float16); on an 8-bit float
// block it is used in float32, where the op computes.
template <class C, class T, bool Weak, class X>
TL_INLINE C operand_in(const X& x) {
  if constexpr (Weak && !std::is_same_v<X, T> && !std::is_same_v<T, C> && !is_fp8_v<T>) return convert<C>(convert<T>(x));
  else return convert<C>(x);
}

// The element type two operands compute in (Triton's promotion, weak scalars included).
template <class Op, class A, class B>
using binary_compute_t = promote_t<operand_value_t<A>, is_weak_v<as_expr_t<A>>, operand_value_t<B>,
                                   is_weak_v<as_expr_t<B>>, Op::div_or_mod>;

template <class Op, class A, class B>
struct binary : expr_base<binary<Op, A, B>> {
  using expr_base<binary<Op, A, B>>::operator=;
  using a_shape = shape_of_t<A>;
  using b_shape = shape_of_t<B>;
  static constexpr bool shapes_ok = broadcastable_v<a_shape, b_shape>;
  using compute_type = promote_t<value_of_t<A>, is_weak_v<A>, value_of_t<B>, is_weak_v<B>, Op::div_or_mod>;
  using value_type = std::conditional_t<Op::comparison, bool, compute_type>;
  // On a shape error (already reported) fall back to a's shape, so no second error follows.
  using shape_type = std::conditional_t<shapes_ok, broadcast_t<a_shape, b_shape>, a_shape>;
  A a;
  B b;
  using operand_types = type_list<A, B>;
  TL_INLINE value_type at(const coord<shape_type::rank>& c) const {
    return apply(operand_at<shape_type>(a, c), operand_at<shape_type>(b, c));
  }
  template <class X, class Y>
  TL_INLINE static value_type apply(const X& x, const Y& y) {
    using C = compute_t<compute_type>;
    return convert<value_type>(Op{}(operand_in<C, compute_type, is_weak_v<A>>(x), operand_in<C, compute_type, is_weak_v<B>>(y)));
  }
  template <class F>
  TL_INLINE void for_each_operand(F&& f) {
    f(a);
    f(b);
  }
  template <class F>
  TL_INLINE decltype(auto) visit(F&& f) const { return f(a, b); }
};

// Moves every pointer of x by n elements: the base pointer at the bottom of the tree moves, the
// offsets stay (so does what axis_info.hpp reads from their types).
template <class X>
TL_INLINE void advance_pointers(X& x, std::int64_t n);

// Pointer arithmetic: a block of pointers plus (or minus) a block of integer offsets.
//
// A block of pointers is a value that a loop advances, as in Triton (a_ptrs += BLOCK_K *
// stride_ak): += and -= by an integer move its base pointer and keep its offsets, so the
// advanced block has the same type and the same affine form (the CUDA loads' fast path and the
// dot's copies recognise it as they recognise a_ptr + offsets with a_ptr moved).
template <class Op, class P, class O>
struct pointer_offset : expr_base<pointer_offset<Op, P, O>> {
  using expr_base<pointer_offset<Op, P, O>>::operator=;
  using p_shape = shape_of_t<P>;
  using o_shape = shape_of_t<O>;
  static constexpr bool shapes_ok = broadcastable_v<p_shape, o_shape>;
  using value_type = value_of_t<P>;
  using shape_type = std::conditional_t<shapes_ok, broadcast_t<p_shape, o_shape>, p_shape>;
  P p;
  O o;
  using operand_types = type_list<P, O>;
  template <class F>
  TL_INLINE void for_each_operand(F&& f) {
    f(p);
    f(o);
  }
  template <class F>
  TL_INLINE decltype(auto) visit(F&& f) const { return f(p, o); }
  TL_INLINE value_type at(const coord<shape_type::rank>& c) const {
    return apply(operand_at<shape_type>(p, c), operand_at<shape_type>(o, c));
  }
  template <class Off>
  TL_INLINE static value_type apply(const value_type& base, const Off& offset) {
    const auto off = static_cast<std::int64_t>(offset);
    if constexpr (std::is_same_v<Op, op::sub>) return base - off;
    else return base + off;
  }
  template <class N>
  TL_INLINE pointer_offset& operator+=(const N& n) {
    static_assert(check<error::pointer_block_advances_by_an_integer<N, std::is_integral_v<N>>>);
    if constexpr (std::is_integral_v<N>) advance_pointers(p, static_cast<std::int64_t>(n));
    return *this;
  }
  template <class N>
  TL_INLINE pointer_offset& operator-=(const N& n) {
    static_assert(check<error::pointer_block_advances_by_an_integer<N, std::is_integral_v<N>>>);
    if constexpr (std::is_integral_v<N>) advance_pointers(p, -static_cast<std::int64_t>(n));
    return *this;
  }
};

template <class X>
struct pointer_base {  // a held block of pointers: each one moves
  TL_INLINE static void advance(X& x, std::int64_t n) { x += n; }
};
template <class T, bool W>
struct pointer_base<scalar_expr<T, W>> {
  TL_INLINE static void advance(scalar_expr<T, W>& x, std::int64_t n) { x.value += n; }
};
template <class Op, class P, class O>
struct pointer_base<pointer_offset<Op, P, O>> {
  TL_INLINE static void advance(pointer_offset<Op, P, O>& x, std::int64_t n) { advance_pointers(x.p, n); }
};
template <class X>
TL_INLINE void advance_pointers(X& x, std::int64_t n) {
  pointer_base<X>::advance(x, n);
}

template <class T, class E>
struct cast : expr_base<cast<T, E>> {
  using expr_base<cast<T, E>>::operator=;
  using value_type = T;
  using shape_type = shape_of_t<E>;
  E e;
  using operand_types = type_list<E>;
  TL_INLINE T at(const coord<shape_type::rank>& c) const { return apply(e.at(c)); }
  TL_INLINE static T apply(const value_of_t<E>& x) {
    using From = value_of_t<E>;
    if constexpr (is_ptr_v<T> && !is_ptr_v<From>)  // an address to a pointer (unchecked: no buffer known)
      return T(reinterpret_cast<typename T::element_type*>(static_cast<std::uintptr_t>(x)));
    else if constexpr (is_ptr_v<From> && !is_ptr_v<T>)  // a pointer to its address
      return static_cast<T>(reinterpret_cast<std::uintptr_t>(x.get()));
    else
      return convert<T>(x);
  }
  template <class F>
  TL_INLINE void for_each_operand(F&& f) { f(e); }
  template <class F>
  TL_INLINE decltype(auto) visit(F&& f) const { return f(e); }
};

template <class T, class E>
struct bitcast : expr_base<bitcast<T, E>> {
  using expr_base<bitcast<T, E>>::operator=;
  using value_type = T;
  using shape_type = shape_of_t<E>;
  E e;
  using operand_types = type_list<E>;
  TL_INLINE T at(const coord<shape_type::rank>& c) const { return apply(e.at(c)); }
  TL_INLINE static T apply(const value_of_t<E>& x) { return bit_cast<T>(x); }
  template <class F>
  TL_INLINE void for_each_operand(F&& f) { f(e); }
  template <class F>
  TL_INLINE decltype(auto) visit(F&& f) const { return f(e); }
};

// where(c, a, b): a where c is true, else b.
template <class Cond, class A, class B>
struct select : expr_base<select<Cond, A, B>> {
  using expr_base<select<Cond, A, B>>::operator=;
  using c_shape = shape_of_t<Cond>;
  using a_shape = shape_of_t<A>;
  using b_shape = shape_of_t<B>;
  static constexpr bool shapes_ok = broadcast_all<c_shape, a_shape, b_shape>::value;
  using value_type = promote_t<value_of_t<A>, is_weak_v<A>, value_of_t<B>, is_weak_v<B>>;
  using shape_type = std::conditional_t<shapes_ok, typename broadcast_all<c_shape, a_shape, b_shape>::type, c_shape>;
  Cond cond;
  A a;
  B b;
  using operand_types = type_list<Cond, A, B>;
  static constexpr bool short_circuit = true;  // at() reads only the chosen operand
  TL_INLINE value_type at(const coord<shape_type::rank>& c) const {
    return convert<bool>(operand_at<shape_type>(cond, c)) ? convert<value_type>(operand_at<shape_type>(a, c))
                                                          : convert<value_type>(operand_at<shape_type>(b, c));
  }
  template <class P, class X, class Y>
  TL_INLINE static value_type apply(const P& p, const X& x, const Y& y) {
    return convert<bool>(p) ? convert<value_type>(x) : convert<value_type>(y);
  }
  template <class F>
  TL_INLINE void for_each_operand(F&& f) {
    f(cond);
    f(a);
    f(b);
  }
  template <class F>
  TL_INLINE decltype(auto) visit(F&& f) const { return f(cond, a, b); }
};

// a * b + c rounded once to the 16-bit float T, for a, b, c that T holds (fma.rn.f16 and
// fma.rn.bf16 on the GPU). On the host: the product is exact in double, the sum rounded to odd
// (its error from TwoSum), then to float to odd and to T to nearest, which is one rounding.
template <class T>
TL_INLINE T small_float_fma(float a, float b, float c) {
#if TL_DEVICE_PASS
  if constexpr (std::is_same_v<T, fp16>) {
    unsigned short r;
    asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(T(a).bits), "h"(T(b).bits), "h"(T(c).bits));
    return T::from_bits(r);
  }
#if __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<T, bf16>) {
    unsigned short r;
    asm("fma.rn.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(T(a).bits), "h"(T(b).bits), "h"(T(c).bits));
    return T::from_bits(r);
  }
#endif
#endif
  const double p = double(a) * double(b), dc = double(c);
  const double s = p + dc;
  if (s - s == 0.0) {  // finite
    const double bp = s - dc, err = (p - bp) + (dc - (s - bp));
    const std::uint64_t u = bit_cast<std::uint64_t>(s);
    if (err != 0.0 && (u & 1u) == 0) return T(to_float_round_odd(bit_cast<double>((err > 0) == (s > 0) ? u + 1 : u - 1)));
  }
  return T(to_float_round_odd(s));
}

// Three-operand arithmetic (fma, clamp), computed in the promoted type of all three. The fma
// family is also what a*b+c, c+a*b, a*b-c and c-a*b on floats become (fused_side below).
struct fma_fn {
  static constexpr bool fused = true;
  template <class T>
  TL_INLINE T operator()(T a, T b, T c) const {
    if constexpr (std::is_floating_point_v<T>) return std::fma(a, b, c);
    else return op::add{}(op::mul{}(a, b), c);
  }
  template <class T>
  TL_INLINE static T small(float a, float b, float c) { return small_float_fma<T>(a, b, c); }
};
struct fms_fn {  // a * b - c
  static constexpr bool fused = true;
  template <class T>
  TL_INLINE T operator()(T a, T b, T c) const { return std::fma(a, b, -c); }
  template <class T>
  TL_INLINE static T small(float a, float b, float c) { return small_float_fma<T>(a, b, -c); }
};
struct fnma_fn {  // c - a * b
  static constexpr bool fused = true;
  template <class T>
  TL_INLINE T operator()(T a, T b, T c) const { return std::fma(-a, b, c); }
  template <class T>
  TL_INLINE static T small(float a, float b, float c) { return small_float_fma<T>(-a, b, c); }
};
struct clamp_fn {
  static constexpr bool fused = false;
  template <class T>
  TL_INLINE T operator()(T x, T lo, T hi) const { return op::minimum{}(op::maximum{}(x, lo), hi); }
};

template <class Fn, class A, class B, class C>
struct ternary : expr_base<ternary<Fn, A, B, C>> {
  using expr_base<ternary<Fn, A, B, C>>::operator=;
  using a_shape = shape_of_t<A>;
  using b_shape = shape_of_t<B>;
  using c_shape = shape_of_t<C>;
  static constexpr bool shapes_ok = broadcast_all<a_shape, b_shape, c_shape>::value;
  using ab_type = promote_t<value_of_t<A>, is_weak_v<A>, value_of_t<B>, is_weak_v<B>>;
  using value_type = promote_t<ab_type, is_weak_v<A> && is_weak_v<B>, value_of_t<C>, is_weak_v<C>>;
  using shape_type = std::conditional_t<shapes_ok, typename broadcast_all<a_shape, b_shape, c_shape>::type, a_shape>;
  A a;
  B b;
  C c;
  using operand_types = type_list<A, B, C>;
  TL_INLINE value_type at(const coord<shape_type::rank>& i) const {
    return apply(operand_at<shape_type>(a, i), operand_at<shape_type>(b, i), operand_at<shape_type>(c, i));
  }
  template <class X, class Y, class Z>
  TL_INLINE static value_type apply(const X& x, const Y& y, const Z& z) {
    using K = compute_t<value_type>;
    const K p = operand_in<K, value_type, is_weak_v<A>>(x), q = operand_in<K, value_type, is_weak_v<B>>(y),
            r = operand_in<K, value_type, is_weak_v<C>>(z);
    if constexpr (Fn::fused && (std::is_same_v<value_type, fp16> || std::is_same_v<value_type, bf16>))
      return Fn::template small<value_type>(p, q, r);
    else
      return convert<value_type>(Fn{}(p, q, r));
  }
  template <class F>
  TL_INLINE void for_each_operand(F&& f) {
    f(a);
    f(b);
    f(c);
  }
  template <class F>
  TL_INLINE decltype(auto) visit(F&& f) const { return f(a, b, c); }
};

// Multiply-add contraction, as LLVM contracts Triton's float arithmetic on the GPU: a + or - of
// which one operand is a product (binary<op::mul>) of the result's type, the other of that type
// or a weak scalar, is one fma of that type (float32, float64, float16, bfloat16), rounded once;
// with a product on both sides, the left one is fused (a*b + c*d is fma(a, b, c*d)). fused_side:
// 1 when the left operand is the product, 2 the right one, 0 no fusion.
template <class E>
inline constexpr bool is_mul_node_v = false;
template <class X, class Y>
inline constexpr bool is_mul_node_v<binary<op::mul, X, Y>> = true;
template <class T>
inline constexpr bool is_fusable_float_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, fp16> || std::is_same_v<T, bf16>;
template <class Op, class A, class B>
constexpr int fused_side() {
  if constexpr (!std::is_same_v<Op, op::add> && !std::is_same_v<Op, op::sub>) {
    return 0;
  } else {
    using R = promote_t<value_of_t<A>, is_weak_v<A>, value_of_t<B>, is_weak_v<B>>;
    if constexpr (!is_fusable_float_v<R>) return 0;
    else if constexpr (is_mul_node_v<A> && std::is_same_v<value_of_t<A>, R> && (is_weak_v<B> || std::is_same_v<value_of_t<B>, R>)) return 1;
    else if constexpr (is_mul_node_v<B> && std::is_same_v<value_of_t<B>, R> && (is_weak_v<A> || std::is_same_v<value_of_t<A>, R>)) return 2;
    else return 0;
  }
}
template <class Op, class A, class B>
TL_INLINE auto fuse_multiply_add(const A& a, const B& b) {
  if constexpr (fused_side<Op, A, B>() == 1) {
    using F = std::conditional_t<std::is_same_v<Op, op::add>, fma_fn, fms_fn>;
    return ternary<F, decltype(a.a), decltype(a.b), B>{{}, a.a, a.b, b};
  } else {
    using F = std::conditional_t<std::is_same_v<Op, op::add>, fma_fn, fnma_fn>;
    return ternary<F, decltype(b.a), decltype(b.b), A>{{}, b.a, b.b, a};
  }
}

// A scalar function of any number of operands, broadcast together (the random numbers of
// ops/random.hpp): Fn{}(x...) on their elements, its result type the element type.
template <class... E>
struct operand_pack;
template <>
struct operand_pack<> {
  template <class F, class... P>
  TL_INLINE decltype(auto) call(F&& f, const P&... p) const { return f(p...); }
  template <class F>
  TL_INLINE void each(F&&) {}
};
template <class H, class... T>
struct operand_pack<H, T...> {
  H head;
  operand_pack<T...> tail;
  template <class F, class... P>
  TL_INLINE decltype(auto) call(F&& f, const P&... p) const { return tail.call(f, p..., head); }
  template <class F>
  TL_INLINE void each(F&& f) {
    f(head);
    tail.each(f);
  }
};

TL_INLINE operand_pack<> make_operands() { return {}; }
template <class H, class... T>
TL_INLINE operand_pack<H, T...> make_operands(const H& h, const T&... t) {
  return {h, make_operands(t...)};
}

template <class Fn, class... E>
struct map_expr : expr_base<map_expr<Fn, E...>> {
  using expr_base<map_expr<Fn, E...>>::operator=;
  using value_type = decltype(Fn{}(std::declval<value_of_t<E>>()...));
  using shape_type = typename broadcast_all<shape_of_t<E>...>::type;
  operand_pack<E...> ops;
  using operand_types = type_list<E...>;
  TL_INLINE value_type at(const coord<shape_type::rank>& c) const {
    return ops.call([&](const auto&... o) { return apply(operand_at<shape_type>(o, c)...); });
  }
  template <class... X>
  TL_INLINE static value_type apply(const X&... x) { return Fn{}(x...); }
  template <class F>
  TL_INLINE void for_each_operand(F&& f) { ops.each(f); }
  template <class F>
  TL_INLINE decltype(auto) visit(F&& f) const { return ops.call(f); }
};

// ---- creation ----

template <int Start, int End>
struct arange_expr : expr_base<arange_expr<Start, End>> {
  using expr_base<arange_expr<Start, End>>::operator=;
  using value_type = std::int32_t;
  using shape_type = shape<(End > Start ? End - Start : 1)>;
  TL_INLINE std::int32_t at(const coord<1>& c) const { return Start + c[0]; }
};

// ---- views: a new shape over the same elements, mapped coordinate by coordinate ----

template <class E, class Shape, class Map>
struct view : expr_base<view<E, Shape, Map>> {
  using expr_base<view<E, Shape, Map>>::operator=;
  using value_type = value_of_t<E>;
  using shape_type = Shape;
  E e;
  // A view moves elements between positions (a backend may need to gather them).
  static constexpr bool is_view = true;
  using map_type = Map;
  using operand_types = type_list<E>;
  TL_INLINE value_type at(const coord<Shape::rank>& c) const { return e.at(Map::template apply<Shape, shape_of_t<E>>(c)); }
  template <class F>
  TL_INLINE void for_each_operand(F&& f) { f(e); }
};

struct broadcast_map {
  template <class Out, class In>
  TL_INLINE static constexpr coord<In::rank> apply(const coord<Out::rank>& c) {
    return broadcast_coord<In>(c);
  }
};

struct reshape_map {
  template <class Out, class In>
  TL_INLINE static constexpr coord<In::rank> apply(const coord<Out::rank>& c) {
    return unravel<In>(ravel<Out>(c));
  }
};

// Output axis i is input axis P[i] (Triton's permute(x, dims)).
template <int... P>
struct permute_map {
  template <class Out, class In>
  TL_INLINE static constexpr coord<In::rank> apply(const coord<Out::rank>& c) {
    constexpr int p[] = {P..., 0};
    coord<In::rank> r{};
    for (int i = 0; i < Out::rank; ++i) r[p[i]] = c[i];
    return r;
  }
};

}  // namespace tl::detail
