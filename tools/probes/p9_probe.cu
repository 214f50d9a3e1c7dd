// Times puzzle 9's kernel (simple flash attention, N0 = T = 2^16, B0 = B1 = 128) alone, and
// checks sampled rows against plain loops on the host, for quick comparisons of lowering
// variants (one binary per include directory or -D variant). On a Hopper GPU:
//   nvcc -std=c++20 --expt-relaxed-constexpr -gencode arch=compute_90a,code=sm_90a \
//        -Iinclude -Iexamples/puzzles tools/probes/p9_probe.cu -o p9_probe && ./p9_probe
// (tools/probes/variants.sh builds and runs several at once.)
#include <cmath>
#include <cstdio>
#include <vector>

#include <tl/tl.hpp>

#include "probe_common.hpp"

#include "p09_simple_flash_attention.hpp"

int main() {
  const int n = 1 << 16, t = 1 << 16;
  const auto q = probe::inputs<float>(n, 1, "q"), k = probe::inputs<float>(t, 2, "k"), v = probe::inputs<float>(t, 3, "v");
  const tl::cuda::buffer<float> z(n, "z");
  const tl::launch_options o{.backend = tl::backend::cuda, .wait = false};
  auto run = [&] { tl::launch<flashatt_kernel<128, 128>>(tl::grid(n / 128), o, q, k, v, z, n, t); };
  const double median = probe::median_ms(run);
  std::vector<float> hq(n), hk(t), hv(t), hz(n);
  TL_CUDA_CHECK(cudaMemcpy(hq.data(), q.data(), n * sizeof(float), cudaMemcpyDeviceToHost));
  TL_CUDA_CHECK(cudaMemcpy(hk.data(), k.data(), t * sizeof(float), cudaMemcpyDeviceToHost));
  TL_CUDA_CHECK(cudaMemcpy(hv.data(), v.data(), t * sizeof(float), cudaMemcpyDeviceToHost));
  TL_CUDA_CHECK(cudaMemcpy(hz.data(), z.data(), n * sizeof(float), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int i = 0; i < n; i += 997) {  // softmax(q_i k) . v in double
    double m = -1e300, s = 0, acc = 0;
    for (int j = 0; j < t; ++j) m = std::fmax(m, double(hq[i]) * hk[j]);
    for (int j = 0; j < t; ++j) {
      const double e = std::exp(double(hq[i]) * hk[j] - m);
      s += e;
      acc += e * hv[j];
    }
    worst = std::fmax(worst, std::fabs(acc / s - hz[i]));
  }
  std::printf("p9: %.4f ms, max error %.2e %s\n", median, worst, worst < 1e-4 ? "ok" : "WRONG");
  return worst < 1e-4 ? 0 : 1;
}
