// tl/backend/cuda/dot.hpp: tl::dot on the GPU (used by ops/dot.hpp).
//
// The operands A (M x K) and B (K x N), per batch, are evaluated in registers and written to
// shared memory row-major; so is the accumulator. Then:
//   tensor cores  fp16/bf16 (mma.sync m16n8k16) and float32 with tf32 (m16n8k8, each input
//                 rounded to tf32 with cvt.rna, as the CPU backend emulates), float32
//                 accumulation, when M % 16 == 0, N % 8 == 0 and K fits the instruction.
//                 The warps take the 16 x 8 tiles of the result in turn; each loads its
//                 fragments from shared memory, runs K / k mma steps, and writes the tile
//                 back; every thread then reads its slots of the result.
//   FMA           everything else (float32 with tl::ieee or tl::tf32x3, float64, int8, odd
//                 shapes): each thread computes the result elements of its own slots.
#pragma once

#include "../../expr/block.hpp"
#include "layout.hpp"

namespace tl::detail::cuda {

#if TL_DEVICE_PASS
struct mma_f16 {
  static constexpr int k = 16;
};
struct mma_bf16 {
  static constexpr int k = 16;
};
struct mma_tf32 {
  static constexpr int k = 8;
};

__device__ __forceinline__ unsigned pack16(std::uint16_t lo, std::uint16_t hi) { return unsigned(lo) | (unsigned(hi) << 16); }

__device__ __forceinline__ unsigned to_tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

// One 16 x 8 tile of D += A B, A row-major (lda = K) and B row-major (ldb = N) in shared
// memory, the accumulator d in the registers of the warp. Fragment positions per PTX's
// mma.m16n8k{8,16} layouts: g = lane / 4 is the row (of A and D) or the column (of B),
// q = lane % 4 picks the pair of k (A, B) or of columns (D).
//   d[0], d[1]: row g,     columns 2q, 2q + 1       d[2], d[3]: row g + 8, the same columns
template <class Kind, class T, int K, int N>
__device__ __forceinline__ void mma_tile(const T* A, const T* B, float (&d)[4], int row0, int col0) {
  const int lane = thread_id() % 32, g = lane / 4, q = lane % 4;
  for (int k0 = 0; k0 < K; k0 += Kind::k) {
    const T* a_lo = A + (row0 + g) * K + k0;
    const T* a_hi = a_lo + 8 * K;
    if constexpr (std::is_same_v<Kind, mma_tf32>) {
      const unsigned a0 = to_tf32(a_lo[q]), a1 = to_tf32(a_hi[q]), a2 = to_tf32(a_lo[q + 4]), a3 = to_tf32(a_hi[q + 4]);
      const unsigned b0 = to_tf32(B[(k0 + q) * N + col0 + g]), b1 = to_tf32(B[(k0 + q + 4) * N + col0 + g]);
      asm volatile(
          "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
          "{%0,%1,%2,%3};"
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
          : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    } else {
      const unsigned a0 = pack16(a_lo[2 * q].bits, a_lo[2 * q + 1].bits);
      const unsigned a1 = pack16(a_hi[2 * q].bits, a_hi[2 * q + 1].bits);
      const unsigned a2 = pack16(a_lo[2 * q + 8].bits, a_lo[2 * q + 9].bits);
      const unsigned a3 = pack16(a_hi[2 * q + 8].bits, a_hi[2 * q + 9].bits);
      const T* b = B + (k0 + 2 * q) * N + col0 + g;
      const unsigned b0 = pack16(b[0].bits, b[N].bits);
      const unsigned b1 = pack16(b[8 * N].bits, b[9 * N].bits);
      if constexpr (std::is_same_v<Kind, mma_f16>)
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
      else
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%0,%1,%2,%3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    }
  }
}

template <class TA, class AccT, bool tf32>
struct mma_kind {
  using type = void;
};
template <>
struct mma_kind<fp16, float, false> {
  using type = mma_f16;
};
template <>
struct mma_kind<fp16, float, true> {
  using type = mma_f16;
};
template <>
struct mma_kind<bf16, float, false> {
  using type = mma_bf16;
};
template <>
struct mma_kind<bf16, float, true> {
  using type = mma_bf16;
};
template <>
struct mma_kind<float, float, true> {
  using type = mma_tf32;
};

// Slot i of the accumulator block, or 0 when the dot has none.
template <class R, class Acc>
__device__ __forceinline__ R accumulator(const Acc* acc, int i) {
  if constexpr (std::is_void_v<Acc>) return R(0);
  else return static_cast<R>(static_cast<compute_t<typename Acc::value_type>>(acc->v[i]));
}

// out = acc + a @ b, for D = dot_shapes<...>; In is the FMA path's multiply type.
template <class D, class In, bool UseTf32, class EA, class EB, class Acc, class Out>
__device__ void dot(const EA& ea, const EB& eb, const Acc* acc, Out& out) {
  using TA = typename EA::value_type;
  using AccT = typename Out::value_type;
  constexpr int M = D::M, N = D::N, K = D::K, BA = D::BA;
  using Kind = typename mma_kind<TA, AccT, UseTf32>::type;
  constexpr bool tensor_cores = !std::is_void_v<Kind> && M % 16 == 0 && N % 8 == 0 && K % 16 == 0;
  constexpr int a_bytes = smem_bytes<TA>(std::int64_t(BA) * M * K);
  constexpr int b_bytes = smem_bytes<TA>(std::int64_t(BA) * K * N);
  constexpr int c_bytes = tensor_cores ? smem_bytes<float>(std::int64_t(BA) * M * N) : 0;
  // One region, used in turns: the accumulator (C), then A and B, then the result (C).
  char* base = scratch<scratch_size(a_bytes + b_bytes > c_bytes ? a_bytes + b_bytes : c_bytes)>();
  TA* A = reinterpret_cast<TA*>(base);
  TA* B = reinterpret_cast<TA*>(base + a_bytes);
  float* C = reinterpret_cast<float*>(base);
  using LO = layout<typename Out::shape_type>;
  const int t = thread_id();

  if constexpr (tensor_cores) {
    constexpr int tiles_m = M / 16, tiles_n = N / 8, tiles = BA * tiles_m * tiles_n;
    constexpr int warps = threads / 32, per_warp = (tiles + warps - 1) / warps;
    const int warp = t / 32, lane = t % 32, g = lane / 4, q = lane % 4;
    float d[per_warp][4];
    // Tile w + warps * j of the result belongs to warp w; its row-major corner, batch included.
    auto corner = [&](int j, int& bt, int& row0, int& col0) {
      const int tile = warp + warps * j, r = tile % (tiles_m * tiles_n);
      bt = tile / (tiles_m * tiles_n);
      row0 = (r / tiles_n) * 16;
      col0 = (r % tiles_n) * 8;
      return tile < tiles;
    };
    barrier();
    TL_UNROLL
    for (int i = 0; i < LO::slots; ++i)
      if (LO::valid(t, i)) C[LO::flat(t, i)] = accumulator<float>(acc, i);
    barrier();
    TL_UNROLL
    for (int j = 0; j < per_warp; ++j) {
      int bt, r0, c0;
      if (!corner(j, bt, r0, c0)) continue;
      const float* c = C + std::int64_t(bt) * M * N + (r0 + g) * N + c0 + 2 * q;
      d[j][0] = c[0];
      d[j][1] = c[1];
      d[j][2] = c[8 * N];
      d[j][3] = c[8 * N + 1];
    }
    barrier();
    write_rows(ea, A);
    write_rows(eb, B);
    barrier();
    TL_UNROLL
    for (int j = 0; j < per_warp; ++j) {
      int bt, r0, c0;
      if (corner(j, bt, r0, c0))
        mma_tile<Kind, TA, K, N>(A + std::int64_t(bt) * M * K, B + std::int64_t(bt) * K * N, d[j], r0, c0);
    }
    barrier();
    TL_UNROLL
    for (int j = 0; j < per_warp; ++j) {
      int bt, r0, c0;
      if (!corner(j, bt, r0, c0)) continue;
      float* c = C + std::int64_t(bt) * M * N + (r0 + g) * N + c0 + 2 * q;
      c[0] = d[j][0];
      c[1] = d[j][1];
      c[8 * N] = d[j][2];
      c[8 * N + 1] = d[j][3];
    }
    barrier();
    TL_UNROLL
    for (int i = 0; i < LO::slots; ++i)
      if (LO::valid(t, i)) out.v[i] = convert<AccT>(C[LO::flat(t, i)]);
  } else {
    barrier();
    write_rows(ea, A);
    write_rows(eb, B);
    barrier();
    using Cmp = compute_t<AccT>;
    TL_UNROLL
    for (int s = 0; s < LO::slots; ++s) {
      if (!LO::valid(t, s)) continue;
      const std::int64_t f = LO::flat(t, s);
      const int bt = int(f / (M * N)), i = int(f / N % M), j = int(f % N);
      const TA* a_row = A + (std::int64_t(bt) * M + i) * K;
      const TA* b_col = B + std::int64_t(bt) * K * N + j;
      Cmp sum = accumulator<Cmp>(acc, s);
      for (int k = 0; k < K; ++k) {
        In x = static_cast<In>(static_cast<compute_t<TA>>(a_row[k]));
        In y = static_cast<In>(static_cast<compute_t<TA>>(b_col[std::int64_t(k) * N]));
        if constexpr (UseTf32 && std::is_same_v<In, float>) {
          x = round_to_tf32(x);
          y = round_to_tf32(y);
        }
        sum = op::add{}(sum, static_cast<Cmp>(op::mul{}(x, y)));
      }
      out.v[s] = convert<AccT>(sum);
    }
  }
}
#endif

}  // namespace tl::detail::cuda
