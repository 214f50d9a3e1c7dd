// tl/backend/cpu/evaluation.hpp: blocks and their evaluation on the CPU backend.
//
// A block holds every element, row-major, whatever its origin; an expression is evaluated
// element by element through at(), which says what each node means (expr/nodes.hpp). A
// program runs on one host thread, so nothing is shared between the elements' evaluations.
#pragma once

#include <cstdint>

#include "../../expr/block.hpp"

namespace tl::detail::cpu {

template <class T, class S, origin O>
struct block_storage {
  // Default construction zero-fills, so nothing reads garbage.
  T v[S::size > 0 ? S::size : 1]{};

  TL_INLINE T read(const coord<S::rank>& c) const { return v[ravel<S>(c)]; }
  // A new block's values stay where they are made (the CUDA backend's reason; nothing here).
  TL_INLINE void keep_here() {}
  TL_INLINE void fill(T x) {
    for (auto& e : v) e = x;
  }
  // The element at a row-major flat index (host code: tests, the backend itself).
  TL_INLINE T& operator[](std::int64_t flat) { return v[flat]; }
  TL_INLINE const T& operator[](std::int64_t flat) const { return v[flat]; }
  TL_INLINE T* data() { return v; }
  TL_INLINE const T* data() const { return v; }
};

// b = e, element by element (a rank-0 e fills b).
template <class B, class E>
inline void evaluate_into(B& b, const E& e) {
  using S = typename B::shape_type;
  for (std::int64_t i = 0; i < S::size; ++i) {
    if constexpr (shape_of_t<E>::rank == 0) b.v[i] = e.at(coord<0>{});
    else b.v[i] = e.at(unravel<S>(i));
  }
}

}  // namespace tl::detail::cpu
