// tl/expr/ahead.hpp: what a pipelined loop's body is called with when the backend runs it ahead
// of its multiplies (ops/program.hpp: range::fold; backend/cuda/loop.hpp).
//
// To copy the operands of the iterations ahead, the CUDA backend calls the body of
//   acc = tl::range(lo, hi).fold(acc, [&](int k, auto acc) { ...; return tl::dot(a, b, acc); });
// with an ahead_acc in place of the accumulator: tl::dot given one returns a dot_ahead, which
// keeps the two operands (loaded blocks that remember their descriptor or pointers) and
// multiplies nothing. Both are blocks of the accumulator's type, so any body that compiles with
// the accumulator compiles with them; only a body whose result is the dot itself (its type a
// dot_ahead) is pipelined, any other runs as a plain loop.
#pragma once

#include "../config.hpp"

namespace tl::detail {

template <class Acc>
struct ahead_acc : Acc {};

// tl::dot(a, b, ahead_acc) with precision Prec (a precision_t).
template <class Prec, class A, class B, class Acc>
struct dot_ahead : Acc {
  A a;
  B b;
  TL_HD dot_ahead(const A& a_, const B& b_) : a(a_), b(b_) {}
};

template <class X>
inline constexpr bool is_dot_ahead_v = false;
template <class Prec, class A, class B, class Acc>
inline constexpr bool is_dot_ahead_v<dot_ahead<Prec, A, B, Acc>> = true;

}  // namespace tl::detail
