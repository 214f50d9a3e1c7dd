// Puzzle 4: outer vector add block.
// z_{j,i} = x_i + y_j for i < N0, j < N1, with B0 < N0 and B1 < N1: a 2-D grid of programs,
// each masking its part of the row and of the column.
//
// The kernel; p04_outer_vector_add_block.cpp holds its spec and how the checker runs it.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

// Triton: def add_vec_block_kernel(x_ptr, y_ptr, z_ptr, N0, N1, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void add_vec_block_kernel(tl::ptr<float> x_ptr, tl::ptr<float> y_ptr, tl::ptr<float> z_ptr, int N0,
                                    int N1) {
  auto block_id_x = tl::program_id(0);
  auto block_id_y = tl::program_id(1);
  auto off_x = block_id_x * B0 + tl::arange<0, B0>();
  auto off_y = block_id_y * B1 + tl::arange<0, B1>();
  auto off_z = off_y(_, None) * N0 + off_x(None, _);  // (B1, B0)
  auto mask_x = off_x < N0;
  auto mask_y = off_y < N1;
  auto mask_z = mask_y(_, None) & mask_x(None, _);

  auto x = tl::load(x_ptr + off_x, mask_x);
  auto y = tl::load(y_ptr + off_y, mask_y);
  auto z = x(None, _) + y(_, None);

  tl::store(z_ptr + off_z, z, mask_z);
}
