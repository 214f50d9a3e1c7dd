// tl/config.hpp: the host/device and compiler differences, in one place.
#pragma once

#include <cstdint>

// Everything a kernel can call is compiled for both the host (CPU backend) and,
// under nvcc, the device (CUDA backend). Kernels mark themselves with TL_KERNEL.
#if defined(__CUDACC__)
#define TL_HD __host__ __device__
#else
#define TL_HD
#endif

#if defined(__CUDA_ARCH__)
#define TL_DEVICE_PASS 1
#else
#define TL_DEVICE_PASS 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TL_INLINE TL_HD inline __attribute__((always_inline))
#else
#define TL_INLINE TL_HD inline
#endif

// A tl kernel: a function template, callable on every backend.
// TL_INLINE_KERNELS=1 (per translation unit, default 0): on the device, every kernel of the unit
// is inlined into its entry point, however large. The compiler leaves a large kernel as a call,
// and ptxas then serializes its tensor-core instructions (its warning C7510, "wgmma pipeline
// crossing function boundary"); smaller kernels are inlined either way, but forced, earlier in
// the compiler, which changes their PTX and ptxas' register allocation (docs/04-cuda-backend.md
// says when to set it).
#ifndef TL_INLINE_KERNELS
#define TL_INLINE_KERNELS 0
#endif
#if TL_INLINE_KERNELS && defined(__CUDA_ARCH__)
#define TL_KERNEL TL_HD __forceinline__
#else
#define TL_KERNEL TL_HD inline
#endif

// CUDA backend: warps per program (Triton's num_warps). A block tensor lives in the
// registers of the program's threads, so the thread count is part of its type: it is fixed
// per translation unit. Define TL_NUM_WARPS before including tl to change it; a launch
// asking for another count is refused with a message saying so.
#ifndef TL_NUM_WARPS
#define TL_NUM_WARPS 4
#endif
static_assert(TL_NUM_WARPS == 1 || TL_NUM_WARPS == 2 || TL_NUM_WARPS == 4 || TL_NUM_WARPS == 8 ||
                  TL_NUM_WARPS == 16,
              "tl: TL_NUM_WARPS must be 1, 2, 4, 8 or 16");

// CUDA backend: the fewest programs a multiprocessor should hold (the second argument of
// __launch_bounds__): ptxas then keeps each thread's registers within 65536 / (threads x
// this), spilling if it must. 1 leaves the choice to ptxas. Fixed per translation unit, as
// TL_NUM_WARPS.
#ifndef TL_MIN_PROGRAMS_PER_SM
#define TL_MIN_PROGRAMS_PER_SM 1
#endif

// CUDA backend, sm_90a: TL_DESCRIPTOR_TMA=1 (per translation unit, default 0) copies a dot's
// operands that are tensor descriptors' blocks with the bulk tensor copy engine (TMA) through
// tensor maps the dot builds, in a ring of up to num_stages buffers; 0 copies them with
// cp.async, as any affine block. The copy engine's path is correct and tested, and slower than
// cp.async's in today's dot, which waits for its instructions at each call
// (docs/performance-history.md): it is there for the warp-specialized pipeline that will overlap them.
#ifndef TL_DESCRIPTOR_TMA
#define TL_DESCRIPTOR_TMA 0
#endif

// The launch functions' bodies depend on TL_NUM_WARPS, TL_MIN_PROGRAMS_PER_SM,
// TL_DEVICE_CHECKS, TL_INLINE_KERNELS, TL_DESCRIPTOR_TMA and on whether nvcc compiles the
// translation unit; an
// inline namespace
// named after them gives each variant its own symbols, so one program may launch the same
// kernel from TUs compiled with different settings (the one-definition rule would otherwise
// let the linker keep one body for all).
#define TL_CAT2_(a, b) a##b
#define TL_CAT_(a, b) TL_CAT2_(a, b)
#if defined(__CUDACC__)
#define TL_LAUNCH_ABI                                                                           \
  TL_CAT_(TL_CAT_(TL_CAT_(cuda_warps_, TL_NUM_WARPS), TL_CAT_(_min_, TL_MIN_PROGRAMS_PER_SM)),       \
          TL_CAT_(TL_CAT_(TL_CAT_(_checks_, TL_DEVICE_CHECKS), TL_CAT_(_inline_, TL_INLINE_KERNELS)), \
                  TL_CAT_(_tma_, TL_DESCRIPTOR_TMA)))
#else
#define TL_LAUNCH_ABI host
#endif

// CUDA backend: with TL_DEVICE_CHECKS=1 every masked-in lane of a load or store is checked
// against its buffer on the GPU too; invalid lanes are skipped and reported as on the CPU.
// (The CPU backend always checks.)
#ifndef TL_DEVICE_CHECKS
#define TL_DEVICE_CHECKS 0
#endif

// tl's runtime is the non-template host code behind every launch: the reports and their text,
// the CPU backend's program runner, the checks made before a launch, the CUDA launch's calls
// into the CUDA runtime. Header-only (the default) it is inline, and every translation unit
// that launches a kernel compiles it again. With TL_COMPILED_RUNTIME=1 the headers only declare
// it, and one translation unit that defines TL_RUNTIME_IMPLEMENTATION before including
// <tl/tl.hpp> compiles it once (CMake: tl_add_compiled_runtime(); docs/01-design.md).
#ifndef TL_COMPILED_RUNTIME
#define TL_COMPILED_RUNTIME 0
#endif
// The definitions are host code: nvcc's device pass, which generates none, reads only the
// declarations (not inline there, so that none is an inline function left undefined).
#if TL_DEVICE_PASS
#define TL_RUNTIME_FN
#define TL_RUNTIME_DEFINITIONS 0
#define TL_CUDA_RUNTIME_FN
#define TL_CUDA_RUNTIME_DEFINITIONS 0
#else
#if defined(TL_RUNTIME_IMPLEMENTATION)
#define TL_RUNTIME_FN
#define TL_RUNTIME_DEFINITIONS 1
#elif TL_COMPILED_RUNTIME
#define TL_RUNTIME_FN
#define TL_RUNTIME_DEFINITIONS 0
#else
#define TL_RUNTIME_FN inline
#define TL_RUNTIME_DEFINITIONS 1
#endif
// The CUDA launch's part of the runtime, likewise: compiled once by a unit that nvcc compiles
// and that defines TL_CUDA_RUNTIME_IMPLEMENTATION.
#if defined(TL_CUDA_RUNTIME_IMPLEMENTATION)
#define TL_CUDA_RUNTIME_FN
#define TL_CUDA_RUNTIME_DEFINITIONS 1
#elif TL_COMPILED_RUNTIME
#define TL_CUDA_RUNTIME_FN
#define TL_CUDA_RUNTIME_DEFINITIONS 0
#else
#define TL_CUDA_RUNTIME_FN inline
#define TL_CUDA_RUNTIME_DEFINITIONS 1
#endif
#endif

#if TL_DEVICE_PASS
#define TL_UNROLL _Pragma("unroll")
#else
#define TL_UNROLL
#endif
