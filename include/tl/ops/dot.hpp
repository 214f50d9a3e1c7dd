// tl/ops/dot.hpp: block matrix product, 2-D (M x K @ K x N) and batched 3-D.
//
//   tl::dot(a, b)              Triton: tl.dot(a, b)
//   tl::dot(a, b, acc)         Triton: tl.dot(a, b, acc=acc)      (returns acc + a @ b)
//   tl::dot(a, b, acc, tl::ieee)   input_precision="ieee"
//   tl::dot(a, b, tl::float16)     out_dtype=tl.float16 (also after a precision or an acc)
//
// float32 inputs use tf32 by default, as Triton does on tensor cores: each input keeps 10
// mantissa bits, the other 13 dropped (rounded toward zero: what the tensor cores do with the
// float32 bits Triton hands them), products accumulate in float32.
// The CPU backend computes exactly that, so a kernel's numbers on the CPU are the GPU's
// numbers up to summation order. fp16/bf16 and fp8 multiply exactly and accumulate in float32
// (float8e4b15, float8e4b8 and float8e5b16 as float16, which holds their values);
// int8 accumulates in int32. out_dtype float16 (16-bit and fp8 operands) rounds the float32 sum
// once at the end: as accurate as Triton's float16 accumulation or more, on the same fast path.
// The lowerings: backend/cpu/dot.hpp, backend/cuda/dot.hpp.
#pragma once

#include "../backend/lowering.hpp"
#include "../expr/ahead.hpp"
#include "../expr/block.hpp"
#include "../expr/loaded.hpp"

namespace tl {

enum class input_precision { tf32, tf32x3, ieee };
// A compile-time choice (each backend picks its instructions from it).
template <input_precision P>
struct precision_t {
  static constexpr input_precision value = P;
};
inline constexpr precision_t<input_precision::tf32> tf32{};
inline constexpr precision_t<input_precision::tf32x3> tf32x3{};
inline constexpr precision_t<input_precision::ieee> ieee{};

namespace detail {

template <class T>
struct dot_acc {
  using type = std::conditional_t<std::is_same_v<T, std::int8_t>, std::int32_t,
                                  std::conditional_t<std::is_same_v<T, double>, double, float>>;
};

template <class Acc, class T>
struct dot_result {
  using type = value_of_t<Acc>;
};
template <class T>
struct dot_result<void, T> {
  using type = typename dot_acc<T>::type;
};

template <class T>
inline constexpr bool dot_type_ok_v = is_small_float_v<T> || std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                      std::is_same_v<T, std::int8_t>;


template <input_precision Prec, class A, class B, class Acc>
TL_HD auto dot_lowered(const A& a, const B& b, const Acc* acc);

// A 16-bit float accumulator for float operands: the sum runs in float32 from it and is rounded
// once, as dot_impl computes it, but through the float32 accumulator's lowering (on the GPU the
// tensor cores, which accumulate in float32).
template <class Acc, class TA>
inline constexpr bool narrow_float_acc_v = [] {
  if constexpr (std::is_void_v<Acc>) return false;
  else return is_small_float_v<value_of_t<Acc>> && (is_small_float_v<TA> || std::is_same_v<TA, float>);
}();

// The fp8 formats without tensor-core instructions (float8e4b15, float8e4b8, float8e5b16) are
// multiplied as float16, which holds each of their values exactly (Triton upcasts them too).
template <class A, class B>
inline constexpr bool upcast_fp8_operands_v =
    std::is_same_v<value_of_t<A>, value_of_t<B>> && is_fp8_v<value_of_t<A>> &&
    !std::is_same_v<value_of_t<A>, fp8e4nv> && !std::is_same_v<value_of_t<A>, fp8e5>;

template <input_precision Prec, class A, class B, class Acc>
TL_HD auto dot_impl(const A& a, const B& b, const Acc* acc) {
  if constexpr (upcast_fp8_operands_v<A, B>) {
    const auto a16 = a.to(dtype<fp16>{});
    const auto b16 = b.to(dtype<fp16>{});
    return dot_impl<Prec, decltype(a16), decltype(b16), Acc>(a16, b16, acc);
  } else if constexpr (narrow_float_acc_v<Acc, value_of_t<A>>) {
    using AccT = value_of_t<Acc>;
    const auto wide = eval(acc->to(dtype<float>{}));
    return eval(dot_impl<Prec, A, B, std::remove_cvref_t<decltype(wide)>>(a, b, &wide).to(dtype<AccT>{}));
  } else {
    return dot_lowered<Prec, A, B, Acc>(a, b, acc);
  }
}

template <input_precision Prec, class A, class B, class Acc>
TL_HD auto dot_lowered(const A& a, const B& b, const Acc* acc) {
  using SA = shape_of_t<A>;
  using SB = shape_of_t<B>;
  using TA = value_of_t<A>;
  using TB = value_of_t<B>;
  using D = dot_shapes<SA, SB>;
  static_assert(check<error::dot_operands_must_be_2d_or_3d_of_equal_rank<SA, SB, D::ranks_ok>>);
  static_assert(check<error::dot_inner_sizes_differ<SA, SB, D::inner_ok>>);
  static_assert(check<error::dot_batch_sizes_differ<SA, SB, D::batch_ok>>);
  static_assert(check<error::dot_sizes_below_16<SA, SB, D::sizes_ok>>);
  static_assert(check<error::dot_operand_types_differ<TA, TB, std::is_same_v<TA, TB>>>);
  static_assert(check<error::dot_unsupported_type<TA, dot_type_ok_v<TA>>>);
  using AccT = typename dot_result<Acc, TA>::type;
  using Out = typename D::out;
  if constexpr (!std::is_void_v<Acc>) {
    static_assert(check<error::dot_accumulator_shape_mismatch<shape_of_t<Acc>, Out, std::is_same_v<shape_of_t<Acc>, Out>>>);
  }
  using In = std::conditional_t<std::is_same_v<TA, double>, double,
                                std::conditional_t<std::is_same_v<TA, std::int8_t>, std::int32_t, float>>;
  // The result has its accumulator's origin (a computed block without one).
  constexpr origin out_origin = [] {
    if constexpr (std::is_void_v<Acc>) return origin::computed;
    else return Acc::block_origin;
  }();
  block_t<AccT, Out, out_origin> out;
  constexpr bool tf = std::is_same_v<TA, float> && Prec == input_precision::tf32;
  if constexpr (D::ranks_ok && D::inner_ok && D::batch_ok) lowering::dot<D, In, tf>(a, b, acc, out);
  return out;
}

template <class TA, class O>
inline constexpr bool dot_out_ok_v =
    std::is_same_v<O, typename dot_acc<TA>::type> || (std::is_same_v<O, fp16> && is_small_float_v<TA>);

// dot with out_dtype O: the natural accumulator type's dot, rounded once to O.
template <class O, input_precision Prec, class A, class B, class Acc>
TL_HD auto dot_out(const A& a, const B& b, const Acc* acc) {
  using TA = value_of_t<A>;
  using Natural = typename dot_acc<TA>::type;
  static_assert(check<error::dot_out_dtype_unsupported<TA, O, dot_out_ok_v<TA, O>>>);
  if constexpr (!std::is_void_v<Acc>)
    static_assert(check<error::dot_out_dtype_differs_from_acc<value_of_t<Acc>, O, std::is_same_v<value_of_t<Acc>, O>>>);
  if constexpr (std::is_same_v<O, Natural> || !dot_out_ok_v<TA, O>) {
    return dot_impl<Prec, A, B, Acc>(a, b, acc);
  } else if constexpr (std::is_void_v<Acc>) {
    return eval(dot_impl<Prec, A, B, void>(a, b, nullptr).to(dtype<O>{}));
  } else {
    const auto wide = eval(acc->to(dtype<Natural>{}));
    return eval(dot_impl<Prec, A, B, decltype(wide)>(a, b, &wide).to(dtype<O>{}));
  }
}

template <class Acc>
TL_HD auto dot_acc_block(const Acc& acc) {
  if constexpr (is_held_block_v<Acc>) return static_cast<const as_expr_t<Acc>&>(acc);
  else return eval(acc);
}

}  // namespace detail

template <class A, class B, input_precision P = input_precision::tf32>
  requires(detail::is_expr_v<A> && detail::is_expr_v<B>)
TL_INLINE auto dot(const A& a, const B& b, precision_t<P> = {}) {
  return detail::dot_impl<P, A, B, void>(a, b, nullptr);
}

template <class A, class B, class Acc, input_precision P = input_precision::tf32>
  requires(detail::is_expr_v<A> && detail::is_expr_v<B> && detail::is_expr_v<Acc>)
TL_INLINE auto dot(const A& a, const B& b, const Acc& acc, precision_t<P> = {}) {
  if constexpr (detail::is_held_block_v<Acc>) {  // read in place (a loaded block: its elements)
    using block = detail::as_expr_t<Acc>;
    return detail::dot_impl<P, A, B, block>(a, b, &static_cast<const block&>(acc));
  } else {
    const auto acc_block = eval(acc);
    return detail::dot_impl<P, A, B, decltype(acc_block)>(a, b, &acc_block);
  }
}

// A pipelined loop's body run ahead (expr/ahead.hpp): the operands, kept for the loop.
template <class A, class B, class Acc, input_precision P = input_precision::tf32>
  requires(detail::is_expr_v<A> && detail::is_expr_v<B>)
TL_INLINE auto dot(const A& a, const B& b, const detail::ahead_acc<Acc>&, precision_t<P> = {}) {
  return detail::dot_ahead<precision_t<P>, A, B, Acc>(a, b);
}

// out_dtype (Triton: tl.dot(a, b, out_dtype=tl.float16)): after the operands, the precision or
// the accumulator.
template <class A, class B, class O, input_precision P = input_precision::tf32>
  requires(detail::is_expr_v<A> && detail::is_expr_v<B>)
TL_INLINE auto dot(const A& a, const B& b, dtype<O>) {
  return detail::dot_out<O, P, A, B, void>(a, b, nullptr);
}
template <class A, class B, class O, input_precision P>
  requires(detail::is_expr_v<A> && detail::is_expr_v<B>)
TL_INLINE auto dot(const A& a, const B& b, precision_t<P>, dtype<O>) {
  return detail::dot_out<O, P, A, B, void>(a, b, nullptr);
}
template <class A, class B, class Acc, class O, input_precision P = input_precision::tf32>
  requires(detail::is_expr_v<A> && detail::is_expr_v<B> && detail::is_expr_v<Acc>)
TL_INLINE auto dot(const A& a, const B& b, const Acc& acc, dtype<O>, precision_t<P> = {}) {
  const auto acc_block = detail::dot_acc_block(acc);
  return detail::dot_out<O, P, A, B, std::remove_cvref_t<decltype(acc_block)>>(a, b, &acc_block);
}
template <class A, class B, class Acc, class O, input_precision P>
  requires(detail::is_expr_v<A> && detail::is_expr_v<B> && detail::is_expr_v<Acc>)
TL_INLINE auto dot(const A& a, const B& b, const Acc& acc, precision_t<P>, dtype<O>) {
  const auto acc_block = detail::dot_acc_block(acc);
  return detail::dot_out<O, P, A, B, std::remove_cvref_t<decltype(acc_block)>>(a, b, &acc_block);
}

}  // namespace tl
