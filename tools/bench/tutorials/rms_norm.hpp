// An RMSNorm for the second suite (entries_4warps.cu: rows up to 1024 elements; entries_8warps.cu:
// longer rows, as Triton's rule of thumb picks the warps).
#pragma once

#include <cstdint>

#include "entry.hpp"

// RMSNorm, written as tutorial 05 writes its layer norm: one row a program, BLOCK_SIZE the
// next power of two of the row.
template <int BLOCK_SIZE>
TL_KERNEL void rms_norm_fwd(tl::ptr<const tl::fp16> X, tl::ptr<tl::fp16> Y, tl::ptr<const tl::fp16> W, int stride, int N,
                            float eps) {
  auto row = tl::program_id(0);
  auto cols = tl::arange<0, BLOCK_SIZE>();
  auto mask = cols < N;
  auto x = tl::load(X + row * stride + cols, mask, 0.0f).to(tl::float32);
  auto var = tl::sum<0>(x * x) / N;
  auto rstd = 1 / tl::sqrt(var + eps);
  auto w = tl::load(W + cols, mask);
  auto y = x * rstd * w;
  tl::store(Y + row * stride + cols, y, mask);
}

template <int BLOCK_SIZE>
void rms_norm(const void* x, void* y, const void* w, int rows, int n, int stride, float eps, void* stream) {
  using T = tl::fp16;
  using tutorial_entries::buffer, tutorial_entries::on, tutorial_entries::span;
  tl::launch<rms_norm_fwd<BLOCK_SIZE>>(tl::grid(rows), on(stream), buffer<const T>(x, span(rows, n, stride, 1), "x"),
                                       buffer<T>(y, span(rows, n, stride, 1), "y"), buffer<const T>(w, n, "w"), stride, n,
                                       eps);
}

// The 4-warp instance (entries_4warps.cu).
void rms_norm_4warps(const void* x, void* y, const void* w, int rows, int n, int stride, float eps, void* stream);
