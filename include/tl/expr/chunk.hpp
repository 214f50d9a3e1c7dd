// tl/expr/chunk.hpp: an expression evaluated V elements at a time along its last axis.
//
// The CUDA layouts hold blocks in chunks of V consecutive elements of a row (layout.hpp), and
// a chunk is how a block is written (registers, shared memory, a dot's operand). Evaluated
// element by element, an operand broadcast along the last axis is read V times for the same
// value, and the compiler cannot always tell (puzzle 12's dequantized weights: a weight word,
// an offset word and a scale, read from their staged copies for each of the 4 elements of a
// chunk, 192 shared-memory loads a thread and step where 48 do). chunk_at reads such an
// operand once per chunk and follows chunks through the views that keep them whole:
//   x(_, None) + y         x's element, read once, joins each of y's V elements
//   reshape<M, K>(e)       a chunk of the output is a chunk of e when e's rows hold whole chunks
//   x(None, _), expand_dims, broadcast_to, a permutation that keeps the last axis: the same
// Everything else is evaluated element by element, as at() does.
#pragma once

#include "../backend/cuda/layout.hpp"
#include "nodes.hpp"

namespace tl::detail {

template <class T, int V>
using chunk_t = cuda::vector_of<T, V>;

template <class E>
struct chunker;

// The V elements of e from coordinate c on along the last axis (c's last coordinate a multiple
// of V, the axis a multiple of V long); slot: the first one's register slot, or -1.
template <int V, class E>
TL_INLINE chunk_t<value_of_t<E>, V> chunk_at(const E& e, const coord<shape_of_t<E>::rank>& c, int slot) {
  return chunker<E>::template get<V>(e, c, slot);
}

// Operand x of a node of shape Parent evaluated in order O, for the chunk at c: read once
// when x is broadcast along the last axis (a scalar, or a last axis of 1), else as a chunk of
// its own (by coordinate only when its order is another: operand_at says why).
template <class Parent, order O, int V, class X>
TL_INLINE auto operand_chunk(const X& x, const coord<Parent::rank>& c, int slot) {
  using XS = shape_of_t<X>;
  using T = value_of_t<X>;
  if constexpr (std::is_same_v<XS, Parent>) {
    return chunk_at<V>(x, c, read_in_place<X, Parent, O> ? slot : -1);
  } else if constexpr (XS::rank == 0 || XS::dim(XS::rank - 1) == 1) {
    const T one = x.at(broadcast_coord<XS>(c), -1);
    chunk_t<T, V> r;
    TL_UNROLL
    for (int k = 0; k < V; ++k) r.x[k] = one;
    return r;
  } else {
    return chunk_at<V>(x, broadcast_coord<XS>(c), -1);
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
// slot >= 0, in the slots): the default.
template <class E>
struct element_chunker {
  template <int V>
  TL_INLINE static chunk_t<value_of_t<E>, V> get(const E& e, const coord<shape_of_t<E>::rank>& c, int slot) {
    constexpr int rank = shape_of_t<E>::rank;
    static_assert(rank >= 1, "tl: a chunk lies along the last axis of a block of rank 1 or more");
    return chunk_map<value_of_t<E>, V>([&](int k) {
      coord<rank> ck = c;
      ck[rank - 1] += k;
      return e.at(ck, slot >= 0 ? slot + k : -1);
    });
  }
};
template <class E>
struct chunker : element_chunker<E> {};

// Elementwise nodes: each operand read by chunks (once per chunk when broadcast along the
// rows), then the node's own apply() (the scalar rule at() uses too) on the k-th of each.
template <class N, int V, class... C>
TL_INLINE chunk_t<value_of_t<N>, V> apply_to_chunks(const C&... operand) {
  return chunk_map<value_of_t<N>, V>([&](int k) { return N::apply(operand.x[k]...); });
}
template <class N, int V, class... X>
TL_INLINE auto elementwise_chunk(const coord<shape_of_t<N>::rank>& c, int slot, const X&... operand) {
  return apply_to_chunks<N, V>(operand_chunk<shape_of_t<N>, order_of<N>(), V>(operand, c, slot)...);
}

template <class Op, class E>
struct chunker<unary<Op, E>> {
  template <int V>
  TL_INLINE static auto get(const unary<Op, E>& n, const coord<shape_of_t<E>::rank>& c, int slot) {
    return elementwise_chunk<unary<Op, E>, V>(c, slot, n.e);
  }
};
template <class Op, class A, class B>
struct chunker<binary<Op, A, B>> {
  using N = binary<Op, A, B>;
  template <int V>
  TL_INLINE static auto get(const N& n, const coord<shape_of_t<N>::rank>& c, int slot) {
    return elementwise_chunk<N, V>(c, slot, n.a, n.b);
  }
};
template <class Op, class P, class O>
struct chunker<pointer_offset<Op, P, O>> {
  using N = pointer_offset<Op, P, O>;
  template <int V>
  TL_INLINE static auto get(const N& n, const coord<shape_of_t<N>::rank>& c, int slot) {
    return elementwise_chunk<N, V>(c, slot, n.p, n.o);
  }
};
template <class T, class E>
struct chunker<cast<T, E>> {
  template <int V>
  TL_INLINE static auto get(const cast<T, E>& n, const coord<shape_of_t<E>::rank>& c, int slot) {
    return elementwise_chunk<cast<T, E>, V>(c, slot, n.e);
  }
};
template <class T, class E>
struct chunker<bitcast<T, E>> {
  template <int V>
  TL_INLINE static auto get(const bitcast<T, E>& n, const coord<shape_of_t<E>::rank>& c, int slot) {
    return elementwise_chunk<bitcast<T, E>, V>(c, slot, n.e);
  }
};
template <class Cond, class A, class B>
struct chunker<select<Cond, A, B>> {
  using N = select<Cond, A, B>;
  template <int V>
  TL_INLINE static auto get(const N& n, const coord<shape_of_t<N>::rank>& c, int slot) {
    return elementwise_chunk<N, V>(c, slot, n.cond, n.a, n.b);
  }
};
template <class Fn, class A, class B, class C>
struct chunker<ternary<Fn, A, B, C>> {
  using N = ternary<Fn, A, B, C>;
  template <int V>
  TL_INLINE static auto get(const N& n, const coord<shape_of_t<N>::rank>& c, int slot) {
    return elementwise_chunk<N, V>(c, slot, n.a, n.b, n.c);
  }
};

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

template <class E, class Shape, class Map>
struct chunker<view<E, Shape, Map>> {
  using N = view<E, Shape, Map>;
  using In = shape_of_t<E>;
  template <int V>
  TL_INLINE static auto get(const N& n, const coord<Shape::rank>& c, int slot) {
    if constexpr (!keeps_chunks<Map, Shape, In, V>) {
      return element_chunker<N>::template get<V>(n, c, slot);
    } else if constexpr (std::is_same_v<Map, broadcast_map>) {
      return operand_chunk<Shape, order::any, V>(n.e, c, -1);
    } else {
      return chunk_at<V>(n.e, Map::template apply<Shape, In>(c), -1);
    }
  }
};

}  // namespace tl::detail
