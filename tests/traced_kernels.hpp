// Small kernels whose accesses the trace and access-picture tests know by heart.
#pragma once

#include <tl/tl.hpp>

namespace traced {

// z = x + 10 in blocks of B; with slack 1 the mask is off by one, so the last program reads and
// writes one element past n (Triton-Puzzles-Lite's first demos in one).
template <int B>
TL_KERNEL void add_ten(tl::ptr<float> x, tl::ptr<float> z, int n, int slack) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  auto mask = offs < n + slack;
  tl::store(z + offs, tl::load(x + offs, mask) + 10.0f, mask);
}

// An n0 x n1 copy in B0 x B1 tiles, masked at both edges.
template <int B0, int B1>
TL_KERNEL void tile_copy(tl::ptr<int> x, tl::ptr<int> z, int n0, int n1) {
  auto r = tl::program_id(0) * B0 + tl::arange<0, B0>();
  auto c = tl::program_id(1) * B1 + tl::arange<0, B1>();
  auto offs = r(tl::_, tl::None) * n1 + c(tl::None, tl::_);
  auto mask = (r(tl::_, tl::None) < n0) & (c(tl::None, tl::_) < n1);
  tl::store(z + offs, tl::load(x + offs, mask), mask);
}

}  // namespace traced
