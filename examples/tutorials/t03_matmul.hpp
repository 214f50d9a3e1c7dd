// Tutorial 03: matrix multiplication. C = A @ B (A: M x K, B: K x N, fp16; C: fp16 through a
// float32 accumulator; the tutorial's fp8 variant: A and B float8, B stored column by column,
// C fp16), one program per BLOCK_SIZE_M x BLOCK_SIZE_N tile of C, the programs in
// grouped order (GROUP_SIZE_M rows of tiles at a time, so that neighbours share tiles in L2).
// Row and column offsets wrap with % M and % N (a partial last tile reads valid rows it does not
// store); the blocks of pointers move along K in the loop; an optional leaky_relu epilogue.
//
// The kernel, written as Triton's tutorial writes it (docs/tutorials/03-matrix-multiplication.md);
// t03_matmul.cpp holds its spec and how the checker runs it.
#pragma once

#include <algorithm>

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

template <class X>
TL_INLINE auto leaky_relu(const X& x) {
  return tl::where(x >= 0, x, 0.01f * x);
}

enum class activation { none, leaky_relu };

template <int BLOCK_SIZE_M, int BLOCK_SIZE_N, int BLOCK_SIZE_K, int GROUP_SIZE_M, activation ACTIVATION = activation::none,
          class T = tl::fp16, class TC = T>
TL_KERNEL void matmul_kernel(tl::ptr<const T> a_ptr, tl::ptr<const T> b_ptr, tl::ptr<TC> c_ptr,  //
                             int M, int N, int K,                                               //
                             int stride_am, int stride_ak,                                      //
                             int stride_bk, int stride_bn,                                      //
                             int stride_cm, int stride_cn) {
  // The tile of C this program computes, in grouped order.
  auto pid = tl::program_id(0);
  auto num_pid_m = tl::cdiv(M, BLOCK_SIZE_M);
  auto num_pid_n = tl::cdiv(N, BLOCK_SIZE_N);
  auto num_pid_in_group = GROUP_SIZE_M * num_pid_n;
  auto group_id = pid / num_pid_in_group;
  auto first_pid_m = group_id * GROUP_SIZE_M;
  auto group_size_m = std::min(num_pid_m - first_pid_m, GROUP_SIZE_M);
  auto pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m);
  auto pid_n = (pid % num_pid_in_group) / group_size_m;

  // Blocks of pointers to the first tiles of A and B, moved along K in the loop.
  auto offs_am = (pid_m * BLOCK_SIZE_M + tl::arange<0, BLOCK_SIZE_M>()) % M;
  auto offs_bn = (pid_n * BLOCK_SIZE_N + tl::arange<0, BLOCK_SIZE_N>()) % N;
  auto offs_k = tl::arange<0, BLOCK_SIZE_K>();
  auto a_ptrs = a_ptr + (offs_am(_, None) * stride_am + offs_k(None, _) * stride_ak);
  auto b_ptrs = b_ptr + (offs_k(_, None) * stride_bk + offs_bn(None, _) * stride_bn);

  // The tile of C, accumulated in float32.
  auto accumulator = tl::zeros<BLOCK_SIZE_M, BLOCK_SIZE_N>(tl::float32);
  for (int k : tl::range(0, tl::cdiv(K, BLOCK_SIZE_K))) {
    auto a = tl::load(a_ptrs, offs_k(None, _) < K - k * BLOCK_SIZE_K, 0.0f);
    auto b = tl::load(b_ptrs, offs_k(_, None) < K - k * BLOCK_SIZE_K, 0.0f);
    accumulator = tl::dot(a, b, accumulator);
    a_ptrs += BLOCK_SIZE_K * stride_ak;
    b_ptrs += BLOCK_SIZE_K * stride_bk;
  }
  // Activations fused while the accumulator is float32.
  if constexpr (ACTIVATION == activation::leaky_relu) accumulator = leaky_relu(accumulator);
  auto c = accumulator.to(tl::dtype<TC>{});

  // The tile of C, masked at the matrix's edges.
  auto offs_cm = pid_m * BLOCK_SIZE_M + tl::arange<0, BLOCK_SIZE_M>();
  auto offs_cn = pid_n * BLOCK_SIZE_N + tl::arange<0, BLOCK_SIZE_N>();
  auto c_ptrs = c_ptr + stride_cm * offs_cm(_, None) + stride_cn * offs_cn(None, _);
  auto c_mask = (offs_cm(_, None) < M) & (offs_cn(None, _) < N);
  tl::store(c_ptrs, c, c_mask);
}
