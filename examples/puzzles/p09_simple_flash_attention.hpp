// Puzzle 9: simple flash attention.
// z_i = sum_j softmax(q_i k_1, .., q_i k_T)_j v_j with scalar q, k, v: attention with one
// head of dimension 1. One loop over T, B1 keys at a time, with the online softmax of
// puzzle 8; scores outside T are pushed to -1e6 so they contribute nothing.
//
// The kernel; p09_simple_flash_attention.cpp holds its spec and how the checker runs it.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

// Triton: def flashatt_kernel(q_ptr, k_ptr, v_ptr, z_ptr, N0, T, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void flashatt_kernel(tl::ptr<float> q_ptr, tl::ptr<float> k_ptr, tl::ptr<float> v_ptr,
                               tl::ptr<float> z_ptr, int N0, int T) {
  auto block_id_i = tl::program_id(0);
  const float log2_e = 1.44269504f;
  auto myexp = [&](const auto& x) { return tl::exp2(log2_e * x); };

  auto off_i = block_id_i * B0 + tl::arange<0, B0>();
  auto mask_i = off_i < N0;

  auto q = tl::load(q_ptr + off_i, mask_i);

  auto x_max = tl::full<B0>(-tl::inf, tl::float32);
  auto sum_x_exp = tl::zeros<B0>(tl::float32);
  auto z = tl::zeros<B0>(tl::float32);

  for (int j : tl::range(0, T, B1)) {
    auto off_j = j + tl::arange<0, B1>();
    auto mask_j = off_j < T;
    auto mask_ij = mask_i(_, None) & mask_j(None, _);

    auto k = tl::load(k_ptr + off_j, mask_j);

    auto x = q(_, None) * k(None, _) + tl::where(mask_ij, 0, -1e6);  // (B0, B1)

    auto x_max_now = tl::maximum(x_max, tl::max<1>(x));
    auto factor = myexp(x_max - x_max_now);
    auto x_exp = myexp(x - x_max_now(_, None));
    auto sum_x_exp_now = sum_x_exp * factor + tl::sum<1>(x_exp);

    auto v = tl::load(v_ptr + off_j, mask_j);
    auto qkv = v(None, _) * x_exp / sum_x_exp_now(_, None);
    z = tl::fma(z, factor * sum_x_exp / sum_x_exp_now, tl::sum<1>(qkv));

    x_max = x_max_now;
    sum_x_exp = sum_x_exp_now;
  }

  tl::store(z_ptr + off_i, z, mask_i);
}
