// Puzzle 11: matrix multiplication.
// z_{i,j,k} = sum_l x_{i,j,l} y_{i,l,k}: a batch of N2 products of N0 x MID and MID x N1
// matrices. A 3-D grid: axis 0 over rows (B0), axis 1 over columns (B1), axis 2 over the
// batch (B2). Each program walks MID in steps of B_MID and accumulates tl::dot of the tiles.
//
// The kernel; p11_matmul.cpp holds its spec and how the checker runs it.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

// Triton: def dot_kernel(x_ptr, y_ptr, z_ptr, N0, N1, N2, MID,
//                        B0: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr, B_MID: tl.constexpr,
//                        INPUT_PRECISION: tl.constexpr)
// The inputs' element type T follows the pointers, as in Triton (float16 inputs: T = tl::fp16).
// The checker uses tl::ieee (exact float32: its 1e-3 is tighter than tf32); tl-bench also
// times Triton's default, tl::tf32.
template <int B0, int B1, int B2, int B_MID, class T = float, auto INPUT_PRECISION = tl::ieee>
TL_KERNEL void dot_kernel(tl::ptr<T> x_ptr, tl::ptr<T> y_ptr, tl::ptr<float> z_ptr, int N0, int N1, int N2, int MID) {
  auto block_id_j = tl::program_id(0);
  auto block_id_k = tl::program_id(1);
  auto block_id_i = tl::program_id(2);

  auto off_i = block_id_i * B2 + tl::arange<0, B2>()(_, None, None);  // (B2, 1, 1)
  auto off_j = block_id_j * B0 + tl::arange<0, B0>()(None, _, None);  // (1, B0, 1)
  auto off_k = block_id_k * B1 + tl::arange<0, B1>()(None, None, _);  // (1, 1, B1)

  auto mask_i = off_i < N2;
  auto mask_j = off_j < N0;
  auto mask_k = off_k < N1;

  auto z = tl::zeros<B2, B0, B1>(tl::float32);

  for (int l : tl::range(0, MID, B_MID)) {
    auto off_l = l + tl::arange<0, B_MID>();
    auto mask_l = off_l < MID;
    auto off_x = off_i * N0 * MID + off_j * MID + off_l(None, None, _);  // (B2, B0, B_MID)
    auto off_y = off_i * N1 * MID + off_l(None, _, None) * N1 + off_k;  // (B2, B_MID, B1)
    auto mask_x = mask_i & mask_j & mask_l(None, None, _);
    auto mask_y = mask_i & mask_l(None, _, None) & mask_k;

    auto x = tl::load(x_ptr + off_x, mask_x);
    auto y = tl::load(y_ptr + off_y, mask_y);
    z = tl::dot(x, y, z, INPUT_PRECISION);
  }

  auto off_z = off_i * N0 * N1 + off_j * N1 + off_k;
  auto mask_z = mask_i & mask_j & mask_k;
  tl::store(z_ptr + off_z, z, mask_z);
}
