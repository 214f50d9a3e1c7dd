// Puzzle 10: two-dimensional convolution.
// z_{i,h,w} = sum_{a<KH, b<KW} k_{a,b} x_{i,h+a,w+b} over a batch of N0 single-channel
// H x W images, x read as 0 past the bottom and right edges. Each program takes B0 images.
//
// The kernel; p10_conv2d.cpp holds its spec and how the checker runs it.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

// Triton: def conv2d_kernel(x_ptr, k_ptr, z_ptr, N0, H, W, KH: tl.constexpr, KW: tl.constexpr, B0: tl.constexpr)
template <int KH, int KW, int B0>
TL_KERNEL void conv2d_kernel(tl::ptr<float> x_ptr, tl::ptr<float> k_ptr, tl::ptr<float> z_ptr, int N0, int H, int W) {
  auto block_id_i = tl::program_id(0);
  auto off_i = block_id_i * B0 + tl::arange<0, B0>();
  auto mask_i = off_i < N0;

  auto off_kh = tl::arange<0, KH>();
  auto off_kw = tl::arange<0, KW>();
  auto off_k = off_kh(_, None) * KW + off_kw(None, _);
  auto k = tl::load(k_ptr + off_k);  // (KH, KW)

  for (int h : tl::range(0, H)) {
    for (int w : tl::range(0, W)) {
      auto off_h_kh = h + off_kh(None, _, None);  // (1, KH, 1)
      auto off_w_kw = w + off_kw(None, None, _);  // (1, 1, KW)
      auto off_x = off_i(_, None, None) * H * W + off_h_kh * W + off_w_kw;
      auto mask_x = mask_i(_, None, None) & (off_h_kh < H) & (off_w_kw < W);
      auto x = tl::load(x_ptr + off_x, mask_x, 0);  // (B0, KH, KW)

      auto z = tl::sum<1>(tl::sum<1>(x * k(None, _, _)));  // (B0,)
      auto off_z = off_i * H * W + h * W + w;
      tl::store(z_ptr + off_z, z, mask_i);
    }
  }
}
