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
  const auto scale = probe::inputs<float>(nn / 8, 1, "scale");
  const auto offset = probe::inputs<int>(nn / 64, 2, "offset");
  const auto weight = probe::inputs<int>(nn / 8, 3, "weight");
  const auto act = probe::inputs<float>(nn, 4, "activation");
  const tl::cuda::buffer<float> z(nn, "z");
  const tl::launch_options o{.backend = tl::backend::cuda, .wait = false};
  auto run = [&] {
    tl::launch<quant_dot_kernel<128, 128, 64, tl::tf32>>(tl::grid(n / 128, n / 128), o, scale, offset, weight, act, z, n,
                                                          n, n);
  };
  const double median = probe::median_ms(run);
  std::printf("p12 tf32: %.4f ms, %.1f TFLOP/s\n", median, 2.0 * n * double(n) * n / (median * 1e-3) / 1e12);
}
