// tl/backend/cuda/reduce.hpp: reductions along an axis on the GPU (ops/reduce.hpp).
//
// Power-of-two blocks (layout.hpp gives each bit of the flat index a source): the bits of the
// reduced axis that come from slot bits are folded in registers, those from lane bits with
// __shfl_xor_sync (one step per bit, every lane ends with the result). Then the results go to
// the slots of the output's layout: by __shfl_sync when the axis has no warp bits and every
// result lies in the warp that holds it in the output, else through shared memory (which
// also joins the warps that share a result):
//
//   sum<1> of a 128 x 128 block (tiled, 4 warps on rows): each thread folds the 32 columns it
//   holds of each of its 4 rows in registers, 2 shuffle steps join the 4 lanes of a row; the
//   (128,) result has its rows on other lanes and warps: one barrier pair.
//   sum<1> of a (32, 4, 4) block (round-robin, warps on the top bits): 2 butterfly steps, and
//   the (32, 4) result lies in the same warps: 4 shuffles, no barrier.
//
// Other sizes: the input is written to shared memory and G threads (a power of two up to 32)
// fold each result, joined with __shfl_down_sync.
#pragma once

#include "evaluation.hpp"

namespace tl::detail::cuda {

// The bit bookkeeping of reduce_by_bits (constexpr, host-testable: tests/backend/test_layout.cpp).
inline constexpr int reduce_group(std::int64_t n_out, int k) {
  int g = 1;
  while (g < 32 && std::int64_t(g) * 2 * n_out <= threads && g * 2 <= k) g *= 2;
  return g;
}

// A bit map's source kinds (layout.hpp: src >= 0 a slot bit, else thread bit -1 - src).
constexpr bool is_lane_bit(int src) { return src < 0 && -1 - src < 5; }
constexpr bool is_warp_bit(int src) { return src < 0 && -1 - src >= 5; }

// Which slot, lane and warp bits of layout L hold the flat bits [lo, hi) (the reduced axis).
template <class L>
struct axis_sources {
  unsigned slot = 0, lane = 0, warp = 0;  // masks of slot bits, lane bits (0..4), warp bits (0..)
  constexpr axis_sources(int lo, int hi) {
    for (int b = lo; b < hi; ++b) {
      const int s = L::bits.src[b];
      if (s >= 0) slot |= 1u << s;
      else if (is_lane_bit(s)) lane |= 1u << (-1 - s);
      else warp |= 1u << (-1 - s - 5);
    }
  }
};

// The input flat bit that output flat bit ob comes from (the reduced axis: input bits [lo, hi)).
constexpr int input_bit(int ob, int lo, int hi) { return ob < lo ? ob : ob + (hi - lo); }

// Do the output layout LO and the input layout L put every output element in the same warp?
// Then the results move by shuffles alone.
template <class L, class LO>
constexpr bool same_warps(int lo, int hi) {
  bool same = !LO::replicated;  // a replicated output is needed by every warp
  for (int ob = 0; ob < LO::bits.bits; ++ob) {
    const int so = LO::bits.src[ob], si = L::bits.src[input_bit(ob, lo, hi)];
    if (is_warp_bit(so) != is_warp_bit(si) || (is_warp_bit(so) && so != si)) same = false;
  }
  return same;
}

// Slot bits of the partial results (bit map M) whose bit of the flat index an output lane bit
// of LO gives: they differ between the lanes that read one output slot, so each of their
// values takes a shuffle.
template <bit_map M, class LO>
constexpr unsigned varying_slot_bits(int lo, int hi) {
  unsigned m = 0;
  for (int ob = 0; ob < LO::bits.bits; ++ob) {
    const int so = LO::bits.src[ob], si = M.src[input_bit(ob, lo, hi)];
    if (is_lane_bit(so) && si >= 0) m |= 1u << si;
  }
  return m;
}

// Step 2 of reduce_by_bits as a reduce-scatter. A butterfly step over lane bit b shuffles
// every partial result, and both lanes of a pair end with the same sums. When partials are
// kept in several slots (the kept axes have slot bits), lane bit b can instead split one kept
// slot bit s between the pair: the lower lane keeps the partials with s = 0, the upper those
// with s = 1, each sends the other half, and the kept flat bit that s gave now comes from
// lane bit b. Half the shuffles, then a quarter, ...: (32, 4, 4) summed over its last axis
// (2 lane bits, 4 kept slots) takes 2 + 1 shuffles instead of 4 + 4, and the move to the
// output's lanes one shuffle instead of four. Used when the results then move by shuffles
// (3a below); before a move through shared memory it costs time (its selects, and a writer
// per lane instead of per 4; docs/performance-history.md), so there every axis lane bit takes a
// butterfly step (scatter = false).
template <class L>
struct scatter_plan {
  bit_map map = L::bits;  // the partial results' bit map after step 2
  int slot_of_lane[5] = {-1, -1, -1, -1, -1};  // the kept slot bit lane bit b takes, or -1: butterfly
  unsigned gone_before[5] = {};  // slot bits not indexing partials before lane bit b's step
  unsigned gone = 0;             // ... after step 2 (the axis' slot bits and the moved ones)
  constexpr scatter_plan(int lo, int hi, bool scatter) {
    const axis_sources<L> src(lo, hi);
    gone = src.slot;
    for (int b = 0; b < 5; ++b) {
      gone_before[b] = gone;
      if (!scatter || !(src.lane & (1u << b))) continue;
      for (int f = 0; f < map.bits; ++f) {  // the lowest kept flat bit held by a slot bit
        const int s = map.src[f];
        if ((f >= lo && f < hi) || s < 0 || (gone & (1u << s))) continue;
        slot_of_lane[b] = s;
        map.src[f] = -1 - b;
        gone |= 1u << s;
        break;
      }
    }
  }
};

// The input's flat index of output element o: the reduced axis' bits set to zero.
TL_INLINE std::uint32_t input_of_output(std::uint32_t o, int lo, int hi) {
  return ((o >> lo) << hi) | (o & ((1u << lo) - 1));
}

// The slot (Lane = false) or the lane (Lane = true) that bit map m puts flat index f in
// (compile-time when f is).
template <bit_map m, bool Lane>
TL_INLINE unsigned holder_of_flat(std::uint32_t f) {
  unsigned r = 0;
  TL_UNROLL
  for (int b = 0; b < m.bits; ++b) {
    if (!Lane && m.src[b] >= 0) r |= ((f >> b) & 1u) << m.src[b];
    if (Lane && is_lane_bit(m.src[b])) r |= ((f >> b) & 1u) << (-1 - m.src[b]);
  }
  return r;
}


#if TL_DEVICE_PASS
template <class T>
__device__ __forceinline__ T shuffle_down(const T& x, int delta, int width) {
  return shuffle_word(x, [&](auto u) { return __shfl_down_sync(0xffffffffu, u, delta, width); });
}
template <class T>
__device__ __forceinline__ T shuffle_xor(const T& x, int mask) {
  return shuffle_word(x, [&](auto u) { return __shfl_xor_sync(0xffffffffu, u, mask); });
}

// Step 3 of reduce_by_bits when results cross warps: one partial per warp group through
// shared memory, combined by the threads that hold each output element.
template <class Red, class T, class L, class LO, std::int64_t n_out, int lo, int hi, class A, class Out>
__device__ void reduce_through_shared(const A (&part)[L::slots], const int (&idx)[L::slots], Out& out) {
  constexpr axis_sources<L> src(lo, hi);
  constexpr int warp_groups = 1 << __builtin_popcount(src.warp);
  constexpr bool indexed = Red::indexed;
  constexpr std::int64_t inner = std::int64_t(1) << lo;
  const int t = thread_id();
  constexpr int a_bytes = smem_bytes<A>(warp_groups * n_out);
  constexpr int bytes = a_bytes + (indexed ? smem_bytes<int>(warp_groups * n_out) : 0);
  char* base = scratch<scratch_size(bytes)>();
  A* red = reinterpret_cast<A*>(base);
  int* red_idx = reinterpret_cast<int*>(base + a_bytes);
  const unsigned lane = unsigned(t) % 32, warp = unsigned(t) / 32;
  int group = 0;  // this warp's index among the warps that share a result
  for (int b = 0, g = 0; b < 16; ++b)
    if (src.warp & (1u << b)) group |= int((warp >> b) & 1u) << g++;
  barrier();
  if ((lane & src.lane) == 0) {  // one writer per result (the butterfly left it in every lane)
    TL_UNROLL
    for (int i = 0; i < L::slots; ++i) {
      if ((unsigned(i) & src.slot) != 0 || !L::valid(t, i)) continue;
      const std::int64_t f = L::flat(t, i);
      const std::int64_t o = ((f >> hi) << lo) | (f & (inner - 1));
      red[group * n_out + o] = part[i];
      if constexpr (indexed) red_idx[group * n_out + o] = idx[i];
    }
  }
  barrier();
  TL_UNROLL
  for (int i = 0; i < LO::slots; ++i) {
    if (!LO::valid(t, i)) continue;
    const std::int64_t o = LO::flat(t, i);
    A a = red[o];
    int ia = indexed ? red_idx[o] : 0;
    TL_UNROLL
    for (int g = 1; g < warp_groups; ++g) Red::template combine<T>(a, ia, red[g * n_out + o], indexed ? red_idx[g * n_out + o] : 0);
    out.v[i] = Red::template finish<T>(a, ia);
  }
}

template <class Red, int Axis, class S, class Kept, class E, class Out>
__device__ void reduce_by_bits(const E& e, Out& out) {
  using T = value_of_t<E>;
  using A = typename Red::template acc<T>;
  constexpr order O = evaluation_order(order_of<E>());  // the input read in its own order
  using L = layout<S, O>;
  using LO = typename Out::layout;
  constexpr int K = S::dim(Axis);
  constexpr std::int64_t inner = inner_size<S, Axis>;  // elements between two neighbours along the axis
  constexpr int lo = log2_exact(inner), hi = lo + log2_exact(K);
  constexpr axis_sources<L> src(lo, hi);
  constexpr int warp_groups = 1 << __builtin_popcount(src.warp);
  constexpr std::int64_t n_out = Kept::size;
  constexpr bool indexed = Red::indexed;

  // The input is evaluated slot by slot as it is folded, never held whole: a 128 x 128
  // expression costs the registers of its partial results only.
  E x = e;  // a copy whose broadcast blocks can be pointed at their staged copies (or gathered)
  stage<S, O, true>(x);
  using Ctx = top_context<S, O, true, E>;  // the context the staging walk gathered in
  const int t = thread_id();

  // 1. Registers: slot i (its axis slot bits zero) folds every slot i | sub, sub in those bits.
  A part[L::slots];
  int idx[L::slots];
  TL_UNROLL
  for (int i = 0; i < L::slots; ++i) {
    part[i] = Red::template init<T>();
    idx[i] = -1;
  }
  TL_UNROLL
  for (int j = 0; j < L::slots; ++j) {  // one pass, in slot order: each fold sees k ascending
    if (!L::valid(t, j)) continue;
    const int i = int(unsigned(j) & ~src.slot);
    const std::int64_t f = L::flat(t, j);
    Red::template step<T>(part[i], idx[i], T(operand_at<S, O, Ctx>(x, L::coords(t, j), j)), int((f >> lo) & (K - 1)));
  }
  // 2. Lanes: per axis lane bit, a reduce-scatter step while kept slot bits are left to split
  // between the pair (scatter_plan), else a butterfly step.
  constexpr bool by_shuffles = warp_groups == 1 && same_warps<L, LO>(lo, hi);  // step 3a
  constexpr scatter_plan<L> plan(lo, hi, by_shuffles);
  const unsigned lane = unsigned(t) % 32;
  TL_UNROLL
  for (int b = 0; b < 5; ++b) {
    if (!(src.lane & (1u << b))) continue;
    const int s = plan.slot_of_lane[b];
    TL_UNROLL
    for (int i = 0; i < L::slots; ++i) {
      if ((unsigned(i) & plan.gone_before[b]) != 0) continue;
      if (s < 0) {
        const A other = shuffle_xor(part[i], 1 << b);
        const int other_idx = indexed ? shuffle_xor(idx[i], 1 << b) : 0;
        Red::template combine<T>(part[i], idx[i], other, other_idx);
      } else if (!(unsigned(i) & (1u << s))) {
        const int j = i | (1 << s);  // the partner slot: s = 1
        const bool upper = (lane >> b) & 1u;
        // Selected as values: a conditional of the two array elements would be an lvalue,
        // whose address (one of two) puts the array in local memory.
        A keep = part[i], send = part[j];
        int keep_idx = idx[i], send_idx = idx[j];
        if (upper) keep = part[j], send = part[i], keep_idx = idx[j], send_idx = idx[i];
        const A other = shuffle_xor(send, 1 << b);
        const int other_idx = indexed ? shuffle_xor(send_idx, 1 << b) : 0;
        Red::template combine<T>(keep, keep_idx, other, other_idx);
        part[i] = keep;
        idx[i] = keep_idx;
      }
    }
  }
  // 3a. The axis has no warp bits and every output element lies in the warp that computed
  // it: each output slot reads its result from the lane (and slot) that holds it, by shuffles.
  if constexpr (by_shuffles) {
    constexpr unsigned vary = varying_slot_bits<plan.map, LO>(lo, hi);
    TL_UNROLL
    for (int j = 0; j < LO::slots; ++j) {
      // Every lane shuffles (all 32 take part), whether or not it holds slot j.
      const std::uint32_t f = input_of_output(std::uint32_t(LO::flat(t, j)), lo, hi);
      const unsigned src_lane = holder_of_flat<plan.map, true>(f), want = holder_of_flat<plan.map, false>(f);
      // The source slot's bits that come from j alone (the rest vary with the lane).
      const unsigned fixed = holder_of_flat<plan.map, false>(input_of_output(std::uint32_t(LO::flat(0, j)), lo, hi)) & ~vary;
      A a = Red::template init<T>();
      int ia = -1;
      TL_UNROLL
      for (int i = 0; i < L::slots; ++i) {
        if ((unsigned(i) & plan.gone) != 0 || (unsigned(i) & ~vary) != fixed) continue;
        const A x = shuffle_word(part[i], [&](auto u) { return __shfl_sync(0xffffffffu, u, int(src_lane)); });
        const int xi = indexed ? shuffle_word(idx[i], [&](auto u) { return __shfl_sync(0xffffffffu, u, int(src_lane)); }) : 0;
        if (unsigned(i) == want) a = x, ia = xi;
      }
      if (LO::valid(t, j)) out.v[j] = Red::template finish<T>(a, ia);
    }
  } else {
    reduce_through_shared<Red, T, L, LO, n_out, lo, hi>(part, idx, out);
  }
}

template <class Red, int Axis, class S, class Kept, class E, class Out>
__device__ void reduce_via_shared(const E& e, Out& out) {
  using T = value_of_t<E>;
  using A = typename Red::template acc<T>;
  using R = typename Out::value_type;
  constexpr int K = S::dim(Axis);
  constexpr std::int64_t n_out = Kept::size;
  constexpr int G = reduce_group(n_out, K);
  constexpr int groups = threads / G;
  constexpr int in_bytes = smem_bytes<T>(S::size);
  constexpr int bytes = in_bytes + smem_bytes<R>(n_out);

  const own_block_t<E> x(e);  // the input in registers (evaluating e may stage its own operands)
  char* base = scratch<scratch_size(bytes)>();
  T* in = reinterpret_cast<T*>(base);
  R* res = reinterpret_cast<R*>(base + in_bytes);
  const int t = thread_id();
  barrier();
  write_rows(x, in);
  barrier();

  const int g = t % G;
  for (std::int64_t first = 0; first < n_out; first += groups) {  // the same trip count in every thread
    const std::int64_t o = first + t / G;
    A a = Red::template init<T>();
    int idx = -1;
    if (o < n_out) {
      coord<S::rank> c = unravel<Kept>(o);
      for (int k = g; k < K; k += G) {
        c[Axis] = k;
        Red::template step<T>(a, idx, in[ravel<S>(c)], k);
      }
    }
    TL_UNROLL
    for (int d = G / 2; d > 0; d /= 2) {
      const A b = shuffle_down(a, d, G);
      const int ib = shuffle_down(idx, d, G);
      Red::template combine<T>(a, idx, b, ib);
    }
    if (o < n_out && g == 0) res[o] = Red::template finish<T>(a, idx);
  }
  barrier();
  using LO = typename Out::layout;
  TL_UNROLL
  for (int i = 0; i < LO::slots; ++i)
    if (LO::valid(t, i)) out.v[i] = res[LO::flat(t, i)];
}

template <class Red, int Axis, class S, class Kept, class E, class Out>
__device__ __forceinline__ void reduce(const E& e, Out& out) {
  settle_dots<E>();
  if constexpr (layout<S>::pow2 && !layout<S>::replicated && Out::layout::pow2)
    reduce_by_bits<Red, Axis, S, Kept>(e, out);
  else
    reduce_via_shared<Red, Axis, S, Kept>(e, out);
}
#endif

}  // namespace tl::detail::cuda
