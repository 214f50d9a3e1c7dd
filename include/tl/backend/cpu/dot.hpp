// tl/backend/cpu/dot.hpp: tl::dot on the CPU backend: the operands evaluated once, then a
// plain triple loop per batch in the multiply type In (float32 inputs cut to tf32 first when
// the dot's precision is tf32, as the tensor cores read them), accumulated in the result's
// compute type.
#pragma once

#include <cstring>

#include "../../expr/block.hpp"
#include "../../expr/loaded.hpp"
#include "program.hpp"

namespace tl::detail::cpu {
// The CUDA backend reads an operand that is a loaded block from memory at the dot
// (expr/loaded.hpp); a store between the load and the dot would make the two backends differ.
// Here the elements of the load are compared with what memory holds now.
template <class X>
void check_operand_unchanged(const X& x) {
  if constexpr (is_loaded_v<X>) {
    if (!x.fresh) return;
    using S = shape_of_t<X>;
    using T = value_of_t<X>;
    std::int64_t changed = 0;
    for (std::int64_t i = 0; i < S::size; ++i) {
      const coord<S::rank> c = unravel<S>(i);
      if (!convert<bool>(x.mask.at(broadcast_coord<shape_of_t<typename X::mask_type>>(c)))) continue;
      const auto p = x.ptrs.at(c);
      if (!p.in_bounds()) continue;  // reported by the load
      if (std::memcmp(p.get(), &x.v[i], sizeof(T)) != 0) ++changed;
    }
    if (changed > 0) {
      assert_failure f;
      f.where = x.where;
      f.message = "memory this load read was stored to before the tl::dot it feeds (the CUDA backend reads "
                  "dot operands from memory at the dot: keep stores to it after the dot)";
      f.failing_lanes = changed;
      report_assert_failure(std::move(f));
    }
  }
}

// out = acc + a @ b, for D = dot_shapes<...> (ops/dot.hpp).
template <class D, class In, bool Tf32, class EA, class EB, class Acc, class Out>
void dot(const EA& a, const EB& b, const Acc* acc, Out& out) {
  using TA = value_of_t<EA>;
  using AccT = typename Out::value_type;
  check_operand_unchanged(a);
  check_operand_unchanged(b);
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
