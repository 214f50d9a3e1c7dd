// tl/backend/cuda/arch/sm90.hpp: the Hopper instructions the wgmma dot uses (sm_90a): fences,
// the wgmma group's commit and wait, shared-memory matrix descriptors, and the bulk tensor copy
// engine (TMA): mbarriers, tensor maps built in the kernel, 2-D tile copies; the
// wgmma.mma_async wrappers themselves are generated (sm90_wgmma.hpp).
#pragma once

#include <cstdint>

#include "../../../config.hpp"
#include "sm90_wgmma.hpp"

namespace tl::detail::cuda {

#if defined(__CUDACC__)

// Generic-proxy stores to shared memory (st.shared, cp.async) made visible to the tensor
// cores' reads (the async proxy).
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
// Orders this thread's register accesses to the accumulators before the wgmma that follow.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
// Waits until at most Pending committed wgmma groups are unfinished.
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
}

// A shared-memory matrix descriptor: start address, leading and stride byte offsets, and the
// swizzle of rows `width` bytes wide (128, 64 or 32).
__device__ __forceinline__ std::uint64_t smem_descriptor(const void* p, int lbo, int sbo, int width) {
  const int swizzle = width == 128 ? 1 : width == 64 ? 2 : 3;
  const auto a = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  return std::uint64_t((a & 0x3ffff) >> 4) | (std::uint64_t(lbo >> 4) << 16) | (std::uint64_t(sbo >> 4) << 32) |
         (std::uint64_t(swizzle) << 62);
}

// ---- mbarriers (shared memory, 8 bytes each) ----
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// An mbarrier that completes a phase on one arrival plus the bytes it is told to expect.
__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(arrivals) : "memory");
}
// Makes initialised mbarriers visible to the copy engine.
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// This thread's arrival, and `bytes` more for the phase to wait for (the copies' transactions).
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}
// This thread's arrival (a consumer releasing a buffer).
__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
}
// Before the memory of an mbarrier no thread waits on any longer is initialised again.
__device__ __forceinline__ void mbarrier_inval(std::uint64_t* bar) {
  asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(shared_address(bar)) : "memory");
}
// Waits until the phase of parity `parity` has completed.
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* bar, unsigned parity) {
  unsigned done;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(shared_address(bar)), "r"(parity)
        : "memory");
  } while (!done);
}

// ---- tensor maps (the copy engine's 128-byte description of a tensor and its box) ----
// Built in shared memory by one warp (zeroed, then each field replaced), copied to global
// memory with the release the copy engine needs, then acquired by the thread that copies.
struct tensor_map_fields {
  const void* base;              // 16-byte aligned
  std::uint64_t dims[2];         // innermost first
  std::uint64_t row_stride;      // bytes between rows (a multiple of 16)
  unsigned box[2];               // innermost first; box[0] * element size <= the swizzle width
};
// By all 32 lanes of one warp: the map at `global` (128 bytes, 128-aligned) from `staging`
// (128 bytes of shared memory, 128-aligned). ElementType 0, 1, 2: 8-, 16-, 32-bit integers (the
// bits are copied as they are); Swizzle 1, 2, 3: 32-, 64-, 128-byte swizzle.
template <unsigned ElementType, unsigned Swizzle>
__device__ __forceinline__ void tensor_map_build(void* global, void* staging, const tensor_map_fields& f) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned s = shared_address(staging);
  asm volatile("st.shared.b32 [%0], 0;" ::"r"(s + 4 * lane) : "memory");
  __syncwarp();
  if (lane == 0) {
    asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;" ::"r"(s), "l"(f.base) : "memory");
    asm volatile("tensormap.replace.tile.rank.shared::cta.b1024.b32 [%0], 1;" ::"r"(s) : "memory");
    asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 0, %1;" ::"r"(s), "r"(f.box[0]) : "memory");
    asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], 1, %1;" ::"r"(s), "r"(f.box[1]) : "memory");
    asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 0, %1;" ::"r"(s), "r"(unsigned(f.dims[0]))
                 : "memory");
    asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], 1, %1;" ::"r"(s), "r"(unsigned(f.dims[1]))
                 : "memory");
    asm volatile("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], 0, %1;" ::"r"(s), "l"(f.row_stride)
                 : "memory");
    asm volatile("tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], 0, 1;" ::"r"(s) : "memory");
    asm volatile("tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], 1, 1;" ::"r"(s) : "memory");
    asm volatile("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%0], %1;" ::"r"(s), "n"(ElementType) : "memory");
    asm volatile("tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [%0], 0;" ::"r"(s) : "memory");
    asm volatile("tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%0], %1;" ::"r"(s), "n"(Swizzle) : "memory");
    asm volatile("tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%0], 0;" ::"r"(s) : "memory");
  }
  __syncwarp();
  asm volatile(
      "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;" ::"l"(
          global),
      "r"(s)
      : "memory");
}
// Before the first copy through a map that this program wrote.
__device__ __forceinline__ void tensor_map_acquire(const void* global) {
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(global) : "memory");
}
// A 2-D box at coordinates (x innermost, y) through map into shared memory at dst (aligned to
// the swizzle's 1024-byte pattern), completing on bar. Coordinates outside the tensor read 0.
__device__ __forceinline__ void tma_load_2d(void* dst, const void* map, int x, int y, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          shared_address(dst)),
      "l"(map), "r"(x), "r"(y), "r"(shared_address(bar))
      : "memory");
}

#endif  // __CUDACC__

// A byte offset inside a buffer as a descriptor's address field counts it (16-byte units).
TL_HD constexpr std::uint64_t descriptor_offset(int bytes) { return std::uint64_t(bytes >> 4); }

}  // namespace tl::detail::cuda
