// tl/ops/elementwise.hpp: operators, where, maximum/minimum, math functions, casts.
//
// All of them broadcast their operands (numpy rules) and promote types as Triton does
// (docs/03-types.md). With block operands they return lazy expressions; with only C++
// scalars they compute the scalar result directly.
#pragma once

#include <tuple>
#include <type_traits>

#include "../backend/lowering.hpp"
#include "../expr/block.hpp"
#include "../expr/pack.hpp"

namespace tl {
namespace detail {

template <class A, class B>
concept binary_operands = (is_expr_v<A> || is_expr_v<B>) && is_operand_v<A> && is_operand_v<B>;

template <class A>
concept expr_operand = is_expr_v<A>;

template <class Op, class A, class B>
TL_INLINE auto make_binary(const A& a, const B& b) {
  using EA = as_expr_t<A>;
  using EB = as_expr_t<B>;
  using VA = value_of_t<EA>;
  using VB = value_of_t<EB>;
  static_assert(check<error::operands_have_incompatible_shapes<Op, shape_of_t<EA>, shape_of_t<EB>,
                                                                broadcastable_v<shape_of_t<EA>, shape_of_t<EB>>>>);
  if constexpr (is_ptr_v<VA> || is_ptr_v<VB>) {
    constexpr bool add_or_sub = std::is_same_v<Op, op::add> || (std::is_same_v<Op, op::sub> && is_ptr_v<VA>);
    using other = std::conditional_t<is_ptr_v<VA>, VB, VA>;
    static_assert(check<error::pointer_arithmetic_needs_integer_offsets<Op, other, add_or_sub && is_int_v<other>>>);
    if constexpr (is_ptr_v<VA>) return pointer_offset<Op, EA, EB>{{}, as_expr(a), as_expr(b)};
    else return pointer_offset<Op, EB, EA>{{}, as_expr(b), as_expr(a)};
  } else {
    if constexpr (Op::bitwise) {
      static_assert(check<error::op_needs_integer_operands<Op, VA, !is_float_v<VA>>>);
      static_assert(check<error::op_needs_integer_operands<Op, VB, !is_float_v<VB>>>);
    }
    if constexpr (Op::div_or_mod && is_int_v<VA> && is_int_v<VB> && !is_weak_v<EA> && !is_weak_v<EB>) {
      static_assert(check<error::integer_division_with_mixed_signedness<
                        Op, VA, VB, std::is_signed_v<VA> == std::is_signed_v<VB>>>);
    }
    if constexpr (fused_side<Op, EA, EB>() != 0) return fuse_multiply_add<Op>(as_expr(a), as_expr(b));
    else return binary<Op, EA, EB>{{}, as_expr(a), as_expr(b)};
  }
}

template <class Op, class A>
TL_INLINE auto make_unary(const A& a) {
  using EA = as_expr_t<A>;
  using V = value_of_t<EA>;
  if constexpr (Op::floating_only) static_assert(check<error::math_needs_floating_point<Op, V, is_float_v<V>>>);
  if constexpr (Op::integer_only) static_assert(check<error::op_needs_integer_operands<Op, V, !is_float_v<V>>>);
  if constexpr (is_expr_v<A>) {
    return unary<Op, EA>{{}, a};
  } else {
    using R = typename unary<Op, EA>::value_type;
    return convert<R>(Op{}(static_cast<compute_t<V>>(canonical_t<A>(a))));
  }
}

template <class Fn, class Op, class A, class B, class C>
TL_INLINE auto make_ternary(const A& a, const B& b, const C& c) {
  using EA = as_expr_t<A>;
  using EB = as_expr_t<B>;
  using EC = as_expr_t<C>;
  using all = broadcast_all<shape_of_t<EA>, shape_of_t<EB>, shape_of_t<EC>>;
  static_assert(check<error::operands_have_incompatible_shapes<Op, shape_of_t<EA>,
                                                                       typename broadcast_all<shape_of_t<EB>, shape_of_t<EC>>::type,
                                                                       all::value>>);
  return ternary<Fn, EA, EB, EC>{{}, as_expr(a), as_expr(b), as_expr(c)};
}

}  // namespace detail

// ---- operators ----
#define TL_BINARY_OPERATOR_(sym, Op)                                \
  template <class A, class B>                                       \
    requires detail::binary_operands<A, B>                          \
  TL_INLINE auto operator sym(A a, B b) {             \
    return detail::make_binary<op::Op>(a, b);                       \
  }
TL_BINARY_OPERATOR_(+, add)
TL_BINARY_OPERATOR_(-, sub)
TL_BINARY_OPERATOR_(*, mul)
TL_BINARY_OPERATOR_(/, div)
TL_BINARY_OPERATOR_(%, mod)
TL_BINARY_OPERATOR_(<, lt)
TL_BINARY_OPERATOR_(<=, le)
TL_BINARY_OPERATOR_(>, gt)
TL_BINARY_OPERATOR_(>=, ge)
TL_BINARY_OPERATOR_(==, eq)
TL_BINARY_OPERATOR_(!=, ne)
TL_BINARY_OPERATOR_(&, bit_and)
TL_BINARY_OPERATOR_(|, bit_or)
TL_BINARY_OPERATOR_(^, bit_xor)
TL_BINARY_OPERATOR_(<<, shl)
TL_BINARY_OPERATOR_(>>, shr)
TL_BINARY_OPERATOR_(&&, logical_and)
TL_BINARY_OPERATOR_(||, logical_or)
#undef TL_BINARY_OPERATOR_

template <detail::expr_operand A>
TL_INLINE auto operator-(const A& a) { return detail::make_unary<op::neg>(a); }
template <detail::expr_operand A>
TL_INLINE auto operator+(A a) { return a; }
template <detail::expr_operand A>
TL_INLINE auto operator~(const A& a) { return detail::make_unary<op::bit_not>(a); }
template <detail::expr_operand A>
TL_INLINE auto operator!(const A& a) { return detail::make_unary<op::logical_not>(a); }

// ---- functions of two or three operands ----
template <class A, class B>
  requires(detail::is_operand_v<A> && detail::is_operand_v<B>)
TL_INLINE auto maximum(A a, B b) {
  if constexpr (detail::is_expr_v<A> || detail::is_expr_v<B>) return detail::make_binary<op::maximum>(a, b);
  else return detail::binary<op::maximum, detail::as_expr_t<A>, detail::as_expr_t<B>>{{}, detail::as_expr(a), detail::as_expr(b)}.at({});
}
template <class A, class B>
  requires(detail::is_operand_v<A> && detail::is_operand_v<B>)
TL_INLINE auto minimum(A a, B b) {
  if constexpr (detail::is_expr_v<A> || detail::is_expr_v<B>) return detail::make_binary<op::minimum>(a, b);
  else return detail::binary<op::minimum, detail::as_expr_t<A>, detail::as_expr_t<B>>{{}, detail::as_expr(a), detail::as_expr(b)}.at({});
}

// maximum(x, y, tl::PropagateNan::ALL): NaN wherever either operand is NaN (Triton's
// propagate_nan=tl.PropagateNan.ALL); PropagateNan::NONE is the default above, which ignores a
// NaN operand.
template <bool All>
struct propagate_nan_t {};
struct PropagateNan {
  static constexpr propagate_nan_t<false> NONE{};
  static constexpr propagate_nan_t<true> ALL{};
};
template <class A, class B, bool All>
  requires(detail::is_operand_v<A> && detail::is_operand_v<B>)
TL_INLINE auto maximum(A a, B b, propagate_nan_t<All>) {
  using Op = std::conditional_t<All, op::maximum_nan, op::maximum>;
  if constexpr (detail::is_expr_v<A> || detail::is_expr_v<B>) return detail::make_binary<Op>(a, b);
  else return detail::binary<Op, detail::as_expr_t<A>, detail::as_expr_t<B>>{{}, detail::as_expr(a), detail::as_expr(b)}.at({});
}
template <class A, class B, bool All>
  requires(detail::is_operand_v<A> && detail::is_operand_v<B>)
TL_INLINE auto minimum(A a, B b, propagate_nan_t<All>) {
  using Op = std::conditional_t<All, op::minimum_nan, op::minimum>;
  if constexpr (detail::is_expr_v<A> || detail::is_expr_v<B>) return detail::make_binary<Op>(a, b);
  else return detail::binary<Op, detail::as_expr_t<A>, detail::as_expr_t<B>>{{}, detail::as_expr(a), detail::as_expr(b)}.at({});
}

// add(x, y), sub(x, y), mul(x, y): the function forms of + - * (Triton's tl.add, tl.sub,
// tl.mul). Integers wrap on both backends; Triton's sanitize_overflow flag only acts in its
// overflow-sanitizing builds, which tl does not have, so these take no flag.
template <class A, class B>
  requires detail::binary_operands<A, B>
TL_INLINE auto add(const A& a, const B& b) {
  return a + b;
}
template <class A, class B>
  requires detail::binary_operands<A, B>
TL_INLINE auto sub(const A& a, const B& b) {
  return a - b;
}
template <class A, class B>
  requires detail::binary_operands<A, B>
TL_INLINE auto mul(const A& a, const B& b) {
  return a * b;
}

// umulhi(a, b): the high half of the product of two integer blocks' bits (Triton's tl.umulhi).
template <class A, class B>
  requires(detail::is_operand_v<A> && detail::is_operand_v<B>)
TL_INLINE auto umulhi(A a, B b) {
  if constexpr (detail::is_expr_v<A> || detail::is_expr_v<B>) return detail::make_binary<op::umulhi>(a, b);
  else return detail::binary<op::umulhi, detail::as_expr_t<A>, detail::as_expr_t<B>>{{}, detail::as_expr(a), detail::as_expr(b)}.at({});
}

// cdiv(a, b) = ceil(a / b): on integers (host or kernel; a size tl::dispatch passes too) and
// on integer blocks.
template <class A, class B>
  requires(!detail::is_expr_v<A> && !detail::is_expr_v<B> && std::is_integral_v<decltype(+std::declval<A>())> &&
           std::is_integral_v<decltype(+std::declval<B>())>)
TL_HD constexpr auto cdiv(A a, B b) {
  return (+a + +b - 1) / +b;
}
template <class A, class B>
  requires detail::binary_operands<A, B>
TL_INLINE auto cdiv(A a, B b) {
  return detail::make_binary<op::cdiv>(a, b);
}

// div_rn(a, b) = a / b rounded to nearest on every backend (Triton's tl.math.div_rn). The
// operator / on float32 blocks divides as Triton does, within 2 ulp on the GPU.
template <class A, class B>
  requires detail::binary_operands<A, B>
TL_INLINE auto div_rn(A a, B b) {
  return detail::make_binary<op::div_rn>(a, b);
}

// fdiv(x, y): Triton's tl.fdiv, x / y as the operator divides (within 2 ulp on the GPU, as
// Triton's default); fdiv(x, y, tl::ieee_rounding) rounds exactly, as div_rn.
struct ieee_rounding_t {};
inline constexpr ieee_rounding_t ieee_rounding{};
template <class A, class B>
  requires detail::binary_operands<A, B>
TL_INLINE auto fdiv(A a, B b) {
  return detail::make_binary<op::div>(a, b);
}
template <class A, class B>
  requires detail::binary_operands<A, B>
TL_INLINE auto fdiv(A a, B b, ieee_rounding_t) {
  return detail::make_binary<op::div_rn>(a, b);
}

// multiple_of(x, n), max_contiguous(x, n), max_constancy(x, n): Triton's hints about integer
// offsets (or pointers) that its compiler cannot prove. They return x. The CPU backend checks
// them against the data along the last axis (multiple_of: each run of consecutive values starts
// at a multiple of n; max_contiguous: each group of n values consecutive; max_constancy: each
// group of n equal) and a contradicted hint is a note in the launch's report, naming the
// element; the CUDA backend checks the properties it relies on at run time itself (the affine
// fast path), so a wrong hint there costs speed, never a wrong access. With one value an axis,
// {n0, n1, ...} (Triton's list), each axis is checked with its own value.
namespace detail {
template <lowering::hint_kind K, class X, std::size_t R>
TL_INLINE void check_hints(const X& x, const int (&n)[R], source_location where) {
  if constexpr (is_expr_v<X>) {
    static_assert(check<error::hint_needs_one_value_an_axis<shape_of_t<X>, int(R), int(R) == shape_of_t<X>::rank>>);
    if constexpr (int(R) == shape_of_t<X>::rank)
      for (int d = 0; d < int(R); ++d) lowering::check_hint<K>(x, n[d], d, where);
  }
}
}  // namespace detail
template <class X>
TL_INLINE X multiple_of(X x, int n, source_location where = source_location::current()) {
  if constexpr (detail::is_expr_v<X>) detail::lowering::check_hint<detail::lowering::hint_kind::multiple_of>(x, n, -1, where);
  return x;
}
template <class X, std::size_t R>
TL_INLINE X multiple_of(X x, const int (&n)[R], source_location where = source_location::current()) {
  detail::check_hints<detail::lowering::hint_kind::multiple_of>(x, n, where);
  return x;
}
template <class X>
TL_INLINE X max_contiguous(X x, int n, source_location where = source_location::current()) {
  if constexpr (detail::is_expr_v<X>) detail::lowering::check_hint<detail::lowering::hint_kind::max_contiguous>(x, n, -1, where);
  return x;
}
template <class X, std::size_t R>
TL_INLINE X max_contiguous(X x, const int (&n)[R], source_location where = source_location::current()) {
  detail::check_hints<detail::lowering::hint_kind::max_contiguous>(x, n, where);
  return x;
}
template <class X>
TL_INLINE X max_constancy(X x, int n, source_location where = source_location::current()) {
  if constexpr (detail::is_expr_v<X>) detail::lowering::check_hint<detail::lowering::hint_kind::max_constancy>(x, n, -1, where);
  return x;
}
template <class X, std::size_t R>
TL_INLINE X max_constancy(X x, const int (&n)[R], source_location where = source_location::current()) {
  detail::check_hints<detail::lowering::hint_kind::max_constancy>(x, n, where);
  return x;
}

// where(c, a, b): a where c holds, else b (Triton's tl.where).
template <class C, class A, class B>
  requires(detail::is_operand_v<C> && detail::is_operand_v<A> && detail::is_operand_v<B>)
TL_INLINE auto where(C c, A a, B b) {
  using EC = detail::as_expr_t<C>;
  using EA = detail::as_expr_t<A>;
  using EB = detail::as_expr_t<B>;
  using all = detail::broadcast_all<detail::shape_of_t<EC>, detail::shape_of_t<EA>, detail::shape_of_t<EB>>;
  static_assert(detail::check<error::operands_have_incompatible_shapes<op::where, detail::shape_of_t<EC>,
                                                                       typename detail::broadcast_all<detail::shape_of_t<EA>, detail::shape_of_t<EB>>::type,
                                                                       all::value>>);
  return detail::select<EC, EA, EB>{{}, detail::as_expr(c), detail::as_expr(a), detail::as_expr(b)};
}

// fma(a, b, c) = a * b + c with one rounding (floats).
template <class A, class B, class C>
  requires(detail::is_operand_v<A> && detail::is_operand_v<B> && detail::is_operand_v<C>)
TL_INLINE auto fma(A a, B b, C c) {
  return detail::make_ternary<detail::fma_fn, op::fma>(a, b, c);
}

// clamp(x, lo, hi) = minimum(maximum(x, lo), hi).
template <class A, class B, class C>
  requires(detail::is_operand_v<A> && detail::is_operand_v<B> && detail::is_operand_v<C>)
TL_INLINE auto clamp(A x, B lo, C hi) {
  return detail::make_ternary<detail::clamp_fn, op::clamp>(x, lo, hi);
}

// map_elementwise(fn, x, y, ...): fn applied to the operands' elements, broadcast together
// (Triton's tl.map_elementwise). fn takes one value of each operand's element type and may
// branch and loop; it is a lambda without captures written in the kernel (so it runs on both
// backends, as everything in a kernel does) or a class without data members and with a TL_HD
// call operator. It returns
// a value (a lazy expression of that type) or a std::tuple of values (a std::tuple of blocks:
// fn runs once an element).
namespace detail {
template <class F>
struct tuple_result_fn {  // fn's std::tuple as one pack
  template <class... X>
  TL_INLINE auto operator()(const X&... x) const {
    return std::apply([](const auto&... r) { return make_pack(r...); }, F{}(x...));
  }
};
template <class T>
inline constexpr bool is_std_tuple_v = false;
template <class... T>
inline constexpr bool is_std_tuple_v<std::tuple<T...>> = true;
// The function is called as F{}(...), so it must be stateless: an empty class (a lambda
// without captures), default-constructible.
template <class F, class... V>
constexpr bool map_function_fits() {
  if constexpr (!std::is_empty_v<F> || !std::is_default_constructible_v<F> || !std::is_invocable_v<const F&, V...>) return false;
  else return !std::is_void_v<std::invoke_result_t<const F&, V...>>;
}
}  // namespace detail

template <class F, class A0, class... A>
  requires(detail::is_operand_v<A0> && (detail::is_operand_v<A> && ...) && (detail::is_expr_v<A0> || ... || detail::is_expr_v<A>))
TL_INLINE auto map_elementwise(F, const A0& a0, const A&... args) {
  using first = detail::shape_of_t<detail::as_expr_t<A0>>;
  using all = detail::broadcast_all<first, detail::shape_of_t<detail::as_expr_t<A>>...>;
  static_assert(detail::check<error::operands_have_incompatible_shapes<op::map_elementwise, first,
                                                                       typename all::type, all::value>>);
  constexpr bool fits =
      detail::map_function_fits<F, detail::value_of_t<detail::as_expr_t<A0>>, detail::value_of_t<detail::as_expr_t<A>>...>();
  static_assert(detail::check<error::map_function_does_not_fit<
                    F, detail::type_list<detail::value_of_t<detail::as_expr_t<A0>>, detail::value_of_t<detail::as_expr_t<A>>...>, fits>>);
  if constexpr (!fits || !all::value) {
    return detail::as_expr(a0);  // after the error above
  } else {
    using R = std::invoke_result_t<const F&, detail::value_of_t<detail::as_expr_t<A0>>, detail::value_of_t<detail::as_expr_t<A>>...>;
    auto operands = detail::make_operands(detail::as_expr(a0), detail::as_expr(args)...);
    if constexpr (detail::is_std_tuple_v<R>) {
      using Z = detail::map_expr<detail::tuple_result_fn<F>, detail::as_expr_t<A0>, detail::as_expr_t<A>...>;
      const detail::block_t<detail::value_of_t<Z>, detail::shape_of_t<Z>> held(Z{{}, operands});
      return detail::unzip_block(held, std::make_integer_sequence<int, int(std::tuple_size_v<R>)>{});
    } else {
      return detail::map_expr<F, detail::as_expr_t<A0>, detail::as_expr_t<A>...>{{}, operands};
    }
  }
}

// ---- math ----
#define TL_UNARY_FUNCTION_(name)                               \
  template <class A>                                           \
    requires detail::is_operand_v<A>                           \
  TL_INLINE auto name(A a) {                            \
    return detail::make_unary<op::name>(a);                    \
  }
TL_UNARY_FUNCTION_(abs)
TL_UNARY_FUNCTION_(exp)
TL_UNARY_FUNCTION_(exp2)
TL_UNARY_FUNCTION_(log)
TL_UNARY_FUNCTION_(log2)
TL_UNARY_FUNCTION_(sqrt)
TL_UNARY_FUNCTION_(rsqrt)
TL_UNARY_FUNCTION_(sigmoid)
TL_UNARY_FUNCTION_(sin)
TL_UNARY_FUNCTION_(cos)
TL_UNARY_FUNCTION_(floor)
TL_UNARY_FUNCTION_(ceil)
TL_UNARY_FUNCTION_(erf)
TL_UNARY_FUNCTION_(tanh)
#undef TL_UNARY_FUNCTION_

// sqrt_rn(x): the square root rounded to nearest (Triton's tl.sqrt_rn), on both backends.
// tl::sqrt is Triton's tl.sqrt: the GPU's approximate instruction, subnormals flushed.
template <class A>
  requires detail::is_operand_v<A>
TL_INLINE auto sqrt_rn(A a) {
  return detail::make_unary<op::sqrt_rn>(a);
}

// cast<T>(x): the free-function form of x.to(tl::dtype).
template <class T, class A>
  requires detail::is_expr_v<A>
TL_INLINE auto cast(A a) {
  return a.to(dtype<T>{});
}

}  // namespace tl
