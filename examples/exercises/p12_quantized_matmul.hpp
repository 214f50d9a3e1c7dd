// Puzzle 12: quantized matrix multiplication (exercise).
// z_{j,k} = sum_l scale_{j,l/8} (w_{j,l} - shift_{j,l/8}) activation_{l,k}, where the weights
// are 4-bit values packed FPINT = 8 to an int32 (nibble n of word w is column 8w + n), and
// every GROUP = 8 consecutive columns share one scale and one 4-bit shift. The shifts of the
// eight groups of a 64-column step are the eight nibbles of one offset word: offset is
// [N0, MID / 64] (at the puzzle size, MID = 64, one word per row as in the original).
//
// Complete the kernel below: it compiles as it is, and fails its check until it is right.
//   tools/exercise.sh start 12    copies this file to my-puzzles/ (yours to edit)
//   tools/exercise.sh check 12    builds yours, checks it, and draws its accesses
//
// Hints:
// - Load each weight word once: (w >> (4 * n)) & 0xF unpacks nibble n; tl::arange over the 8
//   nibbles and a reshape give the columns.
// - The scale and the 4-bit shift are per GROUP = 8 columns: index them with l / GROUP.
// - Then it is puzzle 11's loop: accumulate tl::dot of the dequantized (B0, B_MID) tile and the
//   activation tile.
//
// The solution, if you want it: examples/puzzles/p12_quantized_matmul.hpp.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

constexpr int FPINT = 32 / 4;
constexpr int GROUP = 8;

// Triton: def quant_dot_kernel(scale_ptr, offset_ptr, weight_ptr, activation_ptr, z_ptr, N0, N1, MID,
//                              B0: tl.constexpr, B1: tl.constexpr, B_MID: tl.constexpr,
//                              INPUT_PRECISION: tl.constexpr)
// The checker uses tl::ieee (exact float32, as its 1e-3 needs); tl-bench also times tl::tf32.
template <int B0, int B1, int B_MID, auto INPUT_PRECISION = tl::ieee>
TL_KERNEL void quant_dot_kernel(tl::ptr<float> scale_ptr, tl::ptr<int> offset_ptr, tl::ptr<int> weight_ptr,
                                tl::ptr<float> activation_ptr, tl::ptr<float> z_ptr, int N0, int N1, int MID) {
  // Finish me!
}
