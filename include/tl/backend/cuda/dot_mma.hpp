// tl/backend/cuda/dot_mma.hpp: tl::dot on mma.sync (sm_80 and later; on sm_90a builds the
// wgmma dot takes the shapes it can).
//
// fp16/bf16 (m16n8k16) and float32 with tf32 (m16n8k8, each input's low 13 mantissa bits
// dropped, as the CPU backend emulates), float32 accumulation, for a result in the tiled
// layout with M, N multiples of 16 and K of the instruction's k. The tiled layout is the mma
// accumulator layout, so the accumulator never leaves the registers: each thread's slots, 8 at
// a time, are the d registers of two m16n8 tiles (16 rows x 16 columns). In the accumulator
// order (a computed block's) lane q holds the fragment's own columns 2q, 2q + 1, 2q + 8,
// 2q + 9 and B is stored as in memory; in the standard order (a loaded block's) lane q holds
// columns 4q..4q+3 of the group, the two n8 halves columns 4q + {0,1} and 4q + {2,3}, and B's
// columns are stored permuted (permuted_column) to match.
//
// The steps: plan (the K step that fits the budget, the row pitches), stage (A and B written
// to shared memory, rows padded so that fragment loads hit distinct banks), main loop (per k
// step, each warp's m tiles x n groups of mma, fragments by ldmatrix), epilogue (the
// accumulator registers converted into the result block).
#pragma once

#include "arch/sm80.hpp"
#include "dot_operands.hpp"

namespace tl::detail::cuda {

#if TL_DEVICE_PASS

// Operands in shared memory. A is stored row-major (M x K), B as K x N rows for 16-bit
// types and transposed (N x K) for tf32, whose fragments ldmatrix can only read untransposed.
// Float inputs are stored as they are and cut to tf32 in the fragments: a conversion on the
// way in would make the loaded values dead before they are stored, and the compiler then
// funnels every chunk's 128-bit load through one register quad, each load waiting for the
// previous one. Rows are padded by 16 bytes: with a row pitch that is an odd multiple of 16
// bytes, the 8 rows of 16 bytes an ldmatrix reads per 8 x 8 matrix fall in distinct bank groups.
template <class D, class Kind, class C, class LA, class LO, bool BTransposed = false>
struct mma_sync_plan {
  static constexpr int M = D::M, N = D::N, K = D::K, BA = D::BA;
  // B = trans(x) (unbatched): x's rows are written as they are, N x K (transposed_operand).
  static constexpr bool b_rows = BTransposed && BA == 1;
  static constexpr bool b_transposed = std::is_same_v<Kind, mma_tf32> || b_rows;
  static constexpr int pad = 16 / int(sizeof(C));
  static constexpr int step = Kind::k > LA::vec ? Kind::k : LA::vec;
  static constexpr int bytes(int kc) {
    return smem_bytes<C>(std::int64_t(BA) * M * (kc + pad)) +
           smem_bytes<C>(b_transposed ? std::int64_t(BA) * N * (kc + pad) : std::int64_t(BA) * kc * (N + pad));
  }
  // The K step: K halved while over the budget and still a multiple of the mma's k and the
  // operand's vector width.
  static constexpr int kc() {
    int k = K;
    while (bytes(k) > dot_smem_budget && k % 2 == 0 && (k / 2) % step == 0) k /= 2;
    return k;
  }
  static constexpr int KC = kc();
  static constexpr int lda = KC + pad, ldb = (b_transposed ? KC : N) + pad;
  static constexpr int a_bytes = smem_bytes<C>(std::int64_t(BA) * M * lda);
  static constexpr int scratch_bytes = scratch_size(bytes(KC));
  // The thread's slots, 8 at a time: groups r = mt * NG + ng (m tiles x n groups).
  static constexpr int NG = 1 << LO::bits.col_slot_bits;
  static constexpr int MT = LO::slots / 8 / NG;
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

// out = acc + a @ b on mma.sync (Kind: mma_kinds.hpp).
template <class D, class Kind, class EA, class EB, class Acc, class Out>
__device__ void dot_mma_sync(const EA& ea, const EB& eb, const Acc* acc, Out& out) {
  using C = value_of_t<EA>;  // what a shared-memory cell holds
  using AccT = typename Out::value_type;
  using LO = typename Out::layout;
  using P = mma_sync_plan<D, Kind, C, own_layout<EA>, LO, transposed_operand_v<EB>>;
  constexpr int N = P::N, K = P::K, KC = P::KC, lda = P::lda, ldb = P::ldb, NG = P::NG, MT = P::MT, BA = P::BA;
  constexpr bool bt = P::b_transposed;
  // ---- stage: the operands' broadcast blocks (in their own scratch: the dot's is
  // 1024-aligned, dot_scratch), then per K step A and B ----
  EA ax = ea;  // copies whose broadcast blocks can be pointed at their staged copies
  EB bx = eb;
  if constexpr (P::b_rows) stage_each(ax, bx.e);
  else stage_each(ax, bx);
  char* base = dot_scratch<P::scratch_bytes>();
  claim_arena();  // a wgmma dot's operand ring may use it (pipeline.hpp); the loop's barrier follows
  C* A = reinterpret_cast<C*>(base);
  C* B = reinterpret_cast<C*>(base + P::a_bytes);
  auto a_at = [&](int r, int c) { return A + std::int64_t(r) * lda + c; };
  auto b_at = [&](int batch, int k, int n) {  // K x N rows per batch, or N x K
    return B + (bt ? (std::int64_t(batch) * N + n) * ldb + k : (std::int64_t(batch) * KC + k) * ldb + n);
  };

  // Fragment addresses. ldmatrix: lane l gives row l % 8 of matrix l / 8. A: matrices
  // (rows 0-7 | 8-15) x (k lo | hi); B, K x N: (k lo | hi) x (n 0-7 | 8-15), transposed on the
  // way; B, N x K: (n 0-7 | 8-15) x (k lo | hi).
  constexpr int cells16 = 16 / int(sizeof(C));  // cells in a 16-byte row of an 8 x 8 matrix
  const int t = thread_id();
  const int lane = t % 32, g = lane / 4;
  const int lo8 = lane & 7, m1 = (lane >> 3) & 1, m2 = lane >> 4;
  int a_frag[MT], b_batch[MT], b_frag[NG];
  TL_UNROLL
  for (int mt = 0; mt < MT; ++mt) {
    const int row = int(LO::flat(t, 8 * mt * NG) / N) - g;  // first row of the 16-row tile
    a_frag[mt] = (row + lo8 + 8 * m1) * lda + cells16 * m2;
    b_batch[mt] = row / D::M * (bt ? N : KC) * ldb;  // where its batch of B starts
  }
  TL_UNROLL
  for (int ng = 0; ng < NG; ++ng) {
    const int col = int(LO::flat(t, 8 * ng) % N) / 16 * 16;  // first column of the group
    b_frag[ng] = bt ? (col + lo8 + 8 * m2) * ldb + cells16 * m1 : (lo8 + 8 * m1) * ldb + col + 8 * m2;
  }

  float d[LO::slots];
  TL_UNROLL
  for (int i = 0; i < LO::slots; ++i) d[i] = accumulator<float>(acc, i);

  // ---- main loop: per K step, write the operands, then the warp's mma ----
  TL_UNROLL
  for (int kc = 0; kc < K; kc += KC) {
    barrier();  // earlier readers of the scratch are done
    write_a<KC>(ax, K, kc, a_at);
    if constexpr (P::b_rows)  // B = trans(x): x's rows, N x K
      write_a<KC>(bx.e, K, kc, [&](int n, int k) { return b_at(0, k, LO::mma_order ? n : permuted_column(n)); });
    else
      write_b<KC, bt, !LO::mma_order>(bx, K, N, kc, b_at);
    barrier();
    if (!LO::valid(t, 0)) continue;
    TL_UNROLL
    for (int k0 = 0; k0 < KC; k0 += Kind::k) {
      const int b_k = bt ? k0 : k0 * ldb;  // the step's offset in B
      unsigned a[4], b[NG][4];
      TL_UNROLL
      for (int mt = 0; mt < MT; ++mt) {
        ldmatrix_x4<false>(A + a_frag[mt] + k0, a);
        round_fragment<Kind>(a);
        if (mt == 0 || BA > 1) {  // a batched dot: each 16-row tile reads its own batch of B
          TL_UNROLL
          for (int ng = 0; ng < NG; ++ng) {
            ldmatrix_x4<!bt>(B + b_batch[mt] + b_frag[ng] + b_k, b[ng]);
            round_fragment<Kind>(b[ng]);
          }
        }
        TL_UNROLL
        for (int ng = 0; ng < NG; ++ng) {
          TL_UNROLL
          for (int h = 0; h < 2; ++h) {
            float* dd = d + 8 * (mt * NG + ng) + 2 * h;
            float frag[4] = {dd[0], dd[1], dd[4], dd[5]};
            mma_sync<Kind>(frag, a, b[ng] + 2 * h);
            dd[0] = frag[0];
            dd[1] = frag[1];
            dd[4] = frag[2];
            dd[5] = frag[3];
          }
        }
      }
    }
  }

  // ---- epilogue ----
  TL_UNROLL
  for (int i = 0; i < LO::slots; ++i) out.v[i] = convert<AccT>(d[i]);
}

#endif  // TL_DEVICE_PASS

}  // namespace tl::detail::cuda
