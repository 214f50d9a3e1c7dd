// Tutorial 02: fused softmax. Each row of an n_rows x n_cols matrix is normalised in one pass
// over memory: the row is loaded once (BLOCK_SIZE, a power of two >= n_cols, columns at a time),
// its maximum subtracted, exponentiated, summed and divided, and stored once. The programs walk
// the rows persistently: program p takes rows p, p + num_programs, ...
//
// The kernel, written as Triton's tutorial writes it (docs/tutorials/02-fused-softmax.md);
// t02_fused_softmax.cpp holds its spec and how the checker runs it.
#pragma once

#include <tl/kernel.hpp>

template <int BLOCK_SIZE>
TL_KERNEL void softmax_kernel(tl::ptr<float> output_ptr, tl::ptr<const float> input_ptr, int input_row_stride,
                              int output_row_stride, int n_rows, int n_cols) {
  auto row_start = tl::program_id(0);
  auto row_step = tl::num_programs(0);
  for (int row_idx : tl::range(row_start, n_rows, row_step)) {
    auto row_start_ptr = input_ptr + row_idx * input_row_stride;
    auto col_offsets = tl::arange<0, BLOCK_SIZE>();
    auto input_ptrs = row_start_ptr + col_offsets;
    auto mask = col_offsets < n_cols;
    auto row = tl::load(input_ptrs, mask, -tl::inf);
    auto row_minus_max = row - tl::max<0>(row);
    auto numerator = tl::exp(row_minus_max);
    auto denominator = tl::sum<0>(numerator);
    auto softmax_output = numerator / denominator;
    auto output_row_start_ptr = output_ptr + row_idx * output_row_stride;
    auto output_ptrs = output_row_start_ptr + col_offsets;
    tl::store(output_ptrs, softmax_output, mask);
  }
}
