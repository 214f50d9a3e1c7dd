// What the puzzle probes (p11_probe.cu, p12_probe.cu) share: inputs from a hash, and the median
// time of a launch.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

#include <tl/tl.hpp>

namespace probe {

// p[i] from a hash of i and the seed: uniform in [-0.5, 0.5) for floats, any bits for ints.
template <class T>
__global__ void fill_kernel(T* p, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    if constexpr (std::is_same_v<T, int>) p[i] = int(h);
    else p[i] = T(float(h & 0xffff) / 65536.0f - 0.5f);
  }
}

// A GPU buffer of n inputs from the hash.
template <class T>
tl::cuda::buffer<T> inputs(std::size_t n, unsigned seed, const char* name) {
  tl::cuda::buffer<T> b(n, name);
  fill_kernel<<<1024, 256>>>(b.data(), n, seed);
  TL_CUDA_CHECK(cudaGetLastError());
  return b;
}

// 3 warm-up runs, then the median of 20 timed with CUDA events (milliseconds).
template <class F>
double median_ms(F&& run) {
  for (int i = 0; i < 3; ++i) run();
  std::vector<float> ms;
  cudaEvent_t a, b;
  TL_CUDA_CHECK(cudaEventCreate(&a));
  TL_CUDA_CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 20; ++i) {
    TL_CUDA_CHECK(cudaEventRecord(a));
    run();
    TL_CUDA_CHECK(cudaEventRecord(b));
    TL_CUDA_CHECK(cudaEventSynchronize(b));
    float t = 0;
    TL_CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  TL_CUDA_CHECK(cudaEventDestroy(a));
  TL_CUDA_CHECK(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace probe
