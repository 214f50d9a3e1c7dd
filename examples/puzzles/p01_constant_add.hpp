// Puzzle 1: constant add.
// Add a constant to a vector: z_i = x_i + 10 for i < N0. One program; the block size B0 is the
// vector's length N0, so no mask is needed.
//
// The kernel; p01_constant_add.cpp holds its spec and how the checker runs it.
#pragma once

#include <tl/kernel.hpp>

// Triton: def add_kernel(x_ptr, z_ptr, N0, B0: tl.constexpr)
template <int B0>
TL_KERNEL void add_kernel(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, [[maybe_unused]] int N0) {
  auto off_x = tl::arange<0, B0>();
  auto x = tl::load(x_ptr + off_x);
  auto z = x + 10.0f;
  tl::store(z_ptr + off_x, z);
}
