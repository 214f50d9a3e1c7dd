// tl/backend/cuda/layout.hpp: how a block tensor is spread over the threads of a program.
//
// One program is one CUDA thread block of P = 32 * TL_NUM_WARPS threads; each thread keeps
// its share of a block in registers, its `slots`. The layout depends only on the shape, never
// on the element type, so all blocks of one shape line up slot by slot: elementwise work
// between them needs no data movement. Two layouts (docs/04-cuda-backend.md draws both):
//
// Tiled: 2-D and higher blocks whose size is a power of two, with at least 16 rows (all axes
// but the last, flattened) and 16 columns. Each bit of the flat index comes from a bit of the
// slot number or of the thread number:
//   column bits 0,1: slot bits 0,1     (4 consecutive columns per thread: 128-bit accesses)
//   column bits 2,3: lane bits 0,1     row bits 0,1,2: lane bits 2,3,4
//   row bit 3:       slot bit 2        (rows r and r + 8: the halves of a 16-row mma tile)
//   the warp bits on row bits 4.. (then, when the rows run out, column bits 4..); the rest
//   on slot bits, columns first.
// A warp covers 8 rows x 16 columns per access, and its registers are exactly the
// accumulator fragments of mma.sync and wgmma (with columns permuted inside each group of
// 16), so a dot accumulates in place; a reduction along a row is register and lane work.
// Tiled, accumulator order (order::mma below: computed blocks, such as tl::zeros and tl::dot
// make): the same but for columns 1..3, which are the accumulator fragment's own:
//   column bit 0: slot bit 0           (2 consecutive columns per thread)
//   column bits 1,2: lane bits 0,1     column bit 3: slot bit 1
// so that B's columns need no permutation: a dot copies B 16 bytes at a time.
//
// Round-robin: every other block. Cut row-major into chunks of V consecutive elements
// (V = 4 when each thread gets at least 4, else 2 or 1; 1 for rows shorter than 8 elements).
// Power-of-two sizes: the warps take the top bits of the flat index, so warp w holds the w-th
// contiguous part of the block, and inside it chunk c goes to lane c % 32 (one warp access
// covers 32 consecutive chunks), then to the next slots:
//   n = 1024, P = 128, V = 4:   warp 0: f = 0..255, warp 1: f = 256..511, ...
//                               f = 0..3 -> lane 0 slots 0..3, f = 4..7 -> lane 1 ...
//                               f = 128..131 -> lane 0 slots 4..7, ...
// A reduction along trailing axes then leaves its results in the warps that hold them in the
// output's layout too, and moves them by shuffles instead of through shared memory.
// Other sizes: chunk c held by thread c % P (slot V * (c / P)).
// Replicated: a block of at most 16 elements (a scalar, a small filter, a few constants) is
// held whole by every thread, slot i = element i. Reading it through a broadcast is then a
// register read, with no shared memory and no barrier (puzzle 10's 4 x 4 filter, read at
// every step); the price is paid by a reduction to at most 16 results, which goes through
// shared memory to give every thread all of them, and by stores (thread 0 writes).
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "../../config.hpp"
#include "../../core/shape.hpp"
#include "../../expr/block.hpp"

namespace tl::detail::cuda {

// A tiled block's columns sit in each thread's registers in one of two orders:
//   standard  4 consecutive columns per thread: 128-bit loads and stores of float32 tiles.
//   mma       the tensor cores' accumulator fragment: 2 consecutive columns, the next 2 eight
//             columns on. A tl::dot accumulates into such a block with B's columns in
//             memory order (copied 16 bytes at a time).
//   any       an expression that holds no block of its own shape (aranges, broadcasts,
//             scalars): it is evaluated in whichever order its user asks for.
// A held block's order follows from its origin (expr/block.hpp): a computed tiled block (a
// tl::block: zeros, full, dot, declared) is in the accumulator order, a loaded one in the
// standard order. Blocks of other shapes (round-robin, replicated) have one order: standard.
// Where two orders meet in one expression, the block in the other order is read through
// shared memory.
enum class order { any, standard, mma };

constexpr bool orders_agree(order a, order b) { return a == order::any || b == order::any || a == b; }

// The order an expression of order o is evaluated in.
constexpr order evaluation_order(order o) { return o == order::any ? order::standard : o; }

inline constexpr int threads = 32 * TL_NUM_WARPS;

// f(std::integral_constant<int, I>{}) for I = 0 .. N - 1: a loop whose index is a constant
// in the body (an instruction's immediate operand, a register array's index).
template <int N, class F>
TL_INLINE void static_for(F&& f) {
  [&]<int... I>(std::integer_sequence<int, I...>) { (f(std::integral_constant<int, I>{}), ...); }(
      std::make_integer_sequence<int, N>{});
}

constexpr int log2_exact(std::int64_t n) {  // -1 unless n is a power of two
  if (n <= 0 || (n & (n - 1)) != 0) return -1;
  int b = 0;
  while ((std::int64_t(1) << b) < n) ++b;
  return b;
}

// Where each bit of the flat index comes from: a slot bit (src >= 0) or thread bit -1 - src.
struct bit_map {
  int bits = 0;  // flat index bits
  int src[48] = {};
  int slot_bits = 0;
  unsigned thread_used = 0;  // mask of the thread bits that select data (others: no data)
  int col_slot_bits = 0;     // tiled: slot bits 3.. on column bits >= 4 (then row bits >= 4)
};

constexpr bit_map tiled_bits(int row_bits, int col_bits, bool mma_order) {
  bit_map m;
  m.bits = row_bits + col_bits;
  const int warp_bits = log2_exact(TL_NUM_WARPS);
  auto thread = [&](int b, int tb) {
    m.src[b] = -1 - tb;
    m.thread_used |= 1u << tb;
  };
  m.src[0] = 0;
  if (mma_order) {
    thread(1, 0);
    thread(2, 1);
    m.src[3] = 1;
  } else {
    m.src[1] = 1;
    thread(2, 0);
    thread(3, 1);
  }
  for (int j = 0; j < 3; ++j) thread(col_bits + j, 2 + j);
  m.src[col_bits + 3] = 2;
  // Warps on rows first: a warp then holds whole rows (a reduction along a row stays inside
  // it), and the four warps of a warpgroup hold 64 consecutive rows, as wgmma's accumulator.
  int r = 4, c = 4, w = 0;
  for (; w < warp_bits && r < row_bits; ++w) thread(col_bits + r++, 5 + w);
  for (; w < warp_bits && c < col_bits; ++w) thread(c++, 5 + w);
  int slot = 3;
  for (; c < col_bits; ++c) m.src[c] = slot++;
  m.col_slot_bits = slot - 3;
  for (; r < row_bits; ++r) m.src[col_bits + r] = slot++;
  m.slot_bits = slot;
  return m;
}

// Chunks (vec bits) to lanes, then slots, and the warps on the top bits: a warp holds one
// contiguous part of the block, so a reduction along the trailing axes stays inside a warp
// (shuffles) whenever the axes it keeps put the warps on the same elements in the output.
constexpr bit_map round_robin_bits(int bits, int vec_bits) {
  bit_map m;
  m.bits = bits;
  const int warp_bits = log2_exact(TL_NUM_WARPS);
  auto thread = [&](int b, int tb) {
    m.src[b] = -1 - tb;
    m.thread_used |= 1u << tb;
  };
  int b = 0, slot = 0;
  for (; b < vec_bits && b < bits; ++b) m.src[b] = slot++;
  const int wb = warp_bits < bits - b ? warp_bits : bits - b;  // warps first when bits are few
  const int top = bits - wb;
  for (int lane = 0; lane < 5 && b < top; ++lane) thread(b++, lane);
  for (; b < top; ++b) m.src[b] = slot++;
  for (int w = 0; w < wb; ++w) thread(top + w, 5 + w);
  m.slot_bits = slot;
  return m;
}

// The flat index that bit map M gives slot i of thread t (M: a layout's bits, or the map a
// reduction leaves after moving results between slots and lanes). Consecutive flat bits taken
// from consecutive bits of one source (a lane's five bits, a chunk's slot bits) are one run,
// moved by one shift and one mask: a thread's offset takes a few instructions, where bit by bit
// it takes one or more a bit wherever the compiler does not merge them.
constexpr int bit_run_length(const bit_map& m, int b) {
  int n = 1;
  while (b + n < m.bits && (m.src[b] >= 0) == (m.src[b + n] >= 0) &&
         (m.src[b] >= 0 ? m.src[b + n] == m.src[b] + n : m.src[b + n] == m.src[b] - n))
    ++n;
  return n;
}
template <bit_map M, int B>
TL_INLINE constexpr std::int64_t flat_bits_from(int t, int i) {
  if constexpr (B >= M.bits) {
    return 0;
  } else {
    constexpr int src = M.src[B], len = bit_run_length(M, B);
    constexpr int first = src >= 0 ? src : -1 - src;  // the run's first source bit
    const std::int64_t v = src >= 0 ? i : t;
    return (((v >> first) & ((std::int64_t(1) << len) - 1)) << B) | flat_bits_from<M, B + len>(t, i);
  }
}
template <bit_map M>
TL_INLINE constexpr std::int64_t flat_by_runs(int t, int i) {
  return flat_bits_from<M, 0>(t, i);
}
// The same, one bit at a time: the tiled layouts keep it (the dots were tuned on the code it
// gives; by runs they measured slower, docs/performance-history.md).
template <int Src>
TL_INLINE constexpr std::int64_t bit_of(int t, int i) {
  if constexpr (Src >= 0) return (i >> Src) & 1;
  else return (t >> (-1 - Src)) & 1;
}
template <bit_map M, int... B>
TL_INLINE constexpr std::int64_t flat_of_bits(int t, int i, std::integer_sequence<int, B...>) {
  return (std::int64_t(0) | ... | (bit_of<M.src[B]>(t, i) << B));
}
template <bit_map M>
TL_INLINE constexpr std::int64_t flat_bit_by_bit(int t, int i) {
  return flat_of_bits<M>(t, i, std::make_integer_sequence<int, M.bits>{});
}

// Does shape S get the tiled layout (and so two register orders)?
template <class S>
inline constexpr bool tiled_shape = log2_exact(S::size) >= 0 && log2_exact(threads) >= 0 && S::rank >= 2 &&
                                    S::dim(S::rank - 1) >= 16 && S::size / S::dim(S::rank - 1) >= 16;

// The order of a held block of shape S and origin O.
template <class S, origin O>
inline constexpr order held_order = tiled_shape<S> && O == origin::computed ? order::mma : order::standard;

template <class S, order O = order::standard>
struct layout {
  static constexpr std::int64_t n = S::size;
  static constexpr bool replicated = n <= 16;
  static constexpr int last = S::rank > 0 ? S::dim(S::rank - 1) : 1;
  static constexpr bool pow2 = log2_exact(n) >= 0 && log2_exact(threads) >= 0;
  static constexpr bool tiled = tiled_shape<S>;
  static constexpr bool mma_order = tiled && O == order::mma;  // else the standard order
  // Rows of fewer than 8 elements (rank >= 2): one element per chunk. A chunk of 4 would be a
  // whole row, so a warp's 32 chunks lie in 32 rows: aligned, that is as many cache lines per
  // warp as one element per lane (8 rows of 4), but when the rows start at odd offsets (a
  // sliding window: x[h + kh, w + kw]) each of the 4 element-by-element accesses would touch
  // 32 lines where lanes along the row touch 8.
  static constexpr bool short_rows = S::rank >= 2 && last > 1 && last < 8;
  static constexpr int vec = tiled ? (mma_order ? 2 : 4) : short_rows ? 1 : n >= 4LL * threads ? 4 : n >= 2LL * threads ? 2 : 1;
  static constexpr std::int64_t chunk_stride = std::int64_t(threads) * vec;  // round-robin: elements per round
  // The bit map (power-of-two sizes; the reductions and dot use it).
  static constexpr bit_map bits = !pow2 || replicated ? bit_map{}
                                  : tiled            ? tiled_bits(log2_exact(n / last), log2_exact(last), mma_order)
                                                     : round_robin_bits(log2_exact(n), log2_exact(vec));
  static constexpr int slots = replicated ? int(n)
                               : pow2     ? 1 << bits.slot_bits
                                          : int((n + chunk_stride - 1) / chunk_stride) * vec;
  // The flat index held in slot i of thread t (round-robin of other sizes: may be >= n in
  // the last round).
  TL_INLINE static constexpr std::int64_t flat(int t, int i) {
    if constexpr (replicated) {
      return i;
    } else if constexpr (pow2) {
      if constexpr (tiled) return flat_bit_by_bit<bits>(t, i);
      else return flat_by_runs<bits>(t, i);
    } else {
      return std::int64_t(i / vec) * chunk_stride + std::int64_t(t) * vec + i % vec;
    }
  }
  // The coordinates of thread t's slot i. For power-of-two sizes the flat index is the OR of a
  // thread part, flat(t, 0), and a slot part, flat(0, i), with disjoint bits, so each
  // coordinate is the sum of the two parts' coordinates. Written as that sum, the slot part is
  // a constant once the slot loop is unrolled, and what an element's index feeds (a staged
  // block's shared-memory address, a pointer) folds into one per-thread value plus an
  // immediate, where the OR of the flat index had left shifts and masks for every element.
  TL_INLINE static coord<S::rank> coords(int t, int i) {
    if constexpr (pow2 && !replicated) {
      const coord<S::rank> a = unravel<S>(flat(t, 0)), b = unravel<S>(flat(0, i));
      coord<S::rank> c{};
      for (int d = 0; d < S::rank; ++d) c[d] = a[d] + b[d];
      return c;
    } else {
      return unravel<S>(flat(t, i));
    }
  }
  // Does thread t hold data in slot i?
  TL_INLINE static constexpr bool valid(int t, int i) {
    if constexpr (replicated) return true;
    else if constexpr (pow2 && bits.thread_used == unsigned(threads - 1)) return true;  // every thread holds data
    else if constexpr (pow2) return (unsigned(t) & ~bits.thread_used) == 0;
    else return flat(t, i) < n;
  }
};

// V elements moved by one vector instruction (V * sizeof(T) <= 16 bytes). Elements that are packs
// of values (ops/scan.hpp's tuples) or larger chunks keep the element's own alignment.
inline constexpr std::size_t vector_alignment(std::size_t bytes, std::size_t natural) {
  return bytes <= 16 && (bytes & (bytes - 1)) == 0 && bytes >= natural ? bytes : natural;
}
template <class T, int V>
struct alignas(vector_alignment(sizeof(T) * V, alignof(T))) vector_of {
  T x[V];
};

// Bytes of n elements of T in shared memory, rounded up to whole 16-byte rows.
template <class T>
inline constexpr int smem_bytes(std::int64_t n) {
  return int((n * std::int64_t(sizeof(T)) + 15) / 16 * 16);
}

#if TL_DEVICE_PASS
TL_INLINE int thread_id() { return int(threadIdx.x); }
TL_INLINE void barrier() { __syncthreads(); }
#else
TL_INLINE int thread_id() { return 0; }
TL_INLINE void barrier() {}
#endif

#if defined(__CUDACC__)

// Shared scratch of a given size. Each size is one static __shared__ array per kernel, so the
// compiler adds up exactly what the kernel uses: a kernel's shared memory is sized from its
// needs. Ops using the same size take turns, separated by barriers (see barrier_then_write).
// Align: 16 for everything but wgmma's swizzled operands, whose 8-row atoms must start at a
// multiple of 1024 bytes (the swizzle is a function of the shared-memory address).
template <int Bytes, int Align = 16>
__device__ __forceinline__ char* scratch() {
  __shared__ alignas(Align) char buf[Bytes];
  return buf;
}
// Sizes are rounded up to at least 256 bytes and to a sixteenth of the next power of two
// (at most 6.25% more), so ops of similar needs share one array.
inline constexpr int scratch_size(int bytes) {
  if (bytes <= 256) return 256;
  int p = 256;
  while (p < bytes) p *= 2;
  const int step = p / 16 < 256 ? 256 : p / 16;
  return (bytes + step - 1) / step * step;
}
#endif

}  // namespace tl::detail::cuda
