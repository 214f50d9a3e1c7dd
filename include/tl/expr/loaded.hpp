// tl/expr/loaded.hpp: what tl::load returns: a block that remembers where it came from.
//
// A loaded block is a held block (every use reads its elements; origin::loaded) that also
// keeps the pointer, mask and `other` expressions of its load. tl::dot on the CUDA backend
// reads an operand that is a loaded block straight from memory, global to shared with
// cp.async in the layout the tensor cores read (backend/cuda/dot_wgmma.hpp), so when the dot
// is the block's only use the load's own copy into registers is dead code and the compiler
// drops it.
//
// The rule this implies, as in Triton (whose pipelined loops issue a dot's loads early):
// nothing may store to the memory a load read between the load and the dot it feeds. The
// CPU backend checks it: a dot whose loaded operand no longer matches memory fails the
// launch with the load's source line.
//
// The same holds for an update that a load is written in, `acc += tl::load(...)`: where acc
// is held in another register order, the CUDA backend loads again in acc's order
// (load_in_order in expr/block.hpp and the backends' memory.hpp).
//
// Updating a loaded block in place (x += 1, x = expr) makes it an ordinary block: `fresh`
// turns false, and the dot uses its elements. `fresh` is a run-time flag that the compiler
// folds (a block is either updated or not where the dot sees it).
//
// A tensor descriptor's load (ops/tensor_descriptor.hpp) also keeps its descriptor and the
// block's offsets (Src = descriptor_source): on sm_90a with TL_DESCRIPTOR_TMA=1 a dot copies such
// an operand with the bulk tensor copy engine (backend/cuda/dot_wgmma.hpp), which gives 0 outside
// the tensor as the load's mask does.
#pragma once

#include <cstdint>

#include "../core/source_location.hpp"
#include "block.hpp"

namespace tl::detail {

// Where a loaded block came from besides its pointers: nothing, or a descriptor's block.
struct no_source {};
template <int Rank>
struct descriptor_source {
  const void* base = nullptr;  // the descriptor's tensor (shape and strides in elements)
  std::int64_t shape[Rank] = {};
  std::int64_t strides[Rank] = {};
  std::int64_t offsets[Rank] = {};  // the block's first element
};

template <class T, class S, class EP, class EM, class EO, class Src = no_source>
struct loaded : block_t<T, S, origin::loaded> {
  using block_type = block_t<T, S, origin::loaded>;
  using ptrs_type = EP;
  using mask_type = EM;
  using other_type = EO;
  EP ptrs;
  EM mask;
  EO other;
  source_location where;
  [[no_unique_address]] Src source;
  bool fresh = true;  // the elements are still what memory holds at ptrs (mask, other)

  TL_HD loaded(const EP& p, const EM& m, const EO& o, const source_location& w, const Src& s = Src{})
      : ptrs(p), mask(m), other(o), where(w), source(s) {}
  loaded(const loaded&) = default;
  loaded& operator=(const loaded&) = default;

  template <class E>
    requires is_expr_v<E>
  TL_HD loaded& operator=(const E& e) {
    block_type::operator=(e);
    fresh = false;
    return *this;
  }
#define TL_LOADED_UPDATE(OP)          \
  template <class E>                  \
  TL_HD loaded& operator OP(E&& e) {  \
    block_type::operator OP(std::forward<E>(e)); \
    fresh = false;                    \
    return *this;                     \
  }
  TL_LOADED_UPDATE(+=)
  TL_LOADED_UPDATE(-=)
  TL_LOADED_UPDATE(*=)
  TL_LOADED_UPDATE(/=)
  TL_LOADED_UPDATE(%=)
  TL_LOADED_UPDATE(&=)
  TL_LOADED_UPDATE(|=)
  TL_LOADED_UPDATE(^=)
  TL_LOADED_UPDATE(<<=)
  TL_LOADED_UPDATE(>>=)
#undef TL_LOADED_UPDATE
  TL_INLINE void fill(T x) {
    block_type::fill(x);
    fresh = false;
  }
  // Element access for host code (tests; the CPU backend's storage has it).
  TL_INLINE T& operator[](std::int64_t flat) {
    fresh = false;
    return block_type::operator[](flat);
  }
  TL_INLINE const T& operator[](std::int64_t flat) const { return block_type::operator[](flat); }
  TL_INLINE T* data() {
    fresh = false;
    return block_type::data();
  }
  TL_INLINE const T* data() const { return block_type::data(); }
};

// Inside expressions a loaded block is its plain block (the source matters to tl::dot only).
template <class T, class S, class EP, class EM, class EO, class Src>
struct as_expr_type<loaded<T, S, EP, EM, EO, Src>> {
  using type = block_t<T, S, origin::loaded>;
};

// Is X a descriptor's load (of rank Rank)?
template <class X>
inline constexpr int descriptor_rank_v = 0;
template <class T, class S, class EP, class EM, class EO, int R>
inline constexpr int descriptor_rank_v<loaded<T, S, EP, EM, EO, descriptor_source<R>>> = R;

}  // namespace tl::detail
