// Puzzle 11: matrix multiplication (exercise).
// z_{i,j,k} = sum_l x_{i,j,l} y_{i,l,k}: a batch of N2 products of N0 x MID and MID x N1
// matrices. A 3-D grid: axis 0 over rows (B0), axis 1 over columns (B1), axis 2 over the
// batch (B2). Each program walks MID in steps of B_MID and accumulates tl::dot of the tiles.
//
// Complete the kernel below: it compiles as it is, and fails its check until it is right.
//   tools/exercise.sh start 11    copies this file to my-puzzles/ (yours to edit)
//   tools/exercise.sh check 11    builds yours, checks it, and draws its accesses
//
// Hints:
// - Program (j, k, i) computes the B0 x B1 tile of rows j * B0 .., columns k * B1 .. of batch
//   block i * B2 ...
// - Walk MID in steps of B_MID: load the (B2, B0, B_MID) tile of x and the (B2, B_MID, B1) tile of
//   y, masked.
// - z = tl::dot(x, y, z, INPUT_PRECISION) accumulates; start from tl::zeros<B2, B0,
//   B1>(tl::float32).
//
// The solution, if you want it: examples/puzzles/p11_matmul.hpp.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

// Triton: def dot_kernel(x_ptr, y_ptr, z_ptr, N0, N1, N2, MID,
//                        B0: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr, B_MID: tl.constexpr,
//                        INPUT_PRECISION: tl.constexpr)
// The inputs' element type T follows the pointers, as in Triton (float16 inputs: T = tl::fp16).
// The checker uses tl::ieee (exact float32: its 1e-3 is tighter than tf32); tl-bench also
// times Triton's default, tl::tf32.
template <int B0, int B1, int B2, int B_MID, class T = float, auto INPUT_PRECISION = tl::ieee>
TL_KERNEL void dot_kernel(tl::ptr<T> x_ptr, tl::ptr<T> y_ptr, tl::ptr<float> z_ptr, int N0, int N1, int N2, int MID) {
  // Finish me!
}
