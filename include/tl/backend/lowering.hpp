// tl/backend/lowering.hpp: the backend that lowers the ops in this compilation pass.
//
// Each op (ops/) checks its arguments and builds its expression, then calls its lowering in
// tl::detail::lowering: the CPU backend's (backend/cpu/) when compiling for the host, the
// CUDA backend's (backend/cuda/) when nvcc compiles for the device. The two folders hold the
// lowerings of the same op families under the same file names:
//   evaluation.hpp   a block's storage, and an expression evaluated into it
//   memory.hpp       load, store
//   atomic.hpp       atomic_add, _max, _min, _and, _or, _xor, _xchg, _cas, _load, _store, _poll
//   reduce.hpp       sum, max, min, argmax, argmin (and reduce with a combine function)
//   scan.hpp         cumsum, cumprod, associative_scan
//   sort.hpp         sort (and topk, bitonic_merge), gather, histogram
//   dot.hpp          dot
//   debug.hpp        device_print, print_if, breakpoint_if, device_assert
//   program.hpp      program_id, num_programs
//   loop.hpp         range::fold, the loop the backend schedules
// This header is the only place where the compilation pass chooses.
#pragma once

#include "cpu/atomic.hpp"
#include "cpu/debug.hpp"
#include "cpu/dot.hpp"
#include "cpu/evaluation.hpp"
#include "cpu/loop.hpp"
#include "cpu/memory.hpp"
#include "cpu/program.hpp"
#include "cpu/reduce.hpp"
#include "cpu/scan.hpp"
#include "cpu/sort.hpp"
#if defined(__CUDACC__)
#include "cuda/atomic.hpp"
#include "cuda/debug.hpp"
#include "cuda/dot.hpp"
#include "cuda/evaluation.hpp"
#include "cuda/loop.hpp"
#include "cuda/memory.hpp"
#include "cuda/program.hpp"
#include "cuda/reduce.hpp"
#include "cuda/scan.hpp"
#include "cuda/sort.hpp"
#endif

namespace tl::detail {

#if TL_DEVICE_PASS
namespace lowering = cuda;
#else
namespace lowering = cpu;
#endif

// The block storage, evaluation and reloading loads that expr/block.hpp declares, from the
// pass's backend.
template <class T, class S, origin O>
struct block_storage : lowering::block_storage<T, S, O> {};

template <class B, class E>
TL_HD void evaluate_into(B& block, const E& e) {
  lowering::evaluate_into(block, e);
}

template <class B, class X>
struct load_in_order : lowering::load_in_order<B, X> {};

}  // namespace tl::detail
