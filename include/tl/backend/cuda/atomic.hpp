// tl/backend/cuda/atomic.hpp: the atomics on the CUDA backend (ops/atomic.hpp).
//
// Each thread performs the lanes it holds (the block's standard layout), one `atom` instruction
// a lane, with the op's semantics and scope in the instruction (atom.acq_rel.gpu.global.add.f32,
// ...): the old value comes back in the thread's register for that lane. A block of 16 lanes
// or fewer is held whole by every thread; thread 0 performs it and gives the old values to the
// others through shared memory. Floats' max and min are integer atomics on their bits, as
// Triton lowers them, but chosen by the value's sign bit (clear: signed max; set: unsigned min),
// which gives IEEE order with -0.0 below +0.0 (Triton tests val >= 0, which puts -0.0 with the
// positive values); bfloat16 add is one instruction from sm_90 on, a
// compare-and-swap loop before. With TL_DEVICE_CHECKS a lane outside its buffer is reported and
// not performed, as a store's.
#pragma once

#include <cstdint>

#include "../../core/memory_order.hpp"
#include "device_report.hpp"
#include "evaluation.hpp"
#include "layout.hpp"

namespace tl::detail::cuda {

#if defined(__CUDACC__)

// One atom instruction with the semantics and scope as template arguments: INSTR is the
// operation and type ("add.f32"), C the register constraint of its values.
#define TL_ATOM_CASE(SEM, SCOPE, INSTR, C, OUT, P, V)                                                               \
  else if constexpr (Sem == memory_sem::SEM && Scope == memory_scope::SCOPE) asm volatile(                          \
      "atom." #SEM "." #SCOPE ".global." INSTR " %0, [%1], %2;" : "=" C(OUT) : "l"(P), C(V) : "memory");
#define TL_ATOM_CAS_CASE(SEM, SCOPE, INSTR, C, OUT, P, K, V)                                                        \
  else if constexpr (Sem == memory_sem::SEM && Scope == memory_scope::SCOPE) asm volatile(                          \
      "atom." #SEM "." #SCOPE ".global." INSTR " %0, [%1], %2, %3;" : "=" C(OUT) : "l"(P), C(K), C(V) : "memory");
#define TL_ATOM_EACH(CASE, ...)                                                                                     \
  if constexpr (false) {                                                                                            \
  }                                                                                                                 \
  CASE(relaxed, cta, __VA_ARGS__) CASE(relaxed, gpu, __VA_ARGS__) CASE(relaxed, sys, __VA_ARGS__)                   \
  CASE(acquire, cta, __VA_ARGS__) CASE(acquire, gpu, __VA_ARGS__) CASE(acquire, sys, __VA_ARGS__)                   \
  CASE(release, cta, __VA_ARGS__) CASE(release, gpu, __VA_ARGS__) CASE(release, sys, __VA_ARGS__)                   \
  CASE(acq_rel, cta, __VA_ARGS__) CASE(acq_rel, gpu, __VA_ARGS__) CASE(acq_rel, sys, __VA_ARGS__)

// The instructions tl uses, by operation and register type.
#define TL_ATOM_FN(NAME, INSTR, C, U)                                                                                \
  template <memory_sem Sem, memory_scope Scope>                                                                     \
  __device__ __forceinline__ U NAME(void* p, U v) {                                                                 \
    U old;                                                                                                          \
    TL_ATOM_EACH(TL_ATOM_CASE, INSTR, C, old, p, v)                                                                 \
    return old;                                                                                                     \
  }
TL_ATOM_FN(atom_add_u32, "add.u32", "r", std::uint32_t)
TL_ATOM_FN(atom_add_u64, "add.u64", "l", std::uint64_t)
TL_ATOM_FN(atom_add_f32, "add.f32", "f", float)
TL_ATOM_FN(atom_add_f64, "add.f64", "d", double)
TL_ATOM_FN(atom_add_f16, "add.noftz.f16", "h", std::uint16_t)
TL_ATOM_FN(atom_add_bf16, "add.noftz.bf16", "h", std::uint16_t)  // sm_90 on
TL_ATOM_FN(atom_max_s32, "max.s32", "r", std::int32_t)
TL_ATOM_FN(atom_max_u32, "max.u32", "r", std::uint32_t)
TL_ATOM_FN(atom_max_s64, "max.s64", "l", std::int64_t)
TL_ATOM_FN(atom_max_u64, "max.u64", "l", std::uint64_t)
TL_ATOM_FN(atom_min_s32, "min.s32", "r", std::int32_t)
TL_ATOM_FN(atom_min_u32, "min.u32", "r", std::uint32_t)
TL_ATOM_FN(atom_min_s64, "min.s64", "l", std::int64_t)
TL_ATOM_FN(atom_min_u64, "min.u64", "l", std::uint64_t)
TL_ATOM_FN(atom_and_b32, "and.b32", "r", std::uint32_t)
TL_ATOM_FN(atom_and_b64, "and.b64", "l", std::uint64_t)
TL_ATOM_FN(atom_or_b32, "or.b32", "r", std::uint32_t)
TL_ATOM_FN(atom_or_b64, "or.b64", "l", std::uint64_t)
TL_ATOM_FN(atom_xor_b32, "xor.b32", "r", std::uint32_t)
TL_ATOM_FN(atom_xor_b64, "xor.b64", "l", std::uint64_t)
TL_ATOM_FN(atom_exch_b32, "exch.b32", "r", std::uint32_t)
TL_ATOM_FN(atom_exch_b64, "exch.b64", "l", std::uint64_t)
#undef TL_ATOM_FN
#define TL_ATOM_CAS_FN(NAME, INSTR, C, U)                                                                            \
  template <memory_sem Sem, memory_scope Scope>                                                                     \
  __device__ __forceinline__ U NAME(void* p, U k, U v) {                                                            \
    U old;                                                                                                          \
    TL_ATOM_EACH(TL_ATOM_CAS_CASE, INSTR, C, old, p, k, v)                                                          \
    return old;                                                                                                     \
  }
TL_ATOM_CAS_FN(atom_cas_b16, "cas.b16", "h", std::uint16_t)
TL_ATOM_CAS_FN(atom_cas_b32, "cas.b32", "r", std::uint32_t)
TL_ATOM_CAS_FN(atom_cas_b64, "cas.b64", "l", std::uint64_t)
#undef TL_ATOM_CAS_FN
#undef TL_ATOM_EACH
#undef TL_ATOM_CAS_CASE
#undef TL_ATOM_CASE

// One lane: the element's old value.
template <atomic_op A, memory_sem Sem, memory_scope Scope, class T>
__device__ __forceinline__ T atomic_at(T* element, T cmp, T v) {
  constexpr bool wide = sizeof(T) == 8;
  using U = std::conditional_t<wide, std::uint64_t, std::uint32_t>;
  using I = std::make_signed_t<U>;
  void* const p = element;
  if constexpr (A == atomic_op::cas) {
    if constexpr (wide) return bit_cast<T>(atom_cas_b64<Sem, Scope>(p, bit_cast<U>(cmp), bit_cast<U>(v)));
    else return bit_cast<T>(atom_cas_b32<Sem, Scope>(p, bit_cast<U>(cmp), bit_cast<U>(v)));
  } else if constexpr (A == atomic_op::xchg) {
    if constexpr (wide) return bit_cast<T>(atom_exch_b64<Sem, Scope>(p, bit_cast<U>(v)));
    else return bit_cast<T>(atom_exch_b32<Sem, Scope>(p, bit_cast<U>(v)));
  } else if constexpr (A == atomic_op::add) {
    if constexpr (std::is_same_v<T, float>) return atom_add_f32<Sem, Scope>(p, v);
    else if constexpr (std::is_same_v<T, double>) return atom_add_f64<Sem, Scope>(p, v);
    else if constexpr (std::is_same_v<T, fp16>) return fp16::from_bits(atom_add_f16<Sem, Scope>(p, v.bits));
    else if constexpr (std::is_same_v<T, bf16>) {
#if __CUDA_ARCH__ >= 900
      return bf16::from_bits(atom_add_bf16<Sem, Scope>(p, v.bits));
#else
      std::uint16_t seen = *static_cast<volatile std::uint16_t*>(p), expected;
      do {
        expected = seen;
        const bf16 next(float(bf16::from_bits(expected)) + float(v));
        seen = atom_cas_b16<Sem, Scope>(p, expected, next.bits);
      } while (seen != expected);
      return bf16::from_bits(seen);
#endif
    } else if constexpr (wide) return T(atom_add_u64<Sem, Scope>(p, U(v)));
    else return T(atom_add_u32<Sem, Scope>(p, U(v)));
  } else if constexpr (A == atomic_op::max || A == atomic_op::min) {
    constexpr bool max = A == atomic_op::max;
    if constexpr (std::is_floating_point_v<T>) {
      // The sign bit picks the integer order in which the bits compare like the floats.
      const U x = bit_cast<U>(v);
      const bool negative = I(x) < 0;
      U old;
      if constexpr (wide) {
        if (negative) old = max ? atom_min_u64<Sem, Scope>(p, x) : atom_max_u64<Sem, Scope>(p, x);
        else old = U(max ? atom_max_s64<Sem, Scope>(p, I(x)) : atom_min_s64<Sem, Scope>(p, I(x)));
      } else {
        if (negative) old = max ? atom_min_u32<Sem, Scope>(p, x) : atom_max_u32<Sem, Scope>(p, x);
        else old = U(max ? atom_max_s32<Sem, Scope>(p, I(x)) : atom_min_s32<Sem, Scope>(p, I(x)));
      }
      return bit_cast<T>(old);
    } else if constexpr (std::is_signed_v<T>) {
      if constexpr (wide) return T(max ? atom_max_s64<Sem, Scope>(p, v) : atom_min_s64<Sem, Scope>(p, v));
      else return T(max ? atom_max_s32<Sem, Scope>(p, v) : atom_min_s32<Sem, Scope>(p, v));
    } else {
      if constexpr (wide) return T(max ? atom_max_u64<Sem, Scope>(p, v) : atom_min_u64<Sem, Scope>(p, v));
      else return T(max ? atom_max_u32<Sem, Scope>(p, v) : atom_min_u32<Sem, Scope>(p, v));
    }
  } else {
    const U x = U(v);
    U old;
    if constexpr (A == atomic_op::bit_and) old = wide ? atom_and_b64<Sem, Scope>(p, x) : atom_and_b32<Sem, Scope>(p, x);
    else if constexpr (A == atomic_op::bit_or) old = wide ? atom_or_b64<Sem, Scope>(p, x) : atom_or_b32<Sem, Scope>(p, x);
    else old = wide ? atom_xor_b64<Sem, Scope>(p, x) : atom_xor_b32<Sem, Scope>(p, x);
    return T(old);
  }
}

// The old values at ptrs where mask holds (0 elsewhere), each lane one atomic instruction.
template <atomic_op A, memory_sem Sem, memory_scope Scope, class T, class S, class EP, class EC, class EV, class EM, class Out>
__device__ __forceinline__ void atomic(EP ptrs, EC cmp, EV value, EM mask, const source_location& where, Out& out) {
  constexpr order O = Out::register_order;
  using L = layout<S, O>;
  settle_dots<EP, EC, EV, EM>();
  stage<S, O>(ptrs, cmp, value, mask);
  const int t = thread_id();
  [[maybe_unused]] access_tracker<S, O> tracker;
  // A block of 16 lanes or fewer is held by every thread: thread 0 performs it.
  const bool performer = !L::replicated || t == 0;
  TL_UNROLL
  for (int i = 0; i < L::slots; ++i) {
    out.v[i] = T{};
    if (!performer || !L::valid(t, i)) continue;
    const auto c = L::coords(t, i);
    if (!convert<bool>(operand_at<S, O>(mask, c, i))) continue;
    const auto p = operand_at<S, O>(ptrs, c, i);
    if constexpr (TL_DEVICE_CHECKS) {
      if (!tracker.admit(i, p)) continue;
    }
    out.v[i] = atomic_at<A, Sem, Scope>(p.get(), convert<T>(operand_at<S, O>(cmp, c, i)), convert<T>(operand_at<S, O>(value, c, i)));
  }
  if constexpr (L::replicated) {
    // Thread 0's old values to every thread.
    T* const shared = reinterpret_cast<T*>(scratch<scratch_size(int(sizeof(T)) * L::slots)>());
    barrier();
    if (t == 0)
      TL_UNROLL
      for (int i = 0; i < L::slots; ++i) shared[i] = out.v[i];
    barrier();
    TL_UNROLL
    for (int i = 0; i < L::slots; ++i) out.v[i] = shared[i];
  }
  if constexpr (TL_DEVICE_CHECKS) tracker.finish(access_kind::atomic, where);
}

#endif  // __CUDACC__

}  // namespace tl::detail::cuda
