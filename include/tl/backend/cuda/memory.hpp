// tl/backend/cuda/memory.hpp: load and store on the GPU (ops/memory.hpp).
//
// Each thread accesses the elements of its own slots. Its slots come in chunks of V
// consecutive elements (layout.hpp); a chunk whose V lanes are all masked in, point at V
// consecutive elements of one buffer, and start at a multiple of V elements' size is moved
// with one vector instruction (128-bit for four 32-bit elements), any other lane by itself.
// When the pointer expression's type shows unit steps along the last axis (axis_info.hpp:
// ptr + pid * B + arange, outer sums of aranges, ...), only the first pointer of a chunk is
// computed and the others follow from it; else the contiguity test runs on the pointers of
// every lane. Either way a kernel gets wide accesses wherever its offsets allow, without
// declaring anything; the alignment test runs on the address.
#pragma once

#include "../../core/eviction.hpp"
#include "../../core/ptr.hpp"
#include "../../expr/axis_info.hpp"
#include "../../expr/loaded.hpp"
#include "device_report.hpp"
#include "evaluation.hpp"

namespace tl::detail::cuda {

// Chunks of V slots are V consecutive elements of one row, whose pointers step by one.
template <class S, class EP, int V>
inline constexpr bool unit_stride_chunks =
    V > 1 && S::rank > 0 && S::dim(S::rank - 1) % V == 0 && last_axis_stride<EP>() == 1;

#if TL_DEVICE_PASS
// ---- global accesses with an L2 eviction priority (tl::evict_first / tl::evict_last) ----
// A policy register (createpolicy) and the access with .L2::cache_hint; a plain access when
// no policy is asked for. X is an element or a vector_of: 1, 2, 4, 8 or 16 bytes, or a
// multiple of 16 (moved 16 bytes at a time). The "memory" clobber keeps the compiler from moving the access
// across other memory operations, as it would not move a plain one that aliases them.
// (Not volatile: the compiler may hoist the policy out of a loop and share it.)
template <eviction E>
__device__ __forceinline__ std::uint64_t l2_policy() {
  std::uint64_t p;
  if constexpr (E == eviction::last) asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  else asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}
// Before sm_80 (no cache hints) the policy is dropped.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
inline constexpr bool l2_hints = false;
#else
inline constexpr bool l2_hints = true;
#endif
template <eviction E, class X>
__device__ __forceinline__ X global_load(const X* a) {
  if constexpr (E == eviction::normal || !l2_hints) {
    return *a;
  } else if constexpr (sizeof(X) > 16) {  // wider than one access (a chunk the vector test never passes): 16 bytes at a time
    static_assert(sizeof(X) % 16 == 0);
    struct alignas(16) pieces {
      uint4 p[sizeof(X) / 16];
    } r;
    TL_UNROLL
    for (int i = 0; i < int(sizeof(X) / 16); ++i) r.p[i] = global_load<E>(reinterpret_cast<const uint4*>(a) + i);
    return bit_cast<X>(r);
  } else {
    static_assert(sizeof(X) == 1 || sizeof(X) == 2 || sizeof(X) == 4 || sizeof(X) == 8 || sizeof(X) == 16);
    const std::uint64_t pol = l2_policy<E>();
    if constexpr (sizeof(X) == 16) {
      uint4 r;
      asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                   : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(a), "l"(pol) : "memory");
      return bit_cast<X>(r);
    } else if constexpr (sizeof(X) == 8) {
      std::uint64_t r;
      asm volatile("ld.global.L2::cache_hint.u64 %0, [%1], %2;" : "=l"(r) : "l"(a), "l"(pol) : "memory");
      return bit_cast<X>(r);
    } else if constexpr (sizeof(X) == 4) {
      std::uint32_t r;
      asm volatile("ld.global.L2::cache_hint.u32 %0, [%1], %2;" : "=r"(r) : "l"(a), "l"(pol) : "memory");
      return bit_cast<X>(r);
    } else {
      unsigned short r;  // 8- and 16-bit loads into a 16-bit register
      if constexpr (sizeof(X) == 2)
        asm volatile("ld.global.L2::cache_hint.u16 %0, [%1], %2;" : "=h"(r) : "l"(a), "l"(pol) : "memory");
      else
        asm volatile("ld.global.L2::cache_hint.u8 %0, [%1], %2;" : "=h"(r) : "l"(a), "l"(pol) : "memory");
      return bit_cast<X>(static_cast<std::conditional_t<sizeof(X) == 2, std::uint16_t, std::uint8_t>>(r));
    }
  }
}
template <eviction E, class X>
__device__ __forceinline__ void global_store(X* a, const X& x) {
  if constexpr (E == eviction::normal || !l2_hints) {
    *a = x;
  } else if constexpr (sizeof(X) > 16) {
    static_assert(sizeof(X) % 16 == 0);
    struct alignas(16) pieces {
      uint4 p[sizeof(X) / 16];
    };
    const pieces r = bit_cast<pieces>(x);
    TL_UNROLL
    for (int i = 0; i < int(sizeof(X) / 16); ++i) global_store<E>(reinterpret_cast<uint4*>(a) + i, r.p[i]);
  } else {
    static_assert(sizeof(X) == 1 || sizeof(X) == 2 || sizeof(X) == 4 || sizeof(X) == 8 || sizeof(X) == 16);
    const std::uint64_t pol = l2_policy<E>();
    if constexpr (sizeof(X) == 16) {
      const uint4 r = bit_cast<uint4>(x);
      asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1, %2, %3, %4}, %5;"
                   :: "l"(a), "r"(r.x), "r"(r.y), "r"(r.z), "r"(r.w), "l"(pol) : "memory");
    } else if constexpr (sizeof(X) == 8) {
      asm volatile("st.global.L2::cache_hint.u64 [%0], %1, %2;" :: "l"(a), "l"(bit_cast<std::uint64_t>(x)), "l"(pol) : "memory");
    } else if constexpr (sizeof(X) == 4) {
      asm volatile("st.global.L2::cache_hint.u32 [%0], %1, %2;" :: "l"(a), "r"(bit_cast<std::uint32_t>(x)), "l"(pol) : "memory");
    } else if constexpr (sizeof(X) == 2) {
      const unsigned short r = bit_cast<std::uint16_t>(x);
      asm volatile("st.global.L2::cache_hint.u16 [%0], %1, %2;" :: "l"(a), "h"(r), "l"(pol) : "memory");
    } else {
      const unsigned short r = bit_cast<std::uint8_t>(x);
      asm volatile("st.global.L2::cache_hint.u8 [%0], %1, %2;" :: "l"(a), "h"(r), "l"(pol) : "memory");
    }
  }
}

// Are the V lanes of a chunk one vector's worth of memory? Contiguous: known from the type.
template <class T, int V, bool Contiguous, class P>
__device__ __forceinline__ bool chunk_is_vector(const P (&p)[V], const bool (&m)[V]) {
  if constexpr (V == 1 || sizeof(T) * V > 16) {
    return false;
  } else {
    bool ok = true;
    TL_UNROLL
    for (int k = 0; k < V; ++k)
      ok = ok && m[k] && (Contiguous || (p[k].base == p[0].base && p[k].offset == p[0].offset + k));
    if (!ok) return false;
    if (TL_DEVICE_CHECKS && !(p[0].in_bounds() && p[V - 1].in_bounds())) return false;
    return reinterpret_cast<std::uintptr_t>(p[0].get()) % (sizeof(T) * V) == 0;
  }
}

// The thread's index in a general path that an affine fast path precedes, read through an
// empty volatile asm: the per-element coordinates derived from it are then computed where the
// general path runs. Read plainly, they are loop invariants that get hoisted out of the
// kernel's loops and held in registers through the fast path as well, and ptxas sizes the
// program by them (docs/performance-history.md has the registers before and after).
template <bool AfterFastPath>
__device__ __forceinline__ int general_path_thread_id() {
  int t = thread_id();
  if constexpr (AfterFastPath) asm volatile("" : "+r"(t));
  return t;
}

// ---- the affine fast path ----
// When the pointers are affine in the coordinates and the mask is convex (axis_info.hpp), a
// few evaluations at the block's origin, its unit steps and its corners tell the whole
// program at once that every lane is masked in and every chunk aligned. Each chunk is then
// one vector access at origin + sum_d stride_d c_d: the thread's part of the sum is computed
// once, the slot's part is a constant times a stride, and no lane evaluates a pointer or a
// mask. Anything else (a partial block at an edge, odd alignment) takes the general path.
// The last axis' unit step is known from the type (ptr + pid * B + arange) or checked at run
// time (offs_k * stride_ak with stride_ak == 1 at run time: Triton specialises such an argument
// when it compiles; here the program checks it once).
template <class S, class EP, class EM, class T, int V>
inline constexpr bool affine_access_v = !TL_DEVICE_CHECKS && V > 1 && sizeof(T) * V <= 16 && layout<S>::pow2 &&
                                        !layout<S>::replicated && S::rank > 0 && S::dim(S::rank - 1) % V == 0 &&
                                        last_axis_stride<EP>() != 0 && affine_ptr_v<EP> && convex_mask_v<EM>;

// The pointer at c where no wrap acts (affine_setup's corners check it), without the divisions.
// (A function, not a lambda: a lambda here was not always inlined.)
template <class S, class EP>
__device__ __forceinline__ value_of_t<EP> affine_pointer_at(const EP& ptrs, const coord<S::rank>& c) {
  if constexpr (has_wrap_v<EP>) return unwrapped_at(ptrs, operand_coord<S, EP>(c));
  else return operand_at<S, order::any>(ptrs, c, -1);
}

// The origin pointer and the strides (elements per step along each axis); true when the whole
// block is masked in, axis Unit (the last unless told) steps by one element, every chunk of V
// elements along it is aligned to V elements (tested here on the origin when TestOrigin, else
// left to the caller: chunk_aligned), and no wrap of the offsets (x % m) wraps inside the block.
template <class S, int V, int Unit = S::rank - 1, bool TestOrigin = true, class EP, class EM, class P>
__device__ __forceinline__ bool affine_setup(const EP& ptrs, const EM& mask, P& origin, std::int64_t (&stride)[S::rank]) {
  using T = typename P::element_type;
  coord<S::rank> c{};
  origin = affine_pointer_at<S>(ptrs, c);
  bool ok = !TestOrigin || reinterpret_cast<std::uintptr_t>(origin.get()) % (sizeof(T) * V) == 0;
  TL_UNROLL
  for (int d = 0; d < S::rank; ++d) {
    stride[d] = 0;
    if (S::dim(d) == 1) continue;
    if (d == S::rank - 1 && last_axis_stride<EP>() == 1) {
      stride[d] = 1;  // known from the type: no 64-bit difference and product to compute
    } else {
      c[d] = 1;
      stride[d] = affine_pointer_at<S>(ptrs, c).offset - origin.offset;
      c[d] = 0;
    }
    if (d != Unit) ok = ok && stride[d] % V == 0;
  }
  if constexpr (Unit != S::rank - 1 || last_axis_stride<EP>() != 1) ok = ok && stride[Unit] == 1;
  TL_UNROLL
  for (int m = 0; m < (1 << S::rank); ++m) {  // the corners (axes of size 1 have one)
    bool corner = true;
    TL_UNROLL
    for (int d = 0; d < S::rank; ++d) {
      c[d] = (m >> d) & 1 ? S::dim(d) - 1 : 0;
      corner = corner && !((m >> d) & 1 && S::dim(d) == 1);
    }
    if (corner) {
      ok = ok && convert<bool>(operand_at<S, order::any>(mask, c, -1));
      // Only where there are wraps: the extra terms, even folded to true, changed ptxas' register
      // allocation (a tf32 dot kernel lost a program per multiprocessor).
      if constexpr (has_wrap_v<EP>) ok = ok && wraps_hold(ptrs, operand_coord<S, EP>(c));
      if constexpr (has_wrap_v<EM>) ok = ok && wraps_hold(mask, operand_coord<S, EM>(c));
    }
  }
  return ok;
}

// The alignment test on a thread's first chunk instead of the origin: the same answer (the
// thread's offset from the origin is a multiple of V elements: its chunks start at multiples of
// V along the unit axis, the other axes' strides are multiples of V), on the address the
// access computes anyway, so the origin's low bits need no registers and arithmetic of their own.
// Stores test so (a matmul's epilogue ran faster); loads test the origin: tested on the thread's
// chunk, the compiler moved loads ahead and a tf32 dot kernel lost half its programs to registers
// (docs/performance-history.md).
template <int V, class T>
__device__ __forceinline__ bool chunk_aligned(const T* first_chunk) {
  return reinterpret_cast<std::uintptr_t>(first_chunk) % (sizeof(T) * V) == 0;
}

// Element offset of thread t's slot i from the origin. The layout's flat index is the OR of a
// thread part and a slot part with disjoint bits (power-of-two sizes), so the coordinates add.
template <class S, class L>
__device__ __forceinline__ std::int64_t affine_thread_offset(const std::int64_t (&stride)[S::rank], int t) {
  const auto c = unravel<S>(L::flat(t, 0));
  std::int64_t off = 0;
  TL_UNROLL
  for (int d = 0; d < S::rank; ++d) off += stride[d] * c[d];
  return off;
}
template <class S, class L>
__device__ __forceinline__ std::int64_t affine_slot_offset(const std::int64_t (&stride)[S::rank], int i) {
  const auto c = unravel<S>(L::flat(0, i));  // a constant once unrolled
  std::int64_t off = 0;
  TL_UNROLL
  for (int d = 0; d < S::rank; ++d) off += stride[d] * c[d];
  return off;
}

template <class T, class S, eviction Ev = eviction::normal, class EP, class EM, class EO, class Out>
__device__ __forceinline__ void load(EP ptrs, EM mask, EO other, const source_location& where, Out& out) {
  constexpr order O = Out::register_order;  // the block loaded into (standard, or a dot's operand reloaded)
  using L = layout<S, O>;
  using P = value_of_t<EP>;
  // Loads through a pointer to non-const elements are recorded for race detection (a buffer the
  // launch may store), as on the CPU backend.
  [[maybe_unused]] constexpr bool races_tracked = !std::is_const_v<typename pointee<P>::type>;
  constexpr int V = L::vec;
  settle_dots<EP, EM, EO>();
  stage<S, O>(ptrs, mask, other);
  if constexpr (affine_access_v<S, EP, EM, T, V>) {
    P origin;
    std::int64_t stride[S::rank];
    if (affine_setup<S, V>(ptrs, mask, origin, stride)) {
      const int t = thread_id();
      const T* o = origin.get() + affine_thread_offset<S, L>(stride, t);
      TL_UNROLL
      for (int i0 = 0; i0 < L::slots; i0 += V) {
        if (!L::valid(t, i0)) continue;
        // One vector load into a local first: set_chunk's bit_cast straight from global memory
        // would copy byte by byte.
        const vector_of<T, V> w = global_load<Ev>(reinterpret_cast<const vector_of<T, V>*>(o + affine_slot_offset<S, L>(stride, i0)));
        out.v.template set_chunk<V>(i0, w);
      }
      return;
    }
  }
  [[maybe_unused]] access_tracker<S, O> tracker;
  [[maybe_unused]] race_notes<(TL_DEVICE_CHECKS && races_tracked) ? L::slots : 1> notes;
  const int t = general_path_thread_id<affine_access_v<S, EP, EM, T, V>>();
  TL_UNROLL
  for (int i0 = 0; i0 < L::slots; i0 += V) {
    P p[V];
    bool m[V];
    if constexpr (unit_stride_chunks<S, EP, V>) {
      if (!L::valid(t, i0)) continue;
      auto c = L::coords(t, i0);
      const P p0 = operand_at<S, O>(ptrs, c, i0);
      TL_UNROLL
      for (int k = 0; k < V; ++k, ++c[S::rank - 1]) {
        p[k] = p0 + k;
        m[k] = convert<bool>(operand_at<S, O>(mask, c, i0 + k));
        if (!m[k]) out.v[i0 + k] = convert<T>(operand_at<S, O>(other, c, i0 + k));
      }
    } else {
      TL_UNROLL
      for (int k = 0; k < V; ++k) {
        const int i = i0 + k;
        m[k] = false;
        if (!L::valid(t, i)) continue;
        const auto c = L::coords(t, i);
        p[k] = operand_at<S, O>(ptrs, c, i);
        m[k] = convert<bool>(operand_at<S, O>(mask, c, i));
        if (!m[k]) out.v[i] = convert<T>(operand_at<S, O>(other, c, i));
      }
    }
    if (chunk_is_vector<T, V, unit_stride_chunks<S, EP, V>>(p, m)) {
      const vector_of<T, V> w = global_load<Ev>(reinterpret_cast<const vector_of<T, V>*>(p[0].get()));
      out.v.template set_chunk<V>(i0, w);
      if constexpr (TL_DEVICE_CHECKS) {
        tracker.masked += V;
        if constexpr (races_tracked) {
          TL_UNROLL
          for (int k = 0; k < V; ++k) notes.add(i0 + k, p[k]);
        }
      }
      continue;
    }
    TL_UNROLL
    for (int k = 0; k < V; ++k) {
      if (!m[k]) continue;
      if constexpr (TL_DEVICE_CHECKS) {
        if (!tracker.admit(i0 + k, p[k])) {
          const auto c = L::coords(t, i0 + k);
          out.v[i0 + k] = convert<T>(operand_at<S, O>(other, c, i0 + k));
          continue;
        }
        if constexpr (races_tracked) notes.add(i0 + k, p[k]);
      }
      out.v[i0 + k] = global_load<Ev>(p[k].get());
    }
  }
  if constexpr (TL_DEVICE_CHECKS) {
    // A block of 16 elements or fewer is held whole by every thread: thread 0 notes it.
    if constexpr (races_tracked)
      if (!L::replicated || t == 0) notes.template flush<T>(access_kind::load, where);
    tracker.finish(access_kind::load, where);
  }
}

template <class Q, class S, eviction Ev = eviction::normal, class EP, class EV, class EM>
__device__ __forceinline__ void store(EP ptrs, EV value, EM mask, const source_location& where) {
  // In the order of the blocks the value reads (a dot's result: the accumulator order), so
  // that they are read from their registers.
  constexpr order O = evaluation_order(order_of<EV>());
  using L = layout<S, O>;
  using P = value_of_t<EP>;
  constexpr int V = L::vec;
  settle_dots<EP, EV, EM>();
  stage<S, O>(ptrs, value, mask);
  if constexpr (affine_access_v<S, EP, EM, Q, V>) {
    P origin;
    std::int64_t stride[S::rank];
    if (affine_setup<S, V, S::rank - 1, false>(ptrs, mask, origin, stride)) {
      const int t = thread_id();
      Q* o = origin.get() + affine_thread_offset<S, L>(stride, t);
      if (chunk_aligned<V>(o)) {
        TL_UNROLL
        for (int i0 = 0; i0 < L::slots; i0 += V) {
          if (!L::valid(t, i0)) continue;
          // The values a chunk at a time (evaluation.hpp: one read of an operand broadcast along the rows).
          const auto x = operand_chunk<S, O, V>(value, L::coords(t, i0), i0);
          vector_of<Q, V> w;
          TL_UNROLL
          for (int k = 0; k < V; ++k) w.x[k] = convert<Q>(x.x[k]);
          global_store<Ev>(reinterpret_cast<vector_of<Q, V>*>(o + affine_slot_offset<S, L>(stride, i0)), w);
        }
        return;
      }
    }
  }
  [[maybe_unused]] access_tracker<S, O> tracker;
  [[maybe_unused]] race_notes<TL_DEVICE_CHECKS ? L::slots : 1> notes;
  const int t = general_path_thread_id<affine_access_v<S, EP, EM, Q, V>>();
  // A block of at most 16 elements is held whole by every thread; thread 0 writes it. Every
  // thread computes its values first, outside thread 0's branch, so that a value the kernel
  // uses again later (a row's mean, stored, then subtracted) is computed once, not again.
  const bool writer = !L::replicated || t == 0;
  [[maybe_unused]] Q held[L::replicated ? L::slots : 1];
  if constexpr (L::replicated) {
    TL_UNROLL
    for (int i = 0; i < L::slots; ++i) held[i] = convert<Q>(operand_at<S, O>(value, L::coords(t, i), i));
  }
  TL_UNROLL
  for (int i0 = 0; i0 < L::slots && writer; i0 += V) {
    P p[V];
    bool m[V];
    Q x[V];
    if constexpr (unit_stride_chunks<S, EP, V>) {
      if (!L::valid(t, i0)) continue;
      auto c = L::coords(t, i0);
      const P p0 = operand_at<S, O>(ptrs, c, i0);
      TL_UNROLL
      for (int k = 0; k < V; ++k, ++c[S::rank - 1]) {
        p[k] = p0 + k;
        m[k] = convert<bool>(operand_at<S, O>(mask, c, i0 + k));
        if constexpr (L::replicated) x[k] = held[i0 + k];
        else x[k] = convert<Q>(operand_at<S, O>(value, c, i0 + k));
      }
    } else {
      TL_UNROLL
      for (int k = 0; k < V; ++k) {
        const int i = i0 + k;
        m[k] = false;
        if (!L::valid(t, i)) continue;
        const auto c = L::coords(t, i);
        m[k] = convert<bool>(operand_at<S, O>(mask, c, i));
        if (!m[k]) continue;
        p[k] = operand_at<S, O>(ptrs, c, i);
        if constexpr (L::replicated) x[k] = held[i];
        else x[k] = convert<Q>(operand_at<S, O>(value, c, i));
      }
    }
    if (chunk_is_vector<Q, V, unit_stride_chunks<S, EP, V>>(p, m)) {
      vector_of<Q, V> w;
      TL_UNROLL
      for (int k = 0; k < V; ++k) w.x[k] = x[k];
      global_store<Ev>(reinterpret_cast<vector_of<Q, V>*>(p[0].get()), w);
      if constexpr (TL_DEVICE_CHECKS) {
        tracker.masked += V;
        TL_UNROLL
        for (int k = 0; k < V; ++k) notes.add(i0 + k, p[k]);
      }
      continue;
    }
    TL_UNROLL
    for (int k = 0; k < V; ++k) {
      if (!m[k]) continue;
      if constexpr (TL_DEVICE_CHECKS) {
        if (!tracker.admit(i0 + k, p[k])) continue;
        notes.add(i0 + k, p[k]);
      }
      global_store<Ev>(p[k].get(), x[k]);
    }
  }
  if constexpr (TL_DEVICE_CHECKS) {
    if (writer) notes.template flush<Q>(access_kind::store, where);
    tracker.finish(access_kind::store, where);
  }
}

// An update of block B by a load written in it (acc += tl::load(...), expr/block.hpp). A
// computed tile is held in the accumulator order and a loaded one in the standard order, so
// reading the load's registers would convert them through shared memory (two barriers, and
// the load's latency exposed at each). Instead the load is done again in B's order and read
// in place; the first load's registers are then dead and the compiler drops it. With device
// checks on, the accesses are checked once, by the load as written.
template <class B, class X>
struct load_in_order {
  using S = shape_of_t<X>;
  static constexpr bool value = !TL_DEVICE_CHECKS && std::is_same_v<typename B::shape_type, S> &&
                                B::register_order != held_order<S, origin::loaded>;
  TL_INLINE static void consumed(const X&) {}
  __device__ __forceinline__ static auto load(const X& x) {
    block_t<value_of_t<X>, S, B::block_origin> again;  // held as B is, so read in place
    cuda::load<value_of_t<X>, S>(x.ptrs, x.mask, x.other, x.where, again);
    return again;
  }
};
#endif

}  // namespace tl::detail::cuda
