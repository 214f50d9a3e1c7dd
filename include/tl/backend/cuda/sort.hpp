// tl/backend/cuda/sort.hpp: sort, gather and histogram on the GPU (ops/sort.hpp).
//
// sort: the block goes to shared memory, and every line along the axis is sorted there by a
// bitonic network (log2 K (log2 K + 1) / 2 steps of K / 2 compare-exchanges a line, the
// threads sharing a step's pairs, a barrier between steps), core/sort_key.hpp's.
// bitonic_merge (MergeOnly) runs the network's last stage alone.
// gather: the source goes to shared memory and each thread reads its output elements there.
// histogram: bins in shared memory, counted with shared-memory atomics.
#pragma once

#include "../../core/sort_key.hpp"
#include "../../expr/pack.hpp"
#include "evaluation.hpp"

namespace tl::detail::cuda {

#if TL_DEVICE_PASS
template <int Axis, bool Descending, class S, bool MergeOnly = false, class E, class Out>
__device__ void sort(const E& e, Out& out) {
  using T = value_of_t<E>;
  constexpr int K = S::dim(Axis);
  constexpr std::int64_t inner = inner_size<S, Axis>;
  constexpr std::int64_t pairs = S::size / 2;
  settle_dots<E>();
  const own_block_t<E> x(e);
  T* buf = reinterpret_cast<T*>(scratch<scratch_size(smem_bytes<T>(S::size))>());
  const int t = thread_id();
  barrier();
  write_rows(x, buf);
  barrier();
  for (int k = MergeOnly ? K : 2; k <= K; k *= 2) {
    for (int j = k / 2; j > 0; j /= 2) {
      for (std::int64_t q = t; q < pairs; q += threads) {
        const std::int64_t line = q / (K / 2);
        const int pair = int(q % (K / 2));
        const int lo = bitonic_low(pair, j);  // positions lo and lo + j along the axis
        const std::int64_t base = (line / inner) * K * inner + line % inner;
        bitonic_exchange<Descending>(buf[base + std::int64_t(lo) * inner], buf[base + std::int64_t(lo + j) * inner], lo, k, K);
      }
      barrier();
    }
  }
  using LO = typename Out::layout;
  TL_UNROLL
  for (int i = 0; i < LO::slots; ++i)
    if (LO::valid(t, i)) out.v[i] = buf[LO::flat(t, i)];
}

template <int Axis, class S, class E, class I, class Out>
__device__ void gather(const E& src, const I& index, Out& out) {
  using T = value_of_t<E>;
  using SI = shape_of_t<I>;
  settle_dots<E>();
  const own_block_t<E> x(src);
  const block_t<value_of_t<I>, SI> idx(index);  // in the output's layout
  T* buf = reinterpret_cast<T*>(scratch<scratch_size(smem_bytes<T>(S::size))>());
  const int t = thread_id();
  barrier();
  write_rows(x, buf);
  barrier();
  using LO = typename Out::layout;
  TL_UNROLL
  for (int i = 0; i < LO::slots; ++i) {
    if (!LO::valid(t, i)) continue;
    coord<S::rank> c = LO::coords(t, i);
    const auto k = static_cast<std::int64_t>(idx.v[i]);
    c[Axis] = int(k);
    out.v[i] = k >= 0 && k < S::dim(Axis) ? buf[ravel<S>(c)] : T(0);
  }
  barrier();
}

template <int NumBins, class E, class M, class Out>
__device__ void histogram(const E& x, const M& mask, Out& out) {
  using S = shape_of_t<E>;
  using Z = map_expr<zip_fn, E, view<M, S, broadcast_map>>;  // value and mask side by side
  settle_dots<E>();
  const own_block_t<Z> xm(Z{{}, make_operands(x, view<M, S, broadcast_map>{{}, mask})});
  int* bins = reinterpret_cast<int*>(scratch<scratch_size(smem_bytes<int>(NumBins))>());
  const int t = thread_id();
  barrier();
  for (int b = t; b < NumBins; b += threads) bins[b] = 0;
  barrier();
  using L = typename own_block_t<Z>::layout;
  if (!L::replicated || t == 0) {
    TL_UNROLL
    for (int i = 0; i < L::slots; ++i) {
      if (!L::valid(t, i)) continue;
      const auto v = static_cast<std::int64_t>(get<0>(xm.v[i]));
      if (convert<bool>(get<1>(xm.v[i])) && v >= 0 && v < NumBins) atomicAdd(&bins[v], 1);
    }
  }
  barrier();
  using LO = typename Out::layout;
  TL_UNROLL
  for (int i = 0; i < LO::slots; ++i)
    if (LO::valid(t, i)) out.v[i] = bins[LO::flat(t, i)];
}
#endif

}  // namespace tl::detail::cuda
