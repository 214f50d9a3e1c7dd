// Tutorial 05's layer norm in fp16 for the second suite, launched as the tutorial's host code
// launches it: BLOCK_SIZE = next_power_of_2(N), the warps by Triton's rule (4-warp unit up to
// 1024 columns, 8-warp unit beyond), GROUP_SIZE_M partial rows by N. The caller zeroes the
// partial rows and the locks before each backward call, as the tutorial allocates them.
#pragma once

#include "../../../examples/tutorials/t05_layer_norm.hpp"
#include "entry.hpp"

namespace tutorial_entries {

template <int BLOCK_SIZE>
void layer_norm_fwd(const void* x, void* y, const void* w, const void* b, void* mean, void* rstd, int M, int N, float eps,
                    void* stream) {
  using T = tl::fp16;
  const std::int64_t n = std::int64_t(M) * N;
  tl::launch<layer_norm_fwd_fused<BLOCK_SIZE, T>>(tl::grid(M), on(stream), buffer<const T>(x, n, "X"), buffer<T>(y, n, "Y"),
                                                  buffer<const T>(w, N, "W"), buffer<const T>(b, N, "B"),
                                                  buffer<float>(mean, M, "Mean"), buffer<float>(rstd, M, "Rstd"), N, N, eps);
}

// The tutorial's GROUP_SIZE_M for rows of up to BLOCK_SIZE_N columns.
constexpr int layer_norm_group(int block_n) { return block_n <= 1024 ? 256 : block_n <= 4096 ? 128 : block_n <= 8192 ? 96 : 64; }

template <int BLOCK_SIZE_N>
void layer_norm_bwd(const void* dy, const void* x, const void* w, const void* mean, const void* rstd, void* dx,
                    void* partial_dw, void* partial_db, void* locks, void* dw, void* db, int M, int N, void* stream) {
  using T = tl::fp16;
  constexpr int GROUP_SIZE_M = layer_norm_group(BLOCK_SIZE_N);
  const std::int64_t n = std::int64_t(M) * N, partial = std::int64_t(GROUP_SIZE_M) * N;
  tl::launch<layer_norm_bwd_dx_fused<GROUP_SIZE_M, BLOCK_SIZE_N, T>>(
      tl::grid(M), on(stream), buffer<T>(dx, n, "DX"), buffer<const T>(dy, n, "DY"), buffer<T>(partial_dw, partial, "DW"),
      buffer<T>(partial_db, partial, "DB"), buffer<const T>(x, n, "X"), buffer<const T>(w, N, "W"),
      buffer<const float>(mean, M, "Mean"), buffer<const float>(rstd, M, "Rstd"), buffer<int>(locks, 2 * GROUP_SIZE_M, "Lock"),
      N, N);
  tl::launch<layer_norm_bwd_dwdb<32, 128, T>>(tl::grid(tl::cdiv(N, 128)), on(stream), buffer<const T>(partial_dw, partial, "DW"),
                                              buffer<const T>(partial_db, partial, "DB"), buffer<T>(dw, N, "FINAL_DW"),
                                              buffer<T>(db, N, "FINAL_DB"), std::min(GROUP_SIZE_M, M), N);
}

// The 8-warp unit's share (entries_8warps.cu): BLOCK_SIZE 2048 to 16384.
void layer_norm_fwd_wide(const void* x, void* y, const void* w, const void* b, void* mean, void* rstd, int M, int N,
                         float eps, void* stream);
void layer_norm_bwd_wide(const void* dy, const void* x, const void* w, const void* mean, const void* rstd, void* dx,
                         void* partial_dw, void* partial_db, void* locks, void* dw, void* db, int M, int N, void* stream);

}  // namespace tutorial_entries
