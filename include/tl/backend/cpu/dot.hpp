// tl/backend/cpu/dot.hpp: tl::dot on the CPU backend: the operands evaluated once, then a
// plain triple loop per batch in the multiply type In (float32 inputs cut to tf32 first when
// the dot's precision is tf32, as the tensor cores read them), accumulated in the result's
// compute type.
#pragma once

#include "../../expr/block.hpp"
#include "../../expr/loaded.hpp"
#include "memory.hpp"
#include "program.hpp"

namespace tl::detail::cpu {
// out = acc + a @ b, for D = dot_shapes<...> (ops/dot.hpp).
template <class D, class In, bool Tf32, class EA, class EB, class Acc, class Out>
void dot(const EA& a, const EB& b, const Acc* acc, Out& out) {
  using TA = value_of_t<EA>;
  using AccT = typename Out::value_type;
  constexpr const char* stored_before_dot =
      "memory this load read was stored to before the tl::dot it feeds (the CUDA backend reads "
      "dot operands from memory at the dot: keep stores to it after the dot)";
  check_load_unchanged(a, stored_before_dot);
  check_load_unchanged(b, stored_before_dot);
  // Operands evaluated once into plain arrays (they may be lazy expressions).
  const auto ea = eval(a);
  const auto eb = eval(b);
  using C = compute_t<AccT>;
  constexpr int M = D::M, N = D::N, K = D::K;
  for (int bt = 0; bt < D::BA; ++bt) {
    for (int i = 0; i < M; ++i) {
      for (int j = 0; j < N; ++j) {
        C sum = 0;
        if constexpr (!std::is_void_v<Acc>) sum = static_cast<C>(acc->v[(std::int64_t(bt) * M + i) * N + j]);
        for (int k = 0; k < K; ++k) {
          In x = static_cast<In>(static_cast<compute_t<TA>>(ea.v[(std::int64_t(bt) * M + i) * K + k]));
          In y = static_cast<In>(static_cast<compute_t<TA>>(eb.v[(std::int64_t(bt) * K + k) * N + j]));
          if constexpr (Tf32) {
            x = round_to_tf32(x);
            y = round_to_tf32(y);
          }
          sum = op::add{}(sum, static_cast<C>(op::mul{}(x, y)));
        }
        out.v[(std::int64_t(bt) * M + i) * N + j] = convert<AccT>(sum);
      }
    }
  }
}

}  // namespace tl::detail::cpu
