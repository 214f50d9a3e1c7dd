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
// compare-and-swap loop before. From sm_90 on, a float32, float16 or bfloat16 add over a chunk
// of lanes that are all masked in and point at consecutive, aligned elements is one vector
// instruction (atom.global.add.v4.f32, .v4.f16, ...: each element still added atomically).
// With TL_DEVICE_CHECKS a lane outside its buffer is reported and not performed, as a store's.
#pragma once

#include <cstdint>

#include "../../core/memory_order.hpp"
#include "device_report.hpp"
#include "evaluation.hpp"
#include "layout.hpp"
#include "memory.hpp"

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

// A vector add over V consecutive elements (sm_90 on, V = 2 or 4): floats in 32-bit registers,
// halves in 16-bit ones. Each element is added atomically; the old values come back.
#define TL_ATOM_VEC_CASE(SEM, SCOPE, INSTR, ...)                                                                  \
  else if constexpr (Sem == memory_sem::SEM && Scope == memory_scope::SCOPE) asm volatile(                       \
      "atom." #SEM "." #SCOPE ".global." INSTR ";" __VA_ARGS__ : "memory");
template <memory_sem Sem, memory_scope Scope>
__device__ __forceinline__ float4 atom_add_v4_f32(void* p, float4 v) {
  float4 o;
  TL_ATOM_EACH(TL_ATOM_VEC_CASE, "add.v4.f32 {%0, %1, %2, %3}, [%4], {%5, %6, %7, %8}",
               : "=f"(o.x), "=f"(o.y), "=f"(o.z), "=f"(o.w) : "l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w))
  return o;
}
template <memory_sem Sem, memory_scope Scope>
__device__ __forceinline__ float2 atom_add_v2_f32(void* p, float2 v) {
  float2 o;
  TL_ATOM_EACH(TL_ATOM_VEC_CASE, "add.v2.f32 {%0, %1}, [%2], {%3, %4}", : "=f"(o.x), "=f"(o.y) : "l"(p), "f"(v.x), "f"(v.y))
  return o;
}
// 16-bit floats: Half "f16" or "bf16"; the lanes in 16-bit registers.
#define TL_ATOM_VEC16_FN(NAME, HALF)                                                                                \
  template <memory_sem Sem, memory_scope Scope>                                                                     \
  __device__ __forceinline__ ushort4 NAME##_v4(void* p, ushort4 v) {                                                \
    ushort4 o;                                                                                                      \
    TL_ATOM_EACH(TL_ATOM_VEC_CASE, "add.noftz.v4." HALF " {%0, %1, %2, %3}, [%4], {%5, %6, %7, %8}",                \
                 : "=h"(o.x), "=h"(o.y), "=h"(o.z), "=h"(o.w) : "l"(p), "h"(v.x), "h"(v.y), "h"(v.z), "h"(v.w))     \
    return o;                                                                                                       \
  }                                                                                                                 \
  template <memory_sem Sem, memory_scope Scope>                                                                     \
  __device__ __forceinline__ ushort2 NAME##_v2(void* p, ushort2 v) {                                                \
    ushort2 o;                                                                                                      \
    TL_ATOM_EACH(TL_ATOM_VEC_CASE, "add.noftz.v2." HALF " {%0, %1}, [%2], {%3, %4}",                                \
                 : "=h"(o.x), "=h"(o.y) : "l"(p), "h"(v.x), "h"(v.y))                                                \
    return o;                                                                                                       \
  }
TL_ATOM_VEC16_FN(atom_add_f16, "f16")
TL_ATOM_VEC16_FN(atom_add_bf16, "bf16")
#undef TL_ATOM_VEC16_FN
#undef TL_ATOM_VEC_CASE

// atomic_load and atomic_store: ld.acquire / ld.relaxed and st.release / st.relaxed at the
// scope asked for (ld.acquire.gpu.global.b32, ...). 8-bit values in 16-bit registers.
#define TL_LD_CASE(SEM, SCOPE, W, C, OUT, P)                                                                      \
  else if constexpr (Sem == memory_sem::SEM && Scope == memory_scope::SCOPE) asm volatile(                        \
      "ld." #SEM "." #SCOPE ".global." W " %0, [%1];" : "=" C(OUT) : "l"(P) : "memory");
#define TL_ST_CASE(SEM, SCOPE, W, C, P, V)                                                                        \
  else if constexpr (Sem == memory_sem::SEM && Scope == memory_scope::SCOPE) asm volatile(                        \
      "st." #SEM "." #SCOPE ".global." W " [%0], %1;" ::"l"(P), C(V) : "memory");
#define TL_LD_ST_EACH(CASE, LOAD_OR_STORE, ...)                                                                   \
  if constexpr (false) {                                                                                          \
  }                                                                                                               \
  CASE(relaxed, cta, __VA_ARGS__) CASE(relaxed, gpu, __VA_ARGS__) CASE(relaxed, sys, __VA_ARGS__)                 \
  CASE(LOAD_OR_STORE, cta, __VA_ARGS__) CASE(LOAD_OR_STORE, gpu, __VA_ARGS__) CASE(LOAD_OR_STORE, sys, __VA_ARGS__)
// The unsigned integer of T's size (1 to 8 bytes): what atomic_load_bits and atomic_store_bits move.
template <class T>
using bits_of_t = std::conditional_t<
    sizeof(T) == 1, std::uint8_t,
    std::conditional_t<sizeof(T) == 2, std::uint16_t, std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
template <memory_sem Sem, memory_scope Scope, class U>
__device__ __forceinline__ U atomic_load_bits(const void* p) {
  if constexpr (sizeof(U) == 8) {
    unsigned long long r;
    TL_LD_ST_EACH(TL_LD_CASE, acquire, "b64", "l", r, p)
    return U(r);
  } else if constexpr (sizeof(U) == 4) {
    unsigned r;
    TL_LD_ST_EACH(TL_LD_CASE, acquire, "b32", "r", r, p)
    return U(r);
  } else {
    unsigned short r;
    if constexpr (sizeof(U) == 2) {
      TL_LD_ST_EACH(TL_LD_CASE, acquire, "b16", "h", r, p)
    } else {
      TL_LD_ST_EACH(TL_LD_CASE, acquire, "u8", "h", r, p)
    }
    return U(r);
  }
}
template <memory_sem Sem, memory_scope Scope, class U>
__device__ __forceinline__ void atomic_store_bits(void* p, U v) {
  if constexpr (sizeof(U) == 8) {
    const unsigned long long x = v;
    TL_LD_ST_EACH(TL_ST_CASE, release, "b64", "l", p, x)
  } else if constexpr (sizeof(U) == 4) {
    const unsigned x = v;
    TL_LD_ST_EACH(TL_ST_CASE, release, "b32", "r", p, x)
  } else {
    const unsigned short x = v;
    if constexpr (sizeof(U) == 2) {
      TL_LD_ST_EACH(TL_ST_CASE, release, "b16", "h", p, x)
    } else {
      TL_LD_ST_EACH(TL_ST_CASE, release, "u8", "h", p, x)
    }
  }
}
#undef TL_LD_ST_EACH
#undef TL_ST_CASE
#undef TL_LD_CASE
#undef TL_ATOM_EACH
#undef TL_ATOM_CAS_CASE
#undef TL_ATOM_CASE

// Can an add of T over a chunk of V lanes be one vector instruction here?
template <atomic_op A, class T, int V>
inline constexpr bool vector_atomic_v =
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    A == atomic_op::add && (std::is_same_v<T, float> || std::is_same_v<T, fp16> || std::is_same_v<T, bf16>) &&
    (V == 2 || V == 4);
#else
    false;
#endif

// V lanes at p (consecutive, aligned to V elements) added v, their old values into old.
template <memory_sem Sem, memory_scope Scope, class T, int V>
__device__ __forceinline__ void vector_atomic_add(T* p, const T (&v)[V], T (&old)[V]) {
  if constexpr (std::is_same_v<T, float>) {
    if constexpr (V == 4) {
      const float4 o = atom_add_v4_f32<Sem, Scope>(p, make_float4(v[0], v[1], v[2], v[3]));
      old[0] = o.x, old[1] = o.y, old[2] = o.z, old[3] = o.w;
    } else {
      const float2 o = atom_add_v2_f32<Sem, Scope>(p, make_float2(v[0], v[1]));
      old[0] = o.x, old[1] = o.y;
    }
  } else {
    constexpr bool half = std::is_same_v<T, fp16>;
    if constexpr (V == 4) {
      const ushort4 x = make_ushort4(v[0].bits, v[1].bits, v[2].bits, v[3].bits);
      const ushort4 o = half ? atom_add_f16_v4<Sem, Scope>(p, x) : atom_add_bf16_v4<Sem, Scope>(p, x);
      old[0] = T::from_bits(o.x), old[1] = T::from_bits(o.y), old[2] = T::from_bits(o.z), old[3] = T::from_bits(o.w);
    } else {
      const ushort2 x = make_ushort2(v[0].bits, v[1].bits);
      const ushort2 o = half ? atom_add_f16_v2<Sem, Scope>(p, x) : atom_add_bf16_v2<Sem, Scope>(p, x);
      old[0] = T::from_bits(o.x), old[1] = T::from_bits(o.y);
    }
  }
}

// One lane: the element's old value.
template <atomic_op A, memory_sem Sem, memory_scope Scope, class T>
__device__ __forceinline__ T atomic_at(T* element, T cmp, T v) {
  constexpr bool wide = sizeof(T) == 8;
  using U = std::conditional_t<wide, std::uint64_t, std::uint32_t>;
  using I = std::make_signed_t<U>;
  void* const p = element;
  if constexpr (A == atomic_op::load || A == atomic_op::store) {
    using B = bits_of_t<T>;
    if constexpr (A == atomic_op::load) {
      return bit_cast<T>(atomic_load_bits<Sem, Scope, B>(p));
    } else {
      atomic_store_bits<Sem, Scope, B>(p, bit_cast<B>(v));
      return T{};
    }
  } else if constexpr (A == atomic_op::cas) {
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

// A block of 16 lanes or fewer, which every thread holds whole, is performed by thread 0:
// its results go to every thread through shared memory.
template <class Out>
__device__ __forceinline__ void from_thread_0(Out& out) {
  using T = typename Out::value_type;
  constexpr int n = Out::layout::slots;
  T* const shared = reinterpret_cast<T*>(scratch<scratch_size(int(sizeof(T)) * n)>());
  barrier();
  if (thread_id() == 0)
    TL_UNROLL
    for (int i = 0; i < n; ++i) shared[i] = out.v[i];
  barrier();
  TL_UNROLL
  for (int i = 0; i < n; ++i) out.v[i] = shared[i];
}

// The general case: one atomic instruction a lane.
template <atomic_op A, memory_sem Sem, memory_scope Scope, class T, class S, class EP, class EC, class EV, class EM, class Out>
__device__ __forceinline__ void atomic_lanes(EP& ptrs, EC& cmp, EV& value, EM& mask, const source_location& where, Out& out) {
  constexpr order O = Out::register_order;
  using L = layout<S, O>;
  const int t = thread_id();
  [[maybe_unused]] access_tracker<S, O> tracker;
  // A block of 16 lanes or fewer is held by every thread: thread 0 performs it.
  const bool performer = !L::replicated || t == 0;
  // Checked: the lanes' addresses and old values hashed, and a lane's place (note_spin).
  [[maybe_unused]] unsigned long long key = 0;
  [[maybe_unused]] const void* site = nullptr;
  [[maybe_unused]] long long site_offset = 0;
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
    // const only for a load, which does not write
    out.v[i] = atomic_at<A, Sem, Scope>(const_cast<T*>(p.get()), convert<T>(operand_at<S, O>(cmp, c, i)),
                                        convert<T>(operand_at<S, O>(value, c, i)));
    if constexpr (TL_DEVICE_CHECKS) {
      key = mix_key(mix_key(key, reinterpret_cast<unsigned long long>(p.get())), (unsigned long long)bit_cast<bits_of_t<T>>(T(out.v[i])));
      site = p.base;
      site_offset = p.offset;
    }
  }
  if constexpr (L::replicated) from_thread_0(out);
  if constexpr (TL_DEVICE_CHECKS) {
    tracker.finish(access_kind::atomic, where);
    note_spin(int(A), key, A == atomic_op::store && site != nullptr, site, site_offset, false, where);
  }
}

// The old values at ptrs where mask holds (0 elsewhere): one atomic instruction a lane, or a
// chunk of lanes (vector_atomic_v).
template <atomic_op A, memory_sem Sem, memory_scope Scope, class T, class S, class EP, class EC, class EV, class EM, class Out>
__device__ __forceinline__ void atomic(EP ptrs, EC cmp, EV value, EM mask, const source_location& where, Out& out) {
  constexpr order O = Out::register_order;
  using L = layout<S, O>;
  settle_dots<EP, EC, EV, EM>();
  stage<S, O>(ptrs, cmp, value, mask);
  constexpr int V = L::vec;
  if constexpr (vector_atomic_v<A, T, V> && !TL_DEVICE_CHECKS && !L::replicated && unit_stride_chunks<S, EP, V>) {
    // Whole chunks: one vector instruction where every lane is masked in and the chunk aligned.
    const int t = thread_id();
    TL_UNROLL
    for (int i0 = 0; i0 < L::slots; i0 += V) {
      T old[V], v[V];
      bool all = L::valid(t, i0);
      auto c = L::coords(t, i0);
      const auto p0 = operand_at<S, O>(ptrs, c, i0);
      TL_UNROLL
      for (int k = 0; k < V; ++k, ++c[S::rank - 1]) {
        out.v[i0 + k] = T{};
        all = all && convert<bool>(operand_at<S, O>(mask, c, i0 + k));
        v[k] = convert<T>(operand_at<S, O>(value, c, i0 + k));
      }
      if (all && reinterpret_cast<std::uintptr_t>(p0.get()) % (sizeof(T) * V) == 0) {
        vector_atomic_add<Sem, Scope>(p0.get(), v, old);
        TL_UNROLL
        for (int k = 0; k < V; ++k) out.v[i0 + k] = old[k];
        continue;
      }
      c = L::coords(t, i0);
      TL_UNROLL
      for (int k = 0; k < V; ++k, ++c[S::rank - 1]) {
        if (!L::valid(t, i0 + k) || !convert<bool>(operand_at<S, O>(mask, c, i0 + k))) continue;
        out.v[i0 + k] = atomic_at<A, Sem, Scope>((p0 + k).get(), T{}, v[k]);
      }
    }
  } else {
    atomic_lanes<A, Sem, Scope, T, S>(ptrs, cmp, value, mask, where, out);
  }
}

// atomic_poll: each lane held by a thread read atomically until it equals expected, or until
// the time budget (nanoseconds by the GPU's global timer, from the op's start) is spent; every
// lane is read at least once. A block of 16 lanes or fewer: thread 0 polls, the others are
// given the results. (global_timer_ns: device_report.hpp.) With TL_DEVICE_CHECKS a poll without
// a budget gives up after the launch's hang bound, and the program is stopped (note_spin).
template <memory_sem Sem, memory_scope Scope, class T, class S, class EP, class EE, class Out>
__device__ __forceinline__ void atomic_poll(EP ptrs, EE expected, unsigned long long budget_ns, const source_location& where,
                                            Out& out) {
  constexpr order O = Out::register_order;
  using L = layout<S, O>;
  using B = bits_of_t<T>;
  settle_dots<EP, EE>();
  stage<S, O>(ptrs, expected);
  const int t = thread_id();
  [[maybe_unused]] access_tracker<S, O> tracker;
  const bool performer = !L::replicated || t == 0;
  const unsigned long long start = global_timer_ns();
  [[maybe_unused]] unsigned long long key = 0;
  [[maybe_unused]] const void* site = nullptr;
  [[maybe_unused]] long long site_offset = 0;
  [[maybe_unused]] bool gave_up = false;
  unsigned long long budget = budget_ns;
  if constexpr (TL_DEVICE_CHECKS) {
    if (budget == ~0ull && report_slot()->wait_ns != 0) budget = report_slot()->wait_ns;
  }
  TL_UNROLL
  for (int i = 0; i < L::slots; ++i) {
    out.v[i] = false;
    if (!performer || !L::valid(t, i)) continue;
    const auto c = L::coords(t, i);
    const auto p = operand_at<S, O>(ptrs, c, i);
    if constexpr (TL_DEVICE_CHECKS) {
      if (!tracker.admit(i, p)) continue;
    }
    const B want = bit_cast<B>(convert<T>(operand_at<S, O>(expected, c, i)));
    for (;;) {
      if (atomic_load_bits<Sem, Scope, B>(p.get()) == want) {
        out.v[i] = true;
        break;
      }
      if (budget != ~0ull && global_timer_ns() - start >= budget) {
        if constexpr (TL_DEVICE_CHECKS) gave_up = budget_ns == ~0ull;
        break;
      }
    }
    if constexpr (TL_DEVICE_CHECKS) {
      key = mix_key(mix_key(key, reinterpret_cast<unsigned long long>(p.get())), out.v[i] ? 2 : 1);
      site = p.base;
      site_offset = p.offset;
    }
  }
  if constexpr (L::replicated) from_thread_0(out);
  if constexpr (TL_DEVICE_CHECKS) {
    tracker.finish(access_kind::atomic, where);
    note_spin(atomic_poll_number, key, false, site, site_offset, gave_up, where);
  }
}

#endif  // __CUDACC__

}  // namespace tl::detail::cuda
