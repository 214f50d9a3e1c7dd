// Times puzzle 12's kernel (tf32, 8192^3, 4 warps) alone, for quick comparisons of lowering
// variants (build one binary per include directory or -D variant). On a Hopper GPU:
//   nvcc -std=c++20 --expt-relaxed-constexpr -gencode arch=compute_90a,code=sm_90a \
//        -Iinclude -Iexamples/puzzles tools/probes/p12_probe.cu -o p12_probe && ./p12_probe
#include <cstdio>

#include <tl/tl.hpp>

#include "probe_common.hpp"

#include "p12_quantized_matmul.hpp"

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
  probe::fill<<<1024, 256>>>(scale, nn / 8, 1);
  probe::fill<<<1024, 256>>>(offset, nn / 64, 2);
  probe::fill<<<1024, 256>>>(weight, nn / 8, 3);
  probe::fill<<<1024, 256>>>(act, nn, 4);
  const tl::launch_options o{.backend = tl::backend::cuda, .wait = false};
  auto run = [&] {
    tl::launch<quant_dot_kernel<128, 128, 64, tl::tf32>>(
        tl::grid(n / 128, n / 128), o, tl::ptr<float>(scale, std::int64_t(nn / 8)), tl::ptr<int>(offset, std::int64_t(nn / 64)),
        tl::ptr<int>(weight, std::int64_t(nn / 8)), tl::ptr<float>(act, std::int64_t(nn)), tl::ptr<float>(z, std::int64_t(nn)), n, n, n);
  };
  const double median = probe::median_ms(run);
  std::printf("p12 tf32: %.4f ms, %.1f TFLOP/s\n", median, 2.0 * n * double(n) * n / (median * 1e-3) / 1e12);
}
