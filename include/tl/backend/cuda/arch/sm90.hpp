// tl/backend/cuda/arch/sm90.hpp: the Hopper instructions the wgmma dot uses (sm_90a): fences,
// the wgmma group's commit and wait, shared-memory matrix descriptors; the wgmma.mma_async
// wrappers themselves are generated (sm90_wgmma.hpp).
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

#endif  // __CUDACC__

// A byte offset inside a buffer as a descriptor's address field counts it (16-byte units).
TL_HD constexpr std::uint64_t descriptor_offset(int bytes) { return std::uint64_t(bytes >> 4); }

}  // namespace tl::detail::cuda
