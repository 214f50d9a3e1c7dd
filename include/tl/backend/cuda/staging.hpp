// tl/backend/cuda/staging.hpp: evaluating an expression over the threads of a program.
//
// Each thread evaluates the expression at the coordinates of its own register slots. A block
// read at its own shape (same layout, same slot) is a register read. A block read through a
// broadcast or a view needs elements other threads hold, so before the evaluation such a
// block is "staged": written once to shared memory, row-major, between two barriers, and read
// from there by coordinate. Which blocks need staging is a property of the expression's type,
// so the shared memory an evaluation needs is a compile-time constant (staged_bytes).
#pragma once

#include <type_traits>

#include "../../expr/expr.hpp"
#include "layout.hpp"

namespace tl {
template <detail::order O, class T, int... D>
struct basic_block;
}

namespace tl::detail::cuda {

template <class X>
struct is_block : std::false_type {};
template <order O, class T, int... D>
struct is_block<basic_block<O, T, D...>> : std::true_type {};
template <class X>
  requires requires { typename X::block_type; }  // a loaded block (expr/loaded.hpp)
struct is_block<X> : std::true_type {};

// The layout expression X is evaluated in: its shape's, in its own order (any: standard).
template <class X>
using own_layout = layout<shape_of_t<X>, evaluation_order(order_of<X>())>;

// Is operand O of node X read slot for slot when X is (Id)? (expr.hpp's read_in_place; a
// view's operand never is.)
template <class X, class O, bool Id>
inline constexpr bool operand_identity =
    Id && !requires { X::is_view; } && read_in_place<O, typename X::shape_type, order_of<X>()>;

template <class E, bool Id>
constexpr int staged_bytes();

template <class X, bool Id, class... O>
constexpr int operands_staged_bytes(type_list<O...>) {
  return (0 + ... + staged_bytes<O, operand_identity<X, O, Id>>());
}

// Shared memory bytes that evaluating E needs; Id: E itself is read slot for slot.
template <class E, bool Id>
constexpr int staged_bytes() {
  using X = std::remove_cvref_t<E>;
  if constexpr (is_block<X>::value) {
    return (!Id && !own_layout<X>::replicated) ? smem_bytes<typename X::value_type>(X::size) : 0;
  } else if constexpr (requires { typename X::operand_types; }) {
    return operands_staged_bytes<X, Id>(typename X::operand_types{});
  } else {
    return 0;
  }
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

// Writes the blocks of e that are read through broadcasts or views to shared memory at
// base + offset, and points them there.
template <bool Id, class E>
__device__ __forceinline__ void stage_walk(E& e, char* base, int& offset) {
  using X = std::remove_cvref_t<E>;
  if constexpr (is_block<X>::value) {
    if constexpr (staged_bytes<X, Id>() > 0) {
      using T = typename X::value_type;
      T* dst = reinterpret_cast<T*>(base + offset);
      write_rows(e, dst);
      e.staged = dst;
      offset += smem_bytes<T>(X::size);
    }
  } else if constexpr (requires { typename X::operand_types; }) {
    if constexpr (staged_bytes<X, Id>() > 0) {
      e.for_each_operand([&](auto& o) {
        stage_walk<operand_identity<X, std::remove_cvref_t<decltype(o)>, Id>>(o, base, offset);
      });
    }
  }
}

// Stages, for an evaluation over shape S in order O, the expressions es (each read slot for
// slot if it has shape S and agrees with O). Two barriers: the first lets earlier readers of
// the scratch finish, the second makes the writes visible. Nothing to stage: no barrier, no
// shared memory.
template <class S, order O, class... E>
__device__ __forceinline__ void stage(E&... es) {
  constexpr int bytes = (0 + ... + staged_bytes<E, read_in_place<E, S, O>>());
  if constexpr (bytes > 0) {
    char* base = scratch<scratch_size(bytes)>();
    int offset = 0;
    barrier();
    (stage_walk<read_in_place<E, S, O>>(es, base, offset), ...);
    barrier();
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
    (stage_walk<true>(es, base, offset), ...);
    if constexpr (Barriers) barrier();
  }
}

#endif

}  // namespace tl::detail::cuda
