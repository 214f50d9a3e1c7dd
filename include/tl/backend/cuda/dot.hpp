// tl/backend/cuda/dot.hpp: tl::dot on the GPU (ops/dot.hpp): which lowering runs it, and the
// FMA lowering for what the tensor cores do not take.
//
//   wgmma (dot_wgmma.hpp)     sm_90a builds, fp16/bf16/tf32/fp8, a result whose warpgroups hold
//                             64-row tiles (M a multiple of 64), unbatched
//   mma.sync (dot_mma.hpp)    fp16/bf16/tf32 elsewhere, a tiled result, M and N multiples of 16
//   FMA (below)               float32 with tl::ieee or tl::tf32x3, float64, int8, fp8 off
//                             wgmma, other shapes:
//                             A and B in shared memory, each thread computes the result
//                             elements of its own slots
#pragma once

#include "dot_mma.hpp"
#include "dot_wgmma.hpp"

namespace tl::detail::cuda {

#if TL_DEVICE_PASS

// out = acc + a @ b by fused multiply-adds in In (float32 inputs cut to tf32 when Tf32).
template <class D, class In, bool Tf32, class EA, class EB, class Acc, class Out>
__device__ void dot_fma(const EA& ea, const EB& eb, const Acc* acc, Out& out) {
  using TA = value_of_t<EA>;
  using AccT = typename Out::value_type;
  using LO = typename Out::layout;
  constexpr int M = D::M, N = D::N, K = D::K, BA = D::BA;
  constexpr int a_bytes = smem_bytes<TA>(std::int64_t(BA) * M * K);
  constexpr int b_bytes = smem_bytes<TA>(std::int64_t(BA) * K * N);
  char* base = scratch<scratch_size(a_bytes + b_bytes)>();
  TA* A = reinterpret_cast<TA*>(base);
  TA* B = reinterpret_cast<TA*>(base + a_bytes);
  const own_block_t<EA> ba(ea);
  const own_block_t<EB> bb(eb);
  barrier();
  write_rows(ba, A);
  write_rows(bb, B);
  barrier();
  using Cmp = compute_t<AccT>;
  const int t = thread_id();
  Cmp sum[LO::slots];
  TL_UNROLL
  for (int s = 0; s < LO::slots; ++s) sum[s] = accumulator<Cmp>(acc, s);
  // K outermost and kept a loop, the thread's result elements inside it: each k step is one
  // multiply-add per element, and the kernel's code stays small (a loop over K inside the
  // unrolled elements made ptxas' input, and the compile time, grow as M N K / threads).
  // Each element's products are still summed in k order, as on the CPU.
  _Pragma("unroll 1")
  for (int k = 0; k < K; ++k) {
    TL_UNROLL
    for (int s = 0; s < LO::slots; ++s) {
      if (!LO::valid(t, s)) continue;
      // The element's coordinates as the thread's part plus a constant: each operand's
      // address is one base register plus an immediate.
      const auto c = LO::coords(t, s);
      constexpr int r = Out::shape_type::rank;
      const int bt = r == 3 ? c[0] : 0, i = c[r - 2], j = c[r - 1];
      In x = static_cast<In>(static_cast<compute_t<TA>>(A[(std::int64_t(bt) * M + i) * K + k]));
      In y = static_cast<In>(static_cast<compute_t<TA>>(B[(std::int64_t(bt) * K + k) * N + j]));
      if constexpr (Tf32 && std::is_same_v<In, float>) {
        x = round_to_tf32(x);
        y = round_to_tf32(y);
      }
      if constexpr (std::is_floating_point_v<Cmp> && std::is_same_v<In, Cmp>) sum[s] = fma(x, y, sum[s]);
      else sum[s] = op::add{}(sum[s], static_cast<Cmp>(op::mul{}(x, y)));
    }
  }
  TL_UNROLL
  for (int s = 0; s < LO::slots; ++s)
    if (LO::valid(t, s)) out.v[s] = convert<AccT>(sum[s]);
}

// out = acc + a @ b, for D = dot_shapes<...>; In is the FMA path's multiply type.
template <class D, class In, bool Tf32, class EA, class EB, class Acc, class Out>
__device__ void dot(const EA& ea, const EB& eb, const Acc* acc, Out& out) {
  using TA = value_of_t<EA>;
  using Kind = typename mma_kind<TA, typename Out::value_type, Tf32>::type;
  using LO = typename Out::layout;
  using LA = own_layout<EA>;
  // The operands may read the result of a wgmma dot still running (pipeline.hpp); so may the
  // accumulator, where this dot does not chain wgmma groups on it.
  settle_dots<EA, EB>();
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using wgmma = wgmma_plan_for<D, Kind, EA, EB, Out>;
  if constexpr (wgmma::ok) {
    dot_wgmma<typename wgmma::type>(ea, eb, acc, out);
    return;
  }
#endif
  settle_dots<Acc>();
  constexpr bool tensor_cores = [] {
    if constexpr (mma_sync_kind<Kind>() && LO::tiled && D::M % 16 == 0 && D::N % 16 == 0 &&
                  D::K % mma_k<Kind>() == 0 && D::K % LA::vec == 0)
      return mma_sync_plan<D, Kind, TA, LA, LO, transposed_operand_v<EB>>::scratch_bytes <= dot_arena_max;
    else
      return false;
  }();
  if constexpr (tensor_cores) dot_mma_sync<D, Kind>(ea, eb, acc, out);
  else dot_fma<D, In, Tf32>(ea, eb, acc, out);
}

#endif  // TL_DEVICE_PASS

}  // namespace tl::detail::cuda
