// Puzzle 2: constant add block.
// z_i = x_i + 10 for i < N0, now with blocks of B0 < N0: one program per block along axis 0,
// and a mask for the last, partial block.
//
// The kernel; p02_constant_add_block.cpp holds its spec and how the checker runs it.
#pragma once

#include <tl/kernel.hpp>

// Triton: def add_mask2_kernel(x_ptr, z_ptr, N0, B0: tl.constexpr)
template <int B0>
TL_KERNEL void add_mask2_kernel(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, int N0) {
  auto pid = tl::program_id(0);
  auto off_x = pid * B0 + tl::arange<0, B0>();
  auto mask = off_x < N0;
  auto x = tl::load(x_ptr + off_x, mask);
  auto z = x + 10.0f;
  tl::store(z_ptr + off_x, z, mask);
}
