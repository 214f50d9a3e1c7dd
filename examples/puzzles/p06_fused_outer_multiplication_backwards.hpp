// Puzzle 6: fused outer multiplication, backwards.
// With f = relu(x_{j,i} * y_j), the gradient with respect to x given dz is
// dx_{j,i} = (x_{j,i} * y_j > 0 ? y_j : 0) * dz_{j,i}.
//
// The kernel; p06_fused_outer_multiplication_backwards.cpp holds its spec and how the checker runs it.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

// Triton: def mul_relu_block_back_kernel(x_ptr, y_ptr, dz_ptr, dx_ptr, N0, N1, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void mul_relu_block_back_kernel(tl::ptr<float> x_ptr, tl::ptr<float> y_ptr, tl::ptr<float> dz_ptr,
                                          tl::ptr<float> dx_ptr, int N0, int N1) {
  auto block_id_i = tl::program_id(0);
  auto block_id_j = tl::program_id(1);
  auto off_i = block_id_i * B0 + tl::arange<0, B0>();
  auto off_j = block_id_j * B1 + tl::arange<0, B1>();
  auto off_ji = off_j(_, None) * N0 + off_i(None, _);  // (B1, B0)
  auto mask_i = off_i < N0;
  auto mask_j = off_j < N1;
  auto mask_ji = mask_j(_, None) & mask_i(None, _);

  auto x = tl::load(x_ptr + off_ji, mask_ji);
  auto y = tl::load(y_ptr + off_j, mask_j);
  auto dz = tl::load(dz_ptr + off_ji, mask_ji);

  auto df = tl::where(x * y(_, None) > 0, 1.0f, 0.0f);
  auto dxy_x = y(_, None);
  auto dx = df * dxy_x * dz;
  tl::store(dx_ptr + off_ji, dx, mask_ji);
}
