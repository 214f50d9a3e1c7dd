// tl-guide-bench: the guide's benchmark of its matmuls, on the GPU, in float16 (A, B, C
// float16, float32 accumulation: cuBLAS's cublasGemmEx with CUBLAS_COMPUTE_32F, as torch.matmul).
//
//   1. perf_report sweep over square sizes: naive (bs = 64), grouped (bs = 64, group 8), the
//      autotuned kernel and cuBLAS, in TFLOP/s = 2 n^3 / time (the guide plots 12 n / time and
//      calls it GB/s: neither the unit nor the formula is right for a matmul);
//      CSV and SVG written to --out.
//   2. At --size (default 4096): every config of the autotuner launched by hand, timed, against
//      the config the autotuner picked: is it within 10% of the best hand-picked one?
#include <CLI/CLI.hpp>
#include <cublas_v2.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cli_numbers.hpp"
#include "matmul.hpp"

namespace {

void cublas_check(cublasStatus_t s, const char* call) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: cuBLAS status " + std::to_string(int(s)));
}

// C = A @ B, all row-major: in cuBLAS's column-major terms C^T = B^T A^T.
void cublas_matmul(cublasHandle_t h, const tl::buffer<tl::fp16>& a, const tl::buffer<tl::fp16>& b,
                   tl::buffer<tl::fp16>& c) {
  const int m = int(a.shape(0)), k = int(a.shape(1)), n = int(b.shape(1));
  const float alpha = 1, beta = 0;
  cublas_check(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b.data(), CUDA_R_16F, n, a.data(),
                            CUDA_R_16F, k, &beta, c.data(), CUDA_R_16F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "cublasGemmEx");
}

tl::buffer<tl::fp16> random_matrix(int rows, int cols, unsigned seed, const char* name) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<tl::fp16> v(static_cast<std::size_t>(rows) * std::size_t(cols));
  for (auto& e : v) e = tl::fp16(dist(gen));
  return tl::buffer<tl::fp16>(v, {rows, cols}, tl::backend::cuda, name);
}

float max_difference(const tl::buffer<tl::fp16>& x, const tl::buffer<tl::fp16>& y) {
  const auto hx = x.to_host(), hy = y.to_host();
  float worst = 0;
  for (std::size_t i = 0; i < hx.size(); ++i) worst = std::max(worst, std::abs(float(hx[i]) - float(hy[i])));
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tl-guide-bench: the guide's matmul benchmark (float16) on the GPU"};
  std::string out = ".";
  int size = 4096, cooldown_ms = 500;
  std::vector<double> sizes{256, 512, 1024, 2048, 4096};
  app.add_option("--out", out, "directory for matmul-performance.csv and .svg");
  tl_cli::add_number(app, "--size", size, "the size of the autotuned-against-hand-picked comparison", 16, 32768);
  tl_cli::add_numbers(app, "--sizes", sizes, "the sweep's square sizes", 16.0, 32768.0);
  tl_cli::add_number(app, "--cooldown-ms", cooldown_ms, "idle time before each measurement (the GPU's power cap)", 0,
                     600000);
  CLI11_PARSE(app, argc, argv);
  const auto cool = [&] { std::this_thread::sleep_for(std::chrono::milliseconds(cooldown_ms)); };
  try {
    cublasHandle_t handle;
    cublas_check(cublasCreate(&handle), "cublasCreate");
    const tl::launch_options async{.backend = tl::backend::cuda, .wait = false};
    const tl::bench_options timing{.backend = tl::backend::cuda, .quantiles = {0.5, 0.2, 0.8}};

    // 1. the sweep
    tl::benchmark spec{.x_name = "square_matrix_size",
                                .x_vals = sizes,
                                .x_log = true,
                                .line_vals = {"naive", "grouped", "grouped-autotuned", "cublas"},
                                .line_names = {"Naive", "Grouped", "Grouped & Auto-Tuned", "cuBLAS"},
                                .styles = {{"blue", "-"}, {"green", "-"}, {"green", "--"}, {"orange", "-"}},
                                .ylabel = "TFLOP/s",
                                .plot_name = "matmul-performance"};
    int checked = 0;
    auto table = tl::perf_report(spec, [&](double x, const std::string& provider) {
      const int sz = int(x);
      const auto a = random_matrix(sz, sz, 1, "a"), b = random_matrix(sz, sz, 2, "b");
      tl::buffer<tl::fp16> c({sz, sz}, tl::backend::cuda, "c"), ref({sz, sz}, tl::backend::cuda, "ref");
      cublas_matmul(handle, a, b, ref);
      std::function<void()> run;
      if (provider == "naive") run = [&] { matmul_into<naive_matmul_k<64, 64, 64>, 64, 64>(a, b, c, async); };
      if (provider == "grouped") run = [&] { matmul_into<grouped_matmul_k<64, 64, 64, 8>, 64, 64>(a, b, c, async); };
      if (provider == "grouped-autotuned") run = [&] { grouped_autotuned_matmul_into(a, b, c, async); };
      if (provider == "cublas") run = [&] { cublas_matmul(handle, a, b, c); };
      run();  // (the autotuned provider tunes here, once per size)
      TL_CUDA_CHECK(cudaDeviceSynchronize());
      const float diff = max_difference(c, ref);
      if (diff > 0.05f * std::sqrt(float(sz)) / 8) {
        std::printf("%s at %d: max difference from cuBLAS %g\n", provider.c_str(), sz, diff);
        return tl::no_measurement();
      }
      ++checked;
      cool();
      const auto r = tl::do_bench(run, timing);
      return tl::measure(r, [&](double ms) { return tl::tflops(2.0 * x * x * x, ms); });
    }).run({.print_data = true, .save_path = out});
    std::printf("%d of %zu measurements checked against cuBLAS\n", checked, sizes.size() * 4);

    // 2. the autotuner against every config picked by hand
    std::printf("\nautotuned against hand-picked configs at %d^3 (float16):\n", size);
    const auto a = random_matrix(size, size, 3, "a"), b = random_matrix(size, size, 4, "b");
    tl::buffer<tl::fp16> c({size, size}, tl::backend::cuda, "c");
    const int m = size, n = size, k = size;
    auto grid = [&](const matmul_meta& meta) { return tl::grid(tl::cdiv(m, meta.bm), tl::cdiv(n, meta.bn)); };
    grouped_autotuned_matmul_into(a, b, c, async);
    const tl::tuning* t = grouped_autotuned_matmul_k.tuned({m, n, k}, tl::backend::cuda);
    double best_ms = 1e30;
    int best = -1;
    for (int i = 0; i < int(std::size(matmul_configs)); ++i) {
      cool();
      const auto r = tl::do_bench([&] {
        grouped_autotuned_matmul_k.launch_config(i, grid, async, a, b, c, m, n, k, k, 1, n, 1, n, 1);
      }, timing);
      std::printf("  #%d %-55s %8.4f ms %7.1f TFLOP/s%s\n", i, grouped_autotuned_matmul_k.describe(i).c_str(), r.ms,
                  tl::tflops(2.0 * m * n * k, r.ms), t && t->best == i ? "  <- autotuner's pick" : "");
      if (r.ms < best_ms) best_ms = r.ms, best = i;
    }
    cool();
    const auto tuned = tl::do_bench([&] { grouped_autotuned_matmul_into(a, b, c, async); }, timing);
    cool();
    const auto cublas = tl::do_bench([&] { cublas_matmul(handle, a, b, c); }, timing);
    const double ratio = best_ms / tuned.ms;
    std::printf("  autotuned %.4f ms (%.1f TFLOP/s); best hand-picked #%d %.4f ms (%.1f TFLOP/s); cuBLAS %.4f ms "
                "(%.1f TFLOP/s)\n  autotuned / best hand-picked speed: %.3f (%s 0.90); / cuBLAS: %.3f\n",
                tuned.ms, tl::tflops(2.0 * m * n * k, tuned.ms), best, best_ms,
                tl::tflops(2.0 * m * n * k, best_ms), cublas.ms,
                tl::tflops(2.0 * m * n * k, cublas.ms), ratio, ratio >= 0.9 ? ">=" : "BELOW",
                cublas.ms / tuned.ms);
    cublasDestroy(handle);
    return ratio >= 0.9 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tl-guide-bench: %s\n", e.what());
    return 2;
  }
}
