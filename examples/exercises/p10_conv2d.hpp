// Puzzle 10: two-dimensional convolution (exercise).
// z_{i,h,w} = sum_{a<KH, b<KW} k_{a,b} x_{i,h+a,w+b} over a batch of N0 single-channel
// H x W images, x read as 0 past the bottom and right edges. Each program takes B0 images.
//
// Complete the kernel below: it compiles as it is, and fails its check until it is right.
//   tools/exercise.sh start 10    copies this file to my-puzzles/ (yours to edit)
//   tools/exercise.sh check 10    builds yours, checks it, and draws its accesses
//
// Hints:
// - Each program takes B0 images: offsets (B0, H, W) from three aranges broadcast together.
// - Loop over the kernel's KH x KW taps (compile-time sizes): load x shifted by (a, b), masked
//   where h + a >= H or w + b >= W (0 there), times k[a, b].
// - k is tiny: load it once as a (KH, KW) block, or element by element inside the loops.
//
// The solution, if you want it: examples/puzzles/p10_conv2d.hpp.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

// Triton: def conv2d_kernel(x_ptr, k_ptr, z_ptr, N0, H, W, KH: tl.constexpr, KW: tl.constexpr, B0: tl.constexpr)
template <int KH, int KW, int B0>
TL_KERNEL void conv2d_kernel(tl::ptr<float> x_ptr, tl::ptr<float> k_ptr, tl::ptr<float> z_ptr, int N0, int H, int W) {
  // Finish me!
}
