// Tutorial 08: grouped GEMM. A group of independent matrix products C_g = A_g @ B_g of their
// own sizes, by NUM_SM programs that walk the tiles of all of them: the matrices' addresses,
// sizes and leading dimensions come from tables in memory, and each address becomes a pointer
// in the kernel (.to(tl::pointer_type<T>)). As in the tutorial, every matrix is a whole number
// of tiles.
//
// The kernel, written as Triton's tutorial writes it (docs/tutorials/08-grouped-gemm.md puts the
// two side by side); t08_grouped_gemm.cpp holds its spec and the checker's setup.
#pragma once

#include <cstdint>

#include <tl/kernel.hpp>

template <int NUM_SM, int BLOCK_SIZE_M, int BLOCK_SIZE_N, int BLOCK_SIZE_K, class T = tl::fp16>
TL_KERNEL void grouped_matmul_kernel(tl::ptr<const std::int64_t> group_a_ptrs, tl::ptr<const std::int64_t> group_b_ptrs,
                                     tl::ptr<const std::int64_t> group_c_ptrs, tl::ptr<const int> group_gemm_sizes,
                                     tl::ptr<const int> g_lds, int group_size) {
  using tl::_, tl::None;
  int tile_idx = tl::program_id(0);
  int last_problem_end = 0;
  for (int g : tl::range(group_size)) {
    // get the gemm size of the current problem
    int gm = tl::load(group_gemm_sizes + g * 3);
    int gn = tl::load(group_gemm_sizes + g * 3 + 1);
    int gk = tl::load(group_gemm_sizes + g * 3 + 2);
    int num_m_tiles = tl::cdiv(gm, BLOCK_SIZE_M);
    int num_n_tiles = tl::cdiv(gn, BLOCK_SIZE_N);
    int num_tiles = num_m_tiles * num_n_tiles;
    // iterate through the tiles in the current gemm problem
    while (tile_idx >= last_problem_end && tile_idx < last_problem_end + num_tiles) {
      // pick up a tile from the current gemm problem
      int k = gk;
      int lda = tl::load(g_lds + g * 3);
      int ldb = tl::load(g_lds + g * 3 + 1);
      int ldc = tl::load(g_lds + g * 3 + 2);
      auto a_ptr = tl::eval(tl::load(group_a_ptrs + g).to(tl::pointer_type<const T>));
      auto b_ptr = tl::eval(tl::load(group_b_ptrs + g).to(tl::pointer_type<const T>));
      auto c_ptr = tl::eval(tl::load(group_c_ptrs + g).to(tl::pointer_type<T>));
      // figure out tile coordinates
      int tile_idx_in_gemm = tile_idx - last_problem_end;
      int tile_m_idx = tile_idx_in_gemm / num_n_tiles;
      int tile_n_idx = tile_idx_in_gemm % num_n_tiles;
      // do regular gemm here
      auto offs_am = tile_m_idx * BLOCK_SIZE_M + tl::arange<0, BLOCK_SIZE_M>();
      auto offs_bn = tile_n_idx * BLOCK_SIZE_N + tl::arange<0, BLOCK_SIZE_N>();
      auto offs_k = tl::arange<0, BLOCK_SIZE_K>();
      auto a_ptrs = a_ptr + offs_am(_, None) * lda + offs_k(None, _);
      auto b_ptrs = b_ptr + offs_k(_, None) * ldb + offs_bn(None, _);
      auto accumulator = tl::zeros<BLOCK_SIZE_M, BLOCK_SIZE_N>(tl::float32);
      for (int kk : tl::range(0, tl::cdiv(k, BLOCK_SIZE_K))) {
        (void)kk;
        // assume full tile for now
        auto a = tl::load(a_ptrs);
        auto b = tl::load(b_ptrs);
        accumulator = tl::dot(a, b, accumulator);
        a_ptrs += BLOCK_SIZE_K;
        b_ptrs += BLOCK_SIZE_K * ldb;
      }
      auto c = accumulator.to(tl::dtype<T>{});
      auto offs_cm = tile_m_idx * BLOCK_SIZE_M + tl::arange<0, BLOCK_SIZE_M>();
      auto offs_cn = tile_n_idx * BLOCK_SIZE_N + tl::arange<0, BLOCK_SIZE_N>();
      auto c_ptrs = c_ptr + ldc * offs_cm(_, None) + offs_cn(None, _);
      // assumes full tile for now
      tl::store(c_ptrs, c);
      // go to the next tile by advancing NUM_SM
      tile_idx += NUM_SM;
    }
    // get ready to go to the next gemm problem
    last_problem_end = last_problem_end + num_tiles;
  }
}
