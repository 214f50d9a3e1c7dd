// tl/backend/cuda/dot_wgmma.hpp: tl::dot on Hopper's warpgroup tensor cores (wgmma, sm_90a).
//
// A warpgroup (4 warps) multiplies a 64-row tile of A by all of B with one wgmma.mma_async
// per k step, both operands read by the tensor cores straight from shared memory; the
// accumulator stays in the registers of the tiled layout, which puts the warps of a
// warpgroup on 64 consecutive rows and is, slot for slot, wgmma's accumulator fragment: as it
// is in the accumulator order (a computed block's), and up to a column permutation inside
// groups of 16, which B's stored columns undo, in the standard order (a loaded block's).
//
// Shared memory (docs/04-cuda-backend.md draws it): both operands in the hardware's swizzled
// layouts, which a warp's 16-byte stores and the tensor cores' reads both see bank-conflict
// free:
//   K-major (A; B for float32 and the 8-bit floats, which wgmma reads K-major only): rows of W = min(128, KC * size) bytes (64 for a float32 A
//     that is an expression: dot_wgmma says why) in atoms of 8 rows; the
//     16-byte chunk c of row r sits at chunk c ^ (r % 8) (128-byte swizzle; 64 and 32 bytes
//     use the high bits of r % 8). Wider rows are stored as several such columns of atoms.
//   MN-major (B for 16-bit types, N a multiple of 64): atoms of 8 k rows x 64 columns (128
//     bytes), the same swizzle, atoms along N 1024 bytes apart, then along K.
// Both were checked on the device against every descriptor reading (tools/dev/probes/wgmma_probe.cu).
// float32 operands are stored as they are: the tensor cores read them as tf32, dropping the low
// 13 mantissa bits, which is the tf32 the CPU backend emulates (ops/dot.hpp). Rounding them on
// the way in would cost more than the conversion: the compiler then funnels the operand loads
// through one register quad, each waiting for the one before (docs/performance-history.md).
//
// The dot runs in named steps (wgmma_dot below):
//   plan        wgmma_plan: instruction shape, K step, row widths, which operand goes how
//   prologue    the accumulator in wgmma's register order; the tiles cp.async can copy
//               (find_tiles, unless the copy engine runs the call)
//   stage       a K step's A and B into shared memory: cp.async copies, or writes from
//               registers (B first, A's broadcast blocks staged)
//   main loop   per K step: stage, fence, barrier, the wgmma group, wait; or, one K step a
//               call, from the operand ring (pipeline.hpp), which the previous call filled;
//               or, descriptor operands with TL_DESCRIPTOR_TMA, from the copy engine's ring
//               (run_from_tma)
//   epilogue    the accumulators into the result block
#pragma once

#include "arch/sm90.hpp"
#include "dot_copy.hpp"
#include "pipeline.hpp"
#include "tensor_maps.hpp"

namespace tl::detail::cuda {

#if TL_DEVICE_PASS

// ---- plan ----

// Does layout LO put every warp on rows (row bits 4.. from warp bits 0..), so that the four
// warps of each warpgroup hold 64 consecutive rows, all columns, in every thread?
template <class LO, int N>
constexpr bool warps_on_rows() {
  constexpr int warp_bits = log2_exact(TL_NUM_WARPS);
  constexpr int col_bits = log2_exact(N);
  bool ok = LO::tiled && warp_bits >= 2 && col_bits >= 4 && LO::bits.thread_used == (1u << (5 + warp_bits)) - 1;
  for (int w = 0; ok && w < warp_bits; ++w)
    ok = col_bits + 4 + w < LO::bits.bits && LO::bits.src[col_bits + 4 + w] == -1 - (5 + w);
  return ok;
}

// What a wgmma dot of D = dot_shapes<...> with element type T and result layout LO looks like.
// ARegs: A goes to the tensor cores from registers (wgmma_plan_for decides, a_fragment_layout
// checks the layout), so only B takes shared memory.
template <class D, class T, class MmaKind, class LO, bool ARegs = false, bool BTransposed = false>
struct wgmma_plan {
  using kind = MmaKind;  // mma_kinds.hpp, or void: no tensor cores for T
  static constexpr bool a_regs = ARegs;
  static constexpr int size = int(sizeof(T));
  static constexpr int M = D::M, N = D::N, K = D::K;
  // B = trans(x) (transposed_operand): x's rows stored as they are, K-major (not with A from
  // registers, whose kperm order scatters a row's chunks).
  static constexpr bool b_rows = BTransposed && !ARegs;
  // B as stored: K x N rows (MN-major, 16-bit types only) or N x K (K-major, transposed).
  static constexpr bool b_mn_major = size == 2 && N % 64 == 0 && !b_rows;
  // Columns of B per instruction: the largest of 256, 128, .. 16 dividing N.
  static constexpr int piece = N % 256 == 0 ? 256 : N % 128 == 0 ? 128 : N % 64 == 0 ? 64 : N % 32 == 0 ? 32 : 16;
  static constexpr int bytes(int kc) { return ((a_regs ? 0 : M) + N) * kc * size; }
  // The K step: K halved while A and B exceed the budget (the row stays a whole swizzle width).
  static constexpr int kc() {
    int k = K;
    while (bytes(k) > dot_smem_budget && (k / 2) * size >= 32 && k % 2 == 0) k /= 2;
    return k;
  }
  static constexpr int KC = kc();
  static constexpr int W = KC * size >= 128 ? 128 : KC * size;  // K-major row width (bytes)
  static constexpr bool ok = !std::is_void_v<kind> && D::BA == 1 && warps_on_rows<LO, N>() && M % 64 == 0 &&
                             N % 16 == 0 && (W == 32 || W == 64 || W == 128) && (KC * size) % W == 0 &&
                             K % KC == 0 && bytes(KC) <= dot_arena_max && (!a_regs || KC % 16 == 0);
};

// ---- A from registers ----
// An A that the threads evaluate (an expression, or a block whose tile cp.async cannot copy)
// goes to the tensor cores from registers (wgmma's A fragment) rather than through shared
// memory. The tiled layout gives thread (warp w, lane l) rows 16 w + l / 4 (+ 8) of each
// 64-row tile, the accumulator's, and in each group of 16 columns the 4 consecutive columns
// 4 q .. 4 q + 3 (q = l % 4). The tf32 fragment of a k8 instruction wants columns q and q + 4
// of its 8. K is summed over, so its order is free: the dot reads column 4 q + i of a group of
// 16 as k position kperm(4 q + i) = q + 4 (i % 2) + 8 (i / 2), each thread's 4 registers are
// then the fragments of the group's two k8 instructions as they are, and B's rows are stored
// in the same order.
TL_INLINE constexpr int kperm(int k) { return (k & ~15) | ((k >> 2) & 3) | ((k & 1) << 2) | ((k & 2) << 2); }

// Does layout LA of A [M, K] give each thread the fragment rows of its accumulator (layout
// LO of [M, N]) and 4 consecutive columns 4 (t % 4) + i of each group of 16, in slots
// 8 (mt K / 16 + u) + 4 r + i?
template <class LA, class LO, int M, int N, int K>
constexpr bool a_fragment_layout() {
  constexpr int NG = N / 16, UG = K / 16;
  if constexpr (!LA::tiled || !LO::tiled || K % 16 != 0 || N % 16 != 0) {
    return false;
  } else {
    constexpr int MT = LO::slots / 8 / NG;
    bool ok = LA::slots == 8 * MT * UG;
    for (int t = 0; ok && t < threads; ++t)
      for (int mt = 0; mt < MT; ++mt)
        for (int r = 0; r < 2; ++r) {
          const std::int64_t row = LO::flat(t, 8 * mt * NG + 4 * r) / N;
          for (int u = 0; u < UG; ++u)
            for (int i = 0; i < 4; ++i)
              ok = ok && LA::flat(t, 8 * (mt * UG + u) + 4 * r + i) == row * K + 16 * u + 4 * (t % 4) + i;
        }
    return ok;
  }
}

// The plan of a dot of D = dot_shapes<...> on instruction kind Kind, A given by EA, into Out.
// A comes from registers in tf32 (fp16 and bf16 fragments would need a 16-bit form of kperm),
// for an A the threads evaluate themselves (one that cp.async can copy stays in shared memory,
// where the copy puts it without registers).
template <class D, class Kind, class EA, class EB, class Out>
struct wgmma_plan_for {
  using LO = typename Out::layout;
  static constexpr bool a_regs = std::is_same_v<Kind, mma_tf32> && !async_operand<EA>() &&
                                 a_fragment_layout<own_layout<EA>, LO, D::M, D::N, D::K>();
  using type = wgmma_plan<D, value_of_t<EA>, Kind, LO, a_regs, transposed_operand_v<EB>>;
  static constexpr bool ok = type::ok;
};

// ---- shared-memory layouts ----
// Byte offset of cell (r, k) of a K-major operand of `rows` rows, rows W bytes wide.
template <int W, int Size>
TL_INLINE constexpr int kmajor_offset(int r, int k, int rows) {
  constexpr int shift = W == 128 ? 0 : W == 64 ? 1 : 2;  // the row bits the swizzle uses
  const int kb = k * Size;
  return (kb / W) * (rows * W) + r * W + ((((kb % W) >> 4) ^ ((r & 7) >> shift)) << 4) + (kb & 15);
}
// Byte offset of cell (k, n) of an MN-major 16-bit operand N columns wide.
template <int N>
TL_INLINE constexpr int mn_major_offset(int k, int n) {
  return (n >> 6) * 1024 + (k >> 3) * (N / 64 * 1024) + (k & 7) * 128 + (((((n & 63) * 2) >> 4) ^ (k & 7)) << 4) +
         ((n * 2) & 15);
}


// ---- the dot ----

// The expression whose tiles a dot copies for B: B itself, or x for B = trans(x).
template <class EB, bool Rows>
struct b_source {
  using type = EB;
};
template <class EB>
struct b_source<EB, true> {
  using type = std::remove_cvref_t<decltype(std::declval<EB>().e)>;
};

// out = acc + a @ b on wgmma (P = wgmma_plan<...>, ok), one call's state and steps.
template <class P, class EA, class EB, class Out>
struct wgmma_dot {
  using T = value_of_t<EA>;
  using AccT = typename Out::value_type;
  using Kind = typename P::kind;
  using LO = typename Out::layout;
  static constexpr int M = P::M, N = P::N, K = P::K, KC = P::KC, W = P::W, size = P::size, piece = P::piece;
  // B's columns as stored: in memory order for a result in the accumulator order (16-byte
  // copies), else permuted in pairs (permuted_column) to give the standard order's registers.
  static constexpr bool permuted = !LO::mma_order;
  static constexpr bool a_regs = P::a_regs;
  // A's columns in registers at once, with A from registers: 32 (fewer cost a barrier per
  // group of columns, more raise the kernel's registers; docs/performance-history.md).
  static constexpr int KA = KC < 32 ? KC : 32;
  // A's row width. When A is an expression, its threads store it 16 bytes a lane (4 float32
  // cells), and the 8 lanes of a store phase hold 4 chunks of rows r and r + 1: in 128-byte
  // rows both rows' chunks swizzle to the same 4 bank groups (a 2-way conflict on every store),
  // in 64-byte rows the two rows are 64 bytes apart. A copied by cp.async (8 lanes on one
  // 128-byte row) and B's transposed 4-byte stores are conflict-free in 128-byte rows and not in
  // 64-byte ones, so they keep W.
  static constexpr int WA = size == 4 && W == 128 && !async_operand<EA>() ? 64 : W;
  static constexpr int a_bytes = a_regs ? 0 : M * KC * size;
  // A K-major B (float32) is copied into its transposed place only when A comes from
  // registers: with A copied too, its 4-byte copies were slower than its loads and transposed
  // stores; with A from registers they are faster (docs/performance-history.md).
  static constexpr bool b_rows = P::b_rows;
  // With b_rows the tile copied is x's (B = trans(x)): N rows of K cells.
  using BSource = typename b_source<EB, b_rows>::type;
  // A K-major B loaded column by column (async_columns_operand) is copied as the rows of
  // trans(B) too, when its stride along K is 1 at run time; else it is written from registers.
  static constexpr bool b_columns = !b_rows && !P::b_mn_major && !a_regs && async_columns_operand<EB>();
  // B's tile copied as K-major rows of K cells, as stored: x's rows or B's columns.
  static constexpr bool b_kmajor_tile = b_rows || b_columns;
  static constexpr bool b_copyable =
      b_rows ? async_operand<BSource>() : b_columns || P::b_mn_major || (a_regs && transposed_copy_ok<KC, N, size>);
  // B's other place, taken at run time when its tile cannot be copied as the plan stores it
  // but can be copied into the other layout (16-bit B, N a multiple of 64): an MN-major B stored
  // by columns goes K-major (copied as b_columns); a K-major trans(x) whose x is stored by
  // columns (so that trans(x) is row-major: attention backward's trans(qT)) goes MN-major.
  static constexpr bool b_alt_kmajor = P::b_mn_major && !a_regs && async_columns_operand<EB>();
  static constexpr bool b_alt_mn = b_rows && size == 2 && N % 64 == 0 && async_columns_operand<BSource>();
  static constexpr bool b_alt = b_alt_kmajor || b_alt_mn;
  // Can the dot run from the operand ring (run_from_ring)? Both tiles copied whole, K one step.
  static constexpr bool ring_capable =
      !a_regs && K == KC && (P::b_mn_major || b_kmajor_tile) && async_operand<EA>() && b_copyable;
  // A ring buffer's bytes, and the code of this dot shape that owns the ring (pipeline.hpp).
  static constexpr unsigned ring_buffer_bytes = (unsigned(P::bytes(KC)) + 1023) / 1024 * 1024;
  static constexpr unsigned ring_plan = 1u + (unsigned(M / 64 - 1) | unsigned(N / 16 - 1) << 6 | unsigned(KC / 8 - 1) << 12 |
                                              unsigned(size) << 20 | unsigned(permuted) << 24 | unsigned(b_kmajor_tile) << 25);
  // The accumulator in wgmma's register order, per 16-row slot group mt and piece of B.
  static constexpr int NG = N / 16, MT = LO::slots / 8 / NG, PIECES = N / piece;

  float d[MT][PIECES][piece / 2];
  int a_row[MT];  // the first row of each slot group's 64-row tile
  async_tile<T> a_tile, b_tile;
  async_tile<T> b_alt_tile;  // B's tile for its other place (b_alt), found when b_tile is not ok
  char* A;  // the operands in the dot's scratch
  char* B;

  // Register 4j + 2r + b of n8 tile j is row g + 8r, column 8j + 2q + b of the piece as stored,
  // which is slot 8 (mt NG + ng) + 4r + 2h + b for the stored column 16 ng + 8h + 2q + b.
  TL_INLINE static int slot_of(int mt, int p, int i) {
    const int j = p * piece / 8 + i / 4, r = (i / 2) & 1, b = i & 1;
    return 8 * (mt * NG + j / 2) + 4 * r + 2 * (j & 1) + b;
  }

  // Pins the accumulator registers here (an empty asm that reads and writes each), after a
  // wgmma wait and before the instructions are issued: the compiler then moves no access to
  // them across the wait or the issue, which ptxas would answer by inserting waits itself or by
  // serializing every wgmma of the kernel.
  __device__ __forceinline__ void fence_accumulators() {
    TL_UNROLL
    for (int mt = 0; mt < MT; ++mt)
      TL_UNROLL
      for (int p = 0; p < PIECES; ++p)
        TL_UNROLL
        for (int i = 0; i < piece / 2; ++i) asm volatile("" : "+f"(d[mt][p][i])::"memory");
  }

  // ---- prologue ----
  template <class Acc>
  __device__ __forceinline__ wgmma_dot(const Acc* acc) {
    char* const base = dot_scratch<P::bytes(KC), ring_capable || tma_capable>();
    A = base;
    B = base + a_bytes;
    const int t = thread_id();
    TL_UNROLL
    for (int mt = 0; mt < MT; ++mt)
      TL_UNROLL
      for (int p = 0; p < PIECES; ++p)
        TL_UNROLL
        for (int i = 0; i < piece / 2; ++i) d[mt][p][i] = accumulator<float>(acc, slot_of(mt, p, i));
    TL_UNROLL
    for (int mt = 0; mt < MT; ++mt) a_row[mt] = int(LO::flat(t, 8 * mt * NG) / N) & ~63;
  }
  // The tiles cp.async can copy (not needed when the copy engine ran the call).
  __device__ __forceinline__ void find_tiles(const EA& ea, const EB& eb) {
    a_tile = async_tile_of(ea);
    if constexpr (b_copyable && b_rows) b_tile = async_tile_of(eb.e);
    else if constexpr (b_columns) b_tile = async_columns_tile_of(eb);
    else if constexpr (b_copyable) b_tile = async_tile_of(eb);
    if constexpr (b_alt_kmajor) {
      if (!b_tile.ok) b_alt_tile = async_columns_tile_of(eb);
    } else if constexpr (b_alt_mn) {
      if (!b_tile.ok) b_alt_tile = async_columns_tile_of(eb.e);
    }
  }

  // ---- stage ----
  // Where cells go in shared memory (operand buffers at Ab and Bb: the dot's scratch, or one
  // of the ring's). With A from registers, B's rows are in kperm order.
  TL_INLINE static auto a_at(char* Ab) {
    return [=](int r, int c) { return reinterpret_cast<T*>(Ab + kmajor_offset<WA, size>(r, c, M)); };
  }
  template <bool MnMajor = P::b_mn_major>
  TL_INLINE static auto b_at(char* Bb) {
    return [=](int, int k, int n) {  // one batch
      const int kk = a_regs ? kperm(k) : k;
      return reinterpret_cast<T*>(Bb + (MnMajor ? mn_major_offset<N>(kk, n) : kmajor_offset<W, size>(n, kk, N)));
    };
  }
  // A K step's A tile from `from` (cp.async, 16 bytes a copy).
  __device__ __forceinline__ void copy_a(const T* from, char* Ab) const {
    copy_tile<M, KC, 16>(from, a_tile.row_stride, a_at(Ab));
  }
  // A K step's B tile at `from`, rows row_stride apart, into Bb stored MN-major or K-major:
  // KRows, a tile of K-major rows (x's rows, B's columns), 16 bytes a copy; else K x N rows, 16
  // bytes a copy, or 4 with the columns permuted in pairs.
  template <bool KRows, bool MnMajor>
  __device__ __forceinline__ void copy_b_tile(const T* from, std::int64_t row_stride, char* Bb) const {
    const auto at = b_at<MnMajor>(Bb);
    if constexpr (KRows)
      copy_tile<N, KC, 16>(from, row_stride, [&](int n, int k) { return at(0, k, permuted ? permuted_column(n) : n); });
    else if constexpr (permuted)
      copy_tile<KC, N, 4>(from, row_stride, [&](int k, int n) { return at(0, k, permuted_column(n)); });
    else
      copy_tile<KC, N, 16>(from, row_stride, [&](int k, int n) { return at(0, k, n); });
  }
  // A K step's B tile from `from` (a K-major B that is neither: copied into its transposed place).
  __device__ __forceinline__ void copy_b(const T* from, char* Bb) const {
    if constexpr (b_kmajor_tile || P::b_mn_major)
      copy_b_tile<b_kmajor_tile, P::b_mn_major>(from, b_tile.row_stride, Bb);
    else if constexpr (b_copyable)
      copy_tile_transposed<KC, N, permuted>(from, b_tile.row_stride, [&, at = b_at(Bb)](int k, int s) { return at(0, k, s); });
  }
  // A K step's B tile into its other place (b_alt), from b_alt_tile's `from`: B's columns as
  // K-major rows, or trans(x)'s rows (x's columns) MN-major.
  __device__ __forceinline__ void copy_b_alt(const T* from, char* Bb) const {
    if constexpr (b_alt) copy_b_tile<b_alt_kmajor, !P::b_mn_major>(from, b_alt_tile.row_stride, Bb);
  }
  // Does this call store B in its other place?
  __device__ __forceinline__ bool b_in_alt() const { return b_alt && !b_tile.ok && b_alt_tile.ok; }

  // The K step at kc into the dot's scratch: copies where the tiles allow, else writes from
  // registers (a loaded block that dropped them is loaded again). With A from registers only B.
  __device__ __forceinline__ void stage_step(int kc, const EA& ax, const EB& bx, bool b_copied_already) const {
    if constexpr (!a_regs) {
      if (a_tile.ok) copy_a(a_tile.origin + kc, A);
      else write_a<KC>(registers_unless<true>(a_tile, ax), K, kc, a_at(A));
    }
    if (b_tile.ok) {
      if (!b_copied_already) copy_b(b_tile.origin + (b_kmajor_tile ? kc : kc * b_tile.row_stride), B);
    } else if (b_in_alt()) {
      copy_b_alt(b_alt_tile.origin + (b_alt_kmajor ? kc : kc * b_alt_tile.row_stride), B);
    } else if constexpr (b_rows) {  // x's rows from registers, N x K
      const auto at = b_at(B);
      write_a<KC>(registers_unless<b_copyable>(b_tile, bx.e), K, kc,
                  [&](int n, int k) { return at(0, k, permuted ? permuted_column(n) : n); });
    } else {
      write_b<KC, !P::b_mn_major, permuted>(registers_unless<b_copyable>(b_tile, bx), K, N, kc, b_at(B));
    }
  }

  // ---- main loop ----
  // One K step's instructions with A and B in shared memory (at Ab and Bb), committed as one
  // group. from_base (a ring buffer, chosen at run time): each instruction's descriptors are
  // the buffer's plus the offset in 16-byte units (the address field does not carry over:
  // shared addresses are below 256 KiB). Else (the static scratch) each is computed whole,
  // which the compiler folds into constants (as a base and offsets it took more registers).
  // BMn: B stored MN-major (the plan's layout unless B is in its other place, b_alt).
  template <bool BMn = P::b_mn_major>
  __device__ __forceinline__ void multiply(const char* Ab, const char* Bb, bool from_base) {
    const std::uint64_t a_base = smem_descriptor(Ab, 16, 8 * WA, WA);
    const std::uint64_t b_base =
        BMn ? smem_descriptor(Bb, 1024, N / 64 * 1024, 128) : smem_descriptor(Bb, 16, 8 * W, W);
    auto a_desc = [&](int off) {
      return from_base ? a_base + descriptor_offset(off) : smem_descriptor(Ab + off, 16, 8 * WA, WA);
    };
    auto b_desc = [&](int off) {
      if (from_base) return b_base + descriptor_offset(off);
      return BMn ? smem_descriptor(Bb + off, 1024, N / 64 * 1024, 128) : smem_descriptor(Bb + off, 16, 8 * W, W);
    };
    fence_accumulators();
    wgmma_fence();
    TL_UNROLL
    for (int s = 0; s < KC / Kind::k; ++s) {
      const int kb = s * Kind::k * size;  // the instruction's first byte along K
      TL_UNROLL
      for (int mt = 0; mt < MT; ++mt) {
        const std::uint64_t da = a_desc((kb / WA) * (M * WA) + a_row[mt] * WA + kb % WA);
        TL_UNROLL
        for (int p = 0; p < PIECES; ++p) {
          if constexpr (BMn) {
            // k rows 16 s .. 16 s + 15 are two atoms along K; the piece's atoms along N follow.
            const std::uint64_t db = b_desc((2 * s) * (N / 64 * 1024) + (p * piece / 64) * 1024);
            wgmma<Kind, piece>::template run<0, 1>(d[mt][p], da, db, 1);
          } else {
            const std::uint64_t db = b_desc((kb / W) * (N * W) + p * piece * W + kb % W);
            wgmma<Kind, piece>::run(d[mt][p], da, db, 1);
          }
        }
      }
    }
    wgmma_commit();
  }

  // One K step with A from registers: A's fragments KA columns at a time (registers for all
  // of KC would raise the kernel's beyond 255), two sets so that one group's evaluation
  // overlaps the previous group's instructions. Per 16 columns u, thread t's cells of rows g
  // and g + 8 are the registers of the two k8 instructions (kperm). With B copied, its rows
  // are waited for 16 at a time (its copy's groups), each just before the instructions that
  // read them.
  __device__ __forceinline__ void multiply_a_from_registers(int kc, const EA& ax, bool b_by_groups) {
    const int t = thread_id();
    unsigned af[2][MT][KA / 8][4];
    static_for<KC / KA>([&](auto group) {
      constexpr int ka = decltype(group)::value * KA, set = decltype(group)::value % 2;
      if (b_by_groups) {
        cp_async_wait_group<(KC - ka - KA) / 16>();
        fence_proxy_async();
        barrier();
      }
      if constexpr (ka >= 2 * KA) wgmma_wait<1>();  // the instructions that read this set are done
      TL_UNROLL
      for (int mt = 0; mt < MT; ++mt)
        TL_UNROLL
        for (int u = 0; u < KA / 16; ++u) {
          const int slot = 8 * (mt * (K / 16) + (kc + ka) / 16 + u);
          const auto g = cells<4>(ax, t, slot), g8 = cells<4>(ax, t, slot + 4);
          TL_UNROLL
          for (int h = 0; h < 2; ++h) {
            af[set][mt][2 * u + h][0] = __float_as_uint(g.x[2 * h]);
            af[set][mt][2 * u + h][1] = __float_as_uint(g8.x[2 * h]);
            af[set][mt][2 * u + h][2] = __float_as_uint(g.x[2 * h + 1]);
            af[set][mt][2 * u + h][3] = __float_as_uint(g8.x[2 * h + 1]);
          }
        }
      fence_accumulators();
      wgmma_fence();
      TL_UNROLL
      for (int s = 0; s < KA / Kind::k; ++s) {
        const int kb = (ka + s * Kind::k) * size;
        TL_UNROLL
        for (int mt = 0; mt < MT; ++mt)
          TL_UNROLL
          for (int p = 0; p < PIECES; ++p) {
            const std::uint64_t db = smem_descriptor(B + (kb / W) * (N * W) + p * piece * W + kb % W, 16, 8 * W, W);
            wgmma<Kind, piece>::run_rs(d[mt][p], af[set][mt][s], db, 1);
          }
      }
      wgmma_commit();
    });
  }

  // One K step a call, from the operand ring (pipeline.hpp): this call's tiles were most
  // likely copied by the previous call; this call copies the next step's and returns with its
  // wgmma group running. Used when the launch gave the ring its buffers, both tiles are whole
  // and copyable, and no dot of another shape owns the ring; returns whether it ran. Every
  // instruction here is on the step's path (the issue slots are as busy as the tensor cores):
  // the unit count is a constant, the checks are few, and the descriptors are a base plus
  // constants.
  // KeepRunning: the accumulator is a block the kernel carries from call to call (a computed
  // block: a loop's), which the next call's group chains on; a loaded accumulator, or none,
  // is read by the code after the call, so its group ends in the call.
  template <bool KeepRunning>
  __device__ __forceinline__ bool run_from_ring() {
    if constexpr (ring_capable) {
      constexpr bool keep_running = KeepRunning && may_keep_running;
      constexpr unsigned buffer = ring_buffer_bytes, plan = ring_plan;
      if (!(ring_fits(buffer) && a_tile.ok && b_tile.ok)) return false;
      // The previous call's copies are issued and the header is settled; every thread has
      // waited for the group two ring calls back, which read the buffer copied ahead below.
      barrier();
      dot_ring& ring = ring_header();
      const unsigned owner = ring.plan;
      if (owner != 0 && owner != plan) return false;
      const int t = thread_id();
      const T* const a0 = a_tile.origin;
      const T* const b0 = b_tile.origin;
      const std::int64_t sa = a_tile.row_stride, sb = b_tile.row_stride;
      const T* const a1 = a0 + KC;       // the next step's tiles: A's next columns,
      const T* const b1 = b0 + (b_kmajor_tile ? KC : KC * sb);  // B's next rows (x's or B's next K cells)
      // The unit of a step: A's origin in K steps, modulo 3, so consecutive steps take turns.
      const unsigned unit = unsigned(reinterpret_cast<std::uintptr_t>(a0) / (KC * size) % ring_units);
      const unsigned next_unit = unit == ring_units - 1 ? 0u : unit + 1;
      char* const here = ring_unit(unit, buffer);
      char* const next = ring_unit(next_unit, buffer);
      const ring_tag tag = ring.tags[unit];
      const bool hit = (owner == plan) & (tag.a == a0) & (tag.b == b0) & (tag.stride_a == sa) & (tag.stride_b == sb);
      bool ahead = a_tile.inside(KC, M, KC) & (b_kmajor_tile ? b_tile.inside(KC, N, KC) : b_tile.inside(KC * sb, KC, N));
      auto copy_step = [&](const T* a, const T* b, char* Ab) {
        copy_a(a, Ab);
        copy_b(b, Ab + a_bytes);
      };
      // The group still running (the previous ring call's, in a K loop) reads its unit: it
      // finishes first, in every warpgroup, where this call writes that unit: a miss (whose
      // units follow no previous call's), or a hit whose next unit it is (a loop that walks
      // back).
      const unsigned running = ring.running;
      if (running != 0 && (!hit || running - 1 == next_unit)) {
        wgmma_wait<0>();
        fence_accumulators();
        barrier();
      }
      if (!hit) {
        // The first call of a loop, or a loop that does not walk K one step a call: the copy
        // in flight lands first (this thread's goes to the places its copies now go: same
        // shape), then this step is copied too, A only when the unit does not hold it. A loop whose A
        // stays (attention's q: its B walks N, not K) is not a K loop: nothing is copied ahead
        // for it. (Decided here, so that a hit's path stays as short as it was.)
        const bool a_kept = (owner == plan) & (tag.a == a0) & (tag.stride_a == sa);
        cp_async_wait_all();
        if (!a_kept) copy_a(a0, here);
        copy_b(b0, here + a_bytes);
        cp_async_commit();
        ahead = ahead & !a_kept;
      }
      if (ahead) copy_step(a1, b1, next);
      cp_async_commit();           // one group a step, empty or not:
      cp_async_wait_group<1>();    // this step's tiles are in
      if (t == 0) ring.tags[next_unit] = ahead ? ring_tag{a1, b1, sa, sb} : ring_tag{};  // read by the next call
      fence_proxy_async();
      barrier();  // every thread's copies are in; every thread has read the header
      if (t == 0) {
        ring.running = keep_running && ahead ? 1 + unit : 0;
        if (!hit) {
          ring.plan = plan;
          ring.tags[unit] = ring_tag{a0, b0, sa, sb};
        }
      }
      multiply(here, here + a_bytes, true);
      // A K loop's group runs on under the caller's next step (the next call's copies go to
      // the unit after next); any other call's ends here, as a call without the ring does.
      if (keep_running && ahead) {
        wgmma_wait<1>();
      } else {
        wgmma_wait<0>();
        fence_accumulators();
      }
      return true;
    } else {
      return false;
    }
  }

  // ---- the bulk tensor copy engine (TMA, sm_90a) ----
  // Both operands descriptor loads of rank 2 (A's block M x K, B = trans(x) with x's N x K),
  // K one step, B's columns in memory order: each tile is one box per W bytes of its rows,
  // which the copy engine writes in the K-major swizzled layout as it is (tensor_maps.hpp).
  // With the ring (pipeline.hpp) the calls take its `count` buffers in turn, and the tiles of
  // the next count - 1 calls, as predicted, are in flight while a call's own are multiplied. A
  // call is a hit when its maps are the previous call's (same keys) and its buffer holds its
  // tiles: every thread sees that from the header, waits for its buffer and issues its wgmma;
  // thread 0 then copies the tiles count - 1 calls ahead into the buffer the previous call used,
  // while the tensor cores run. Any other call (the first of a loop, a new map, a prediction
  // that missed) is a miss: warp 0 finds or builds the maps, waits for what is in flight, copies
  // this call's tiles and the next ones, and says where to wait (`go`). Without the ring
  // (num_stages = 1, no room, a dot of another shape owns it) each call copies into the arena
  // and waits.
  using ESource = std::remove_cvref_t<EA>;
  using BSourceX = std::remove_cvref_t<BSource>;
  // The tiles the copy engine can write as multiply reads them (also a pipelined loop's, loop.hpp).
  static constexpr bool tma_tiles = !a_regs && b_rows && K == KC && WA == W && !permuted &&
                                    descriptor_rank_v<ESource> == 2 && descriptor_rank_v<BSourceX> == 2;
  static constexpr bool tma_capable =
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) && TL_DESCRIPTOR_TMA
      tma_tiles;
#else
      false;
#endif
  static constexpr unsigned tma_plan = ring_plan | 1u << 26;  // the ring's owner: not the cp.async ring's plan
  // May a K loop's call from the ring return with its wgmma group running? Not where the call
  // may also run from the copy engine (TL_DESCRIPTOR_TMA): the two paths' results meet in
  // registers, and ptxas then serialized every wgmma of the kernel (C7515).
  static constexpr bool may_keep_running = !tma_capable;

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  // Tensors of more rows than a map's 32-bit coordinates reach are read through windows of rows:
  // the map of the window that holds the block's first row, starting at a multiple of 2^30 rows
  // and at most 2^31 - 1 rows long, so a block and the next calls' blocks stay inside it.
  static constexpr std::int64_t window_rows = std::int64_t(1) << 30;
  static constexpr std::int64_t most = 0x7fffffff;
  __device__ __forceinline__ static std::int64_t window_start(const descriptor_source<2>& s) {
    return s.offsets[0] > 0 ? s.offsets[0] / window_rows * window_rows : 0;
  }
  // Can the copy engine read this descriptor's blocks? (Its rules: a 16-byte aligned base and row
  // stride, unit stride along rows, sizes and offsets in 32 bits within the window.)
  __device__ __forceinline__ static bool tma_fits(const descriptor_source<2>& s) {
    const auto base = reinterpret_cast<std::uintptr_t>(s.base);
    const std::int64_t row_bytes = s.strides[0] * size;
    return s.strides[1] == 1 && base % 16 == 0 && row_bytes > 0 && row_bytes % 16 == 0 && row_bytes < (std::int64_t(1) << 40) &&
           s.shape[0] - window_start(s) >= 1 && s.shape[1] >= 1 && s.shape[1] <= most && s.offsets[0] >= -most &&
           s.offsets[1] >= -most && s.offsets[1] <= most;
  }
  // The key of a descriptor's map (its window's) whose boxes are Rows rows of W bytes.
  template <int Rows>
  __device__ __forceinline__ static tma_key key_of(const descriptor_source<2>& src) {
    const std::int64_t start = window_start(src);
    const std::int64_t rows = src.shape[0] - start;
    tma_key key;
    key.base = static_cast<const char*>(src.base) + start * src.strides[0] * size;
    key.dims[0] = std::uint64_t(src.shape[1]);
    key.dims[1] = std::uint64_t(rows < most ? rows : most);
    key.row_stride = std::uint64_t(src.strides[0]) * size;
    key.box = unsigned(Rows) | unsigned(W) << 9 | unsigned(size) << 20;
    return key;
  }
  __device__ __forceinline__ static bool same_key(const tma_key& x, const tma_key& y) {
    return x.base == y.base && x.dims[0] == y.dims[0] && x.dims[1] == y.dims[1] && x.row_stride == y.row_stride &&
           x.box == y.box;
  }
  // The map for a key, found or built by warp 0.
  template <int Rows>
  __device__ __forceinline__ static const void* tma_map(tma_state& s, const tma_key& key, const void* keep) {
    tensor_map_fields f;
    f.base = key.base;
    f.dims[0] = key.dims[0];
    f.dims[1] = key.dims[1];
    f.row_stride = key.row_stride;
    f.box[0] = unsigned(W / size);
    f.box[1] = unsigned(Rows);
    return tensor_map_for<size == 1 ? 0u : size == 2 ? 1u : 2u, W == 128 ? 3u : W == 64 ? 2u : 1u>(s, key, f, keep);
  }
  __device__ __forceinline__ static bool same_a(const tma_tag& x, const tma_tag& y) {
    return x.map_a == y.map_a && x.a[0] == y.a[0] && x.a[1] == y.a[1];
  }
  __device__ __forceinline__ static bool same(const tma_tag& x, const tma_tag& y) {
    return same_a(x, y) && x.map_b == y.map_b && x.b[0] == y.b[0] && x.b[1] == y.b[1];
  }
  __device__ __forceinline__ static tma_tag tag_of(const void* map_a, const void* map_b, const descriptor_source<2>& sa,
                                                   const descriptor_source<2>& sb) {
    tma_tag t;
    t.map_a = map_a;
    t.map_b = map_b;
    t.a[0] = int(sa.offsets[0] - window_start(sa));
    t.a[1] = int(sa.offsets[1]);
    t.b[0] = int(sb.offsets[0] - window_start(sb));
    t.b[1] = int(sb.offsets[1]);
    return t;
  }
  // The step from one call's tiles to the next call's, most likely: the step since the previous
  // call, when each operand moved along one axis (a K loop; attention's keys, whose q stays);
  // else one K step.
  struct tma_step {
    int a0 = 0, a1 = KC, b0 = 0, b1 = KC;
  };
  __device__ __forceinline__ static tma_step step_of(const tma_tag& now, const tma_tag& last) {
    tma_step d;
    const int da0 = now.a[0] - last.a[0], da1 = now.a[1] - last.a[1];
    const int db0 = now.b[0] - last.b[0], db1 = now.b[1] - last.b[1];
    if (last.map_a == now.map_a && last.map_b == now.map_b && (da0 == 0 || da1 == 0) && (db0 == 0 || db1 == 0) &&
        (da0 | da1 | db0 | db1) != 0)
      d = tma_step{da0, da1, db0, db1};
    return d;
  }
  __device__ __forceinline__ static tma_tag stepped(tma_tag t, const tma_step& d) {
    t.a[0] += d.a0;
    t.a[1] += d.a1;
    t.b[0] += d.b0;
    t.b[1] += d.b1;
    return t;
  }
  // Thread 0: a buffer's tiles (A only when the buffer does not hold it), completing on bar.
  __device__ __forceinline__ void tma_copy(const tma_tag& t, char* buf, std::uint64_t* bar, bool with_a) const {
    constexpr int boxes = KC * size / W, box_cols = W / size;
    mbarrier_arrive_expect_tx(bar, unsigned(((with_a ? M : 0) + N) * KC * size));
    if (with_a)
      TL_UNROLL
      for (int j = 0; j < boxes; ++j) tma_load_2d(buf + j * M * W, t.map_a, t.a[1] + j * box_cols, t.a[0], bar);
    TL_UNROLL
    for (int j = 0; j < boxes; ++j) tma_load_2d(buf + a_bytes + j * N * W, t.map_b, t.b[1] + j * box_cols, t.b[0], bar);
  }
  // Thread 0: tile t into ring buffer w (owned: the ring's tags are this plan's).
  __device__ __forceinline__ void tma_fill(tma_state& s, const tma_tag& t, unsigned w, bool owned) const {
    tma_copy(t, ring_buffers() + w * ring_buffer_bytes, &s.full[w], !(owned && same_a(s.tags[w], t)));
    s.tags[w] = t;
    s.pending |= 1u << w;
  }
  // Thread 0, after a hit in buffer u of `count`: the tiles count - 1 calls ahead into the buffer
  // the previous call used.
  __device__ __forceinline__ void tma_ahead(tma_state& s, const tma_tag& now, const tma_tag& last, unsigned u,
                                            unsigned count) const {
    const unsigned far = (u + count - 1) % count;
    tma_fill(s, stepped(s.tags[(u + count - 2) % count], step_of(now, last)), far, true);
    s.last = now;
    s.next_unit = (u + 1) % count;
    s.phase ^= 1u << u;
    s.pending &= ~(1u << u);
  }
  // Warp 0, after a miss: the maps, this call's copies and the next calls', and `go`.
  __device__ __forceinline__ void tma_miss(const tma_key& ka, const tma_key& kb, const descriptor_source<2>& sa,
                                           const descriptor_source<2>& sb, bool ring_ok) const {
    dot_ring& r = ring_header();
    tma_state& s = r.tma;
    const void* const map_a = tma_map<M>(s, ka, nullptr);
    const void* const map_b = tma_map<N>(s, kb, map_a);
    if (thread_id() != 0) return;
    if (!map_a || !map_b) {
      s.go = 0;
      return;
    }
    s.memo.key_a = ka;
    s.memo.key_b = kb;
    s.memo.map_a = map_a;
    s.memo.map_b = map_b;
    const tma_tag now = tag_of(map_a, map_b, sa, sb);
    if (!(ring_ok && (r.plan == 0 || r.plan == tma_plan))) {
      const unsigned parity = (s.phase >> arena_unit) & 1u;
      tma_copy(now, A, &s.full[arena_unit], true);
      s.phase ^= 1u << arena_unit;
      s.go = 1u + arena_unit + 8u * parity;
      return;
    }
    const bool owned = r.plan == tma_plan;
    const unsigned count = r.ring_count, u = s.next_unit % count;
    drain_all(s);
    tma_fill(s, now, u, owned);
    const tma_step d = step_of(now, s.last);
    tma_tag next = now;
    for (unsigned j = 1; j < count; ++j) {
      next = stepped(next, d);
      tma_fill(s, next, (u + j) % count, owned);
    }
    s.last = now;
    s.next_unit = (u + 1) % count;
    r.plan = tma_plan;
    const unsigned parity = (s.phase >> u) & 1u;
    s.phase ^= 1u << u;
    s.pending &= ~(1u << u);
    s.go = 1u + u + 8u * parity;
  }
#endif

  // The call through the copy engine; returns whether it ran (else the cp.async paths run).
  __device__ __forceinline__ bool run_from_tma(const EA& ea, const EB& eb) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) && TL_DESCRIPTOR_TMA
    if constexpr (tma_capable) {
      const auto& sa = ea.source;
      const auto& sb = eb.e.source;
      if (!(ea.fresh && eb.e.fresh && tma_fits(sa) && tma_fits(sb))) return false;
      const tma_key ka = key_of<M>(sa), kb = key_of<N>(sb);
      const bool ring_ok = ring_fits(ring_buffer_bytes);
      barrier();  // the previous call's instructions are done with the buffers; the header is settled
      dot_ring& r = ring_header();
      tma_state& s = r.tma;
      // A hit? (Read by every thread before the second barrier; written by thread 0 after it.)
      const unsigned u = s.next_unit, phase = s.phase, pending = s.pending, count = r.ring_count;
      const tma_memo memo = s.memo;
      const tma_tag now = tag_of(memo.map_a, memo.map_b, sa, sb);
      const tma_tag last = s.last;
      const bool hit = ring_ok && r.plan == tma_plan && memo.map_a != nullptr && same_key(memo.key_a, ka) &&
                       same_key(memo.key_b, kb) && ((pending >> u) & 1u) &&
                       !((pending >> ((u + count - 1) % count)) & 1u) && same(s.tags[u], now);
      if constexpr (TL_COUNT_TMA_CALLS)
        if (thread_id() == 0) {
          atomicAdd(&the_map_pool().calls, 1ull);
          if (!hit) atomicAdd(&the_map_pool().misses, 1ull);
        }
      if (hit) {
        // The tiles are most likely in already; thread 0 copies the next ones while the tensor
        // cores multiply these.
        char* const here = ring_buffers() + u * ring_buffer_bytes;
        mbarrier_wait(&s.full[u], (phase >> u) & 1u);
        barrier();  // every thread has read the header
        multiply(here, here + a_bytes, true);
        if (thread_id() == 0) tma_ahead(s, now, last, u, count);
        wgmma_wait<0>();
        fence_accumulators();
        return true;
      }
      claim_arena();  // the copies may go to the arena, the cp.async ring's unit 0
      barrier();      // every thread has read the header
      if (thread_id() < 32) tma_miss(ka, kb, sa, sb, ring_ok);
      barrier();  // go is written
      const unsigned go = s.go;
      if (go == 0) return false;
      const unsigned unit = (go - 1u) & 7u;
      char* const here = unit == arena_unit ? A : ring_buffers() + unit * ring_buffer_bytes;
      mbarrier_wait(&s.full[unit], (go - 1u) >> 3);
      multiply(here, here + a_bytes, true);
      wgmma_wait<0>();
      fence_accumulators();
      return true;
    }
#endif
    (void)ea;
    (void)eb;
    return false;
  }

  // Every K step from the dot's own scratch.
  __device__ __forceinline__ void run(const EA& ea, const EB& eb) {
    // With A from registers, B's first copy goes first, so that it is in flight while the
    // threads stage what A's evaluation reads, and the staging takes the step's barriers: one
    // before (the previous dot may still read B), one that makes B and the staged blocks
    // visible. (Otherwise each operand is copied or written in turn: issuing both copies
    // before either fallback raised the kernel's registers.)
    claim_arena();  // the ring's unit 0 (pipeline.hpp); a barrier follows before the first write
    EA ax = ea;  // copies whose broadcast blocks can be pointed at their staged copies
    EB bx = eb;
    if constexpr (a_regs) {
      barrier();  // the previous dot's instructions are done with the operands
      if (b_tile.ok) copy_b(b_tile.origin, B);
      stage_each<false>(ax, bx);
    } else if constexpr (b_rows) {
      stage_each(ax, bx.e);
    } else {
      stage_each(ax, bx);
    }
    TL_UNROLL
    for (int kc = 0; kc < K; kc += KC) {
      const bool first_of_a_regs = a_regs && kc == 0;
      if (!first_of_a_regs) barrier();  // the previous step's (or dot's) instructions are done with the operands
      stage_step(kc, ax, bx, first_of_a_regs);
      // With A from registers and B copied, B's rows are waited for by groups
      // (multiply_a_from_registers); else all at once.
      const bool b_by_groups = a_regs && b_tile.ok;
      if (!b_by_groups) {
        if (a_tile.ok || b_tile.ok || b_in_alt()) cp_async_wait_all();
        fence_proxy_async();
        barrier();
      }
      if constexpr (a_regs) multiply_a_from_registers(kc, ax, b_by_groups);
      else if constexpr (b_alt) {
        if (b_in_alt()) multiply<!P::b_mn_major>(A, B, false);
        else multiply(A, B, false);
      } else {
        multiply(A, B, false);
      }
      // Waited for at once: the next step overwrites the operands, and so does the loop's next
      // call (the ring's calls, whose next call writes another unit, leave their group running
      // instead: run_from_ring).
      wgmma_wait<0>();
      fence_accumulators();
    }
  }

  // ---- epilogue ----
  __device__ __forceinline__ void store(Out& out) const {
    TL_UNROLL
    for (int mt = 0; mt < MT; ++mt)
      TL_UNROLL
      for (int p = 0; p < PIECES; ++p)
        TL_UNROLL
        for (int i = 0; i < piece / 2; ++i) out.v[slot_of(mt, p, i)] = convert<AccT>(d[mt][p][i]);
  }
};

// out = acc + a @ b on wgmma (P = wgmma_plan<...>::ok).
template <class P, class EA, class EB, class Acc, class Out>
__device__ void dot_wgmma(const EA& ea, const EB& eb, const Acc* acc, Out& out) {
  wgmma_dot<P, EA, EB, Out> dot(acc);
  if (!dot.run_from_tma(ea, eb)) {
    dot.find_tiles(ea, eb);
    constexpr bool carried = [] {
      if constexpr (std::is_void_v<Acc>) return false;
      else return std::remove_cvref_t<Acc>::block_origin == origin::computed;
    }();
    if (!dot.template run_from_ring<carried>()) dot.run(ea, eb);
  }
  dot.store(out);
}

#endif  // TL_DEVICE_PASS

}  // namespace tl::detail::cuda
