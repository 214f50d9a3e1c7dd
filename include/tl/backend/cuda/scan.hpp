// tl/backend/cuda/scan.hpp: scans along an axis on the GPU (ops/scan.hpp).
//
// The input goes to shared memory in the combiner's type. Each line along the axis is then
// scanned by G threads of one warp (a power of two up to 32, as many as the lines leave
// threads for): thread g scans its chunk of ceil(K / G) consecutive elements in registers, the
// G chunk totals are scanned by warp shuffles (log2 G steps), and each thread combines the
// total of the chunks before its own into its elements. Lines beyond the threads' count take
// further rounds. The results go back to the output's registers from shared memory.
//
//   cumsum<1> of a 64 x 64 block, 4 warps: 2 threads a line, 32 elements each, 1 shuffle step.
//   cumsum<0> of a 1024 block: 32 threads (one warp), 32 elements each, 5 shuffle steps.
#pragma once

#include "evaluation.hpp"
#include "reduce.hpp"

namespace tl::detail::cuda {

#if TL_DEVICE_PASS
template <class T>
__device__ __forceinline__ T shuffle_up(const T& x, int delta, int width) {
  return shuffle_word(x, [&](auto u) { return __shfl_up_sync(0xffffffffu, u, delta, width); });
}

template <class C, int Axis, bool Reverse, class S, class E, class Out>
__device__ void scan(const E& e, Out& out) {
  using A = typename C::acc;
  constexpr int K = S::dim(Axis);
  constexpr std::int64_t inner = inner_size<S, Axis>;  // elements between two neighbours along the axis
  constexpr std::int64_t lines = S::size / K;
  constexpr int G = reduce_group(lines, K);
  constexpr int groups = threads / G;
  constexpr int chunk = (K + G - 1) / G;

  settle_dots<E>();
  const own_block_t<E> x(e);  // evaluating e may stage its own operands
  A* buf = reinterpret_cast<A*>(scratch<scratch_size(smem_bytes<A>(S::size))>());
  using L = own_layout<E>;
  const int t = thread_id();
  barrier();
  if (!L::replicated || t == 0) {
    TL_UNROLL
    for (int i = 0; i < L::slots; ++i)
      if (L::valid(t, i)) buf[L::flat(t, i)] = convert_value<A>(x.v[i]);
  }
  barrier();

  const int g = t % G;
  for (std::int64_t first = 0; first < lines; first += groups) {  // the same trip count in every thread
    const std::int64_t line = first + t / G;
    const bool active = line < lines;
    const std::int64_t base = (line / inner) * K * inner + line % inner;
    auto at = [&](int k) -> A& { return buf[base + std::int64_t(Reverse ? K - 1 - k : k) * inner]; };
    // 1. This thread's chunk, in order.
    A total{};
    bool have = false;
    if (active) {
      for (int j = 0; j < chunk; ++j) {
        const int k = g * chunk + j;
        if (k >= K) break;
        total = have ? C::combine(total, at(k)) : at(k);
        have = true;
        at(k) = total;
      }
    }
    // 2. The chunks' totals: an inclusive scan across the G lanes, then each lane takes the
    // one before it.
    TL_UNROLL
    for (int d = 1; d < G; d *= 2) {
      const A up = shuffle_up(total, d, G);
      const bool up_have = shuffle_up(int(have), d, G) != 0;
      if (g >= d && up_have) {
        total = have ? C::combine(up, total) : up;
        have = true;
      }
    }
    const A before = shuffle_up(total, 1, G);
    const bool before_have = shuffle_up(int(have), 1, G) != 0 && g > 0;  // every lane shuffles
    // 3. The chunks before this one, combined into each of its elements.
    if (active && before_have) {
      for (int j = 0; j < chunk; ++j) {
        const int k = g * chunk + j;
        if (k >= K) break;
        at(k) = C::combine(before, at(k));
      }
    }
  }
  barrier();
  using LO = typename Out::layout;
  TL_UNROLL
  for (int i = 0; i < LO::slots; ++i)
    if (LO::valid(t, i)) out.v[i] = convert_value<typename C::result>(buf[LO::flat(t, i)]);
}
#endif

}  // namespace tl::detail::cuda
