// Puzzle 5: fused outer multiplication (exercise).
// z_{j,i} = relu(x_i * y_j): the outer product of a row and a column vector, then a relu,
// fused into one pass.
//
// Complete the kernel below: it compiles as it is, and fails its check until it is right.
//   tools/exercise.sh start 5    copies this file to my-puzzles/ (yours to edit)
//   tools/exercise.sh check 5    builds yours, checks it, and draws its accesses
//
// Hints:
// - Puzzle 4's tile, with x * y instead of x + y, then relu: tl::maximum(v, 0.0f) (or tl::where(v
//   > 0, v, 0.0f)).
//
// The solution, if you want it: examples/puzzles/p05_fused_outer_multiplication.hpp.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

// Triton: def mul_relu_block_kernel(x_ptr, y_ptr, z_ptr, N0, N1, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void mul_relu_block_kernel(tl::ptr<float> x_ptr, tl::ptr<float> y_ptr, tl::ptr<float> z_ptr, int N0,
                                     int N1) {
  // Finish me!
}
