// Tutorial 05: layer normalization. Forward: each row of X is normalised to zero mean and unit
// variance, then scaled by W and shifted by B; the row's mean and 1/std are kept for the
// backward pass. Backward: DX per row, and the column sums DW = sum(DY * x_hat), DB = sum(DY)
// in two stages: each program adds its row into one of GROUP_SIZE_M partial rows under that
// row's spin lock (atomic_cas / atomic_xchg), then a second kernel sums the partial rows.
//
// The kernels, written as Triton's tutorial writes them (docs/tutorials/05-layer-norm.md puts
// them side by side); t05_layer_norm.cpp holds the specs and the checker's setup.
#pragma once

#include <tl/kernel.hpp>

template <int BLOCK_SIZE, class T>
TL_KERNEL void layer_norm_fwd_fused(tl::ptr<const T> X, tl::ptr<T> Y, tl::ptr<const T> W, tl::ptr<const T> B,
                                    tl::ptr<float> Mean, tl::ptr<float> Rstd, int stride, int N, float eps) {
  // Map the program id to the row of X and Y it should compute.
  auto row = tl::program_id(0);
  Y += row * stride;
  X += row * stride;
  // Compute mean
  auto _mean = tl::zeros<BLOCK_SIZE>(tl::float32);
  for (int off : tl::range(0, N, BLOCK_SIZE)) {
    auto cols = off + tl::arange<0, BLOCK_SIZE>();
    auto a = tl::load(X + cols, cols < N, 0.0).to(tl::float32);
    _mean += a;
  }
  auto mean = tl::sum<0>(_mean) / N;
  // Compute variance
  auto _var = tl::zeros<BLOCK_SIZE>(tl::float32);
  for (int off : tl::range(0, N, BLOCK_SIZE)) {
    auto cols = off + tl::arange<0, BLOCK_SIZE>();
    auto x = tl::load(X + cols, cols < N, 0.0).to(tl::float32);
    auto x_centered = tl::where(cols < N, x - mean, 0.0);
    _var += x_centered * x_centered;
  }
  auto var = tl::sum<0>(_var) / N;
  auto rstd = 1 / tl::sqrt(var + eps);
  // Write mean / rstd
  tl::store(Mean + row, mean);
  tl::store(Rstd + row, rstd);
  // Normalize and apply linear transformation
  for (int off : tl::range(0, N, BLOCK_SIZE)) {
    auto cols = off + tl::arange<0, BLOCK_SIZE>();
    auto mask = cols < N;
    auto w = tl::load(W + cols, mask);
    auto b = tl::load(B + cols, mask);
    auto x = tl::load(X + cols, mask, 0.0).to(tl::float32);
    auto x_hat = (x - mean) * rstd;
    auto y = x_hat * w + b;
    // Write output
    tl::store(Y + cols, y, mask);
  }
}

template <int GROUP_SIZE_M, int BLOCK_SIZE_N, class T>
TL_KERNEL void layer_norm_bwd_dx_fused(tl::ptr<T> DX, tl::ptr<const T> DY, tl::ptr<T> DW, tl::ptr<T> DB,
                                       tl::ptr<const T> X, tl::ptr<const T> W, tl::ptr<const float> Mean,
                                       tl::ptr<const float> Rstd, tl::ptr<int> Lock, int stride, int N) {
  // Map the program id to the elements of X, DX, and DY it should compute.
  auto row = tl::program_id(0);
  auto cols = tl::arange<0, BLOCK_SIZE_N>();
  auto mask = cols < N;
  X += row * stride;
  DY += row * stride;
  DX += row * stride;
  // Offset locks and weights/biases gradient pointer for parallel reduction
  auto lock_id = row % GROUP_SIZE_M;
  Lock += lock_id;
  auto Count = Lock + GROUP_SIZE_M;
  auto DW_row = DW + lock_id * N + cols;
  auto DB_row = DB + lock_id * N + cols;
  // Load data to SRAM
  auto x = tl::load(X + cols, mask, 0).to(tl::float32);
  auto dy = tl::load(DY + cols, mask, 0).to(tl::float32);
  auto w = tl::load(W + cols, mask).to(tl::float32);
  auto mean = tl::load(Mean + row);
  auto rstd = tl::load(Rstd + row);
  // Compute dx (xhat and wdy held in blocks: computed once for their three uses)
  tl::block<float, BLOCK_SIZE_N> xhat = tl::where(mask, (x - mean) * rstd, 0.0);
  tl::block<float, BLOCK_SIZE_N> wdy = tl::where(mask, w * dy, 0.0);
  auto c1 = tl::sum<0>(xhat * wdy) / N;
  auto c2 = tl::sum<0>(wdy) / N;
  auto dx = (wdy - (xhat * c1 + c2)) * rstd;
  // Write dx
  tl::store(DX + cols, dx, mask);
  // Accumulate partial sums for dw/db
  tl::block<float, BLOCK_SIZE_N> partial_dw = (dy * xhat).to(w.dtype());
  tl::block<float, BLOCK_SIZE_N> partial_db = dy.to(w.dtype());
  while (int(tl::atomic_cas(Lock, 0, 1)) == 1) {
  }
  auto count = tl::load(Count);
  // First store doesn't accumulate
  if (int(count) == 0) {
    tl::atomic_xchg(Count, 1);
  } else {
    // Both rows loaded before either is added: one round trip under the lock, not two
    auto dw = tl::load(DW_row, mask);
    auto db = tl::load(DB_row, mask);
    partial_dw += dw;
    partial_db += db;
  }
  tl::store(DW_row, partial_dw, mask);
  tl::store(DB_row, partial_db, mask);
  // need a barrier to ensure all threads finished before releasing the lock
  tl::debug_barrier();
  // Release the lock
  tl::atomic_xchg(Lock, 0);
}

template <int BLOCK_SIZE_M, int BLOCK_SIZE_N, class T>
TL_KERNEL void layer_norm_bwd_dwdb(tl::ptr<const T> DW, tl::ptr<const T> DB, tl::ptr<T> FINAL_DW, tl::ptr<T> FINAL_DB,
                                   int M, int N) {
  // Map the program id to the elements of DW and DB it should compute.
  auto pid = tl::program_id(0);
  auto cols = pid * BLOCK_SIZE_N + tl::arange<0, BLOCK_SIZE_N>();
  auto dw = tl::zeros<BLOCK_SIZE_M, BLOCK_SIZE_N>(tl::float32);
  auto db = tl::zeros<BLOCK_SIZE_M, BLOCK_SIZE_N>(tl::float32);
  // Iterate through the rows of DW and DB to sum the partial sums.
  for (int i : tl::range(0, M, BLOCK_SIZE_M)) {
    auto rows = i + tl::arange<0, BLOCK_SIZE_M>();
    auto mask = (rows(tl::_, tl::None) < M) & (cols(tl::None, tl::_) < N);
    auto offs = rows(tl::_, tl::None) * N + cols(tl::None, tl::_);
    dw += tl::load(DW + offs, mask, 0.0);
    db += tl::load(DB + offs, mask, 0.0);
  }
  // Write the final sum to the output.
  auto sum_dw = tl::sum<0>(dw);
  auto sum_db = tl::sum<0>(db);
  tl::store(FINAL_DW + cols, sum_dw, cols < N);
  tl::store(FINAL_DB + cols, sum_db, cols < N);
}
