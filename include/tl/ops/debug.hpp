// tl/ops/debug.hpp: device_print, print_if and breakpoint_if (program-id conditions),
// device_assert, assume, expect_zero, debug_barrier. The lowerings: backend/cpu/debug.hpp and backend/cuda/debug.hpp.
//
//   tl::device_print("x", x);          "pid (0, 1, 0) x [0.5, 0.25]" (the whole block)
//   tl::print_if("=0,>1", "x", x);     only in programs with pid0 == 0 and pid1 > 1
//   tl::breakpoint_if("=2");           CPU: stops in gdb (`break tl_breakpoint`) in program 2
//   tl::device_assert(x >= 0, "x must be non-negative");
#pragma once

#include "../backend/lowering.hpp"
#include "../core/pid_condition.hpp"
#include "../expr/block.hpp"

namespace tl {

// Prints its arguments with the program id in front (Triton: tl.device_print). Output of
// one call is never interleaved with another's.
template <class... A>
TL_HD void device_print(const A&... args) {
  detail::lowering::print(args...);
}

// device_print only in the programs whose ids satisfy `conds`: parts separated by commas, one
// per grid axis, each an operator (= == != < <= > >=) and a number; an empty part means any
// ("=0,>1": axis 0 equals 0 and axis 1 is above 1). A malformed condition is an error.
template <class... A>
TL_HD void print_if(const char* conds, const A&... args) {
  if (detail::lowering::program_selected(conds, "tl::print_if")) device_print(args...);
}

// breakpoint_if(conds): calls tl_breakpoint in the programs whose ids satisfy `conds` (as
// print_if's: "=2", "=0,>1"), so that a debugger stops there and only there (Triton users put
// `breakpoint()` under an `if` on tl.program_id in the interpreter). On the CUDA backend it
// does nothing: cuda-gdb breaks on the kernel's source lines itself (`break file.hpp:LINE if
// blockIdx.x == 2`). The op is its lowering itself, so that the kernel is the frame right above
// it (frame 2 from tl_breakpoint, as docs/07-debugging.md says).
using detail::lowering::breakpoint_if;

// Fails the launch, naming the program and line, if any lane of `cond` is false. On the
// CUDA backend only with TL_DEVICE_CHECKS=1 (as Triton checks only in debug mode).
template <class C>
  requires detail::is_operand_v<C>
TL_HD void device_assert(C cond, const char* message = "", source_location where = source_location::current()) {
  detail::lowering::device_assert(detail::as_expr(cond), message, where);
}

// assume(cond): Triton's tl.assume, a promise to the compiler. The CPU backend checks it as
// device_assert does (a false one fails the launch); the CUDA backend with TL_DEVICE_CHECKS=1.
template <class C>
  requires detail::is_operand_v<C>
TL_HD void assume(C cond, source_location where = source_location::current()) {
  detail::lowering::device_assert(detail::as_expr(cond), "tl::assume: the assumed condition is false", where);
}

// expect_zero(x, mask): x, marked as expected to be 0 (to have underflowed) wherever mask
// holds (Triton's tl.expect_zero). Checked as device_assert checks: always on the CPU backend,
// on the CUDA backend with TL_DEVICE_CHECKS=1; a non-zero value fails the launch.
template <class X, class M>
  requires(detail::is_expr_v<X> && detail::is_operand_v<M>)
TL_HD auto expect_zero(const X& x, M mask, source_location where = source_location::current()) {
  detail::lowering::device_assert(detail::as_expr((x == 0) | !detail::as_expr(mask)),
                                  "tl::expect_zero: a value expected to be 0 is not", where);
  return x;
}

// debug_barrier(): every thread of the program waits here for the others, and the program's
// stores before it are seen by its loads after it (Triton: tl.debug_barrier). On the GPU a
// program's elements are spread over its threads: a program that loads what it stored to
// global memory, in another arrangement, needs it in between. The CPU backend runs a program
// on one thread: nothing to wait for.
TL_HD inline void debug_barrier() { detail::lowering::debug_barrier(); }

}  // namespace tl
