// tl/backend/cuda/dot_copy.hpp: dot operands copied from global to shared memory by
// cp.async, never through registers (the wgmma dot's stage step, dot_wgmma.hpp).
#pragma once

#include "../../expr/axis_info.hpp"
#include "../../expr/loaded.hpp"
#include "arch/sm80.hpp"
#include "dot_operands.hpp"
#include "memory.hpp"

namespace tl::detail::cuda {

#if TL_DEVICE_PASS

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
// The tile of x whose axis Unit steps by one element (the last: rows; 0: the columns of a 2-D
// x), rows the other axis' stride apart, when Copyable (async_operand, async_columns_operand).
template <int Unit, bool Copyable, class X>
__device__ __forceinline__ auto async_tile_along(const X& x) {
  using T = value_of_t<X>;
  using S = shape_of_t<X>;
  async_tile<T> tile;
  if constexpr (Copyable) {
    if (x.fresh) {
      value_of_t<typename X::ptrs_type> origin;
      std::int64_t stride[S::rank];
      tile.ok = affine_setup<S, 16 / int(sizeof(T)), Unit>(x.ptrs, x.mask, origin, stride);
      tile.origin = origin.get();
      tile.row_stride = stride[Unit == S::rank - 1 ? S::rank - 2 : S::rank - 1];
      tile.offset = origin.offset;
      tile.extent = origin.extent;
    }
  }
  return tile;
}
template <class X>
__device__ __forceinline__ auto async_tile_of(const X& x) {
  return async_tile_along<shape_of_t<X>::rank - 1, async_operand<X>()>(x);
}

// A B (K x N) stored column by column, unit stride along K at run time, for a dot that stores B
// K-major (wgmma reads 8-bit and float32 operands K-major only; 16-bit ones with N not a
// multiple of 64): its tile is copied as the rows of trans(B), N rows of K cells, row_stride
// apart, 16 bytes a copy. Triton's fp8 matmul passes b transposed; attention's backward loads
// kT and qT with the head dimension along axis 0. (Not for pointers whose last axis steps by
// one by their type: those are rows.)
template <class X>
constexpr bool async_columns_operand() {
  if constexpr (async_operand<X>()) {
    using S = shape_of_t<X>;
    return S::rank == 2 && S::dim(0) % (16 / int(sizeof(value_of_t<X>))) == 0 &&
           last_axis_stride<typename X::ptrs_type>() != 1;
  } else {
    return false;
  }
}
template <class X>
__device__ __forceinline__ auto async_columns_tile_of(const X& x) {
  return async_tile_along<0, async_columns_operand<X>()>(x);
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
    // as 64-bit loop invariants cost the kernel a register each).
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
TL_HD constexpr int unpermuted_column(int s) { return (s & ~15) | ((s & 6) << 1) | ((s >> 2) & 2) | (s & 1); }
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

#endif  // TL_DEVICE_PASS

}  // namespace tl::detail::cuda
