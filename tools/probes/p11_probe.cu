// Times puzzle 11's kernel (fp16 and tf32, 4 x 4096^3, 8 warps) alone, for quick comparisons of
// lowering variants (one binary per include directory or -D variant). On a Hopper GPU:
//   nvcc -std=c++20 --expt-relaxed-constexpr -gencode arch=compute_90a,code=sm_90a -DTL_NUM_WARPS=8 \
//        -Iinclude -Iexamples/puzzles tools/probes/p11_probe.cu -o p11_probe && ./p11_probe [programs_per_sm [num_stages]]
// (tools/probes/variants.sh builds and runs it against two include directories at once.)
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <tl/tl.hpp>

#include "probe_common.hpp"

#include "p11_matmul.hpp"

int programs_per_sm = 0, num_stages = 3;
template <class T, int B_MID, auto Prec>
void time_case(const char* name) {
  const int n = 4096, batch = 4;
  const std::size_t elems = std::size_t(batch) * n * n;
  const auto x = probe::inputs<T>(elems, 1, "x"), y = probe::inputs<T>(elems, 2, "y");
  const tl::cuda::buffer<float> z(elems, "z");
  const tl::launch_options o{.backend = tl::backend::cuda, .wait = false, .programs_per_sm = programs_per_sm,
                             .num_stages = num_stages};
  auto run = [&] {
    tl::launch<dot_kernel<128, 128, 1, B_MID, T, Prec>>(tl::grid(n / 128, n / 128, batch), o, x, y, z, n, n, batch, n);
  };
  const double median = probe::median_ms(run);
  const double tflops = 2.0 * batch * n * double(n) * n / (median * 1e-3) / 1e12;
  // The result against the same kernel launched without a reservation and without copies
  // ahead (bit for bit: the same instructions in the same order, whatever the operands' path
  // to shared memory).
  std::vector<float> got(elems), want(elems);
  TL_CUDA_CHECK(cudaMemcpy(got.data(), z.data(), elems * sizeof(float), cudaMemcpyDeviceToHost));
  TL_CUDA_CHECK(cudaMemset(z.data(), 0xff, elems * sizeof(float)));
  tl::launch<dot_kernel<128, 128, 1, B_MID, T, Prec>>(tl::grid(n / 128, n / 128, batch), tl::launch_options{.backend = tl::backend::cuda, .num_stages = 1}, x, y, z, n, n, batch, n);
  TL_CUDA_CHECK(cudaMemcpy(want.data(), z.data(), elems * sizeof(float), cudaMemcpyDeviceToHost));
  std::size_t differ = 0;
  double checksum = 0;  // to compare binaries (lowering variants) with each other
  for (std::size_t i = 0; i < elems; ++i) {
    differ += !(got[i] == want[i]);
    checksum += double(want[i]) * double(i % 7 + 1);
  }
  std::printf("%-5s %d/SM, %d stages: %.4f ms, %.1f TFLOP/s  (%zu of %zu elements differ from a launch with 1 stage, no reservation; checksum %.6e)\n",
              name, programs_per_sm, num_stages, median, tflops, differ, elems, checksum);
}

int main(int argc, char** argv) {
  programs_per_sm = argc > 1 ? std::atoi(argv[1]) : 0;
  num_stages = argc > 2 ? std::atoi(argv[2]) : 3;
  time_case<tl::fp16, 64, tl::ieee>("fp16");
  time_case<float, 32, tl::tf32>("tf32");
}
