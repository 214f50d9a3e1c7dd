// Puzzle 3: outer vector add (exercise).
// z_{j,i} = x_i + y_j: a row vector plus a column vector, broadcast to an N1 x N0 matrix.
// One program: B0 == N0 and B1 == N1.
//
// Complete the kernel below: it compiles as it is, and fails its check until it is right.
//   tools/exercise.sh start 3    copies this file to my-puzzles/ (yours to edit)
//   tools/exercise.sh check 3    builds yours, checks it, and draws its accesses
//
// Hints:
// - Load x as a block of B0 and y as a block of B1.
// - v(None, _) makes a row (1, B0), v(_, None) a column (B1, 1); adding a row and a column
//   broadcasts to (B1, B0).
// - z is row-major with N0 columns: element (j, i) is at j * N0 + i.
//
// The solution, if you want it: examples/puzzles/p03_outer_vector_add.hpp.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

// Triton: def add_vec_kernel(x_ptr, y_ptr, z_ptr, N0, N1, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void add_vec_kernel(tl::ptr<float> x_ptr, tl::ptr<float> y_ptr, tl::ptr<float> z_ptr, int N0,
                              [[maybe_unused]] int N1) {
  // Finish me!
}
