// What the entries of tl_tutorial_kernels.hpp share: the error text and the launch options.
#pragma once

#include <cstdint>
#include <exception>
#include <string>

#include <cuda_runtime.h>
#include <tl/kernel.hpp>

namespace tutorial_entries {

std::string& last_error();

inline tl::launch_options on(void* stream) {
  return {.backend = tl::backend::cuda, .stream = static_cast<cudaStream_t>(stream), .wait = false};
}

// A buffer of `extent` elements at p (the pointer a tensor gives), checked against it.
template <class T>
tl::ptr<T> buffer(const void* p, std::int64_t extent, const char* name) {
  return tl::ptr<T>(static_cast<T*>(const_cast<void*>(p)), extent, name);
}

// The elements a strided 2-D view spans: the last one's offset + 1.
inline std::int64_t span(int rows, int cols, int stride_r, int stride_c) {
  return rows > 0 && cols > 0 ? std::int64_t(rows - 1) * stride_r + std::int64_t(cols - 1) * stride_c + 1 : 0;
}

template <class F>
int guarded(F&& f) {
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    last_error() = e.what();
    return -1;
  }
}

}  // namespace tutorial_entries
