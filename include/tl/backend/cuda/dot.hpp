// tl/backend/cuda/dot.hpp: tl::dot on the GPU (used by ops/dot.hpp).
//
// Tensor cores: fp16/bf16 (mma.sync m16n8k16) and float32 with tf32 (m16n8k8, each input's
// low 13 mantissa bits dropped, as the CPU backend emulates), float32 accumulation, when the
// result has the tiled layout (layout.hpp) and M, N are multiples of 16, K of the instruction's
// k. The tiled layout is the mma accumulator layout, so the accumulator never leaves the
// registers: each thread's slots, 8 at a time, are the d registers of two m16n8 tiles (16 rows
// x 16 columns). In the accumulator order (core/order.hpp: what tl::zeros and a dot without an
// accumulator make) lane q holds the fragment's own columns 2q, 2q + 1, 2q + 8, 2q + 9 and B
// is stored as in memory; in the standard order lane q holds columns 4q..4q+3 of the group,
// the two n8 halves columns 4q + {0,1} and 4q + {2,3}, and B's columns are stored permuted
// (permuted_column) to match. A and B are written to shared memory, rows padded so that
// fragment loads hit distinct banks; then each warp runs, per k step, its m tiles x n groups
// of mma with fragments from there.
//
// FMA: everything else (float32 with tl::ieee or tl::tf32x3, float64, int8, other shapes):
// A and B in shared memory, each thread computes the result elements of its own slots.
#pragma once

#include "../../expr/block.hpp"
#include "../../expr/loaded.hpp"
#include "layout.hpp"
#include "memory.hpp"
#include "mma_kinds.hpp"

namespace tl::detail::cuda {

#if TL_DEVICE_PASS

// Operands in shared memory. A is stored row-major (M x K), B as K x N rows for 16-bit
// types and transposed (N x K) for tf32, whose fragments ldmatrix can only read untransposed.
// Float inputs are stored as they are and cut to tf32 in the fragments: a conversion on the
// way in would make the loaded values dead before they are stored, and the compiler then
// funnels every chunk's 128-bit load through one register quad, each load waiting for the
// previous one. Rows are padded by 16 bytes: with a row pitch that is an odd multiple of 16
// bytes, the 8 rows of 16 bytes an ldmatrix reads per 8 x 8 matrix fall in distinct bank groups.
template <class Kind, class T>
struct operand_store {
  static constexpr bool b_transposed = std::is_same_v<Kind, mma_tf32>;
  static constexpr int pad = 16 / int(sizeof(T));
};

// Cuts the float32 words of a fragment to tf32 (the low 13 mantissa bits dropped, as the CPU
// backend emulates; explicit, so as not to rely on what mma.sync does with them). Inf and NaN
// keep their bits.
template <class Kind>
__device__ __forceinline__ void round_fragment(unsigned (&r)[4]) {
  if constexpr (std::is_same_v<Kind, mma_tf32>) {
    TL_UNROLL
    for (int i = 0; i < 4; ++i) r[i] = (r[i] & 0x7f800000u) == 0x7f800000u ? r[i] : r[i] & 0xffffe000u;
  }
}

// Position of column c of B inside its group of 16 in shared memory: logical column
// 4a + 2h + b is column 2a + b of n8 half h, stored at 8h + 2a + b.
TL_INLINE constexpr int permuted_column(int c) {
  return (c & ~15) | ((c & 2) << 2) | ((c >> 1) & 6) | (c & 1);
}

// Four 8 x 8 matrices of 16-bit cells (or 8 x 4 of 32-bit ones), one per group of 8 lanes,
// each lane giving the address of one 16-byte row; thread t gets word t % 4 of row t / 4 of
// each (.trans: the two cells of column t / 4 in rows 2 (t % 4), 2 (t % 4) + 1).
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

// One mma: d += a b, fragments per PTX's mma.m16n8k{8,16} layouts.
template <class Kind>
__device__ __forceinline__ void mma(float* d, const unsigned (&a)[4], const unsigned* b) {
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

// Slots i .. i + V - 1 of operand x: a block's registers, or an expression evaluated there
// (its broadcast operands staged).
template <int V, class X>
__device__ __forceinline__ vector_of<value_of_t<X>, V> cells(const X& x, int t, int i) {
  if constexpr (is_block<X>::value) {
    return x.v.template chunk<V>(i);
  } else {
    using S = typename X::shape_type;
    using L = own_layout<X>;
    if constexpr (S::rank >= 1 && S::dim(S::rank - 1) % V == 0) {
      // By chunks (expr/chunk.hpp): an operand broadcast along the rows is read once per chunk.
      return chunk_at<V>(x, L::coords(t, i), i);
    } else {
      vector_of<value_of_t<X>, V> w;
      TL_UNROLL
      for (int k = 0; k < V; ++k) w.x[k] = x.at(L::coords(t, i + k), i + k);
      return w;
    }
  }
}

// Columns kc .. kc + KC - 1 of A (rows of K cells, batches stacked), each chunk of V cells
// stored at at(row, column - kc): the operand layouts of mma.sync and wgmma differ only there.
template <int KC, class X, class At>
__device__ __forceinline__ void write_a(const X& x, int K, int kc, At at) {
  using L = own_layout<X>;
  constexpr int V = L::vec;
  const int t = thread_id();
  TL_UNROLL
  for (int i = 0; i < L::slots; i += V) {
    if (!L::valid(t, i)) continue;
    const std::int64_t f = L::flat(t, i);
    const int r = int(f / K), c = int(f % K) - kc;
    if (unsigned(c) >= unsigned(KC)) continue;
    auto* dst = reinterpret_cast<vector_of<value_of_t<X>, V>*>(at(r, c));
    *dst = cells<V>(x, t, i);
  }
}

// Rows kc .. kc + KC - 1 of each batch of B (K x N), each cell (or pair of neighbours along a
// row, unless the layout is transposed) stored at at(batch, row - kc, column), the column
// permuted (permuted_column) when the result is in the standard order.
template <int KC, bool Transposed, bool Permuted, class X, class At>
__device__ __forceinline__ void write_b(const X& x, int K, int N, int kc, At at) {
  using S = typename X::shape_type;
  using L = own_layout<X>;
  constexpr int V = Transposed ? 1 : (L::vec < 2 ? L::vec : 2);
  // Said at compile time: a row index the compiler cannot bound costs a division, and (seen
  // on the tf32 wgmma dot) 19 more registers.
  constexpr bool batched = S::rank == 3 && S::dim(0) > 1;
  const int t = thread_id();
  TL_UNROLL
  for (int i = 0; i < L::slots; i += V) {
    if (!L::valid(t, i)) continue;
    const std::int64_t f = L::flat(t, i);
    const int r = int(f / N), batch = batched ? r / K : 0, k = (batched ? r % K : r) - kc;
    if (unsigned(k) >= unsigned(KC)) continue;
    const int n = int(f % N);
    auto* dst = reinterpret_cast<vector_of<value_of_t<X>, V>*>(at(batch, k, Permuted ? permuted_column(n) : n));
    *dst = cells<V>(x, t, i);
  }
}

// Shared memory the tensor-core path may take for A and B: above it, K is split into steps
// (the whole operands of a 128 x 128 x 64 float32 dot would be 70 KiB, beyond the 48 KiB a
// kernel can have statically, and fewer bytes let more programs share a multiprocessor).
inline constexpr int dot_smem_budget = 40 * 1024;

template <class C, bool Bt, int BA, int M, int N>
constexpr int operand_bytes(int kc) {
  constexpr int pad = 16 / int(sizeof(C));
  return smem_bytes<C>(std::int64_t(BA) * M * (kc + pad)) +
         smem_bytes<C>(Bt ? std::int64_t(BA) * N * (kc + pad) : std::int64_t(BA) * kc * (N + pad));
}

// The K step: K halved while over the budget and still a multiple of the mma's k and the
// operand's vector width.
template <class C, bool Bt, int BA, int M, int N, int K, int step>
constexpr int k_step() {
  int kc = K;
  while (operand_bytes<C, Bt, BA, M, N>(kc) > dot_smem_budget && kc % 2 == 0 && (kc / 2) % step == 0) kc /= 2;
  return kc;
}

#endif
}  // namespace tl::detail::cuda

#include "dot_wgmma.hpp"

namespace tl::detail::cuda {
#if TL_DEVICE_PASS

// out = acc + a @ b, for D = dot_shapes<...>; In is the FMA path's multiply type.
template <class D, class In, bool UseTf32, class EA, class EB, class Acc, class Out>
__device__ void dot(const EA& ea, const EB& eb, const Acc* acc, Out& out) {
  using TA = value_of_t<EA>;
  using AccT = typename Out::value_type;
  constexpr int M = D::M, N = D::N, K = D::K, BA = D::BA;
  using Kind = typename mma_kind<TA, AccT, UseTf32>::type;
  using LO = layout<typename Out::shape_type, Out::register_order>;
  using LA = own_layout<EA>;
  const int t = thread_id();

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  // A from registers: in tf32 (fp16 and bf16 fragments would need a 16-bit form of kperm),
  // for an A the threads evaluate themselves (one that cp.async can copy stays in shared
  // memory, where the copy puts it without registers).
  constexpr bool a_regs =
      std::is_same_v<Kind, mma_tf32> && !async_operand<EA>() && a_fragment_layout<LA, LO, M, N, K>();
  using WP = wgmma_plan<D, TA, Kind, LO, a_regs>;
  if constexpr (WP::ok) {
    dot_wgmma<WP>(ea, eb, acc, out);
    return;
  }
#endif
  constexpr bool tensor_cores = !std::is_void_v<Kind> && LO::tiled && M % 16 == 0 && N % 16 == 0 &&
                                K % mma_k<Kind>() == 0 && K % LA::vec == 0;
  if constexpr (tensor_cores) {
    using St = operand_store<Kind, TA>;
    using C = TA;  // what a shared-memory cell holds
    constexpr bool bt = St::b_transposed;
    constexpr int KC = k_step<C, bt, BA, M, N, K, (Kind::k > LA::vec ? Kind::k : LA::vec)>();
    constexpr int lda = KC + St::pad, ldb = (bt ? KC : N) + St::pad;
    constexpr int a_bytes = smem_bytes<C>(std::int64_t(BA) * M * lda);
    constexpr int bytes = scratch_size(operand_bytes<C, bt, BA, M, N>(KC));
    // Lazy operands are evaluated while A and B are written; the blocks they read through
    // broadcasts must then sit in a scratch of another size, or be evaluated first.
    constexpr int staged = staged_bytes<EA, true>() + staged_bytes<EB, true>();
    if constexpr (staged > 0 && scratch_size(staged) == bytes) {
      dot<D, In, UseTf32>(eval(ea), eval(eb), acc, out);
      return;
    }
    EA ax = ea;  // copies whose broadcast blocks can be pointed at their staged copies
    EB bx = eb;
    stage_each(ax, bx);
    char* base = scratch<bytes>();
    C* A = reinterpret_cast<C*>(base);
    C* B = reinterpret_cast<C*>(base + a_bytes);

    // The thread's slots, 8 at a time: groups r = mt * NG + ng (m tiles x n groups).
    constexpr int NG = 1 << LO::bits.col_slot_bits;
    constexpr int MT = LO::slots / 8 / NG;
    constexpr int cells16 = 16 / int(sizeof(C));  // cells in a 16-byte row of an 8 x 8 matrix
    const int lane = t % 32, g = lane / 4;
    // ldmatrix: lane l gives row l % 8 of matrix l / 8. A: matrices (rows 0-7 | 8-15) x (k lo | hi);
    // B, K x N: (k lo | hi) x (n 0-7 | 8-15), transposed on the way; B, N x K: (n 0-7 | 8-15) x (k lo | hi).
    const int lo8 = lane & 7, m1 = (lane >> 3) & 1, m2 = lane >> 4;
    float d[LO::slots];
    TL_UNROLL
    for (int i = 0; i < LO::slots; ++i) d[i] = accumulator<float>(acc, i);
    int a_at[MT], b_batch[MT], b_at[NG];
    TL_UNROLL
    for (int mt = 0; mt < MT; ++mt) {
      const int row = int(LO::flat(t, 8 * mt * NG) / N) - g;  // first row of the 16-row tile
      a_at[mt] = (row + lo8 + 8 * m1) * lda + cells16 * m2;
      b_batch[mt] = row / M * (bt ? N : KC) * ldb;  // where its batch of B starts
    }
    TL_UNROLL
    for (int ng = 0; ng < NG; ++ng) {
      const int col = int(LO::flat(t, 8 * ng) % N) / 16 * 16;  // first column of the group
      b_at[ng] = bt ? (col + lo8 + 8 * m2) * ldb + cells16 * m1 : (lo8 + 8 * m1) * ldb + col + 8 * m2;
    }
    TL_UNROLL
    for (int kc = 0; kc < K; kc += KC) {
      barrier();  // earlier readers of the scratch are done
      write_a<KC>(ax, K, kc, [&](int r, int c) { return A + std::int64_t(r) * lda + c; });
      write_b<KC, bt, !LO::mma_order>(bx, K, N, kc, [&](int batch, int k, int n) {  // K x N rows per batch, or N x K
        return B + (bt ? (std::int64_t(batch) * N + n) * ldb + k : (std::int64_t(batch) * KC + k) * ldb + n);
      });
      barrier();
      if (!LO::valid(t, 0)) continue;
      TL_UNROLL
      for (int k0 = 0; k0 < KC; k0 += Kind::k) {
        const int b_k = bt ? k0 : k0 * ldb;  // the step's offset in B
        unsigned a[4], b[NG][4];
        TL_UNROLL
        for (int mt = 0; mt < MT; ++mt) {
          ldmatrix_x4<false>(A + a_at[mt] + k0, a);
          round_fragment<Kind>(a);
          if (mt == 0 || BA > 1) {  // a batched dot: each 16-row tile reads its own batch of B
            TL_UNROLL
            for (int ng = 0; ng < NG; ++ng) {
              ldmatrix_x4<!bt>(B + b_batch[mt] + b_at[ng] + b_k, b[ng]);
              round_fragment<Kind>(b[ng]);
            }
          }
          TL_UNROLL
          for (int ng = 0; ng < NG; ++ng) {
            TL_UNROLL
            for (int h = 0; h < 2; ++h) {
              float* dd = d + 8 * (mt * NG + ng) + 2 * h;
              float frag[4] = {dd[0], dd[1], dd[4], dd[5]};
              mma<Kind>(frag, a, b[ng] + 2 * h);
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
    const auto ba = eval(ea);
    const auto bb = eval(eb);
    barrier();
    write_rows(ba, A);
    write_rows(bb, B);
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
