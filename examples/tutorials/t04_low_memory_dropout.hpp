// Tutorial 04: low-memory dropout. Each element is kept with probability 1 - p and scaled by
// 1 / (1 - p), else zeroed. The baseline reads which to keep from a mask in memory; the seeded
// version draws it from (seed, offset) with tl::rand, so nothing but a seed is stored and the
// backward pass draws the same mask again.
//
// The kernels, written as Triton's tutorial writes them (docs/tutorials/04-low-memory-dropout.md
// puts them side by side); t04_low_memory_dropout.cpp holds the spec and the checker's setup.
#pragma once

#include <cstdint>

#include <tl/kernel.hpp>

template <int BLOCK_SIZE>
TL_KERNEL void dropout(tl::ptr<const float> x_ptr, tl::ptr<const std::int32_t> x_keep_ptr, tl::ptr<float> output_ptr,
                       int n_elements, float p) {
  auto pid = tl::program_id(0);
  auto block_start = pid * BLOCK_SIZE;
  auto offsets = block_start + tl::arange<0, BLOCK_SIZE>();
  auto mask = offsets < n_elements;
  auto x = tl::load(x_ptr + offsets, mask);
  auto x_keep = tl::load(x_keep_ptr + offsets, mask);
  auto output = tl::where(x_keep, x / (1 - p), 0.0);
  tl::store(output_ptr + offsets, output, mask);
}

template <int BLOCK_SIZE>
TL_KERNEL void seeded_dropout(tl::ptr<const float> x_ptr, tl::ptr<float> output_ptr, int n_elements, float p, int seed) {
  auto pid = tl::program_id(0);
  auto block_start = pid * BLOCK_SIZE;
  auto offsets = block_start + tl::arange<0, BLOCK_SIZE>();
  auto mask = offsets < n_elements;
  auto x = tl::load(x_ptr + offsets, mask);
  auto random = tl::rand(seed, offsets);
  auto x_keep = random > p;
  auto output = tl::where(x_keep, x / (1 - p), 0.0);
  tl::store(output_ptr + offsets, output, mask);
}
