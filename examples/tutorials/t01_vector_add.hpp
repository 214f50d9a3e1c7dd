// Tutorial 01: vector addition. output = x + y over n_elements, one program per BLOCK_SIZE
// elements, the tail masked.
//
// The kernel, written as Triton's tutorial writes it (docs/tutorials/01-vector-add.md puts the
// two side by side); t01_vector_add.cpp holds its spec and how the checker runs it.
#pragma once

#include <tl/kernel.hpp>

template <int BLOCK_SIZE, class T = float>
TL_KERNEL void add_kernel(tl::ptr<const T> x_ptr, tl::ptr<const T> y_ptr, tl::ptr<T> output_ptr, int n_elements) {
  auto pid = tl::program_id(0);
  auto block_start = pid * BLOCK_SIZE;
  auto offsets = block_start + tl::arange<0, BLOCK_SIZE>();
  auto mask = offsets < n_elements;
  auto x = tl::load(x_ptr + offsets, mask);
  auto y = tl::load(y_ptr + offsets, mask);
  auto output = x + y;
  tl::store(output_ptr + offsets, output, mask);
}
