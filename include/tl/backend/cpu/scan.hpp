// tl/backend/cpu/scan.hpp: scans along an axis on the CPU backend: each line along the axis
// combined in order (from its end with reverse), as the combiner says (ops/scan.hpp).
#pragma once

#include "../../expr/pack.hpp"

namespace tl::detail::cpu {

template <class C, int Axis, bool Reverse, class S, class E, class Out>
void scan(const E& e, Out& out) {
  using A = typename C::acc;
  using Lines = typename reduce_shape<S, Axis, true>::type;
  constexpr int K = S::dim(Axis);
  for (std::int64_t i = 0; i < Lines::size; ++i) {
    coord<S::rank> c = unravel<Lines>(i);
    A a{};
    for (int j = 0; j < K; ++j) {
      c[Axis] = Reverse ? K - 1 - j : j;
      const A x = convert_value<A>(e.at(c));
      a = j == 0 ? x : C::combine(a, x);
      out.v[ravel<S>(c)] = convert_value<typename C::result>(a);
    }
  }
}

}  // namespace tl::detail::cpu
