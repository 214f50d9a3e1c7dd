// tl/backend/cpu/reduce.hpp: reductions along an axis on the CPU backend: each result folded
// in order along the axis, as the reducer's step() says (ops/reduce.hpp).
#pragma once

#include "../../expr/block.hpp"

namespace tl::detail::cpu {

// out (shape Kept without the axis, or Kept) = e reduced along Axis.
template <class Red, int Axis, class S, class Kept, class E, class Out>
void reduce(const E& e, Out& out) {
  using T = value_of_t<E>;
  for (std::int64_t i = 0; i < Kept::size; ++i) {
    coord<S::rank> c = unravel<Kept>(i);
    auto a = Red::template init<T>();
    int idx = -1;
    for (int k = 0; k < S::dim(Axis); ++k) {
      c[Axis] = k;
      Red::template step<T>(a, idx, e.at(c), k);
    }
    out.v[i] = Red::template finish<T>(a, idx);
  }
}

}  // namespace tl::detail::cpu
