// Puzzle 6: fused outer multiplication, backwards (exercise).
// With f = relu(x_{j,i} * y_j), the gradient with respect to x given dz is
// dx_{j,i} = (x_{j,i} * y_j > 0 ? y_j : 0) * dz_{j,i}.
//
// Complete the kernel below: it compiles as it is, and fails its check until it is right.
//   tools/exercise.sh start 6    copies this file to my-puzzles/ (yours to edit)
//   tools/exercise.sh check 6    builds yours, checks it, and draws its accesses
//
// Hints:
// - x and dz are N1 x N0 tiles here (row-major), y a column: load each with the tile's mask.
// - tl::where(cond, a, b) picks per element, as Triton's tl.where.
//
// The solution, if you want it: examples/puzzles/p06_fused_outer_multiplication_backwards.hpp.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

// Triton: def mul_relu_block_back_kernel(x_ptr, y_ptr, dz_ptr, dx_ptr, N0, N1, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void mul_relu_block_back_kernel(tl::ptr<float> x_ptr, tl::ptr<float> y_ptr, tl::ptr<float> dz_ptr,
                                          tl::ptr<float> dx_ptr, int N0, int N1) {
  // Finish me!
}
