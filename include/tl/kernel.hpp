// tl/kernel.hpp: what a kernel needs, and nothing else: the language (blocks, the ops) and
// tl::launch on both backends. No runtime buffers, autotuning or benchmarking (tl/tl.hpp has
// them), and no iostreams, so that a kernel's translation unit compiles quickly.
//
//   template <int B0>
//   TL_KERNEL void add_kernel(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, int N0) {
//     auto offs = tl::program_id(0) * B0 + tl::arange<0, B0>();
//     auto mask = offs < N0;
//     tl::store(z_ptr + offs, tl::load(x_ptr + offs, mask) + 10.0f, mask);
//   }
//   tl::launch<add_kernel<32>>(tl::grid(tl::cdiv(n, 32)), x, z, n);
#pragma once

#include "config.hpp"
#include "core/diagnostics.hpp"
#include "core/dispatch.hpp"
#include "core/dtype.hpp"
#include "core/ptr.hpp"
#include "core/shape.hpp"
#include "expr/block.hpp"
#include "ops/atomic.hpp"
#include "ops/creation.hpp"
#include "ops/debug.hpp"
#include "ops/dot.hpp"
#include "ops/dot_scaled.hpp"
#include "ops/elementwise.hpp"
#include "ops/memory.hpp"
#include "ops/program.hpp"
#include "ops/random.hpp"
#include "ops/reduce.hpp"
#include "ops/scan.hpp"
#include "ops/shape_ops.hpp"
#include "ops/sort.hpp"
#include "ops/tensor_descriptor.hpp"
#include "launch/launch.hpp"
