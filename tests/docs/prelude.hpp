// What the docs' code samples may use without declaring it (tests/docs/extract.cpp):
// the library, Triton's None and _, host buffers x, y, z with a size n, and add_kernel.
#pragma once

#include <iostream>
#include <vector>

#include <tl/runtime/access_picture.hpp>
#include <tl/tl.hpp>

using tl::None;
using tl::_;

namespace doc_samples_prelude {
inline std::vector<float> x(1000, 1.0f), y(1000, 1.0f), z(1000, 0.0f);
inline int n = 100;

template <int B0>
TL_KERNEL void add_kernel(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, int N0) {
  auto offs = tl::program_id(0) * B0 + tl::arange<0, B0>();
  tl::store(z_ptr + offs, tl::load(x_ptr + offs, offs < N0) + 10.0f, offs < N0);
}
}  // namespace doc_samples_prelude
using namespace doc_samples_prelude;
