// tl/backend/cuda/evaluation.hpp: blocks and the evaluation of expressions over the threads
// of a program (the CUDA backend's evaluator of the nodes of expr/nodes.hpp).
//
// A block holds this thread's slots of its layout (layout.hpp) in registers (registers.hpp).
// Each thread evaluates an expression at the coordinates of its own slots: at(x, c, slot),
// where `slot` is where the thread holds coordinate c in the layout of x's shape, or -1. A
// node passes the slot on to the operands it reads in place (same shape, an order that
// agrees: read_in_place), so a block read slot for slot is one register read; a block read
// through a broadcast or a view needs elements that other threads hold, so before the
// evaluation it is "staged": written once to shared memory, row-major, between two barriers,
// and read from there by coordinate. Which blocks need staging is a property of the
// expression's type, so the shared memory an evaluation needs is a compile-time constant
// (staged_bytes); an expression with nothing to stage has no barrier.
//
// Where a block is written whole (an assignment, a store, a dot's operand) the expression is
// evaluated a chunk at a time: the V consecutive elements of a row that the layout keeps in
// consecutive slots. An operand broadcast along the rows (a scalar, x(_, None)) is then read
// once per chunk instead of V times, which the compiler cannot always see by itself (puzzle
// 12's dequantized weights: a weight word, an offset word and a scale per chunk of 4), and
// views that keep chunks whole pass them on:
//   x(_, None) + y         x's element, read once, joins each of y's V elements
//   reshape<M, K>(e)       a chunk of the output is a chunk of e when e's rows hold whole chunks
//   x(None, _), expand_dims, broadcast_to, a permutation that keeps the last axis: the same
// Everything else is evaluated element by element.
#pragma once

#include <type_traits>

#include "../../expr/block.hpp"
#include "../../expr/nodes.hpp"
#include "arch/sm90.hpp"
#include "layout.hpp"
#include "registers.hpp"

namespace tl::detail::cuda {

// ---- register orders ----

// The order an expression is evaluated in: a held block's own (layout.hpp's held_order); a
// node's, that of its first operand of its own shape that has one; `any` for views, aranges
// and scalars.
template <class E>
constexpr order order_of();
template <class ParentShape, class... O>
constexpr order first_order(type_list<O...>) {
  order r = order::any;
  ((r = (r == order::any && std::is_same_v<typename std::remove_cvref_t<O>::shape_type, ParentShape>) ? order_of<O>()
                                                                                                         : r),
   ...);
  return r;
}
template <class E>
constexpr order order_of() {
  using X = std::remove_cvref_t<E>;
  if constexpr (is_held_block_v<X>) return held_order<typename X::shape_type, X::block_origin>;
  else if constexpr (requires { X::is_view; }) return order::any;
  else if constexpr (requires { typename X::operand_types; })
    return first_order<typename X::shape_type>(typename X::operand_types{});
  else return order::any;
}

// Is X, an operand of something of shape Parent evaluated in order O, read slot for slot (its
// own shape, an order that agrees)? The one rule: evaluation and staging (what is not read
// in place is staged) both use it.
template <class X, class Parent, order O>
inline constexpr bool read_in_place =
    std::is_same_v<typename std::remove_cvref_t<X>::shape_type, Parent> && orders_agree(O, order_of<X>());

// The layout expression X is evaluated in: its shape's, in its own order (any: standard).
template <class X>
using own_layout = layout<shape_of_t<X>, evaluation_order(order_of<X>())>;

// ---- the dot's running wgmma groups ----

// Does expression E read a computed float32 tile (which a wgmma dot that ran from its operand
// ring may still be writing: pipeline.hpp)? Only a tiled block can be a wgmma accumulator.
template <class E>
constexpr bool reads_float_block() {
  using X = std::remove_cvref_t<E>;
  if constexpr (is_held_block_v<X>) {
    return X::block_origin == origin::computed && std::is_same_v<typename X::value_type, float> &&
           tiled_shape<typename X::shape_type>;
  } else if constexpr (requires { typename X::operand_types; }) {
    return []<class... O>(type_list<O...>) { return (reads_float_block<O>() || ...); }(typename X::operand_types{});
  } else {
    return false;
  }
}
// At the start of an op's lowering that reads expressions es: waits for the wgmma groups
// still running when one of them reads a float32 block (an accumulator may be among them).
template <class... E>
TL_INLINE void settle_dots() {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if constexpr ((reads_float_block<E>() || ...)) wgmma_wait<0>();
#endif
}

// ---- blocks ----

// The most elements of a block read through a broadcast that a thread gathers into registers
// (register broadcasts, below); a block that would need more is staged.
inline constexpr int max_gathered = 4;

template <class T, class S, origin O>
struct block_storage {
  static constexpr order register_order = held_order<S, O>;
  using layout = cuda::layout<S, register_order>;
  slot_array<T, layout::slots> v;  // this thread's slots (16-bit elements two to a register)
  const T* staged = nullptr;       // where the block was staged, while an evaluation reads it so
  // Or the elements this thread reads, gathered by warp shuffles (register broadcasts, below):
  // entry k holds the element whose flat index has the bits of k where Mask has its bits.
  T gathered[max_gathered];

  // The element at c, read by coordinate (a rank-0 block tested in an `if`, a staged block).
  TL_INLINE T read(const coord<S::rank>& c) const { return read(c, -1); }
  // The element at c, held by this thread in `slot` (-1: not held by it).
  TL_INLINE T read(const coord<S::rank>& c, int slot) const {
    if constexpr (layout::replicated) {
      if (S::size == 1 || slot >= 0) return v[slot >= 0 ? slot : 0];
      // Read through a broadcast: every thread holds every element; a chain of selects (not
      // an indexed array, which would put the block in local memory).
      const auto f = ravel<S>(c);
      T r = v[0];
      TL_UNROLL
      for (int k = 1; k < int(S::size); ++k)
        if (f == k) r = v[k];
      return r;
    } else {
      return slot >= 0 ? v[slot] : staged[ravel<S>(c)];
    }
  }
  // A gathered element at c (c's flat index bits where Mask has its bits give the entry: a
  // constant once the evaluation's slot loop is unrolled).
  template <unsigned Mask>
  TL_INLINE T read_gathered(const coord<S::rank>& c) const {
    const auto f = std::uint64_t(ravel<S>(c));
    int k = 0;
    static_for<32>([&](auto b) {
      if constexpr ((Mask >> b) & 1u) k |= int((f >> b) & 1u) << __builtin_popcount(Mask & ((1u << b) - 1u));
    });
    T r = gathered[0];
    static_for<(1 << __builtin_popcount(Mask))>([&](auto e) {
      if constexpr (e > 0)
        if (k == e) r = gathered[e];
    });
    return r;
  }
  // A new float32 block's values stay where they are made (an empty asm that reads and writes
  // each register): the compiler then does not sink them into the paths after a branch, such as
  // an accumulator's zeros into the path that skips its K loop, where ptxas found them writing
  // the registers of a wgmma group still running and serialized every wgmma of the kernel
  // (C7515; pipeline.hpp).
  TL_INLINE void keep_here() {
#if TL_DEVICE_PASS
    if constexpr (std::is_same_v<T, float>)
      TL_UNROLL
      for (int i = 0; i < layout::slots; ++i) {
        float x = v[i];
        asm volatile("" : "+f"(x));
        v[i] = x;
      }
#endif
  }
  // Every element set to x (held elements only).
  TL_INLINE void fill(T x) {
    TL_UNROLL
    for (int i = 0; i < layout::slots; ++i) v[i] = x;
  }
};

// A block that holds expression E's values in E's own register order (what the backend
// materializes for itself: no conversion between orders on the way). A held block of the
// standard order is a loaded block's storage.
template <class E>
using own_block_t = block_t<value_of_t<E>, shape_of_t<E>,
                            evaluation_order(order_of<E>()) == order::mma ? origin::computed : origin::loaded>;

// ---- where an evaluation reads: contexts and register broadcasts ----
//
// A block read through a broadcast or a view is staged in shared memory (two barriers), or,
// in an evaluation that reads only the coordinates of its threads' own slots (an assignment,
// a reduction's input), gathered by warp shuffles when every element a thread reads lies in
// its own warp, in a slot that the reading slot alone decides (not the reading lane). Then
// each thread shuffles in the few distinct elements it reads (at most max_gathered), and the
// evaluation needs no shared memory and no barrier: `qk - m(_, None)` in a tiled evaluation,
// a row's maximum taken back to the row, where the reduction left it in the row's warp. For
// power-of-two shapes the map from the evaluation's flat index to the block's moves or drops
// bits (broadcasts, new axes, permutations, reshapes), and the plan reads it off bit by bit at
// compile time. The staging walk and the evaluator see the same context for each operand
// (operand_context), so both know at compile time which blocks are gathered.

// The coordinate maps from an evaluation's shape to one of its operands': the views and
// broadcasts between them, outermost first.
template <class Out, class In, class Map>
struct path_step {};
template <class... Steps>
struct path {};

template <class Path, class Step>
struct path_then;
template <class... Steps, class Step>
struct path_then<path<Steps...>, Step> {
  using type = path<Steps..., Step>;
};

template <int R>
TL_INLINE constexpr coord<R> apply_path(path<>, const coord<R>& c) {
  return c;
}
template <class Out, class In, class Map, class... Rest>
TL_INLINE constexpr auto apply_path(path<path_step<Out, In, Map>, Rest...>, const coord<Out::rank>& c) {
  return apply_path(path<Rest...>{}, Map::template apply<Out, In>(c));
}

// Where a walk over an expression is: reading coordinates that this thread may not hold
// (shared memory only), or evaluating shape S in order O at its own slots, Path away.
struct staging_only {};
template <class S, order O, class Path>
struct own_slots {};

// The context of operand Op of node X.
template <class Ctx, class X, class Op>
struct operand_context {
  using type = staging_only;
};
template <class S, order O, class Path, class X, class Op>
struct operand_context<own_slots<S, O, Path>, X, Op> {
  using XS = shape_of_t<X>;
  using OS = shape_of_t<Op>;
  static auto pick() {
    if constexpr (requires { X::is_view; })
      return own_slots<S, O, typename path_then<Path, path_step<XS, OS, typename X::map_type>>::type>{};
    else if constexpr (std::is_same_v<XS, OS>) return own_slots<S, O, Path>{};
    else return own_slots<S, O, typename path_then<Path, path_step<XS, OS, broadcast_map>>::type>{};
  }
  using type = decltype(pick());
};
template <class Ctx, class X, class Op>
using operand_context_t = typename operand_context<Ctx, X, std::remove_cvref_t<Op>>::type;

// How a reader (layout L over shape S) gets the elements of a block (layout LX over shape XS)
// Path away by shuffles: entry k of the reader's gathered elements comes from the holder
// whose slot bit p is bit slot_k[p] of k (-1: 0) and whose lane bit q is lane_src[q]:
// 0: 0, 1 + b: bit b of k, -1 - tb: the reader's own thread bit tb.
struct gather_plan {
  bool ok = false;
  unsigned mask = 0;  // the block's flat index bits that make k (lowest first): 2^popcount entries
  int slot_k[32] = {};
  int lane_src[5] = {};
};

template <class L, class LX, class S, class XS, class Path>
constexpr gather_plan make_gather_plan() {
  gather_plan p;
  if constexpr (!L::pow2 || L::replicated || !LX::pow2 || LX::replicated) {
    return p;
  } else {
    constexpr bit_map D = L::bits, X = LX::bits;
    // A map of bits sends the origin to the origin (flip's and cat's maps do not: staged).
    if (ravel<XS>(apply_path(Path{}, unravel<S>(0))) != 0) return p;
    int from[48];  // block bit j: the reader's flat bit it comes from (-1: always 0)
    for (int& f : from) f = -1;
    for (int b = 0; b < D.bits; ++b) {
      const std::int64_t f = ravel<XS>(apply_path(Path{}, unravel<S>(std::int64_t(1) << b)));
      if (f == 0) continue;
      const int j = log2_exact(f);
      if (j < 0 || from[j] >= 0) return p;  // not a map of bits
      from[j] = b;
    }
    for (int q = 5; q < 32; ++q)  // a warp the reader spans that the block leaves empty
      if (((D.thread_used >> q) & 1u) && !((X.thread_used >> q) & 1u)) return p;
    for (int& k : p.slot_k) k = -1;
    int kb = 0;
    for (int j = 0; j < X.bits; ++j) {
      const bool has = from[j] >= 0;
      const int d = has ? D.src[from[j]] : 0;
      if (X.src[j] >= 0) {  // the holder's slot bit: must follow the reader's slot
        if (!has) continue;
        if (d < 0) return p;
        p.slot_k[X.src[j]] = kb++;
        p.mask |= 1u << j;
      } else if (const int q = -1 - X.src[j]; q >= 5) {  // a warp bit: must be the reader's own
        if (!has || d != X.src[j]) return p;
      } else if (has) {  // a lane bit: from the reader's slot (a constant) or its thread
        if (d >= 0) {
          p.lane_src[q] = 1 + kb++;
          p.mask |= 1u << j;
        } else {
          p.lane_src[q] = d;
        }
      }
    }
    p.ok = (1 << kb) <= max_gathered;
    return p;
  }
}

template <class X, class Ctx>
inline constexpr gather_plan plan_of = {};
template <class X, class S, order O, class Path>
inline constexpr gather_plan plan_of<X, own_slots<S, O, Path>> =
    make_gather_plan<layout<S, evaluation_order(O)>, own_layout<X>, S, shape_of_t<X>, Path>();


// The context of an expression E evaluated over shape S in order O (OwnSlots: at the
// threads' own slots only).
template <class S, order O, bool OwnSlots, class E>
using top_context =
    std::conditional_t<!OwnSlots, staging_only,
                       own_slots<S, O,
                                 std::conditional_t<std::is_same_v<shape_of_t<E>, S>, path<>,
                                                    path<path_step<S, shape_of_t<E>, broadcast_map>>>>>;

// ---- the evaluator ----
//
// Every function below carries Ctx, the context of the expression it reads (where it is in an
// evaluation: staging_only, or own_slots with the path from the evaluation's shape), so that
// a block the staging walk gathered into registers is read from them.

template <class Ctx = staging_only, class X>
TL_INLINE value_of_t<X> at(const X& x, const coord<shape_of_t<X>::rank>& c, int slot);

// Operand x (its context Ctx) of a node of shape Parent evaluated in order O, at the node's
// coordinate c. An operand read in place is read at the same coordinate and register slot; one
// of the node's shape in another order at the coordinate only (it is staged), and a smaller
// one is broadcast.
template <class Parent, order O, class Ctx = staging_only, class X>
TL_INLINE auto operand_at(const X& x, const coord<Parent::rank>& c, int slot) {
  using XS = typename X::shape_type;
  if constexpr (read_in_place<X, Parent, O>) return at<Ctx>(x, c, slot);
  else if constexpr (std::is_same_v<XS, Parent>) return at<Ctx>(x, c, -1);
  else return at<Ctx>(x, broadcast_coord<XS>(c), -1);
}

// A node's element from its operands' (visit's callee: a named functor, so that the call is
// forced inline as every other step of the evaluation; a lambda's is left to the inliner, which
// gave up on large expressions).
template <class X, class Ctx>
struct apply_at {
  using S = shape_of_t<X>;
  const coord<S::rank>& c;
  int slot;
  template <class... O>
  TL_INLINE value_of_t<X> operator()(const O&... o) const {
    return X::apply(operand_at<S, order_of<X>(), operand_context_t<Ctx, X, O>>(o, c, slot)...);
  }
};

template <class Ctx, class X>
TL_INLINE value_of_t<X> at(const X& x, const coord<shape_of_t<X>::rank>& c, int slot) {
  using S = shape_of_t<X>;
  if constexpr (is_held_block_v<X>) {
    if constexpr (plan_of<X, Ctx>.ok) return slot >= 0 ? X::value_type(x.v[slot]) : x.template read_gathered<plan_of<X, Ctx>.mask>(c);
    else if constexpr (requires { x.read(c, slot); }) return x.read(c, slot);
    else return x.read(c);  // a block the host holds whole (host code checking this evaluator)
  } else if constexpr (requires { X::is_view; }) {
    return at<operand_context_t<Ctx, X, decltype(x.e)>>(x.e, X::map_type::template apply<S, shape_of_t<decltype(x.e)>>(c), -1);
  } else if constexpr (requires { X::short_circuit; }) {  // where(): only the chosen operand
    constexpr order O = order_of<X>();
    using V = value_of_t<X>;
    return convert<bool>(operand_at<S, O, operand_context_t<Ctx, X, decltype(x.cond)>>(x.cond, c, slot))
               ? convert<V>(operand_at<S, O, operand_context_t<Ctx, X, decltype(x.a)>>(x.a, c, slot))
               : convert<V>(operand_at<S, O, operand_context_t<Ctx, X, decltype(x.b)>>(x.b, c, slot));
  } else if constexpr (requires { typename X::operand_types; }) {
    return x.visit(apply_at<X, Ctx>{c, slot});
  } else {
    return x.at(c);  // scalars and aranges: computed from the coordinate
  }
}

// ---- chunks ----

template <class T, int V>
using chunk_t = vector_of<T, V>;

template <int V, class Ctx = staging_only, class E>
TL_INLINE chunk_t<value_of_t<E>, V> chunk_at(const E& e, const coord<shape_of_t<E>::rank>& c, int slot);

// Operand x (its context Ctx) of a node of shape Parent evaluated in order O, for the chunk at
// c: read once when x is broadcast along the last axis (a scalar, or a last axis of 1), else as
// a chunk of its own (by coordinate only when its order is another: operand_at says why).
template <class Parent, order O, int V, class Ctx = staging_only, class X>
TL_INLINE auto operand_chunk(const X& x, const coord<Parent::rank>& c, int slot) {
  using XS = shape_of_t<X>;
  using T = value_of_t<X>;
  if constexpr (std::is_same_v<XS, Parent>) {
    return chunk_at<V, Ctx>(x, c, read_in_place<X, Parent, O> ? slot : -1);
  } else if constexpr (XS::rank == 0 || XS::dim(XS::rank - 1) == 1) {
    const T one = at<Ctx>(x, broadcast_coord<XS>(c), -1);
    chunk_t<T, V> r;
    TL_UNROLL
    for (int k = 0; k < V; ++k) r.x[k] = one;
    return r;
  } else {
    return chunk_at<V, Ctx>(x, broadcast_coord<XS>(c), -1);
  }
}

// Applies f to the k-th elements of the operands' chunks.
template <class T, int V, class F>
TL_INLINE chunk_t<T, V> chunk_map(F&& f) {
  chunk_t<T, V> r;
  TL_UNROLL
  for (int k = 0; k < V; ++k) r.x[k] = f(k);
  return r;
}

// Element by element (the chunk's elements follow each other in the last axis and, when
// slot >= 0, in the slots).
template <int V, class Ctx = staging_only, class E>
TL_INLINE chunk_t<value_of_t<E>, V> element_chunk(const E& e, const coord<shape_of_t<E>::rank>& c, int slot) {
  constexpr int rank = shape_of_t<E>::rank;
  static_assert(rank >= 1, "tl: a chunk lies along the last axis of a block of rank 1 or more");
  return chunk_map<value_of_t<E>, V>([&](int k) {
    coord<rank> ck = c;
    ck[rank - 1] += k;
    return at<Ctx>(e, ck, slot >= 0 ? slot + k : -1);
  });
}

// Views whose map keeps a chunk whole (maps along the last axis by the identity, or a reshape
// whose input rows hold whole chunks) pass the chunk on; others go element by element.
template <class Map, class Out, class In, int V>
inline constexpr bool keeps_chunks = false;
template <class Out, class In, int V>
inline constexpr bool keeps_chunks<broadcast_map, Out, In, V> = true;  // operand_chunk handles a last axis of 1
template <class Out, class In, int V>
inline constexpr bool keeps_chunks<reshape_map, Out, In, V> = In::rank > 0 && In::dim(In::rank - 1) % V == 0;
template <class Plan, class Out, class In, int V>
inline constexpr bool keeps_chunks<insert_axes_map<Plan>, Out, In, V> = !Plan::is_new(Out::rank - 1);
template <int... P, class Out, class In, int V>
inline constexpr bool keeps_chunks<permute_map<P...>, Out, In, V> = [] {
  constexpr int p[] = {P..., 0};
  return p[Out::rank - 1] == In::rank - 1;
}();

// A node's chunk from its operands' chunks (visit's callee, forced inline as apply_at).
template <class X, int V, class Ctx>
struct apply_to_chunks {
  using S = shape_of_t<X>;
  const coord<S::rank>& c;
  int slot;
  template <class... W>
  TL_INLINE static chunk_t<value_of_t<X>, V> apply(const W&... w) {
    chunk_t<value_of_t<X>, V> r;
    TL_UNROLL
    for (int k = 0; k < V; ++k) r.x[k] = X::apply(w.x[k]...);
    return r;
  }
  template <class... O>
  TL_INLINE chunk_t<value_of_t<X>, V> operator()(const O&... o) const {
    return apply(operand_chunk<S, order_of<X>(), V, operand_context_t<Ctx, X, O>>(o, c, slot)...);
  }
};

// The V elements of e from coordinate c on along the last axis (c's last coordinate a multiple
// of V, the axis a multiple of V long); slot: the first one's register slot, or -1.
// Elementwise nodes read each operand by chunks (once per chunk when broadcast along the rows),
// then apply the node's scalar rule to the k-th of each.
template <int V, class Ctx, class E>
TL_INLINE chunk_t<value_of_t<E>, V> chunk_at(const E& e, const coord<shape_of_t<E>::rank>& c, int slot) {
  using X = std::remove_cvref_t<E>;
  using S = shape_of_t<X>;
  if constexpr (requires { X::is_view; }) {
    using In = shape_of_t<decltype(e.e)>;
    using Map = typename X::map_type;
    using Inner = operand_context_t<Ctx, X, decltype(e.e)>;
    if constexpr (!keeps_chunks<Map, S, In, V>) return element_chunk<V, Ctx>(e, c, slot);
    else if constexpr (std::is_same_v<Map, broadcast_map>) return operand_chunk<S, order::any, V, Inner>(e.e, c, -1);
    else return chunk_at<V, Inner>(e.e, Map::template apply<S, In>(c), -1);
  } else if constexpr (requires { typename X::operand_types; } && !is_held_block_v<X>) {
    return e.visit(apply_to_chunks<X, V, Ctx>{c, slot});
  } else {
    return element_chunk<V, Ctx>(e, c, slot);
  }
}

// ---- staging ----

// Is operand O of node X read slot for slot when X is (Id)? (A view's operand never is.)
template <class X, class O, bool Id>
inline constexpr bool operand_identity =
    Id && !requires { X::is_view; } && read_in_place<O, typename X::shape_type, order_of<X>()>;

struct staging_needs {
  int bytes = 0;    // shared memory
  int gathers = 0;  // blocks gathered into registers
  constexpr staging_needs operator+(staging_needs o) const { return {bytes + o.bytes, gathers + o.gathers}; }
};

template <class E, bool Id, class Ctx>
constexpr staging_needs staging_of();

template <class X, bool Id, class Ctx, class... O>
constexpr staging_needs operands_staging(type_list<O...>) {
  return (staging_needs{} + ... + staging_of<O, operand_identity<X, O, Id>, operand_context_t<Ctx, X, O>>());
}

// What evaluating E needs; Id: E itself is read slot for slot; Ctx: where the walk is.
template <class E, bool Id, class Ctx>
constexpr staging_needs staging_of() {
  using X = std::remove_cvref_t<E>;
  if constexpr (is_held_block_v<X>) {
    if constexpr (Id || own_layout<X>::replicated) return {};
    else if constexpr (plan_of<X, Ctx>.ok) return {0, 1};
    else return {smem_bytes<typename X::value_type>(X::size), 0};
  } else if constexpr (requires { typename X::operand_types; }) {
    return operands_staging<X, Id, Ctx>(typename X::operand_types{});
  } else {
    return {};
  }
}

// Shared memory bytes that evaluating E needs (everything staged).
template <class E, bool Id>
constexpr int staged_bytes() {
  return staging_of<E, Id, staging_only>().bytes;
}

#if TL_DEVICE_PASS
// Writes the elements of block x this thread holds to dst, row-major (a replicated block:
// thread 0 writes it).
template <class X>
__device__ __forceinline__ void write_rows(const X& x, typename X::value_type* dst) {
  using L = own_layout<X>;
  const int t = thread_id();
  if (L::replicated && t != 0) return;
  TL_UNROLL
  for (int i = 0; i < L::slots; ++i)
    if (L::valid(t, i)) dst[L::flat(t, i)] = x.v[i];
}

// Gathers the elements of block x that this thread reads (plan P) by warp shuffles: one per
// entry, every thread of the program taking part.
template <gather_plan P, class X>
__device__ __forceinline__ void gather_rows(X& x) {
  const unsigned t = unsigned(thread_id());
  static_for<(1 << __builtin_popcount(P.mask))>([&](auto k) {
    constexpr int slot = [] {
      int s = 0;
      for (int b = 0; b < 32; ++b)
        if (P.slot_k[b] >= 0) s |= ((decltype(k)::value >> P.slot_k[b]) & 1) << b;
      return s;
    }();
    unsigned lane = 0;
    TL_UNROLL
    for (int q = 0; q < 5; ++q) {
      if (P.lane_src[q] > 0) lane |= unsigned((decltype(k)::value >> (P.lane_src[q] - 1)) & 1) << q;
      else if (P.lane_src[q] < 0) lane |= ((t >> (-1 - P.lane_src[q])) & 1u) << q;
    }
    using T = typename X::value_type;
    x.gathered[k] = shuffle_word(T(x.v[slot]), [&](auto u) { return __shfl_sync(0xffffffffu, u, int(lane)); });
  });
}

// Writes the blocks of e that are read through broadcasts or views to shared memory at
// base + offset and points them there, or gathers them into registers.
template <bool Id, class Ctx, class E>
__device__ __forceinline__ void stage_walk(E& e, char* base, int& offset) {
  using X = std::remove_cvref_t<E>;
  constexpr staging_needs need = staging_of<X, Id, Ctx>();
  if constexpr (is_held_block_v<X>) {
    if constexpr (need.bytes > 0) {
      using T = typename X::value_type;
      T* dst = reinterpret_cast<T*>(base + offset);
      write_rows(e, dst);
      e.staged = dst;
      offset += smem_bytes<T>(X::size);
    } else if constexpr (need.gathers > 0) {
      gather_rows<plan_of<X, Ctx>>(e);
    }
  } else if constexpr (requires { typename X::operand_types; }) {
    if constexpr (need.bytes > 0 || need.gathers > 0) {
      e.for_each_operand([&](auto& o) {
        using O = std::remove_cvref_t<decltype(o)>;
        stage_walk<operand_identity<X, O, Id>, operand_context_t<Ctx, X, O>>(o, base, offset);
      });
    }
  }
}

// Stages, for an evaluation over shape S in order O, the expressions es (each read slot for
// slot if it has shape S and agrees with O). Two barriers: the first lets earlier readers of
// the scratch finish, the second makes the writes visible. Nothing to stage: no barrier, no
// shared memory. OwnSlots: the evaluation reads the coordinates of this thread's own slots
// only, so blocks may be gathered into registers instead.
template <class S, order O, bool OwnSlots = false, class... E>
__device__ __forceinline__ void stage(E&... es) {
  constexpr staging_needs need =
      (staging_needs{} + ... + staging_of<E, read_in_place<E, S, O>, top_context<S, O, OwnSlots, E>>());
  if constexpr (need.bytes > 0 || need.gathers > 0) {
    char* base = nullptr;  // gathers alone: no shared memory, no barrier
    if constexpr (need.bytes > 0) {
      base = scratch<scratch_size(need.bytes)>();
      barrier();
    }
    int offset = 0;
    (stage_walk<read_in_place<E, S, O>, top_context<S, O, OwnSlots, E>>(es, base, offset), ...);
    if constexpr (need.bytes > 0) barrier();
  }
}

// Stages expressions that are each read slot for slot at their own shape (one barrier pair,
// one scratch for all of them). Barriers = false: the writes only, for a caller that has
// the barriers already (one before, one after that also covers its own writes).
template <bool Barriers = true, class... E>
__device__ __forceinline__ void stage_each(E&... es) {
  constexpr int bytes = (0 + ... + staged_bytes<E, true>());
  if constexpr (bytes > 0) {
    char* base = scratch<scratch_size(bytes)>();
    int offset = 0;
    if constexpr (Barriers) barrier();
    (stage_walk<true, staging_only>(es, base, offset), ...);
    if constexpr (Barriers) barrier();
  }
}

// ---- a block assigned an expression (expr/block.hpp) ----

template <class B, class E>
__device__ __forceinline__ void evaluate_into(B& b, const E& e) {
  using S = typename B::shape_type;
  using ES = shape_of_t<E>;
  using L = typename B::layout;
  constexpr order O = B::register_order;
  settle_dots<E>();
  E ex = e;  // a copy whose broadcast blocks can be pointed at their staged copies (or gathered)
  stage<S, O, true>(ex);
  using Ctx = top_context<S, O, true, E>;
  const int t = thread_id();
  constexpr int V = L::vec;
  if constexpr (V > 1 && ES::rank >= 1 && ES::dim(ES::rank - 1) % V == 0) {
    // By chunks: an operand broadcast along the rows is read once per chunk.
    TL_UNROLL
    for (int i = 0; i < L::slots; i += V) {
      if (!L::valid(t, i)) continue;
      const auto w = operand_chunk<S, O, V, Ctx>(ex, L::coords(t, i), i);
      TL_UNROLL
      for (int k = 0; k < V; ++k) b.v[i + k] = w.x[k];
    }
  } else {
    TL_UNROLL
    for (int i = 0; i < L::slots; ++i) {
      if (!L::valid(t, i)) continue;
      if constexpr (ES::rank == 0) b.v[i] = at<Ctx>(ex, coord<0>{}, -1);
      else b.v[i] = operand_at<S, O, Ctx>(ex, L::coords(t, i), i);
    }
  }
}
#endif

}  // namespace tl::detail::cuda
