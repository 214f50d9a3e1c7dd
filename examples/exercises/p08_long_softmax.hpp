// Puzzle 8: long softmax (exercise).
// z_{i,j} = softmax(x_{i,1} .. x_{i,T})_j, numerically stable, with exp2 (exp(x) = 2^(x log2 e)).
// Each program handles B0 rows, B1 elements at a time.
//
// softmax_kernel: two loops. The first keeps a running max m and a running denominator d:
// when the max grows from m to m', the old terms rescale by exp(m - m'), so
// d' = d * exp(m - m') + sum exp(x - m'). The second loop writes exp(x - m) / d.
// softmax_kernel_three_loops: max, then denominator, then output, one loop each.
// (The original signature's unused N1 parameter is dropped.)
//
// Complete the kernel below: it compiles as it is, and fails its check until it is right.
//   tools/exercise.sh start 8    copies this file to my-puzzles/ (yours to edit)
//   tools/exercise.sh check 8    builds yours, checks it, and draws its accesses
//
// Hints:
// - First pass: the row's maximum and the sum of exp2((x - max) * log2(e)), B1 columns at a time.
// - The two-loop version keeps the maximum and the denominator together (online softmax): when the
//   maximum grows from m to m', the sum so far is scaled by exp2((m - m') * log2 e).
// - Second pass: z = exp2((x - max) * log2 e) / denominator. Masked-off columns load as -inf so
//   they add nothing.
// - The three-loop kernel does max, denominator and output in three passes (the simpler one: write
//   it first).
//
// The solution, if you want it: examples/puzzles/p08_long_softmax.hpp.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

// Triton: def softmax_kernel(x_ptr, z_ptr, N0, N1, T, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void softmax_kernel(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, int N0, int T) {
  // Finish me!
}

// Triton: def softmax_kernel_brute_force(x_ptr, z_ptr, N0, N1, T, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void softmax_kernel_three_loops(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, int N0, int T) {
  // Finish me!
}
