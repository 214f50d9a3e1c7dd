// tl/ops/dot.hpp: block matrix product, 2-D (M x K @ K x N) and batched 3-D.
//
//   tl::dot(a, b)              Triton: tl.dot(a, b)
//   tl::dot(a, b, acc)         Triton: tl.dot(a, b, acc=acc)      (returns acc + a @ b)
//   tl::dot(a, b, acc, tl::ieee)   input_precision="ieee"
//
// float32 inputs use tf32 by default, as Triton does on tensor cores: each input keeps 10
// mantissa bits, the other 13 dropped (rounded toward zero: what the tensor cores do with the
// float32 bits Triton hands them), products accumulate in float32.
// The CPU backend computes exactly that, so a kernel's numbers on the CPU are the GPU's
// numbers up to summation order. fp16/bf16 multiply exactly and accumulate in float32;
// int8 accumulates in int32.
#pragma once

#include <cstring>

#include "../backend/cpu/program.hpp"
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

TL_INLINE float round_to_tf32(float x) {
  std::uint32_t u = bit_cast<std::uint32_t>(x);
  if ((u & 0x7f800000u) == 0x7f800000u) return x;  // inf, NaN
  return bit_cast<float>(u & 0xffffe000u);           // toward zero: the low 13 mantissa bits dropped
}

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
inline constexpr bool dot_type_ok_v = std::is_same_v<T, fp16> || std::is_same_v<T, bf16> ||
                                      std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                      std::is_same_v<T, std::int8_t>;

template <class SA, class SB>
struct dot_shapes {
  static constexpr int r = SA::rank;
  static constexpr bool ranks_ok = SA::rank == SB::rank && (SA::rank == 2 || SA::rank == 3);
  static constexpr int M = ranks_ok ? SA::dim(r - 2) : 16;
  static constexpr int K = ranks_ok ? SA::dim(r - 1) : 16;
  static constexpr int KB = ranks_ok ? SB::dim(r - 2) : 16;
  static constexpr int N = ranks_ok ? SB::dim(r - 1) : 16;
  static constexpr int BA = ranks_ok && r == 3 ? SA::dim(0) : 1;
  static constexpr int BB = ranks_ok && r == 3 ? SB::dim(0) : 1;
  static constexpr bool inner_ok = K == KB;
  static constexpr bool batch_ok = BA == BB;
  static constexpr bool sizes_ok = M >= 16 && N >= 16 && K >= 16;
  using out = std::conditional_t<r == 3, shape<BA, M, N>, shape<M, N>>;
};

#if !TL_DEVICE_PASS
// The CUDA backend reads an operand that is a loaded block from memory at the dot
// (expr/loaded.hpp); a store between the load and the dot would make the two backends differ.
// Here the elements of the load are compared with what memory holds now.
template <class X>
void check_operand_unchanged(const X& x) {
  if constexpr (is_loaded_v<X>) {
    if (!x.fresh) return;
    using S = shape_of_t<X>;
    using T = value_of_t<X>;
    std::int64_t changed = 0;
    for (std::int64_t i = 0; i < S::size; ++i) {
      const coord<S::rank> c = unravel<S>(i);
      if (!convert<bool>(x.mask.at(broadcast_coord<shape_of_t<typename X::mask_type>>(c)))) continue;
      const auto p = x.ptrs.at(c);
      if (!p.in_bounds()) continue;  // reported by the load
      if (std::memcmp(p.get(), &x.v[i], sizeof(T)) != 0) ++changed;
    }
    if (changed > 0) {
      assert_failure f;
      f.where = x.where;
      f.message = "memory this load read was stored to before the tl::dot it feeds (the CUDA backend reads "
                  "dot operands from memory at the dot: keep stores to it after the dot)";
      f.failing_lanes = changed;
      cpu::report_assert_failure(std::move(f));
    }
  }
}
#endif

}  // namespace detail
}  // namespace tl

#include "../backend/cuda/dot.hpp"

namespace tl {
namespace detail {

template <input_precision Prec, class A, class B, class Acc>
TL_HD auto dot_impl(const A& a, const B& b, const Acc* acc) {
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
  // The result in its accumulator's register order, or (no accumulator) in the tensor cores'.
  constexpr order out_order = [] {
    if constexpr (std::is_void_v<Acc>) return cuda::accumulator_order<Out>;
    else return order_of<Acc>();
  }();
  block_t<AccT, Out, out_order> out;
  constexpr bool tf = std::is_same_v<TA, float> && Prec == input_precision::tf32;
#if TL_DEVICE_PASS
  // The operands may be lazy expressions: the CUDA lowering evaluates each element once,
  // straight into shared memory where it can.
  if constexpr (D::ranks_ok && D::inner_ok && D::batch_ok) cuda::dot<D, In, tf>(a, b, acc, out);
#else
  check_operand_unchanged(a);
  check_operand_unchanged(b);
  // Operands evaluated once into plain arrays (they may be lazy expressions).
  const auto ea = eval(a);
  const auto eb = eval(b);
  using C = compute_t<AccT>;
  constexpr int M = D::M, N = D::N, K = D::K;
  for (int bt = 0; bt < D::BA; ++bt) {
    for (int i = 0; i < M; ++i) {
      for (int j = 0; j < N; ++j) {
        C sum = 0;
        if constexpr (!std::is_void_v<Acc>) sum = static_cast<C>(acc->v[(std::int64_t(bt) * M + i) * N + j]);
        for (int k = 0; k < K; ++k) {
          In x = static_cast<In>(static_cast<compute_t<TA>>(ea.v[(std::int64_t(bt) * M + i) * K + k]));
          In y = static_cast<In>(static_cast<compute_t<TA>>(eb.v[(std::int64_t(bt) * K + k) * N + j]));
          if constexpr (std::is_same_v<In, float>) {
            if (tf) {
              x = round_to_tf32(x);
              y = round_to_tf32(y);
            }
          }
          sum = op::add{}(sum, static_cast<C>(op::mul{}(x, y)));
        }
        out.v[(std::int64_t(bt) * M + i) * N + j] = convert<AccT>(sum);
      }
    }
  }
#endif
  return out;
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
  const auto acc_block = eval(acc);
  return detail::dot_impl<P, A, B, decltype(acc_block)>(a, b, &acc_block);
}

}  // namespace tl
