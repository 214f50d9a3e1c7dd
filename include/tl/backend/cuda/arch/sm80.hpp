// tl/backend/cuda/arch/sm80.hpp: the Ampere instructions the dot uses (sm_80 and later):
// ldmatrix, mma.sync and cp.async, one wrapper each, nothing else.
#pragma once

#include <type_traits>

#include "../../../config.hpp"
#include "mma_kinds.hpp"

namespace tl::detail::cuda {

#if defined(__CUDACC__)

// ldmatrix.x4: four 8 x 8 matrices of 16-bit cells (or 8 x 4 of 32-bit ones), one per group of
// 8 lanes, each lane giving the address of one 16-byte row; thread t gets word t % 4 of row
// t / 4 of each (.trans: the two cells of column t / 4 in rows 2 (t % 4), 2 (t % 4) + 1).
template <bool Trans>
__device__ __forceinline__ void ldmatrix_x4(const void* row, unsigned (&r)[4]) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(row));
  if constexpr (Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(a)
                 : "memory");
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(a)
                 : "memory");
}

// mma.sync: d += a b, fragments per PTX's mma.m16n8k{8,16} layouts.
template <class Kind>
__device__ __forceinline__ void mma_sync(float* d, const unsigned (&a)[4], const unsigned* b) {
  if constexpr (std::is_same_v<Kind, mma_tf32>)
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else if constexpr (std::is_same_v<Kind, mma_f16>)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// One cp.async of Bytes, global to shared (16: cached in L2 only; 4 or 8: through L1, the only
// way for them).
template <int Bytes>
__device__ __forceinline__ void cp_async(void* dst, const void* src) {
  const auto d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (Bytes == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src) : "memory");
  else asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(d), "l"(src), "n"(Bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }
// Waits until at most Pending of this thread's committed groups are unfinished.
template <int Pending>
__device__ __forceinline__ void cp_async_wait_group() {
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
}

#endif  // __CUDACC__

}  // namespace tl::detail::cuda
