// tl/backend/cuda/reduce.hpp: reductions along an axis on the GPU (used by ops/reduce.hpp).
//
// The input (shape S, K elements along the axis, n_out results) is evaluated in registers and
// written once to shared memory. Then G threads work on each result: G is a power of two up
// to 32, as many as the threads allow (threads / n_out) and K can use. Each of the G threads
// folds K / G elements (k = g, g + G, ...), the G partial results are joined with warp
// shuffles, and the first thread of the group writes the result to shared memory, from which
// every thread reads the results its slots hold.
//
//   sum<1> of a 4 x 64 block, 128 threads: G = 32 threads per row, 2 elements each, 5 shuffles.
#pragma once

#include <cstring>

#include "../../expr/block.hpp"
#include "staging.hpp"

namespace tl::detail::cuda {

#if TL_DEVICE_PASS
// __shfl_down_sync for any 1- to 8-byte value.
template <class T>
__device__ __forceinline__ T shuffle_down(const T& x, int delta, int width) {
  static_assert(sizeof(T) <= 8, "tl: reductions shuffle values of at most 8 bytes");
  if constexpr (sizeof(T) <= 4) {
    unsigned u = 0;
    std::memcpy(&u, &x, sizeof(T));
    u = __shfl_down_sync(0xffffffffu, u, delta, width);
    T r;
    std::memcpy(&r, &u, sizeof(T));
    return r;
  } else {
    unsigned long long u = 0;
    std::memcpy(&u, &x, sizeof(T));
    u = __shfl_down_sync(0xffffffffu, u, delta, width);
    T r;
    std::memcpy(&r, &u, sizeof(T));
    return r;
  }
}

inline constexpr int reduce_group(std::int64_t n_out, int k) {
  int g = 1;
  while (g < 32 && std::int64_t(g) * 2 * n_out <= threads && g * 2 <= k) g *= 2;
  return g;
}

template <class Red, int Axis, class S, class Kept, class E, class Out>
__device__ void reduce(const E& e, Out& out) {
  using T = value_of_t<E>;
  using A = typename Red::template acc<T>;
  using R = typename Out::value_type;
  constexpr int K = S::dim(Axis);
  constexpr std::int64_t n_out = Kept::size;
  constexpr int G = reduce_group(n_out, K);
  constexpr int groups = threads / G;
  constexpr int in_bytes = smem_bytes<T>(S::size);
  constexpr int bytes = in_bytes + smem_bytes<R>(n_out);

  const block_t<T, S> x(e);  // the input in registers (evaluating e may stage its own operands)
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
  using LO = layout<typename Out::shape_type>;
  TL_UNROLL
  for (int i = 0; i < LO::slots; ++i)
    if (LO::valid(t, i)) out.v[i] = res[LO::flat(t, i)];
}
#endif

}  // namespace tl::detail::cuda
