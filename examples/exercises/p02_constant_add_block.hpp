// Puzzle 2: constant add block (exercise).
// z_i = x_i + 10 for i < N0, now with blocks of B0 < N0: one program per block along axis 0,
// and a mask for the last, partial block.
//
// Complete the kernel below: it compiles as it is, and fails its check until it is right.
//   tools/exercise.sh start 2    copies this file to my-puzzles/ (yours to edit)
//   tools/exercise.sh check 2    builds yours, checks it, and draws its accesses
//
// Hints:
// - tl::program_id(0) says which block this program computes: its offsets start at pid * B0.
// - The last block runs past N0: build a mask (offsets < N0) and give it to tl::load and
//   tl::store.
//
// The solution, if you want it: examples/puzzles/p02_constant_add_block.hpp.
#pragma once

#include <tl/kernel.hpp>

// Triton: def add_mask2_kernel(x_ptr, z_ptr, N0, B0: tl.constexpr)
template <int B0>
TL_KERNEL void add_mask2_kernel(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, int N0) {
  // Finish me!
}
