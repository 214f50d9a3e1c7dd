// tl/tl.hpp: everything: the language and tl::launch (tl/kernel.hpp), and the host side of a
// kernel: tl::buffer and tl::view, check_tensors_ready, tl::autotuner, tl::do_bench and
// tl::perf_report.
//
//   template <int B0>
//   TL_KERNEL void add_kernel(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, int N0) {
//     auto offs = tl::program_id(0) * B0 + tl::arange<0, B0>();
//     auto mask = offs < N0;
//     tl::store(z_ptr + offs, tl::load(x_ptr + offs, mask) + 10.0f, mask);
//   }
//   tl::launch<add_kernel<32>>(tl::grid(tl::cdiv(n, 32)), x, z, n);
#pragma once

// First, so that a compile-time error names its check on line 3 here too (the compiler shows the
// chain of includes that first reached the checks).
#include "core/diagnostics.hpp"
#include "kernel.hpp"
#include "runtime/buffer.hpp"
#include "runtime/cuda_buffer.hpp"
#include "runtime/check.hpp"
#include "runtime/autotune.hpp"
#include "bench/do_bench.hpp"
#include "bench/perf_report.hpp"
