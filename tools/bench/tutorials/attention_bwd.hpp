// Tutorial 06's backward for the second suite: the preprocess and the backward kernel launched
// as the tutorial launches them (its blocks: 32 / 128 / 128 / 32, slices of 2). The warp count
// is the translation unit's: head dim 64 runs with 4 warps (entries_attention_bwd64.cu), head
// dim 128 with 8 (entries_attention_bwd.cu), each the faster of the two (docs/performance-history.md).
#pragma once

#include <cstdint>

#include "../../../examples/tutorials/t06_attention_backward.hpp"
#include "entry.hpp"

template <int HD>
void attention_bwd(const void* q, const void* arg_k, const void* v, float sm_scale, const void* o, const void* dout,
                   void* dq, void* dk, void* dv, const void* m, void* delta, int Z, int H, int n_ctx, void* stream) {
  using T = tl::fp16;
  using tutorial_entries::buffer, tutorial_entries::on;
  constexpr int PRE_BLOCK = 128, BLOCK_M1 = 32, BLOCK_N1 = 128, BLOCK_M2 = 128, BLOCK_N2 = 32, BLK_SLICE_FACTOR = 2;
  const std::int64_t n = std::int64_t(Z) * H * n_ctx * HD, rows = std::int64_t(Z) * H * n_ctx;
  tl::launch<attn_bwd_preprocess<PRE_BLOCK, HD>>(tl::grid(n_ctx / PRE_BLOCK, Z * H), on(stream), buffer<const T>(o, n, "o"),
                                                 buffer<const T>(dout, n, "do"), buffer<float>(delta, rows, "Delta"), Z, H,
                                                 n_ctx);
  tl::launch<attn_bwd<BLOCK_M1, BLOCK_N1, BLOCK_M2, BLOCK_N2, BLK_SLICE_FACTOR, HD>>(
      tl::grid(n_ctx / BLOCK_N1, 1, Z * H), on(stream), buffer<const T>(q, n, "q"), buffer<const T>(arg_k, n, "k"),
      buffer<const T>(v, n, "v"), sm_scale, buffer<const T>(dout, n, "do"), buffer<T>(dq, n, "dq"), buffer<T>(dk, n, "dk"),
      buffer<T>(dv, n, "dv"), buffer<const float>(m, rows, "M"), buffer<const float>(delta, rows, "Delta"),
      H * n_ctx * HD, n_ctx * HD, HD, 1, H, n_ctx);
}

// The 4-warp instance (entries_attention_bwd64.cu).
void attention_bwd_d64_4warps(const void* q, const void* arg_k, const void* v, float sm_scale, const void* o,
                              const void* dout, void* dq, void* dk, void* dv, const void* m, void* delta, int Z, int H,
                              int n_ctx, void* stream);
