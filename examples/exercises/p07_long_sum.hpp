// Puzzle 7: long sum (exercise).
// z_i = sum_j x_{i,j}: each program sums B0 rows of length T, walking along the row B1
// elements at a time. (The original signature's unused N1 parameter is dropped.)
//
// Complete the kernel below: it compiles as it is, and fails its check until it is right.
//   tools/exercise.sh start 7    copies this file to my-puzzles/ (yours to edit)
//   tools/exercise.sh check 7    builds yours, checks it, and draws its accesses
//
// Hints:
// - Each program owns B0 rows; a loop `for (int j : tl::range(0, T, B1))` walks along them B1
//   columns at a time.
// - Keep a running sum (tl::zeros<B0>(tl::float32) or a (B0, B1) block), and reduce with
//   tl::sum<1>(block).
// - Mask the columns past T: they must add 0 (the `other` argument of tl::load).
//
// The solution, if you want it: examples/puzzles/p07_long_sum.hpp.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

// Triton: def sum_kernel(x_ptr, z_ptr, N0, N1, T, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void sum_kernel(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, int N0, int T) {
  // Finish me!
}
