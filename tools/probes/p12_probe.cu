// Times puzzle 12's kernel (tf32, 8192^3, 4 warps) alone, for quick comparisons of lowering
// variants (build one binary per include directory or -D variant). On a Hopper GPU:
//   nvcc -std=c++20 --expt-relaxed-constexpr -gencode arch=compute_90a,code=sm_90a \
//        -Iinclude -Iexamples/puzzles tools/probes/p12_probe.cu -o p12_probe && ./p12_probe
#include <algorithm>
#include <cstdio>
#include <vector>

#include <tl/tl.hpp>

#include "p12_quantized_matmul.hpp"

template <class T>
__global__ void fill(T* p, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    if constexpr (std::is_same_v<T, int>) p[i] = int(h);
    else p[i] = T(float(h & 0xffff) / 65536.0f - 0.5f);
  }
}

int main() {
  const int n = 8192;
  const std::size_t nn = std::size_t(n) * n;
  float *scale, *act, *z;
  int *offset, *weight;
  TL_CUDA_CHECK(cudaMalloc(&scale, nn / 8 * sizeof(float)));
  TL_CUDA_CHECK(cudaMalloc(&offset, nn / 64 * sizeof(int)));
  TL_CUDA_CHECK(cudaMalloc(&weight, nn / 8 * sizeof(int)));
  TL_CUDA_CHECK(cudaMalloc(&act, nn * sizeof(float)));
  TL_CUDA_CHECK(cudaMalloc(&z, nn * sizeof(float)));
  fill<<<1024, 256>>>(scale, nn / 8, 1);
  fill<<<1024, 256>>>(offset, nn / 64, 2);
  fill<<<1024, 256>>>(weight, nn / 8, 3);
  fill<<<1024, 256>>>(act, nn, 4);
  const tl::launch_options o{.backend = tl::backend::cuda, .wait = false};
  auto run = [&] {
    tl::launch<quant_dot_kernel<128, 128, 64, tl::tf32>>(
        tl::grid(n / 128, n / 128), o, tl::ptr<float>(scale, std::int64_t(nn / 8)), tl::ptr<int>(offset, std::int64_t(nn / 64)),
        tl::ptr<int>(weight, std::int64_t(nn / 8)), tl::ptr<float>(act, std::int64_t(nn)), tl::ptr<float>(z, std::int64_t(nn)), n, n, n);
  };
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
  std::sort(ms.begin(), ms.end());
  std::printf("p12 tf32: %.4f ms, %.1f TFLOP/s\n", ms[ms.size() / 2], 2.0 * n * double(n) * n / (ms[ms.size() / 2] * 1e-3) / 1e12);
}
