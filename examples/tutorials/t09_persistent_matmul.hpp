// Tutorial 09: persistent matrix multiplication. C = A @ B as in tutorial 03, but with one
// program per multiprocessor (NUM_SMS programs), each walking the output tiles tile_id =
// pid, pid + NUM_SMS, ... in grouped order; offsets past the matrix are clamped to row (column)
// 0 with where, and hinted with multiple_of / max_contiguous as the tutorial does (in tl the
// hints return their operand: the fast path checks at run time what they assert).
//
// The kernel, written as Triton's tutorial writes it (docs/tutorials/09-persistent-matmul.md);
// NUM_SMS is a run-time argument here (Triton's is a constexpr: one compilation per GPU
// model). t09_persistent_matmul.cpp holds its spec and how the checker runs it.
//
// matmul_kernel_descriptor_persistent is the tutorial's tensor-descriptor form: A (M x K) and
// B stored transposed (N x K) read through descriptors whose loads give 0 past the matrix, so
// neither masks nor clamps are written; C stored through a descriptor, which drops what falls
// outside. Triton writes b.T where tl writes tl::trans(b).
#pragma once

#include <algorithm>

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

struct tile_coords {
  int pid_m, pid_n;
};

// The tile_id-th output tile in grouped order (GROUP_SIZE_M rows of tiles at a time).
template <int GROUP_SIZE_M>
TL_INLINE tile_coords compute_pid(int tile_id, int num_pid_in_group, int num_pid_m) {
  auto group_id = tile_id / num_pid_in_group;
  auto first_pid_m = group_id * GROUP_SIZE_M;
  auto group_size_m = std::min(num_pid_m - first_pid_m, GROUP_SIZE_M);
  auto pid_m = first_pid_m + (tile_id % group_size_m);
  auto pid_n = (tile_id % num_pid_in_group) / group_size_m;
  return {pid_m, pid_n};
}

template <int BLOCK_SIZE_M, int BLOCK_SIZE_N, int BLOCK_SIZE_K, int GROUP_SIZE_M, class T = tl::fp16>
TL_KERNEL void matmul_kernel_persistent(tl::ptr<const T> a_ptr, tl::ptr<const T> b_ptr, tl::ptr<T> c_ptr,  //
                                        int M, int N, int K,                                               //
                                        int stride_am, int stride_ak,                                      //
                                        int stride_bk, int stride_bn,                                      //
                                        int stride_cm, int stride_cn, int NUM_SMS) {
  auto start_pid = tl::program_id(0);
  auto num_pid_m = tl::cdiv(M, BLOCK_SIZE_M);
  auto num_pid_n = tl::cdiv(N, BLOCK_SIZE_N);
  auto k_tiles = tl::cdiv(K, BLOCK_SIZE_K);
  auto num_tiles = num_pid_m * num_pid_n;

  auto offs_k_for_mask = tl::arange<0, BLOCK_SIZE_K>();
  auto num_pid_in_group = GROUP_SIZE_M * num_pid_n;

  for (int tile_id : tl::range(start_pid, num_tiles, NUM_SMS)) {
    auto [pid_m, pid_n] = compute_pid<GROUP_SIZE_M>(tile_id, num_pid_in_group, num_pid_m);
    auto start_m = pid_m * BLOCK_SIZE_M;
    auto start_n = pid_n * BLOCK_SIZE_N;
    auto offs_am_raw = start_m + tl::arange<0, BLOCK_SIZE_M>();
    auto offs_bn_raw = start_n + tl::arange<0, BLOCK_SIZE_N>();
    auto offs_am_clamped = tl::where(offs_am_raw < M, offs_am_raw, 0);
    auto offs_bn_clamped = tl::where(offs_bn_raw < N, offs_bn_raw, 0);
    auto offs_am = tl::max_contiguous(tl::multiple_of(offs_am_clamped, BLOCK_SIZE_M), BLOCK_SIZE_M);
    auto offs_bn = tl::max_contiguous(tl::multiple_of(offs_bn_clamped, BLOCK_SIZE_N), BLOCK_SIZE_N);

    auto accumulator = tl::zeros<BLOCK_SIZE_M, BLOCK_SIZE_N>(tl::float32);
    for (int ki : tl::range(0, k_tiles)) {
      auto offs_k = ki * BLOCK_SIZE_K + tl::arange<0, BLOCK_SIZE_K>();
      auto a_ptrs = a_ptr + (offs_am(_, None) * stride_am + offs_k(None, _) * stride_ak);
      auto b_ptrs = b_ptr + (offs_k(_, None) * stride_bk + offs_bn(None, _) * stride_bn);
      auto a = tl::load(a_ptrs, offs_k_for_mask(None, _) < K - ki * BLOCK_SIZE_K, 0.0f);
      auto b = tl::load(b_ptrs, offs_k_for_mask(_, None) < K - ki * BLOCK_SIZE_K, 0.0f);
      accumulator = tl::dot(a, b, accumulator);
    }

    auto offs_cm = pid_m * BLOCK_SIZE_M + tl::arange<0, BLOCK_SIZE_M>();
    auto offs_cn = pid_n * BLOCK_SIZE_N + tl::arange<0, BLOCK_SIZE_N>();
    auto c_ptrs = c_ptr + stride_cm * offs_cm(_, None) + stride_cn * offs_cn(None, _);
    auto c_mask = (offs_cm(_, None) < M) & (offs_cn(None, _) < N);
    auto c = accumulator.to(tl::dtype<T>{});
    tl::store(c_ptrs, c, c_mask);
  }
}

template <int BLOCK_SIZE_M, int BLOCK_SIZE_N, int BLOCK_SIZE_K, int GROUP_SIZE_M, class T = tl::fp16>
TL_KERNEL void matmul_kernel_descriptor_persistent(tl::ptr<const T> a_ptr, tl::ptr<const T> b_ptr, tl::ptr<T> c_ptr,  //
                                                   int M, int N, int K, int NUM_SMS) {
  auto start_pid = tl::program_id(0);
  auto num_pid_m = tl::cdiv(M, BLOCK_SIZE_M);
  auto num_pid_n = tl::cdiv(N, BLOCK_SIZE_N);
  auto k_tiles = tl::cdiv(K, BLOCK_SIZE_K);
  auto num_tiles = num_pid_m * num_pid_n;

  auto a_desc = tl::make_tensor_descriptor(a_ptr, {M, K}, {K, 1}, tl::block_shape<BLOCK_SIZE_M, BLOCK_SIZE_K>);
  auto b_desc = tl::make_tensor_descriptor(b_ptr, {N, K}, {K, 1}, tl::block_shape<BLOCK_SIZE_N, BLOCK_SIZE_K>);
  auto c_desc = tl::make_tensor_descriptor(c_ptr, {M, N}, {N, 1}, tl::block_shape<BLOCK_SIZE_M, BLOCK_SIZE_N>);

  // tile_id_c walks the tiles again for the epilogue (the tutorial keeps the two walks apart).
  auto tile_id_c = start_pid - NUM_SMS;
  auto num_pid_in_group = GROUP_SIZE_M * num_pid_n;

  for (int tile_id : tl::range(start_pid, num_tiles, NUM_SMS)) {
    auto [pid_m, pid_n] = compute_pid<GROUP_SIZE_M>(tile_id, num_pid_in_group, num_pid_m);
    auto offs_am = pid_m * BLOCK_SIZE_M;
    auto offs_bn = pid_n * BLOCK_SIZE_N;

    // The K loop as a fold: the backend copies the tiles of the next iterations while the
    // tensor cores multiply this one's (Triton pipelines its `for ki in range(k_tiles)`).
    auto accumulator = tl::zeros<BLOCK_SIZE_M, BLOCK_SIZE_N>(tl::float32);
    accumulator = tl::range(0, k_tiles).fold(accumulator, [&](int ki, auto acc) {
      auto offs_k = ki * BLOCK_SIZE_K;
      auto a = a_desc.load({offs_am, offs_k});
      auto b = b_desc.load({offs_bn, offs_k});
      return tl::dot(a, tl::trans(b), acc);
    });

    tile_id_c += NUM_SMS;
    auto [pid_cm, pid_cn] = compute_pid<GROUP_SIZE_M>(tile_id_c, num_pid_in_group, num_pid_m);
    auto offs_cm = pid_cm * BLOCK_SIZE_M;
    auto offs_cn = pid_cn * BLOCK_SIZE_N;
    auto c = accumulator.to(tl::dtype<T>{});
    c_desc.store({offs_cm, offs_cn}, c);
  }
}
