// tl/backend/cuda/dot.hpp: tl::dot on the GPU (used by ops/dot.hpp).
//
// Tensor cores: fp16/bf16 (mma.sync m16n8k16) and float32 with tf32 (m16n8k8, each input
// rounded to tf32 with cvt.rna, as the CPU backend emulates), float32 accumulation, when the
// result has the tiled layout (layout.hpp) and M, N are multiples of 16, K of the instruction's
// k. The tiled layout is the mma accumulator layout, so the accumulator never leaves the
// registers: each thread's slots, 8 at a time, are the d registers of two m16n8 tiles (16 rows
// x 16 columns, the columns permuted: lane q holds columns 4q..4q+3 of the group, the two
// n8 halves columns 4q + {0,1} and 4q + {2,3}). A and B are written to shared memory, rows
// padded so that fragment loads hit distinct banks, B's columns stored in the permuted order;
// then each warp runs, per k step, its m tiles x n groups of mma with fragments from there.
//
// FMA: everything else (float32 with tl::ieee or tl::tf32x3, float64, int8, other shapes):
// A and B in shared memory, each thread computes the result elements of its own slots.
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

template <class T>
struct mma_padding {
  // Row padding of A and B in shared memory, in elements: fragment loads of the 8 rows x 4
  // lanes of a warp then fall in distinct banks (A: 16 bytes; B: 32 bytes for 32-bit types,
  // 16 bytes for 16-bit ones, whose lanes pair up on words).
  static constexpr int pad_a = 16 / int(sizeof(T));
  static constexpr int pad_b = (sizeof(T) == 4 ? 32 : 16) / int(sizeof(T));
};

// Position of column c of B inside its group of 16 in shared memory: logical column
// 4a + 2h + b is column 2a + b of n8 half h, stored at 8h + 2a + b.
TL_INLINE constexpr int permuted_column(int c) {
  return (c & ~15) | ((c & 2) << 2) | ((c >> 1) & 6) | (c & 1);
}

// One mma: d += a b, fragments per PTX's mma.m16n8k{8,16} layouts.
template <class Kind>
__device__ __forceinline__ void mma(float* d, const unsigned (&a)[4], const unsigned (&b)[2]) {
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

// The A fragment of rows r, r + 8 (row stride lda) at k0; the B fragment of stored column n.
template <class Kind, class T>
__device__ __forceinline__ void load_a(const T* A, int lda, int r, int k0, int q, unsigned (&a)[4]) {
  const T* lo = A + r * lda + k0;
  const T* hi = lo + 8 * lda;
  if constexpr (std::is_same_v<Kind, mma_tf32>) {
    a[0] = to_tf32(lo[q]);
    a[1] = to_tf32(hi[q]);
    a[2] = to_tf32(lo[q + 4]);
    a[3] = to_tf32(hi[q + 4]);
  } else {
    a[0] = *reinterpret_cast<const unsigned*>(lo + 2 * q);
    a[1] = *reinterpret_cast<const unsigned*>(hi + 2 * q);
    a[2] = *reinterpret_cast<const unsigned*>(lo + 2 * q + 8);
    a[3] = *reinterpret_cast<const unsigned*>(hi + 2 * q + 8);
  }
}
template <class Kind, class T>
__device__ __forceinline__ void load_b(const T* B, int ldb, int k0, int n, int q, unsigned (&b)[2]) {
  if constexpr (std::is_same_v<Kind, mma_tf32>) {
    b[0] = to_tf32(B[(k0 + q) * ldb + n]);
    b[1] = to_tf32(B[(k0 + q + 4) * ldb + n]);
  } else {
    const T* p = B + (k0 + 2 * q) * ldb + n;
    b[0] = pack16(p[0].bits, p[ldb].bits);
    b[1] = pack16(p[8 * ldb].bits, p[9 * ldb].bits);
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

template <class Kind>
constexpr int mma_k() {
  if constexpr (std::is_void_v<Kind>) return 1;
  else return Kind::k;
}

// Slot i of the accumulator block, or 0 when the dot has none.
template <class R, class Acc>
__device__ __forceinline__ R accumulator(const Acc* acc, int i) {
  if constexpr (std::is_void_v<Acc>) return R(0);
  else return static_cast<R>(static_cast<compute_t<typename Acc::value_type>>(acc->v[i]));
}

// Writes block x (rows of `cols` elements) to shared memory with row stride ld; Permute:
// B's column order (permuted_column). Chunks of the layout go out as vectors where they can.
template <bool Permute, class X>
__device__ __forceinline__ void write_padded(const X& x, typename X::value_type* dst, int cols, int ld) {
  using L = layout<typename X::shape_type>;
  using T = typename X::value_type;
  constexpr int V = Permute ? (L::vec < 2 ? L::vec : 2) : L::vec;
  const int t = thread_id();
  TL_UNROLL
  for (int i = 0; i < L::slots; i += V) {
    if (!L::valid(t, i)) continue;
    const std::int64_t f = L::flat(t, i);
    const int r = int(f / cols), c = int(f % cols);
    vector_of<T, V> w;
    TL_UNROLL
    for (int k = 0; k < V; ++k) w.x[k] = x.v[i + k];
    *reinterpret_cast<vector_of<T, V>*>(dst + std::int64_t(r) * ld + (Permute ? permuted_column(c) : c)) = w;
  }
}

// out = acc + a @ b, for D = dot_shapes<...>; In is the FMA path's multiply type.
template <class D, class In, bool UseTf32, class EA, class EB, class Acc, class Out>
__device__ void dot(const EA& ea, const EB& eb, const Acc* acc, Out& out) {
  using TA = typename EA::value_type;
  using AccT = typename Out::value_type;
  constexpr int M = D::M, N = D::N, K = D::K, BA = D::BA;
  using Kind = typename mma_kind<TA, AccT, UseTf32>::type;
  using LO = layout<typename Out::shape_type>;
  using LA = layout<typename EA::shape_type>;
  const int t = thread_id();

  constexpr bool tensor_cores = !std::is_void_v<Kind> && LO::tiled && M % 16 == 0 && N % 16 == 0 &&
                                K % mma_k<Kind>() == 0 && K % LA::vec == 0;
  if constexpr (tensor_cores) {
    using P = mma_padding<TA>;
    constexpr int lda = K + P::pad_a, ldb = N + P::pad_b;
    constexpr int a_bytes = smem_bytes<TA>(std::int64_t(BA) * M * lda);
    constexpr int b_bytes = smem_bytes<TA>(std::int64_t(BA) * K * ldb);
    char* base = scratch<scratch_size(a_bytes + b_bytes)>();
    TA* A = reinterpret_cast<TA*>(base);
    TA* B = reinterpret_cast<TA*>(base + a_bytes);
    barrier();
    write_padded<false>(ea, A, K, lda);
    write_padded<true>(eb, B, N, ldb);
    barrier();

    // The thread's slots, 8 at a time: groups r = mt * NG + ng (m tiles x n groups).
    constexpr int NG = 1 << LO::bits.col_slot_bits;
    constexpr int MT = LO::slots / 8 / NG;
    const int lane = t % 32, g = lane / 4, q = lane % 4;
    float d[LO::slots];
    TL_UNROLL
    for (int i = 0; i < LO::slots; ++i) d[i] = accumulator<float>(acc, i);
    if (LO::valid(t, 0)) {
      int a_row[MT], b_row0[MT], b_col[NG];
      TL_UNROLL
      for (int mt = 0; mt < MT; ++mt) {
        const int row = int(LO::flat(t, 8 * mt * NG) / N) - g;  // first row of the 16-row tile
        a_row[mt] = row + g;
        b_row0[mt] = row / M * K;  // the batch's first row of B
      }
      TL_UNROLL
      for (int ng = 0; ng < NG; ++ng) b_col[ng] = int(LO::flat(t, 8 * ng) % N) / 16 * 16 + g;
      TL_UNROLL
      for (int k0 = 0; k0 < K; k0 += Kind::k) {
        unsigned a[MT][4], b[NG][2][2];
        TL_UNROLL
        for (int mt = 0; mt < MT; ++mt) load_a<Kind>(A, lda, a_row[mt], k0, q, a[mt]);
        TL_UNROLL
        for (int mt = 0; mt < MT; ++mt) {
          if (mt == 0 || BA > 1) {  // a batched dot: each 16-row tile reads its own batch of B
            TL_UNROLL
            for (int ng = 0; ng < NG; ++ng) {
              TL_UNROLL
              for (int h = 0; h < 2; ++h)
                load_b<Kind>(B + std::int64_t(b_row0[mt]) * ldb, ldb, k0, b_col[ng] + 8 * h, q, b[ng][h]);
            }
          }
          TL_UNROLL
          for (int ng = 0; ng < NG; ++ng) {
            TL_UNROLL
            for (int h = 0; h < 2; ++h) {
              float* dd = d + 8 * (mt * NG + ng) + 2 * h;
              float frag[4] = {dd[0], dd[1], dd[4], dd[5]};
              mma<Kind>(frag, a[mt], b[ng][h]);
              dd[0] = frag[0];
              dd[1] = frag[1];
              dd[4] = frag[2];
              dd[5] = frag[3];
            }
          }
        }
      }
    }
    TL_UNROLL
    for (int i = 0; i < LO::slots; ++i) out.v[i] = convert<AccT>(d[i]);
  } else {
    constexpr int a_bytes = smem_bytes<TA>(std::int64_t(BA) * M * K);
    constexpr int b_bytes = smem_bytes<TA>(std::int64_t(BA) * K * N);
    char* base = scratch<scratch_size(a_bytes + b_bytes)>();
    TA* A = reinterpret_cast<TA*>(base);
    TA* B = reinterpret_cast<TA*>(base + a_bytes);
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
