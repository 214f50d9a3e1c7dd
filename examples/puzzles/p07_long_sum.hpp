// Puzzle 7: long sum.
// z_i = sum_j x_{i,j}: each program sums B0 rows of length T, walking along the row B1
// elements at a time. (The original signature's unused N1 parameter is dropped.)
//
// The kernel; p07_long_sum.cpp holds its spec and how the checker runs it.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

// Triton: def sum_kernel(x_ptr, z_ptr, N0, N1, T, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void sum_kernel(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, int N0, int T) {
  auto block_id_i = tl::program_id(0);
  auto off_i = block_id_i * B0 + tl::arange<0, B0>();
  auto mask_i = off_i < N0;

  auto z = tl::zeros<B0>(tl::float32);

  for (int j : tl::range(0, T, B1)) {
    auto off_j = j + tl::arange<0, B1>();
    auto off_ij = off_i(_, None) * T + off_j(None, _);  // (B0, B1)
    auto mask_j = off_j < T;
    auto mask_ij = mask_i(_, None) & mask_j(None, _);
    auto x = tl::load(x_ptr + off_ij, mask_ij);
    z += tl::sum<1>(x);
  }

  tl::store(z_ptr + off_i, z, mask_i);
}
