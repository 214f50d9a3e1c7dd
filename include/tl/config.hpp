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
#define TL_KERNEL TL_HD inline

namespace tl {

// Where an op was written, for diagnostics. A default argument of every memory op,
// so the CPU backend can name the line of an invalid access.
struct source_location {
  const char* file = "";
  int line = 0;
  TL_HD static constexpr source_location current(const char* f = __builtin_FILE(),
                                                 int l = __builtin_LINE()) {
    return source_location{f, l};
  }
};

}  // namespace tl
