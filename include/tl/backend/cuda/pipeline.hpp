// tl/backend/cuda/pipeline.hpp: the operand ring of a dot in a loop (Triton's num_stages).
//
// A kernel's loop calls tl::dot once per K step with freshly loaded tiles, and the dot sees one
// call at a time. To take the copies' latency off the step, a wgmma dot whose tiles cp.async
// copies keeps two operand buffers in the program's dynamic shared memory (the launch gives
// them when launch_options::num_stages >= 2): each call also copies the tiles the next call
// will most likely ask for (A's columns and B's rows one K step further), while its own,
// copied by the previous call, are multiplied.
//
// A prediction is only used where it is checked: the ring's header records, per buffer, the
// first element and row stride of the A and B tiles it was given, and a call uses a buffer only
// when those are exactly its own tiles' (same dot shape, whole tiles masked in). Any other call
// (the first of a loop, a loop that does not walk K one step a call) waits for the copy in
// flight and copies its own tiles: what a dot without the ring costs, and one wait. Tiles are
// copied ahead only where they lie inside their buffers (tl::ptr's extent), so a prediction
// past the end of a matrix reads nothing it may not; unchecked pointers are not copied ahead.
//
// As in Triton, a tile copied ahead holds what memory held when it was copied: a kernel that
// stores, inside the loop, to the memory the next step's dot reads must launch with
// num_stages = 1.
//
// Two buffers, not num_stages: on puzzle 11 (fp16, 128 x 128 x 64 tiles) two steps ahead ran
// no faster than one, and the third buffer costs programs per multiprocessor for larger tiles
// (docs/performance.md).
//
// Dynamic shared memory (launch.hpp sizes it; nothing else uses it):
//   [ring header] [up to 1024 bytes: the buffers' alignment] [buffer 0] [buffer 1]
// Thread 0 writes the header; every thread reads it between a call's first and second barriers,
// and thread 0 writes only what no thread reads in that window (the other buffer's tag) before
// the second barrier.
#pragma once

#include <cstdint>

#include "layout.hpp"

namespace tl::detail::cuda {

#if defined(__CUDACC__)

// What a buffer holds: the first elements and row strides of its A and B tiles (null: nothing).
struct ring_tag {
  const void* a = nullptr;
  const void* b = nullptr;
  std::int64_t stride_a = 0, stride_b = 0;
};
struct dot_ring {
  unsigned plan;  // the dot shape that owns the ring; 0: none yet
  unsigned pad[3];
  ring_tag tags[2];
};
// Kernels with less static shared memory get no ring (launch.hpp): the smallest dot worth
// pipelining (64 x 64 x 32 in fp16) stages 8 KiB of operands.
inline constexpr unsigned ring_min_static_bytes = 8 * 1024;
inline constexpr unsigned ring_header_bytes = (sizeof(dot_ring) + 15) / 16 * 16;
// Dynamic shared memory for the ring's two buffers of `buffer` bytes (launch.hpp).
inline constexpr unsigned ring_bytes(unsigned buffer) { return ring_header_bytes + 1024 + 2 * buffer; }

__device__ __forceinline__ char* dynamic_shared() {
  extern __shared__ __align__(16) char tl_dynamic_shared[];
  return tl_dynamic_shared;
}
__device__ __forceinline__ unsigned dynamic_shared_bytes() {
  unsigned n;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(n));
  return n;
}
__device__ __forceinline__ dot_ring& ring_header() { return *reinterpret_cast<dot_ring*>(dynamic_shared()); }
// The ring's first buffer (1024-aligned: the swizzle is a function of the address).
__device__ __forceinline__ char* ring_buffers() {
  char* const after = dynamic_shared() + ring_header_bytes;
  const auto a = static_cast<unsigned>(__cvta_generic_to_shared(after));
  return after + (1024 - a % 1024) % 1024;
}
// Does the dynamic shared memory hold the ring for buffers of `buffer` bytes? (Read before any
// barrier: the header is not.)
__device__ __forceinline__ bool ring_fits(unsigned buffer) { return dynamic_shared_bytes() >= ring_bytes(buffer); }

// At the program's start (thread 0; the first dot's barrier publishes it).
__device__ __forceinline__ void ring_reset() {
  if (dynamic_shared_bytes() < ring_header_bytes) return;
  dot_ring& r = ring_header();
  r.plan = 0;
  r.tags[0] = r.tags[1] = ring_tag{};
}

#endif  // __CUDACC__

}  // namespace tl::detail::cuda
