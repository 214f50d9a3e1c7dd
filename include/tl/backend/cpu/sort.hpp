// tl/backend/cpu/sort.hpp: sort, gather and histogram on the CPU backend (ops/sort.hpp): each
// line sorted by the bitonic network of core/sort_key.hpp (the GPU's, run in order), gathers
// and counts element by element.
#pragma once

#include <vector>

#include "../../core/sort_key.hpp"
#include "../../expr/block.hpp"

namespace tl::detail::cpu {

template <int Axis, bool Descending, class S, bool MergeOnly = false, class E, class Out>
void sort(const E& e, Out& out) {
  using T = value_of_t<E>;
  using Lines = typename reduce_shape<S, Axis, true>::type;
  constexpr int K = S::dim(Axis);
  std::vector<T> line(static_cast<std::size_t>(K));
  for (std::int64_t i = 0; i < Lines::size; ++i) {
    coord<S::rank> c = unravel<Lines>(i);
    for (int k = 0; k < K; ++k) {
      c[Axis] = k;
      line[std::size_t(k)] = e.at(c);
    }
    for (int k = MergeOnly ? K : 2; k <= K; k *= 2)  // K is a power of two (ops/sort.hpp checks)
      for (int j = k / 2; j > 0; j /= 2)
        for (int pair = 0; pair < K / 2; ++pair) {
          const int lo = bitonic_low(pair, j);
          bitonic_exchange<Descending>(line[std::size_t(lo)], line[std::size_t(lo + j)], lo, k, K);
        }
    for (int k = 0; k < K; ++k) {
      c[Axis] = k;
      out.v[ravel<S>(c)] = line[std::size_t(k)];
    }
  }
}

template <int Axis, class S, class E, class I, class Out>
void gather(const E& src, const I& index, Out& out) {
  using SI = shape_of_t<I>;
  using T = value_of_t<E>;
  for (std::int64_t i = 0; i < SI::size; ++i) {
    const coord<SI::rank> c = unravel<SI>(i);
    const auto k = static_cast<std::int64_t>(index.at(c));
    coord<S::rank> from = c;
    from[Axis] = int(k);
    out.v[i] = k >= 0 && k < S::dim(Axis) ? src.at(from) : T(0);
  }
}

template <int NumBins, class E, class M, class Out>
void histogram(const E& x, const M& mask, Out& out) {
  using S = shape_of_t<E>;
  for (int b = 0; b < NumBins; ++b) out.v[b] = 0;
  for (std::int64_t i = 0; i < S::size; ++i) {
    const coord<S::rank> c = unravel<S>(i);
    if (!convert<bool>(mask.at(broadcast_coord<shape_of_t<M>>(c)))) continue;
    const auto v = static_cast<std::int64_t>(x.at(c));
    if (v >= 0 && v < NumBins) ++out.v[v];
  }
}

}  // namespace tl::detail::cpu
