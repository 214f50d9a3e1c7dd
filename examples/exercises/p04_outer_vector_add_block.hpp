// Puzzle 4: outer vector add block (exercise).
// z_{j,i} = x_i + y_j for i < N0, j < N1, with B0 < N0 and B1 < N1: a 2-D grid of programs,
// each masking its part of the row and of the column.
//
// Complete the kernel below: it compiles as it is, and fails its check until it is right.
//   tools/exercise.sh start 4    copies this file to my-puzzles/ (yours to edit)
//   tools/exercise.sh check 4    builds yours, checks it, and draws its accesses
//
// Hints:
// - Program (a, b) = (tl::program_id(0), tl::program_id(1)) computes the tile of columns a * B0 ..
//   and rows b * B1 ..
// - Mask x with off_x < N0, y with off_y < N1, and z with both, broadcast to the tile.
// - The picture shows what each program touched: tools/exercise.sh draws it next to your file.
//
// The solution, if you want it: examples/puzzles/p04_outer_vector_add_block.hpp.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

// Triton: def add_vec_block_kernel(x_ptr, y_ptr, z_ptr, N0, N1, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void add_vec_block_kernel(tl::ptr<float> x_ptr, tl::ptr<float> y_ptr, tl::ptr<float> z_ptr, int N0,
                                    int N1) {
  // Finish me!
}
