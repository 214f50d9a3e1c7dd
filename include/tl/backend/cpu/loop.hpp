// tl/backend/cpu/loop.hpp: range::fold (ops/program.hpp) on the CPU backend: the plain loop,
// every iteration's body in turn (the CUDA backend pipelines it: backend/cuda/loop.hpp).
#pragma once

namespace tl::detail::cpu {

template <class Acc, class Body>
inline Acc fold(int start, int stop, int step, int /*stages*/, Acc acc, Body& body) {
  for (int k = start; step > 0 ? k < stop : step < 0 && k > stop; k += step) acc = body(k, static_cast<const Acc&>(acc));
  return acc;
}

}  // namespace tl::detail::cpu
