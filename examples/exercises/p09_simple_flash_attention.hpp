// Puzzle 9: simple flash attention (exercise).
// z_i = sum_j softmax(q_i k_1, .., q_i k_T)_j v_j with scalar q, k, v: attention with one
// head of dimension 1. One loop over T, B1 keys at a time, with the online softmax of
// puzzle 8; scores outside T are pushed to -1e6 so they contribute nothing.
//
// Complete the kernel below: it compiles as it is, and fails its check until it is right.
//   tools/exercise.sh start 9    copies this file to my-puzzles/ (yours to edit)
//   tools/exercise.sh check 9    builds yours, checks it, and draws its accesses
//
// Hints:
// - Program i takes B0 queries; loop over T, B1 keys and values at a time.
// - Scores s = q(_, None) * k(None, _); push the masked-off ones to -1e6 with tl::where.
// - Online softmax as in puzzle 8: a running max, a running denominator and a running weighted sum
//   of v, rescaled when the max grows.
//
// The solution, if you want it: examples/puzzles/p09_simple_flash_attention.hpp.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

// Triton: def flashatt_kernel(q_ptr, k_ptr, v_ptr, z_ptr, N0, T, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void flashatt_kernel(tl::ptr<float> q_ptr, tl::ptr<float> k_ptr, tl::ptr<float> v_ptr,
                               tl::ptr<float> z_ptr, int N0, int T) {
  // Finish me!
}
