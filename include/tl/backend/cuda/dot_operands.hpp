// tl/backend/cuda/dot_operands.hpp: what the tensor-core dots (dot_mma.hpp, dot_wgmma.hpp)
// share: which instruction kind a dot runs on, the accumulator's initial values, and the
// writes of A's and B's cells from registers (or from an expression evaluated there) into
// shared memory, at addresses each path computes for its own layout.
#pragma once

#include "../../expr/loaded.hpp"
#include "arch/mma_kinds.hpp"
#include "evaluation.hpp"
#include "pipeline.hpp"

namespace tl::detail::cuda {

// The tensor-core kind of a dot of TA inputs into AccT (void: none, the FMA path).
template <class TA, class AccT, bool Tf32>
struct mma_kind {
  using type = void;
};
template <bool Tf32>
struct mma_kind<fp16, float, Tf32> {
  using type = mma_f16;
};
template <bool Tf32>
struct mma_kind<bf16, float, Tf32> {
  using type = mma_bf16;
};
template <>
struct mma_kind<float, float, true> {
  using type = mma_tf32;
};
template <bool Tf32>
struct mma_kind<fp8e4nv, float, Tf32> {
  using type = mma_e4m3;
};
template <bool Tf32>
struct mma_kind<fp8e5, float, Tf32> {
  using type = mma_e5m2;
};

template <class Kind>
constexpr int mma_k() {
  if constexpr (std::is_void_v<Kind>) return 1;
  else return Kind::k;
}
// Does mma.sync take inputs of this kind? (wgmma takes every kind.)
template <class Kind>
constexpr bool mma_sync_kind() {
  if constexpr (std::is_void_v<Kind>) return false;
  else return Kind::sync;
}

// Shared memory a tensor-core dot may take for A and B: above it, K is split into steps (the
// whole operands of a 128 x 128 x 64 float32 dot would be 64 KiB, and fewer bytes let more
// programs share a multiprocessor). The largest arena class (pipeline.hpp): a 128 x 256 x 64
// fp16 dot, Triton's tile on Hopper, is not split.
inline constexpr int dot_smem_budget = 48 * 1024;

// B written as tl::trans(x): the dots store x's rows (N x K) as B's columns, K-major, rather
// than gathering the transposed view through shared memory (x: a loaded block that cp.async can
// copy, a block, or an expression evaluated in its own layout).
template <class X>
struct transposed_operand : std::false_type {};
template <class E, class S>
struct transposed_operand<view<E, S, permute_map<1, 0>>> : std::bool_constant<S::rank == 2> {};
template <class X>
inline constexpr bool transposed_operand_v = transposed_operand<std::remove_cvref_t<X>>::value;

// The tensor-core dots' operand buffers: one arena for every dot of a kernel (they run one after
// another, each beginning with a barrier), in dynamic shared memory (pipeline.hpp). Its size is
// the largest arena class any of the kernel's dots needs: a static array per dot shape would add
// up (a kernel with a dozen dot shapes, an attention backward pass, would outgrow the 48 KiB of
// static shared memory). The launch learns the class, and whether a ring would be used, from
// markers in the kernel's static shared memory (pipeline.hpp: arena_of_static_bytes).
#if defined(__CUDACC__)
template <int Bytes>
__device__ __forceinline__ void shared_marker() {
  __shared__ alignas(16) char marker[Bytes];
  asm volatile("// tl shared-memory marker %0" ::"r"(unsigned(__cvta_generic_to_shared(marker))));
}
// The arena for a dot whose operands take Bytes; Ring: the dot can run from the operand ring.
template <int Bytes, bool Ring = false>
__device__ __forceinline__ char* dot_scratch() {
  constexpr int c = arena_class_of(Bytes);
  static_assert(c >= 0, "a tensor-core dot's operands outgrew the largest arena class");
  shared_marker<(16 << c)>();
  if constexpr (Ring) shared_marker<ring_marker_bytes>();
  return dot_arena();
}
#endif

// Position of column c of B inside its group of 16 in shared memory, for a result in the
// standard order: logical column 4a + 2h + b is column 2a + b of n8 half h, stored at
// 8h + 2a + b.
TL_HD constexpr int permuted_column(int c) { return (c & ~15) | ((c & 2) << 2) | ((c >> 1) & 6) | (c & 1); }

#if TL_DEVICE_PASS

// Slot i of the accumulator block, or 0 when the dot has none.
template <class R, class Acc>
__device__ __forceinline__ R accumulator(const Acc* acc, int i) {
  if constexpr (std::is_void_v<Acc>) return R(0);
  else return static_cast<R>(static_cast<compute_t<typename std::remove_cvref_t<Acc>::value_type>>(acc->v[i]));
}

// Slots i .. i + V - 1 of operand x: a block's registers, or an expression evaluated there
// (its broadcast operands staged).
template <int V, class X>
__device__ __forceinline__ vector_of<value_of_t<X>, V> cells(const X& x, int t, int i) {
  if constexpr (is_held_block_v<X>) {
    return x.v.template chunk<V>(i);
  } else {
    using S = typename X::shape_type;
    using L = own_layout<X>;
    if constexpr (S::rank >= 1 && S::dim(S::rank - 1) % V == 0) {
      // By chunks: an operand broadcast along the rows is read once per chunk.
      return chunk_at<V>(x, L::coords(t, i), i);
    } else {
      vector_of<value_of_t<X>, V> w;
      TL_UNROLL
      for (int k = 0; k < V; ++k) w.x[k] = at(x, L::coords(t, i + k), i + k);
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
  // Said at compile time: a row index the compiler cannot bound costs a division, and more
  // registers.
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

#endif  // TL_DEVICE_PASS

}  // namespace tl::detail::cuda
