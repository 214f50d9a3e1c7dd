// Times puzzle 10's kernel (conv2d, N0 = 2^13, H = W = 32, 4 x 4 filter, B0 = 32) alone, and
// checks it against plain loops on the host (sampled images), for quick comparisons of lowering
// variants and warp counts (one binary per include directory or -D variant). On a Hopper GPU:
//   nvcc -std=c++20 --expt-relaxed-constexpr -gencode arch=compute_90a,code=sm_90a \
//        -Iinclude -Iexamples/puzzles tools/probes/p10_probe.cu -o p10_probe && ./p10_probe
// (tools/probes/variants.sh builds and runs several at once.)
#include <cmath>
#include <cstdio>
#include <vector>

#include <tl/tl.hpp>

#include "probe_common.hpp"

#include "p10_conv2d.hpp"

int main() {
  const int n0 = 1 << 13, h = 32, w = 32, kh = 4, kw = 4;
  const std::size_t elems = std::size_t(n0) * h * w;
  const auto x = probe::inputs<float>(elems, 1, "x");
  const auto k = probe::inputs<float>(kh * kw, 2, "k");
  const tl::cuda::buffer<float> z(elems, "z");
  const tl::launch_options o{.backend = tl::backend::cuda, .wait = false};
  auto run = [&] {
    tl::launch<conv2d_kernel<4, 4, 32>>(tl::grid((n0 + 31) / 32), o, x, k, z, n0, h, w);
  };
  const double median = probe::median_ms(run);
  // The check: every 97th image against plain loops in double.
  std::vector<float> hx(elems), hk(kh * kw), hz(elems);
  TL_CUDA_CHECK(cudaMemcpy(hx.data(), x.data(), elems * sizeof(float), cudaMemcpyDeviceToHost));
  TL_CUDA_CHECK(cudaMemcpy(hk.data(), k.data(), hk.size() * sizeof(float), cudaMemcpyDeviceToHost));
  TL_CUDA_CHECK(cudaMemcpy(hz.data(), z.data(), elems * sizeof(float), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int i = 0; i < n0; i += 97)
    for (int r = 0; r < h; ++r)
      for (int c = 0; c < w; ++c) {
        double s = 0;
        for (int a = 0; a < kh; ++a)
          for (int b = 0; b < kw; ++b)
            if (r + a < h && c + b < w) s += double(hx[(std::size_t(i) * h + r + a) * w + c + b]) * hk[a * kw + b];
        worst = std::fmax(worst, std::fabs(s - hz[(std::size_t(i) * h + r) * w + c]));
      }
  std::printf("p10 %d warps: %.4f ms, max error %.2e %s\n", TL_NUM_WARPS, median, worst, worst < 1e-4 ? "ok" : "WRONG");
  return worst < 1e-4 ? 0 : 1;
}
