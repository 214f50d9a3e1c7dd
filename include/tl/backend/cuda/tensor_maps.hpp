// tl/backend/cuda/tensor_maps.hpp: the tensor maps through which a dot copies descriptor
// operands with the bulk tensor copy engine (TMA, sm_90a; dot_wgmma.hpp: run_from_tma).
//
// A tensor map is a 128-byte description of a tensor (address, shape, row stride, element size)
// and of the box one copy moves, in global memory. tl::make_tensor_descriptor runs in the kernel
// with run-time shapes, so the maps are built there too, by the dot that first needs one, as
// Triton builds its in-kernel descriptors:
//
//   pool (global memory, per translation unit):  slot = 32 per multiprocessor x 4 maps
//     a program takes a free slot of its multiprocessor the first time it builds a map
//     (atomicCAS on the slot's owner word) and gives it back when it ends (launch.hpp's
//     entry, after its last copy has landed); at most 32 programs share a multiprocessor, so
//     a program always finds one. The slot's 4 maps are kept by key (tma_key) in the
//     program's shared header (pipeline.hpp), replaced in turn when a fifth is needed.
//
// A map is built by warp 0 in shared memory (zeroed, each field replaced), copied to its place
// with the release the copy engine needs, and acquired by thread 0, which issues every copy.
// Where a map cannot be had (a multiprocessor beyond the pool, every slot taken) the dot takes
// its cp.async path.
//
// TL_COUNT_TMA_CALLS=1 (tests only) counts the dot calls the copy engine ran in the pool's
// `calls`, so that a test can tell that the path it checks was taken.
#pragma once

#include <cstdint>

#include "../../config.hpp"
#include "arch/sm90.hpp"
#include "pipeline.hpp"

namespace tl::detail::cuda {

#ifndef TL_COUNT_TMA_CALLS
#define TL_COUNT_TMA_CALLS 0
#endif

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

inline constexpr int map_pool_sms = 192;  // multiprocessors with slots (an H100 has 132)
inline constexpr int map_pool_slots_per_sm = 32;  // the most programs a multiprocessor holds
inline constexpr int map_pool_slots = map_pool_sms * map_pool_slots_per_sm;

struct map_pool {
  unsigned long long calls;        // dot calls the copy engine ran, counted where TL_COUNT_TMA_CALLS is 1 (tests)
  unsigned long long misses;       // of which the tiles were not copied ahead
  unsigned owner[map_pool_slots];  // 0: free
  alignas(128) char maps[map_pool_slots][tma_maps_per_program][128];
};
// One pool per translation unit that uses it (a function-local static lives in global memory).
__device__ __forceinline__ map_pool& the_map_pool() {
  static map_pool pool;
  return pool;
}

// A free slot of this program's multiprocessor, or -2.
__device__ __noinline__ int take_map_slot() {
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (sm >= unsigned(map_pool_sms)) return -2;
  map_pool& pool = the_map_pool();
  const unsigned start = (blockIdx.x + blockIdx.y + blockIdx.z) % map_pool_slots_per_sm;
  for (int i = 0; i < map_pool_slots_per_sm; ++i) {
    const int slot = int(sm) * map_pool_slots_per_sm + int((start + unsigned(i)) % map_pool_slots_per_sm);
    if (atomicCAS(&pool.owner[slot], 0u, 1u) == 0u) return slot;
  }
  return -2;
}

// Thread 0: waits for buffer u's copy in flight, if any (its data then unused or used later).
__device__ __forceinline__ void drain_buffer(tma_state& s, unsigned u) {
  if ((s.pending >> u) & 1u) {
    mbarrier_wait(&s.full[u], (s.phase >> u) & 1u);
    s.phase ^= 1u << u;
    s.pending &= ~(1u << u);
  }
}

__device__ __forceinline__ void drain_all(tma_state& s) {
  for (unsigned u = 0; u < unsigned(max_ring_buffers); ++u) drain_buffer(s, u);
}

// The map for key (fields, ElementType, Swizzle: what to build, tensor_map_build), by all of
// warp 0; null when none can be had. `keep`: a map this call already uses, not to be replaced.
template <unsigned ElementType, unsigned Swizzle>
__device__ __forceinline__ const void* tensor_map_for(tma_state& s, const tma_key& key, const tensor_map_fields& fields,
                                                      const void* keep) {
  const unsigned lane = threadIdx.x % 32;
  int index = -1;
  if (lane == 0) {
    for (unsigned i = 0; i < s.maps; ++i) {
      const tma_key& k = s.keys[i];
      if (k.base == key.base && k.dims[0] == key.dims[0] && k.dims[1] == key.dims[1] &&
          k.row_stride == key.row_stride && k.box == key.box) {
        index = int(i);
        break;
      }
    }
    if (index < 0) {  // a new map: a slot's next map, or the next to replace
      if (s.slot == -1) {
        s.slot = take_map_slot();
        if (s.slot >= 0) s.owner = &the_map_pool().owner[s.slot];
      }
      if (s.slot >= 0) {
        if (s.maps < unsigned(tma_maps_per_program)) {
          index = int(s.maps++);
        } else {
          index = int(s.evict);
          if (the_map_pool().maps[s.slot][index] == keep) index = (index + 1) % tma_maps_per_program;
          s.evict = unsigned(index + 1) % tma_maps_per_program;
          // Copies in flight may read the old map, and the buffers' tags name it.
          drain_all(s);
          for (auto& tag : s.tags) tag = tma_tag{};
          s.last = tma_tag{};
          s.memo = tma_memo{};
        }
        s.keys[index] = key;
        index += 1 << 16;  // built here
      }
    }
  }
  index = __shfl_sync(0xffffffffu, index, 0);
  if (index < 0) return nullptr;
  const int slot = __shfl_sync(0xffffffffu, s.slot, 0);
  void* map = the_map_pool().maps[slot][index & 0xffff];
  if (index >> 16) {
    const auto staging = (reinterpret_cast<std::uintptr_t>(s.staging) + 127) & ~std::uintptr_t(127);
    tensor_map_build<ElementType, Swizzle>(map, reinterpret_cast<void*>(staging), fields);
    if (lane == 0) tensor_map_acquire(map);
  }
  return map;
}

// At the program's end, by thread 0: the copies no call waited for land, and the slot is free.
__device__ __forceinline__ void tma_finish() {
  tma_state& s = ring_header().tma;
  drain_all(s);
  if (s.owner) atomicExch(s.owner, 0u);
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

}  // namespace tl::detail::cuda
