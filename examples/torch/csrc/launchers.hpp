// The tutorials' kernels launched on tl views: what each torch op of bindings.cpp calls once its
// tensors are views (tl::from_torch) and its launch options chosen (tl::options_for_torch). The
// definitions are in the .cu files, one per warp count (TL_NUM_WARPS sizes a translation unit's
// blocks) and per element type, so that they compile in parallel; no torch header here, so nvcc
// never compiles PyTorch's.
#pragma once

#include <tl/runtime/buffer.hpp>

namespace tl_torch {

// Tutorial 02: y = softmax(x) along rows; float32 rows of up to 16384 columns.
void softmax(tl::view<const float> x, tl::view<float> y, tl::launch_options o);

// Tutorial 05. Rows of x (and y, dy, dx) share one row stride, and w, b, mean, rstd are compact.
// Columns up to 1024 run with 4 warps a program, wider rows (to 16384) with 8, as the tutorial's
// rule for num_warps gives.
template <class T>
void layer_norm_fwd(tl::view<const T> x, tl::view<T> y, tl::view<const T> w, tl::view<const T> b, tl::view<float> mean,
                    tl::view<float> rstd, float eps, tl::launch_options o);
// partial_dw and partial_db: layer_norm_group(N) x N, zeroed; locks: 2 * layer_norm_group(N), zeroed.
template <class T>
void layer_norm_bwd(tl::view<const T> dy, tl::view<const T> x, tl::view<const T> w, tl::view<const float> mean,
                    tl::view<const float> rstd, tl::view<T> dx, tl::view<T> partial_dw, tl::view<T> partial_db,
                    tl::view<int> locks, tl::view<T> dw, tl::view<T> db, tl::launch_options o);
// The tutorial's GROUP_SIZE_M for rows of N columns.
constexpr int layer_norm_group(long long n) { return n <= 1024 ? 256 : n <= 4096 ? 128 : n <= 8192 ? 96 : 64; }

// The per-warp-count halves of the two above (4 warps: N <= 1024; 8 warps: 1024 < N <= 16384).
template <class T, int Warps>
void layer_norm_fwd_by(tl::view<const T> x, tl::view<T> y, tl::view<const T> w, tl::view<const T> b, tl::view<float> mean,
                       tl::view<float> rstd, float eps, tl::launch_options o);
template <class T, int Warps>
void layer_norm_bwd_by(tl::view<const T> dy, tl::view<const T> x, tl::view<const T> w, tl::view<const float> mean,
                       tl::view<const float> rstd, tl::view<T> dx, tl::view<T> partial_dw, tl::view<T> partial_db,
                       tl::view<int> locks, tl::view<T> dw, tl::view<T> db, tl::launch_options o);

template <class T>
void layer_norm_fwd(tl::view<const T> x, tl::view<T> y, tl::view<const T> w, tl::view<const T> b, tl::view<float> mean,
                    tl::view<float> rstd, float eps, tl::launch_options o) {
  if (x.size(1) <= 1024) layer_norm_fwd_by<T, 4>(x, y, w, b, mean, rstd, eps, o);
  else layer_norm_fwd_by<T, 8>(x, y, w, b, mean, rstd, eps, o);
}
template <class T>
void layer_norm_bwd(tl::view<const T> dy, tl::view<const T> x, tl::view<const T> w, tl::view<const float> mean,
                    tl::view<const float> rstd, tl::view<T> dx, tl::view<T> partial_dw, tl::view<T> partial_db,
                    tl::view<int> locks, tl::view<T> dw, tl::view<T> db, tl::launch_options o) {
  if (x.size(1) <= 1024) layer_norm_bwd_by<T, 4>(dy, x, w, mean, rstd, dx, partial_dw, partial_db, locks, dw, db, o);
  else layer_norm_bwd_by<T, 8>(dy, x, w, mean, rstd, dx, partial_dw, partial_db, locks, dw, db, o);
}

// Tutorial 03: c = a @ b (then leaky_relu), fp16 or bf16, any strides; 128 x 128 x 64 tiles.
template <class T>
void matmul(tl::view<const T> a, tl::view<const T> b, tl::view<T> c, bool leaky_relu, tl::launch_options o);

// Tutorial 06, the forward: o = softmax(q k^T * sm_scale) v over compact (Z, H, N_CTX, HEAD_DIM)
// fp16 tensors, HEAD_DIM 64 or 128, N_CTX a multiple of 64; m receives the rows' log-sum-exp
// (Z, H, N_CTX) for a backward pass.
// One translation unit each (attention_64.cu, attention_128.cu): they compile in parallel.
void attention_fwd_64(tl::ptr<const tl::fp16> q, tl::ptr<const tl::fp16> k, tl::ptr<const tl::fp16> v,
                      tl::ptr<tl::fp16> out, tl::ptr<float> m, int Z, int H, int n_ctx, bool causal, float sm_scale,
                      tl::launch_options o);
void attention_fwd_128(tl::ptr<const tl::fp16> q, tl::ptr<const tl::fp16> k, tl::ptr<const tl::fp16> v,
                       tl::ptr<tl::fp16> out, tl::ptr<float> m, int Z, int H, int n_ctx, bool causal, float sm_scale,
                       tl::launch_options o);

}  // namespace tl_torch
