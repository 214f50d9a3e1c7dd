// Puzzle 1: constant add (exercise).
// Add a constant to a vector: z_i = x_i + 10 for i < N0. One program; the block size B0 is the
// vector's length N0, so no mask is needed.
//
// Complete the kernel below: it compiles as it is, and fails its check until it is right.
//   tools/exercise.sh start 1    copies this file to my-puzzles/ (yours to edit)
//   tools/exercise.sh check 1    builds yours, checks it, and draws its accesses
//
// Hints:
// - tl::arange<0, B0>() is the block of offsets 0 .. B0-1.
// - tl::load(x_ptr + offsets) reads a block; tl::store(z_ptr + offsets, value) writes one.
//
// The solution, if you want it: examples/puzzles/p01_constant_add.hpp.
#pragma once

#include <tl/kernel.hpp>

// Triton: def add_kernel(x_ptr, z_ptr, N0, B0: tl.constexpr)
template <int B0>
TL_KERNEL void add_kernel(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, [[maybe_unused]] int N0) {
  // Finish me!
}
