// Puzzle 8: long softmax.
// z_{i,j} = softmax(x_{i,1} .. x_{i,T})_j, numerically stable, with exp2 (exp(x) = 2^(x log2 e)).
// Each program handles B0 rows, B1 elements at a time.
//
// softmax_kernel: two loops. The first keeps a running max m and a running denominator d:
// when the max grows from m to m', the old terms rescale by exp(m - m'), so
// d' = d * exp(m - m') + sum exp(x - m'). The second loop writes exp(x - m) / d.
// softmax_kernel_three_loops: max, then denominator, then output, one loop each.
// (The original signature's unused N1 parameter is dropped.)
//
// The kernel; p08_long_softmax.cpp holds its spec and how the checker runs it.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

// Triton: def softmax_kernel(x_ptr, z_ptr, N0, N1, T, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void softmax_kernel(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, int N0, int T) {
  auto block_id_i = tl::program_id(0);
  const float log2_e = 1.44269504f;
  auto off_i = block_id_i * B0 + tl::arange<0, B0>();
  auto mask_i = off_i < N0;
  // x_max and sum_x_exp, in one pass
  auto x_max = tl::full<B0>(-tl::inf, tl::float32);
  auto sum_x_exp = tl::zeros<B0>(tl::float32);
  for (int j : tl::range(0, T, B1)) {
    auto off_j = j + tl::arange<0, B1>();
    auto off_ij = off_i(_, None) * T + off_j(None, _);
    auto mask_j = off_j < T;
    auto mask_ij = mask_i(_, None) & mask_j(None, _);
    auto x = tl::load(x_ptr + off_ij, mask_ij, -tl::inf);
    auto x_max_now = tl::maximum(x_max, tl::max<1>(x));
    auto x_exp = tl::exp2(log2_e * (x - x_max_now(_, None)));
    auto factor = tl::exp2(log2_e * (x_max - x_max_now));
    sum_x_exp = sum_x_exp * factor + tl::sum<1>(x_exp);
    x_max = x_max_now;
  }
  // softmax
  for (int j : tl::range(0, T, B1)) {
    auto off_j = j + tl::arange<0, B1>();
    auto off_ij = off_i(_, None) * T + off_j(None, _);
    auto mask_j = off_j < T;
    auto mask_ij = mask_i(_, None) & mask_j(None, _);
    auto x = tl::load(x_ptr + off_ij, mask_ij);
    auto x_exp = tl::exp2(log2_e * (x - x_max(_, None)));
    auto z = x_exp / sum_x_exp(_, None);
    tl::store(z_ptr + off_ij, z, mask_ij);
  }
}

// Triton: def softmax_kernel_brute_force(x_ptr, z_ptr, N0, N1, T, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void softmax_kernel_three_loops(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, int N0, int T) {
  auto block_id_i = tl::program_id(0);
  const float log2_e = 1.44269504f;
  auto off_i = block_id_i * B0 + tl::arange<0, B0>();
  auto mask_i = off_i < N0;
  // x_max
  auto x_max = tl::full<B0>(-tl::inf, tl::float32);
  for (int j : tl::range(0, T, B1)) {
    auto off_j = j + tl::arange<0, B1>();
    auto off_ij = off_i(_, None) * T + off_j(None, _);
    auto mask_j = off_j < T;
    auto mask_ij = mask_i(_, None) & mask_j(None, _);
    auto x = tl::load(x_ptr + off_ij, mask_ij, -tl::inf);
    x_max = tl::maximum(x_max, tl::max<1>(x));
  }
  // sum_x_exp
  auto sum_x_exp = tl::zeros<B0>(tl::float32);
  for (int j : tl::range(0, T, B1)) {
    auto off_j = j + tl::arange<0, B1>();
    auto off_ij = off_i(_, None) * T + off_j(None, _);
    auto mask_j = off_j < T;
    auto mask_ij = mask_i(_, None) & mask_j(None, _);
    auto x = tl::load(x_ptr + off_ij, mask_ij, -tl::inf);
    auto x_exp = tl::exp2(log2_e * (x - x_max(_, None)));
    sum_x_exp += tl::sum<1>(x_exp);
  }
  // softmax
  for (int j : tl::range(0, T, B1)) {
    auto off_j = j + tl::arange<0, B1>();
    auto off_ij = off_i(_, None) * T + off_j(None, _);
    auto mask_j = off_j < T;
    auto mask_ij = mask_i(_, None) & mask_j(None, _);
    auto x = tl::load(x_ptr + off_ij, mask_ij);
    auto x_exp = tl::exp2(log2_e * (x - x_max(_, None)));
    auto z = x_exp / sum_x_exp(_, None);
    tl::store(z_ptr + off_ij, z, mask_ij);
  }
}
