// tl/backend/cuda/dot_wgmma.hpp: tl::dot on Hopper's warpgroup tensor cores (wgmma, sm_90a).
// Included by dot.hpp, whose operand helpers (cells, accumulator, permuted_column) it uses.
//
// A warpgroup (4 warps) multiplies a 64-row tile of A by all of B with one wgmma.mma_async
// per k step, both operands read by the tensor cores straight from shared memory; the
// accumulator stays in the registers of the tiled layout, which puts the warps of a
// warpgroup on 64 consecutive rows and is, slot for slot, wgmma's accumulator fragment: as it
// is in the accumulator order (core/order.hpp), and up to a column permutation inside groups
// of 16, which B's stored columns undo, in the standard order.
//
// Shared memory (docs/04-cuda-backend.md draws it): both operands in the hardware's swizzled
// layouts, which a warp's 16-byte stores and the tensor cores' reads both see bank-conflict
// free:
//   K-major (A; B for float32): rows of W = min(128, KC * size) bytes (64 for a float32 A
//     that is an expression: dot_wgmma says why) in atoms of 8 rows; the
//     16-byte chunk c of row r sits at chunk c ^ (r % 8) (128-byte swizzle; 64 and 32 bytes
//     use the high bits of r % 8). Wider rows are stored as several such columns of atoms.
//   MN-major (B for 16-bit types, N a multiple of 64): atoms of 8 k rows x 64 columns (128
//     bytes), the same swizzle, atoms along N 1024 bytes apart, then along K.
// Both were checked on the device against every descriptor reading (tools/probes/wgmma_probe.cu).
// float32 operands are stored as they are: the tensor cores read them as tf32, dropping the low
// 13 mantissa bits, which is the tf32 the CPU backend emulates (ops/dot.hpp). Rounding them on
// the way in would cost more than the conversion: the compiler then funnels the operand loads
// through one register quad, each waiting for the one before (docs/performance.md, step 16).
#pragma once

#include "pipeline.hpp"
#include "wgmma_instructions.hpp"

namespace tl::detail::cuda {

#if TL_DEVICE_PASS

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
// ARegs: A goes to the tensor cores from registers (dot.hpp decides, a_fragment_layout below
// checks the layout), so only B takes shared memory.
template <class D, class T, class MmaKind, class LO, bool ARegs = false>
struct wgmma_plan {
  using kind = MmaKind;  // mma_kinds.hpp, or void: no tensor cores for T
  static constexpr bool a_regs = ARegs;
  static constexpr int size = int(sizeof(T));
  static constexpr int M = D::M, N = D::N, K = D::K;
  // B as stored: K x N rows (MN-major, 16-bit types only) or N x K (K-major, transposed).
  static constexpr bool b_mn_major = size == 2 && N % 64 == 0;
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
                             K % KC == 0 && bytes(KC) <= 48 * 1024 && (!a_regs || KC % 16 == 0);
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

// ---- operands copied by cp.async ----
// An operand that is a loaded block (expr/loaded.hpp) is read from memory here rather than
// from the registers of its load: when its pointers are affine and its mask convex
// (axis_info.hpp), and at run time the whole tile is masked in with 16-byte aligned rows, the
// threads copy it global -> shared with cp.async, consecutive threads on consecutive chunks of
// a row (whole cache lines per warp, no registers on the way): 16 bytes at a time for A, and
// for B when the result is in the accumulator order; 4 for B when the result is in the
// standard order, whose columns are stored permuted in pairs (a K-major B, float32's, is
// copied cell by cell into its transposed place: copy_tile_transposed). Else the load is done
// again into registers.
// The register copy the load made is then unused, and the compiler drops it.
template <class X>
constexpr bool async_operand() {
  if constexpr (is_loaded_v<X>) {
    using T = value_of_t<X>;
    return affine_access_v<shape_of_t<X>, typename X::ptrs_type, typename X::mask_type, T, 16 / int(sizeof(T))>;
  } else {
    return false;
  }
}

// A loaded operand's tile: its first element and its row stride (elements), when cp.async can
// copy it, and where the first element sits in its buffer (tl::ptr's offset and extent).
template <class T>
struct async_tile {
  const T* origin = nullptr;
  std::int64_t row_stride = 0;
  bool ok = false;
  std::int64_t offset = 0;   // the origin's place in its buffer (elements)
  std::int64_t extent = -1;  // the buffer's elements; -1: unknown
  // Do rows x cols elements from `ahead` elements past the origin, rows row_stride apart, lie
  // inside the buffer? (A tile copied ahead must: its mask is not known yet.)
  __device__ __forceinline__ bool inside(std::int64_t ahead, int rows, int cols) const {
    const std::int64_t first = offset + ahead;
    return extent > 0 && row_stride > 0 && first >= 0 && first + (rows - 1) * row_stride + cols <= extent;
  }
};
template <class X>
__device__ __forceinline__ auto async_tile_of(const X& x) {
  using T = value_of_t<X>;
  using S = shape_of_t<X>;
  async_tile<T> tile;
  if constexpr (async_operand<X>()) {
    if (x.fresh) {
      value_of_t<typename X::ptrs_type> origin;
      std::int64_t stride[S::rank];
      tile.ok = affine_setup<S, 16 / int(sizeof(T))>(x.ptrs, x.mask, origin, stride);
      tile.origin = origin.get();
      tile.row_stride = stride[S::rank - 2];
      tile.offset = origin.offset;
      tile.extent = origin.extent;
    }
  }
  return tile;
}

// The load done again, out of line: a rare path (an edge tile, odd alignment) whose pointer
// and mask work would otherwise count against the registers of the whole kernel.
template <class B, class EP, class EM, class EO>
__device__ __noinline__ void load_again(EP ptrs, EM mask, EO other, source_location where, B& out) {
  load<typename B::value_type, typename B::shape_type>(ptrs, mask, other, where, out);
}

// The operand as written to shared memory when cp.async does not copy it: its registers, or for
// a loaded block that dropped them (the dot was their only use), the load done again.
template <bool Copyable, class T, class X>
__device__ __forceinline__ decltype(auto) registers_unless(const async_tile<T>& tile, const X& x) {
  if constexpr (Copyable && async_operand<X>()) {
    using B = typename X::block_type;
    B again;
    if (!x.fresh) again = static_cast<const B&>(x);
    else if (!tile.ok) load_again(x.ptrs, x.mask, x.other, x.where, again);
    return again;
  } else {
    return (x);
  }
}

// One cp.async of Bytes (16: cached in L2 only; 4 or 8: through L1, the only way for them).
template <int Bytes>
__device__ __forceinline__ void cp_async(void* dst, const void* src) {
  const auto d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (Bytes == 16) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src) : "memory");
  else asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(d), "l"(src), "n"(Bytes) : "memory");
}
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// Waits until at most `pending` (0 .. 7, a constant once unrolled) of this thread's groups are unfinished.
__device__ __forceinline__ void cp_async_wait_group(int pending) {
  switch (pending) {
    case 0: asm volatile("cp.async.wait_group 0;" ::: "memory"); break;
    case 1: asm volatile("cp.async.wait_group 1;" ::: "memory"); break;
    case 2: asm volatile("cp.async.wait_group 2;" ::: "memory"); break;
    case 3: asm volatile("cp.async.wait_group 3;" ::: "memory"); break;
    case 4: asm volatile("cp.async.wait_group 4;" ::: "memory"); break;
    case 5: asm volatile("cp.async.wait_group 5;" ::: "memory"); break;
    case 6: asm volatile("cp.async.wait_group 6;" ::: "memory"); break;
    default: asm volatile("cp.async.wait_group 7;" ::: "memory"); break;
  }
}

constexpr int exact_quotient(int a, int b) { return b > 0 && a % b == 0 ? a / b : 0; }

// Rows x Cols elements at from (row r at from + r * row_stride) to dst(r, c), Bytes per
// cp.async, thread t on chunks t, t + threads, ...
template <int Rows, int Cols, int Bytes, class T, class Dst>
__device__ __forceinline__ void copy_tile(const T* from, std::int64_t row_stride, Dst dst) {
  constexpr int per_chunk = Bytes / int(sizeof(T));
  constexpr int row_chunks = Cols / per_chunk;
  constexpr int chunks = Rows * row_chunks;
  const int t = thread_id();
  constexpr int groups = exact_quotient(threads, row_chunks);  // rows covered by one pass (0: not whole rows)
  constexpr int rows_each = exact_quotient(Rows, groups);      // rows per thread, grouped
  if constexpr (groups % 8 != 0 && rows_each % 8 == 0 && rows_each > 0) {
    // Thread t copies chunk t % row_chunks of rows g * Rows / groups + i (g = t / row_chunks): the
    // row's place in its 8-row swizzle atom is i % 8, known at compile time, so the shared
    // addresses of the passes differ by constants (a pass of `groups` rows, fewer than 8,
    // would give each pass its own swizzle and cost a register each).
    const int r0 = t / row_chunks * rows_each, k = t % row_chunks * per_chunk;
    const T* p = from + r0 * row_stride + k;
    TL_UNROLL
    for (int i = 0; i < rows_each; ++i) {
      cp_async<Bytes>(dst(r0 + i, k), p);
      p += row_stride;
    }
  } else if constexpr (groups > 0) {
    // Each pass covers `groups` whole rows: one pointer, stepped (per-chunk row indices kept
    // as 64-bit loop invariants cost the kernel 30 registers).
    constexpr int rows_per_pass = groups;
    const int r0 = t / row_chunks, k = t % row_chunks * per_chunk;
    const T* p = from + r0 * row_stride + k;
    const std::int64_t step = rows_per_pass * row_stride;
    TL_UNROLL
    for (int i = 0; i < (Rows + rows_per_pass - 1) / rows_per_pass; ++i) {
      if (Rows % rows_per_pass != 0 && r0 + i * rows_per_pass >= Rows) break;
      cp_async<Bytes>(dst(r0 + i * rows_per_pass, k), p);
      p += step;
    }
  } else {
    TL_UNROLL
    for (int i = 0; i < (chunks + threads - 1) / threads; ++i) {
      const int c = i * threads + t;
      if (chunks % threads != 0 && c >= chunks) break;
      const int r = c / row_chunks, k = c % row_chunks * per_chunk;
      cp_async<Bytes>(dst(r, k), from + r * row_stride + k);
    }
  }
}

// Position, inside its group of 16, of the logical column stored in row s of a K-major B
// (the inverse of permuted_column): stored row 8h + 2a + b holds column 4a + 2h + b.
TL_INLINE constexpr int unpermuted_column(int s) { return (s & ~15) | ((s & 6) << 1) | ((s >> 2) & 2) | (s & 1); }
static_assert([] {
  for (int s = 0; s < 64; ++s)
    if (permuted_column(unpermuted_column(s)) != s) return false;
  return true;
}());

// Can copy_tile_transposed copy a Rows x Cols tile of 32-bit cells?
template <int Rows, int Cols, int Size>
constexpr bool transposed_copy_ok = Size == 4 && Rows % 16 == 0 && Cols % (16 * (threads / 32)) == 0;

// Rows x Cols 32-bit cells at from (row k at from + k * row_stride) to the K-major place
// dst(k, stored row) of their column, whose rows are B's columns, permuted (permuted_column)
// unless the result is in the accumulator order,
// 4 bytes per cp.async; B's rows are stored in kperm order (A from registers). A warp's lanes
// cover 4 rows x 8 stored rows, lane l on stored row l % 8 and on row i + 4 (l / 8) of a
// group of 16 (i = 0 .. 3 in turn): the 8 stored rows are consecutive, so the 16-byte chunks
// they get sit in 8 different bank groups (the swizzle), and kperm puts the 4 rows in the 4
// banks of one chunk: no bank conflict. In memory the 8 columns are pairs spread over 16 (the
// permutation); the warp's next instruction reads the other 8, from lines still in L1. Each
// group of 16 rows is one cp.async group, so that it can be waited for alone.
template <int Rows, int Cols, bool Permuted, class T, class Dst>
__device__ __forceinline__ void copy_tile_transposed(const T* from, std::int64_t row_stride, Dst dst) {
  static_assert(transposed_copy_ok<Rows, Cols, int(sizeof(T))>);
  constexpr int warps = threads / 32, groups = Cols / 8 / warps;  // groups of 8 stored rows per warp
  const int lane = thread_id() % 32, warp = thread_id() / 32;
  const int sub = lane % 8, g4 = lane / 8, s0 = warp * groups * 8;  // groups is even: s0 is a multiple of 16
  const T* p = from + (4 * g4) * row_stride + s0 + (Permuted ? unpermuted_column(sub) : sub);
  TL_UNROLL
  for (int it = 0; it < Rows / 4; ++it) {
    const int k = 16 * (it / 4) + it % 4 + 4 * g4;
    TL_UNROLL
    for (int j = 0; j < groups; ++j) {
      // stored rows s0 + 8 j + sub: columns 16 (j / 2) + unpermuted_column(8 (j % 2) + sub),
      // or (the accumulator order) s0 + 8 j + sub
      cp_async<4>(dst(k, s0 + 8 * j + sub), p + (Permuted ? 16 * (j / 2) + 2 * (j % 2) : 8 * j));
    }
    p += (it % 4 == 3 ? 13 : 1) * row_stride;
    if (it % 4 == 3) cp_async_commit();
  }
}

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

// A shared-memory matrix descriptor: start address, leading and stride byte offsets, swizzle.
__device__ __forceinline__ std::uint64_t smem_descriptor(const void* p, int lbo, int sbo, int width) {
  const int swizzle = width == 128 ? 1 : width == 64 ? 2 : 3;
  const auto a = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  return std::uint64_t((a & 0x3ffff) >> 4) | (std::uint64_t(lbo >> 4) << 16) | (std::uint64_t(sbo >> 4) << 32) |
         (std::uint64_t(swizzle) << 62);
}

// A byte offset inside a buffer as a descriptor's address field counts it (16-byte units).
TL_INLINE constexpr std::uint64_t descriptor_offset(int bytes) { return std::uint64_t(bytes >> 4); }

__device__ __forceinline__ void wgmma_fence_async_proxy() {  // generic stores -> tensor-core reads
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_wait_all() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }
template <int Pending>  // waits until at most Pending committed groups are unfinished
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
}


// out = acc + a @ b on wgmma (P = wgmma_plan<...>::ok).
template <class P, class EA, class EB, class Acc, class Out>
__device__ void dot_wgmma(const EA& ea, const EB& eb, const Acc* acc, Out& out) {
  using T = value_of_t<EA>;
  using AccT = typename Out::value_type;
  using Kind = typename P::kind;
  using LO = layout<typename Out::shape_type, Out::register_order>;
  constexpr int M = P::M, N = P::N, K = P::K, KC = P::KC, W = P::W, size = P::size, piece = P::piece;
  // B's columns as stored: in memory order for a result in the accumulator order (16-byte
  // copies), else permuted in pairs (permuted_column) to give the standard order's registers.
  constexpr bool permuted = !LO::mma_order;
  constexpr bool a_regs = P::a_regs;
  // A's columns in registers at once, with A from registers: 32 (puzzle 12: 156 TFLOP/s,
  // against 151 with 16 and 145 with 64; with B waited for per group, each group of A
  // columns costs a barrier).
  constexpr int KA = KC < 32 ? KC : 32;
  // A's row width. When A is an expression, its threads store it 16 bytes a lane (4 float32
  // cells), and the 8 lanes of a store phase hold 4 chunks of rows r and r + 1: in 128-byte
  // rows both rows' chunks swizzle to the same 4 bank groups (a 2-way conflict on every store:
  // puzzle 12's dequantized A), in 64-byte rows the two rows are 64 bytes apart. A copied by
  // cp.async (8 lanes on one 128-byte row) and B's transposed 4-byte stores are conflict-free
  // in 128-byte rows and not in 64-byte ones, so they keep W.
  constexpr int WA = size == 4 && W == 128 && !async_operand<EA>() ? 64 : W;
  constexpr int a_bytes = a_regs ? 0 : M * KC * size;
  char* const base = scratch<scratch_size(P::bytes(KC)), 1024>();
  char* const A = base;
  char* const B = base + a_bytes;
  const int t = thread_id();

  // Loaded operands: copied by cp.async when they can be (B in the K-major layout 4 bytes at a
  // time, into its transposed place), else loaded again into registers.
  const async_tile<T> a_tile = async_tile_of(ea);
  // A K-major B (float32) is copied into its transposed place only when A comes from
  // registers: with A copied too (puzzle 11 in tf32), its 4-byte copies were slower than its
  // loads and transposed stores (167 against 193 TFLOP/s); with A from registers they are
  // faster (puzzle 12: 150 against 140 TFLOP/s).
  constexpr bool b_copyable = P::b_mn_major || (a_regs && transposed_copy_ok<KC, N, size>);
  const async_tile<T> b_tile = [&] {
    if constexpr (b_copyable) return async_tile_of(eb);
    else return async_tile<T>{};
  }();

  // The accumulator in wgmma's register order, per 16-row slot group mt and piece of B:
  // register 4j + 2r + b of n8 tile j is row g + 8r, column 8j + 2q + b of the piece as stored,
  // which is slot 8 (mt NG + ng) + 4r + 2h + b for the stored column 16 ng + 8h + 2q + b.
  constexpr int NG = N / 16, MT = LO::slots / 8 / NG, PIECES = N / piece;
  float d[MT][PIECES][piece / 2];
  auto slot_of = [](int mt, int p, int i) {
    const int j = p * piece / 8 + i / 4, r = (i / 2) & 1, b = i & 1;
    return 8 * (mt * NG + j / 2) + 4 * r + 2 * (j & 1) + b;
  };
  TL_UNROLL
  for (int mt = 0; mt < MT; ++mt)
    TL_UNROLL
    for (int p = 0; p < PIECES; ++p)
      TL_UNROLL
      for (int i = 0; i < piece / 2; ++i) d[mt][p][i] = accumulator<float>(acc, slot_of(mt, p, i));
  int a_row[MT];  // the first row of each slot group's 64-row tile
  TL_UNROLL
  for (int mt = 0; mt < MT; ++mt) a_row[mt] = int(LO::flat(t, 8 * mt * NG) / N) & ~63;

  // Where cells go in shared memory (operand buffers at Ab and Bb: the dot's scratch, or one of
  // the ring's). With A from registers, B's rows are in kperm order.
  auto a_in = [](char* Ab) {
    return [=](int r, int c) { return reinterpret_cast<T*>(Ab + kmajor_offset<WA, size>(r, c, M)); };
  };
  auto b_in = [](char* Bb) {
    return [=](int, int k, int n) {  // one batch
      const int kk = a_regs ? kperm(k) : k;
      return reinterpret_cast<T*>(Bb + (P::b_mn_major ? mn_major_offset<N>(kk, n) : kmajor_offset<W, size>(n, kk, N)));
    };
  };
  const auto a_at = a_in(A);
  const auto b_at = b_in(B);
  // B's cp.async copies of a K step (columns permuted in pairs: 4-byte copies; else 16 bytes).
  auto copy_b_to = [&](const T* b_from, char* Bb) {
    const auto at = b_in(Bb);
    if constexpr (P::b_mn_major && permuted)
      copy_tile<KC, N, 4>(b_from, b_tile.row_stride, [&](int k, int n) { return at(0, k, permuted_column(n)); });
    else if constexpr (P::b_mn_major)
      copy_tile<KC, N, 16>(b_from, b_tile.row_stride, [&](int k, int n) { return at(0, k, n); });
    else if constexpr (b_copyable)
      copy_tile_transposed<KC, N, permuted>(b_from, b_tile.row_stride, [&](int k, int s) { return at(0, k, s); });
  };
  auto copy_b = [&](int kc) { copy_b_to(b_tile.origin + kc * b_tile.row_stride, B); };
  // One K step's instructions with A and B in shared memory (at Ab and Bb), committed as one group.
  // from_base (a ring buffer, chosen at run time): each instruction's descriptors are the
  // buffer's plus the offset in 16-byte units (the address field does not carry over: shared
  // addresses are below 256 KiB). Else (the static scratch) each is computed whole, which
  // the compiler folds into constants (as a base and offsets, the tf32 kernel took 151
  // registers instead of 126).
  auto multiply = [&](const char* Ab, const char* Bb, bool from_base) {
    const std::uint64_t a_base = smem_descriptor(Ab, 16, 8 * WA, WA);
    const std::uint64_t b_base =
        P::b_mn_major ? smem_descriptor(Bb, 1024, N / 64 * 1024, 128) : smem_descriptor(Bb, 16, 8 * W, W);
    auto a_desc = [&](int off) { return from_base ? a_base + descriptor_offset(off) : smem_descriptor(Ab + off, 16, 8 * WA, WA); };
    auto b_desc = [&](int off) {
      if (from_base) return b_base + descriptor_offset(off);
      return P::b_mn_major ? smem_descriptor(Bb + off, 1024, N / 64 * 1024, 128) : smem_descriptor(Bb + off, 16, 8 * W, W);
    };
    wgmma_fence();
    TL_UNROLL
    for (int s = 0; s < KC / Kind::k; ++s) {
      const int kb = s * Kind::k * size;  // the instruction's first byte along K
      TL_UNROLL
      for (int mt = 0; mt < MT; ++mt) {
        const std::uint64_t da = a_desc((kb / WA) * (M * WA) + a_row[mt] * WA + kb % WA);
        TL_UNROLL
        for (int p = 0; p < PIECES; ++p) {
          if constexpr (P::b_mn_major) {
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
  };

  // ---- one K step a call, from the operand ring (pipeline.hpp) ----
  // This call's tiles were most likely copied by the previous call; this call copies the next
  // step's. Used when the launch gave the ring its two buffers, both tiles are whole and
  // copyable, and no dot of another shape owns the ring. Every instruction here is on the
  // step's path (the issue slots of 16 warps are as busy as the tensor cores): the buffer
  // count is a constant, the checks are few, and the descriptors are a base plus constants.
  bool pipelined = false;
  if constexpr (!a_regs && K == KC && P::b_mn_major && async_operand<EA>() && async_operand<EB>()) {
    constexpr unsigned buffer = (unsigned(P::bytes(KC)) + 1023) / 1024 * 1024;
    constexpr unsigned plan = 1u + (unsigned(M / 64 - 1) | unsigned(N / 16 - 1) << 6 | unsigned(KC / 8 - 1) << 12 |
                                    unsigned(size) << 20 | unsigned(permuted) << 24);
    if (ring_fits(buffer) && a_tile.ok && b_tile.ok) {
      barrier();  // the previous call's instructions are done with the buffers; the header is settled
      dot_ring& ring = ring_header();
      const unsigned owner = ring.plan;
      if (owner == 0 || owner == plan) {
        pipelined = true;
        const T* const a0 = a_tile.origin;
        const T* const b0 = b_tile.origin;
        const std::int64_t sa = a_tile.row_stride, sb = b_tile.row_stride;
        const T* const a1 = a0 + KC;       // the next step's tiles: A's next columns,
        const T* const b1 = b0 + KC * sb;  // B's next rows
        // The buffer of a step: A's origin in K steps, modulo 2, so consecutive steps alternate.
        const unsigned unit = unsigned(reinterpret_cast<std::uintptr_t>(a0) / (KC * size)) & 1u;
        char* const here = ring_buffers() + unit * buffer;
        char* const next = ring_buffers() + (unit ^ 1u) * buffer;
        const ring_tag tag = ring.tags[unit];
        const bool hit = (owner == plan) & (tag.a == a0) & (tag.b == b0) & (tag.stride_a == sa) & (tag.stride_b == sb);
        const bool ahead = a_tile.inside(KC, M, KC) & b_tile.inside(KC * sb, KC, N);
        auto copy_step = [&](const T* a, const T* b, char* Ab) {
          copy_tile<M, KC, 16>(a, sa, a_in(Ab));
          copy_b_to(b, Ab + a_bytes);
        };
        if (!hit) {
          // The first call of a loop, or a loop that does not walk K one step a call: the copy
          // in flight lands first (this thread's goes to the places its copies now go: same
          // shape), then this step is copied too.
          cp_async_wait_all();
          copy_step(a0, b0, here);
          cp_async_commit();
        }
        if (ahead) copy_step(a1, b1, next);
        cp_async_commit();                  // one group a step, empty or not:
        cp_async_wait_group(1);             // this step's tiles are in
        if (t == 0) ring.tags[unit ^ 1u] = ahead ? ring_tag{a1, b1, sa, sb} : ring_tag{};  // read by the next call
        wgmma_fence_async_proxy();
        barrier();  // every thread's copies are in; every thread has read the header
        if (t == 0 && !hit) {
          ring.plan = plan;
          ring.tags[unit] = ring_tag{a0, b0, sa, sb};
        }
        multiply(here, here + a_bytes, true);
        wgmma_wait_all();
      }
    }
  }
  // With A from registers, B's first copy goes first, so that it is in flight while the
  // threads stage what A's evaluation reads, and the staging takes the step's barriers: one
  // before (the previous dot may still read B), one that makes B and the staged blocks
  // visible. (Otherwise each operand is copied or written in turn: issuing both copies before
  // either fallback raised puzzle 11's kernel from 128 to 137 registers.)
  EA ax = ea;  // copies whose broadcast blocks can be pointed at their staged copies
  EB bx = eb;
  if constexpr (a_regs) {
    barrier();  // the previous dot's instructions are done with the operands
    if (b_tile.ok) copy_b(0);
    stage_each<false>(ax, bx);
  } else {
    stage_each(ax, bx);
  }

  TL_UNROLL
  for (int kc = 0; kc < K && !pipelined; kc += KC) {
    const bool first_of_a_regs = a_regs && kc == 0;
    if (!first_of_a_regs) barrier();  // the previous step's (or dot's) instructions are done with the operands
    if constexpr (!a_regs) {
      if (a_tile.ok) copy_tile<M, KC, 16>(a_tile.origin + kc, a_tile.row_stride, a_at);
      else write_a<KC>(registers_unless<true>(a_tile, ax), K, kc, a_at);
    }
    if (b_tile.ok) {
      if (!first_of_a_regs) copy_b(kc);
    } else {
      write_b<KC, !P::b_mn_major, permuted>(registers_unless<b_copyable>(b_tile, bx), K, N, kc, b_at);
    }
    // With A from registers and B copied, B's rows are waited for 16 at a time (its copy's
    // groups), each just before the instructions that read them; else all at once.
    const bool b_by_groups = a_regs && b_tile.ok;
    if (!b_by_groups) {
      if (a_tile.ok || b_tile.ok) cp_async_wait_all();
      wgmma_fence_async_proxy();
      barrier();
    }
    if constexpr (a_regs) {
      // A's fragments KA columns at a time (registers for all of KC would raise the kernel's
      // beyond 255): per 16 columns u, thread t's cells 4 (t % 4) + i of rows g and g + 8 are
      // the registers of the two k8 instructions (kperm).
      unsigned af[2][MT][KA / 8][4];  // two sets: one group's evaluation overlaps the previous group's instructions
      TL_UNROLL
      for (int ka = 0; ka < KC; ka += KA) {
        const int set = (ka / KA) % 2;
        if (b_by_groups) {
          cp_async_wait_group((KC - ka - KA) / 16);
          wgmma_fence_async_proxy();
          barrier();
        }
        if (ka >= 2 * KA) wgmma_wait<1>();  // the instructions that read this set are done
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
      }
    } else {
      multiply(A, B, false);
    }
    // Waited for at once: the next step overwrites the operands. (Leaving the last group
    // unfinished, to run on under the caller's next loads, gains nothing: ptxas waits for it
    // wherever the accumulator registers flow on, in a loop at the back edge.)
    wgmma_wait_all();
  }
  TL_UNROLL
  for (int mt = 0; mt < MT; ++mt)
    TL_UNROLL
    for (int p = 0; p < PIECES; ++p)
      TL_UNROLL
      for (int i = 0; i < piece / 2; ++i) out.v[slot_of(mt, p, i)] = convert<AccT>(d[mt][p][i]);
}

#endif

}  // namespace tl::detail::cuda
