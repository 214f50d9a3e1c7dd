// tl/backend/cuda/layout.hpp: how a block tensor is spread over the threads of a program.
//
// One program is one CUDA thread block of P = 32 * TL_NUM_WARPS threads. A block of shape S
// (n elements, row-major flat index f) is cut into chunks of V consecutive elements; chunk
// c belongs to thread c % P, which keeps it in registers as V of its `slots`:
//
//   n = 1024, P = 128, V = 4:   f = 0..3 -> thread 0 slots 0..3,  f = 4..7 -> thread 1 ...
//                               f = 512..515 -> thread 0 slots 4..7, ...
//
// V is 4 when every thread gets at least 4 elements (a 128-bit access for 32-bit types), else
// 2 or 1. The layout depends only on the shape, never on the element type, so all blocks of
// one shape line up slot by slot: elementwise work between them needs no data movement.
// A block of one element is replicated: every thread holds it (a scalar every thread reads).
// docs/04-cuda-backend.md draws these layouts.
#pragma once

#include <cstdint>

#include "../../config.hpp"
#include "../../core/shape.hpp"

namespace tl::detail::cuda {

inline constexpr int threads = 32 * TL_NUM_WARPS;

template <class S>
struct layout {
  static constexpr std::int64_t n = S::size;
  static constexpr bool replicated = n == 1;
  static constexpr int vec = n >= 4LL * threads ? 4 : n >= 2LL * threads ? 2 : 1;
  static constexpr std::int64_t chunk_stride = std::int64_t(threads) * vec;  // elements per round of chunks
  static constexpr int slots = replicated ? 1 : int((n + chunk_stride - 1) / chunk_stride) * vec;
  // The flat index held in slot i of thread t (may be >= n in the last round: see valid).
  TL_INLINE static constexpr std::int64_t flat(int t, int i) {
    if constexpr (replicated) return 0;
    else return std::int64_t(i / vec) * chunk_stride + std::int64_t(t) * vec + i % vec;
  }
  TL_INLINE static constexpr bool valid(int t, int i) { return replicated || flat(t, i) < n; }
};

// Bytes of n elements of T in shared memory, rounded up to whole 16-byte rows.
template <class T>
inline constexpr int smem_bytes(std::int64_t n) {
  return int((n * std::int64_t(sizeof(T)) + 15) / 16 * 16);
}

#if TL_DEVICE_PASS
TL_INLINE int thread_id() { return int(threadIdx.x); }
TL_INLINE void barrier() { __syncthreads(); }
#else
TL_INLINE int thread_id() { return 0; }
TL_INLINE void barrier() {}
#endif

#if defined(__CUDACC__)

// Shared scratch of a given size. Each size is one static __shared__ array per kernel, so the
// compiler adds up exactly what the kernel uses: a kernel's shared memory is sized from its
// needs. Ops using the same size take turns, separated by barriers (see barrier_then_write).
template <int Bytes>
__device__ __forceinline__ char* scratch() {
  __shared__ alignas(16) char buf[Bytes];
  return buf;
}
// Sizes are rounded up to at least 256 bytes and to an eighth of the next power of two
// (at most 12.5% more), so ops of similar needs share one array.
inline constexpr int scratch_size(int bytes) {
  if (bytes <= 256) return 256;
  int p = 256;
  while (p < bytes) p *= 2;
  const int step = p / 8 < 256 ? 256 : p / 8;
  return (bytes + step - 1) / step * step;
}
#endif

}  // namespace tl::detail::cuda
