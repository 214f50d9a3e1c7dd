// tl/ops/program.hpp: which program is running (program_id, num_programs, swizzle2d), and the
// loops' helpers (range, condition, static_range).
#pragma once

#include <utility>

#include "../backend/lowering.hpp"

namespace tl {

// program_id(axis): this program's index along grid axis 0, 1 or 2 (Triton: tl.program_id).
// Another axis is an error of the kernel: reported with the program and the line (CPU; GPU with
// TL_DEVICE_CHECKS=1); unchecked on the GPU it reads as axis 2.
TL_INLINE int program_id(int axis, source_location where = source_location::current()) {
  return detail::lowering::program_id(axis, where);
}

// num_programs(axis): the grid's size along axis 0, 1 or 2 (Triton: tl.num_programs).
TL_INLINE int num_programs(int axis, source_location where = source_location::current()) {
  return detail::lowering::num_programs(axis, where);
}

// range(start, end, step): the loop of a kernel, read like Triton's
//   for (int j : tl::range(0, T, B1))      Triton: for j in range(0, T, B1)
// A step of 0 is an error of the kernel (Python's range refuses it too): reported with the
// program and the line (CPU; GPU with TL_DEVICE_CHECKS=1); the loop then runs no iteration.
//
// fold(init, body): the loop the backend schedules (Triton's tl.range(..., num_stages=)):
//   acc = tl::range(0, k_tiles, 1, {.num_stages = 3}).fold(acc, [&](int k, auto acc) {
//     auto a = a_desc.load({offs_m, k * BLOCK_K});
//     auto b = b_desc.load({offs_n, k * BLOCK_K});
//     return tl::dot(a, tl::trans(b), acc);
//   });
// is `for (int k : range) acc = body(k, acc);` and returns acc. Where the body's result is a
// tl::dot on the accumulator, the CUDA backend copies the operands of the next num_stages - 1
// iterations while the tensor cores multiply this one's (backend/cuda/loop.hpp). The body runs
// once per iteration, in order, as in a plain loop, but up to num_stages - 1 iterations before
// its dot: what it loads must not be stored by the loop. docs/02 lists the rules.
struct range_options {
  int num_stages = 0;  // operand buffers of a pipelined loop; 0: the launch's num_stages
};
struct range {
  struct iterator {
    int value, step;
    TL_INLINE int operator*() const { return value; }
    TL_INLINE iterator& operator++() {
      value += step;
      return *this;
    }
    TL_INLINE bool operator!=(const iterator& end) const {
      return step > 0 ? value < end.value : step < 0 && value > end.value;
    }
  };
  int start, stop, step;
  range_options options;
  TL_HD constexpr range(int stop_, source_location where = source_location::current())  // NOLINT
      : start(0), stop(stop_), step(1) {
    (void)where;
  }
  TL_HD constexpr range(int start_, int stop_, int step_ = 1, source_location where = source_location::current())
      : start(start_), stop(stop_), step(step_) {
    if (step_ == 0) detail::lowering::range_step_is_zero(where);
  }
  TL_HD constexpr range(int start_, int stop_, int step_, range_options options_,
                        source_location where = source_location::current())
      : start(start_), stop(stop_), step(step_), options(options_) {
    if (step_ == 0) detail::lowering::range_step_is_zero(where);
  }
  TL_INLINE iterator begin() const { return {start, step}; }
  TL_INLINE iterator end() const { return {stop, step}; }

  template <class Init, class Body>
    requires detail::is_expr_v<Init>
  TL_INLINE auto fold(const Init& init, Body&& body) const {
    using Acc = detail::block_t<detail::value_of_t<Init>, detail::shape_of_t<Init>>;
    return detail::lowering::fold(start, stop, step, options.num_stages, Acc(init), body);
  }
};

// condition(c): a while loop's condition, `while (tl::condition(c))` (Triton's
// `while tl.condition(c)`); c is a bool or a rank-0 block. Triton's disable_licm hint (keep loop
// invariants in the loop) has no counterpart in a C++ compiler, so condition takes only c.
template <class C>
TL_INLINE bool condition(const C& c) {
  return static_cast<bool>(c);
}

// static_range<Start, Stop, Step>(f): f(i) for i = Start, Start + Step, ... before Stop, unrolled
// at compile time, i a std::integral_constant<int, ...> (Triton: for i in tl.static_range(...),
// i a constexpr): i converts to int, and serves as a template argument.
//   tl::static_range<0, 4>([&](auto i) { acc += tl::sum<1>(x) * i; });
template <int Start, int Stop, int Step = 1, class F>
TL_INLINE void static_range(F&& f) {
  static_assert(detail::check<error::static_range_step_is_zero<Step, Step != 0>>);
  constexpr int count = Step > 0 ? (Stop > Start ? (Stop - Start + Step - 1) / Step : 0)
                                 : (Start > Stop ? (Start - Stop - Step - 1) / -Step : 0);
  [&]<int... K>(std::integer_sequence<int, K...>) {
    (f(std::integral_constant<int, Start + K * Step>{}), ...);
  }(std::make_integer_sequence<int, count>{});
}

template <class T>
struct swizzled {
  T i, j;
};

// swizzle2d(i, j, size_i, size_j, size_g): reorders a size_i x size_j grid of program ids
// so that groups of size_g rows are walked column by column (Triton's tl.swizzle2d; used to
// make neighbouring programs of a matmul share tiles in L2).
//   auto [pid_m, pid_n] = tl::swizzle2d(i, j, num_m, num_n, GROUP);
template <class T>
TL_HD constexpr swizzled<T> swizzle2d(T i, T j, T size_i, T size_j, T size_g) {
  const T ij = i * size_j + j;
  const T size_gj = size_g * size_j;
  const T group_id = ij / size_gj;
  const T off_i = group_id * size_g;
  const T rows = size_i - off_i < size_g ? size_i - off_i : size_g;
  const T in_group = ij % size_gj;
  return {off_i + in_group % rows, in_group / rows};
}

}  // namespace tl
