// Puzzle 3: outer vector add.
// z_{j,i} = x_i + y_j: a row vector plus a column vector, broadcast to an N1 x N0 matrix.
// One program: B0 == N0 and B1 == N1.
//
// The kernel; p03_outer_vector_add.cpp holds its spec and how the checker runs it.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

// Triton: def add_vec_kernel(x_ptr, y_ptr, z_ptr, N0, N1, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void add_vec_kernel(tl::ptr<float> x_ptr, tl::ptr<float> y_ptr, tl::ptr<float> z_ptr, int N0,
                              [[maybe_unused]] int N1) {
  auto off_x = tl::arange<0, B0>();
  auto off_y = tl::arange<0, B1>();
  auto off_z = off_y(_, None) * N0 + off_x(None, _);  // (B1, B0)
  auto x = tl::load(x_ptr + off_x);
  auto y = tl::load(y_ptr + off_y);
  auto z = x(None, _) + y(_, None);                   // (B1, B0)
  tl::store(z_ptr + off_z, z);
}
