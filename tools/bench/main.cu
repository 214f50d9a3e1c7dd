// tl-bench: the puzzle kernels at the scaled sizes of the puzzle definitions, timed on the GPU
// next to the two ceilings measured in the same run: device copy bandwidth (a 1 GiB
// device-to-device copy, bytes read plus written) and cuBLAS (the same products in float32,
// tf32 and fp16).
//
//   tl-bench                 every case: a table, then tl-bench.csv and tl-bench.svg
//   tl-bench --check         first checks each kernel: GPU against the CPU backend at a small,
//                            ragged size, then the scaled run against the spec on sampled elements
//   tl-bench --only 2,11     some puzzles only
//
// Timing: tl::do_bench, CUDA events around each run, after warm-up runs and an idle pause (see
// --cooldown-ms); the median of --reps runs. The cases are in cases_*.cu (bench.hpp).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <tl/tl.hpp>

#include "bench.hpp"
#include "cli_numbers.hpp"

namespace bench {

// ---------------------------------------------------------------- arrays

// An input element as the kernel sees it (fp16 inputs after their rounding), in double.
double input_value(kind k, std::uint32_t s, std::uint64_t i) {
  switch (k) {
    case kind::f32: return uniform(s, i);
    case kind::f16: return float(tl::fp16(uniform(s, i)));
    case kind::i32_bits: return random_bits(s, i);
    default: return 0;
  }
}

__global__ void fill_kernel(void* p, std::size_t n, kind k, std::uint32_t s) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    switch (k) {
      case kind::f32: static_cast<float*>(p)[i] = uniform(s, i); break;
      case kind::f16: static_cast<tl::fp16*>(p)[i] = tl::fp16(uniform(s, i)); break;
      case kind::i32_bits: static_cast<std::int32_t*>(p)[i] = random_bits(s, i); break;
      case kind::output: static_cast<float*>(p)[i] = __int_as_float(0x7fc00000); break;
    }
  }
}

__global__ void count_nan_kernel(const float* p, std::size_t n, unsigned long long* count) {
  unsigned long long c = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    c += p[i] != p[i];
  if (c) atomicAdd(count, c);
}

arrays arrays::on_host(const std::vector<array_spec>& spec, std::uint32_t seed) {
  arrays a;
  a.spec = spec;
  for (std::size_t j = 0; j < spec.size(); ++j) {
    a.host.emplace_back(spec[j].bytes());
    void* p = a.host.back().data();
    for (std::size_t i = 0; i < spec[j].n; ++i) {
      const std::uint32_t s = seed + std::uint32_t(j);
      switch (spec[j].k) {
        case kind::f32: static_cast<float*>(p)[i] = uniform(s, i); break;
        case kind::f16: static_cast<tl::fp16*>(p)[i] = tl::fp16(uniform(s, i)); break;
        case kind::i32_bits: static_cast<std::int32_t*>(p)[i] = random_bits(s, i); break;
        case kind::output: static_cast<float*>(p)[i] = std::nanf(""); break;
      }
    }
    a.p.push_back(p);
  }
  return a;
}

arrays arrays::on_gpu(const std::vector<array_spec>& spec, std::uint32_t seed) {
  arrays a;
  a.spec = spec;
  a.on_device = true;
  for (std::size_t j = 0; j < spec.size(); ++j) {
    void* p = nullptr;
    TL_CUDA_CHECK(cudaMalloc(&p, spec[j].bytes()));
    a.p.push_back(p);
    fill_kernel<<<1024, 256>>>(p, spec[j].n, spec[j].k, seed + std::uint32_t(j));
    TL_CUDA_CHECK(cudaGetLastError());
  }
  TL_CUDA_CHECK(cudaDeviceSynchronize());
  return a;
}

std::vector<float> arrays::download(int j) const {
  std::vector<float> v(spec[j].n);
  if (on_device) TL_CUDA_CHECK(cudaMemcpy(v.data(), p[j], spec[j].bytes(), cudaMemcpyDeviceToHost));
  else std::copy_n(static_cast<const float*>(p[j]), v.size(), v.begin());
  return v;
}

arrays& arrays::operator=(arrays&& o) noexcept {
  std::swap(spec, o.spec);
  std::swap(p, o.p);
  std::swap(host, o.host);
  std::swap(on_device, o.on_device);
  return *this;
}

arrays::~arrays() {
  if (on_device)
    for (void* q : p) cudaFree(q);  // not checked: a destructor must not throw
}

// ---------------------------------------------------------------- timing

struct timing {
  int reps = 25;
  double warmup_ms = 5, cooldown_ms = 1000;
};

// The median time of f (and the spread) by tl::do_bench. Every measurement (a ceiling or a
// case) starts from an idle GPU: under sustained tensor-core work a GPU holds its power cap by
// lowering its clock, so a case timed right after another would run slower than one timed
// after a pause, and a ratio would depend on the order of the cases (docs/performance.md).
template <class F>
tl::bench_result time_runs(F&& f, cudaStream_t s, const timing& t) {
  return tl::do_bench(std::forward<F>(f), {.backend = tl::backend::cuda,
                                           .warmup_ms = t.warmup_ms,
                                           .quantiles = {0.5, 0.2, 0.8},
                                           .min_reps = t.reps,
                                           .max_reps = t.reps,
                                           .flush_l2 = false,  // the inputs outgrow the L2, or rotate
                                           .cooldown_ms = t.cooldown_ms,
                                           .stream = s});
}

#define BENCH_CUBLAS(call)                                                                                   \
  do {                                                                                                       \
    const cublasStatus_t st_ = (call);                                                                       \
    if (st_ != CUBLAS_STATUS_SUCCESS)                                                                        \
      throw std::runtime_error(std::string(#call) + " failed: " + cublasGetStatusString(st_));               \
  } while (0)

struct ceilings {
  std::map<ceiling, double> value;  // GB/s for copy, TFLOP/s for cuBLAS
  std::map<ceiling, std::string> name;
};

// One cuBLAS product: batch of m x k times k x n, row-major, float32 out.
double cublas_tflops(cublasHandle_t h, cudaStream_t s, int batch, int m, int n, int k, bool half, cublasComputeType_t ct,
                     const timing& t) {
  const std::size_t na = std::size_t(batch) * m * k, nb = std::size_t(batch) * k * n, nc = std::size_t(batch) * m * n;
  arrays a = arrays::on_gpu({{"A", na, half ? kind::f16 : kind::f32}, {"B", nb, half ? kind::f16 : kind::f32},
                             {"C", nc, kind::output}},
                            900);
  const cudaDataType_t type = half ? CUDA_R_16F : CUDA_R_32F;
  const float alpha = 1, beta = 0;
  // Row-major C = A B is column-major C^T = B^T A^T.
  const auto r = time_runs(
      [&] {
        BENCH_CUBLAS(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, a.p[1], type, n,
                                                std::int64_t(k) * n, a.p[0], type, k, std::int64_t(m) * k, &beta, a.p[2],
                                                CUDA_R_32F, n, std::int64_t(m) * n, batch, ct, CUBLAS_GEMM_DEFAULT));
      },
      s, t);
  return tl::tflops(2.0 * batch * m * n * k, r.ms);
}

ceilings measure_ceilings(const std::vector<bench_case>& cases, cudaStream_t s, const timing& t) {
  ceilings c;
  std::map<ceiling, bool> need;
  for (const auto& b : cases) need[b.roof] = true;
  {  // copy: 1 GiB device to device; read + written bytes
    const std::size_t bytes = std::size_t(1) << 30;
    arrays a = arrays::on_gpu({{"src", bytes / 4, kind::f32}, {"dst", bytes / 4, kind::output}}, 77);
    const auto r = time_runs(
        [&] { TL_CUDA_CHECK(cudaMemcpyAsync(a.p[1], a.p[0], bytes, cudaMemcpyDeviceToDevice, s)); }, s, t);
    c.value[ceiling::copy] = tl::gbps(2.0 * bytes, r.ms);
    c.name[ceiling::copy] = "copy";
  }
  cublasHandle_t h = nullptr;
  BENCH_CUBLAS(cublasCreate(&h));
  BENCH_CUBLAS(cublasSetStream(h, s));
  struct product {
    ceiling roof;
    const char* name;
    int batch, size;
    bool half;
    cublasComputeType_t type;
  };
  for (const product& p : {product{ceiling::cublas_f32, "cuBLAS f32", 4, 4096, false, CUBLAS_COMPUTE_32F},
                           product{ceiling::cublas_tf32, "cuBLAS tf32", 4, 4096, false, CUBLAS_COMPUTE_32F_FAST_TF32},
                           product{ceiling::cublas_f16_batched, "cuBLAS fp16", 4, 4096, true, CUBLAS_COMPUTE_32F},
                           product{ceiling::cublas_f16_dense, "cuBLAS fp16 dense", 1, 8192, true, CUBLAS_COMPUTE_32F}}) {
    if (!need[p.roof]) continue;
    c.value[p.roof] = cublas_tflops(h, s, p.batch, p.size, p.size, p.size, p.half, p.type, t);
    c.name[p.roof] = p.name;
  }
  BENCH_CUBLAS(cublasDestroy(h));
  return c;
}

// ---------------------------------------------------------------- checks

struct check_result {
  bool ok = true;
  std::string text;
};

// The GPU against the CPU backend, same kernel instantiation, at the case's small size.
check_result check_small(const bench_case& c, std::uint32_t seed) {
  const auto spec = c.layout(c.small);
  arrays host = arrays::on_host(spec, seed);
  arrays gpu = arrays::on_gpu(spec, seed);
  c.launch(host, c.small, {.backend = tl::backend::cpu});
  c.launch(gpu, c.small, {.backend = tl::backend::cuda});
  const auto want = host.download(c.output), got = gpu.download(c.output);
  std::size_t bad = 0;
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double d = std::fabs(double(got[i]) - double(want[i]));
    if (!(d <= 1e-3 + 1e-3 * std::fabs(double(want[i])))) ++bad;
    if (d > worst || d != d) worst = d;
  }
  std::ostringstream os;
  os << "GPU vs CPU backend at " << c.size_text(c.small) << ": " << (bad ? "FAIL" : "ok") << " (" << bad << " of "
     << want.size() << " off, max diff " << worst << ")";
  return {bad == 0, os.str()};
}

// The scaled run (already done on `a`): every output element written, sampled ones against the spec.
check_result check_scaled(const bench_case& c, const arrays& a, std::uint32_t seed, int samples) {
  unsigned long long* count = nullptr;
  TL_CUDA_CHECK(cudaMalloc(&count, sizeof(*count)));
  TL_CUDA_CHECK(cudaMemset(count, 0, sizeof(*count)));
  count_nan_kernel<<<1024, 256>>>(static_cast<const float*>(a.p[c.output]), a.spec[c.output].n, count);
  TL_CUDA_CHECK(cudaGetLastError());
  unsigned long long nan = 0;
  TL_CUDA_CHECK(cudaMemcpy(&nan, count, sizeof(nan), cudaMemcpyDeviceToHost));
  TL_CUDA_CHECK(cudaFree(count));

  const input_fn in = [&](int j, std::uint64_t i) { return input_value(a.spec[j].k, seed + std::uint32_t(j), i); };
  const std::size_t n = a.spec[c.output].n;
  double err2 = 0, ref2 = 0;
  for (int s = 0; s < samples; ++s) {
    const std::uint64_t e = mix64(0x5eedull + s) % n;
    float got = 0;
    TL_CUDA_CHECK(cudaMemcpy(&got, static_cast<const float*>(a.p[c.output]) + e, sizeof(float), cudaMemcpyDeviceToHost));
    const double want = c.spec_at(in, c.scaled, e);
    err2 += (got - want) * (got - want);
    ref2 += want * want;
  }
  const double rel = std::sqrt(err2 / ref2);
  const bool ok = nan == 0 && rel <= c.spec_tolerance;
  std::ostringstream os;
  os << "scaled run vs spec: " << (ok ? "ok" : "FAIL") << " (" << nan << " elements unwritten, rel. L2 error " << rel
     << " on " << samples << " samples, bound " << c.spec_tolerance << ")";
  return {ok, os.str()};
}

// ---------------------------------------------------------------- one case

struct row {
  const bench_case* c = nullptr;
  tl::bench_result time;
  double rate = 0, roof = 0;
  std::string roof_name, target_text, check_text;
  double ratio = 0;  // to the ceiling, or (no ceiling) target time / time; 0: neither
  double ratio_slow = 0, ratio_fast = 0;  // at the 80th and 20th percentile times
  double target_ratio = 0;                // the target as such a ratio; 0: none
  bool meets = false, check_ok = true;
};

std::string fmt(double v, int prec = 3) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", prec, v);
  return b;
}

row run_case(const bench_case& c, const ceilings& roofs, cudaStream_t s, const timing& t, bool check, int samples,
             int num_stages) {
  row r;
  r.c = &c;
  const std::uint32_t seed = 1000;
  std::cout << "\n== puzzle " << c.id << " (" << c.blocks << ", " << c.size_text(c.scaled) << ")\n" << std::flush;
  if (check) {
    const auto small = check_small(c, seed + 100);
    std::cout << "  " << small.text << "\n" << std::flush;
    r.check_ok = small.ok;
    r.check_text = small.text;
  }
  const auto layout = c.layout(c.scaled);
  std::vector<arrays> sets;
  for (int k = 0; k < c.input_sets; ++k) sets.push_back(arrays::on_gpu(layout, seed + 16 * k));
  const tl::launch_options o{.backend = tl::backend::cuda, .stream = s, .wait = false, .num_stages = num_stages};
  if (check) {
    c.launch(sets[0], c.scaled, o);
    TL_CUDA_CHECK(cudaStreamSynchronize(s));
    const auto scaled = check_scaled(c, sets[0], seed, samples);
    std::cout << "  " << scaled.text << "\n";
    r.check_ok = r.check_ok && scaled.ok;
    r.check_text += "; " + scaled.text;
  }
  std::size_t call = 0;
  r.time = time_runs([&] { c.launch(sets[call++ % sets.size()], c.scaled, o); }, s, t);
  const double amount = c.amount(c.scaled);
  const double scale = c.unit == "TFLOP/s" ? 1e12 : 1e9;  // GB/s, Gpair/s, Gpixel/s
  auto rate_at = [&](double ms) { return amount / (ms * 1e-3) / scale; };
  r.rate = rate_at(r.time.ms);
  auto ratio_at = [&](double ms) { return r.roof > 0 ? rate_at(ms) / r.roof : c.target / ms; };
  if (c.roof != ceiling::none) {
    r.roof = roofs.value.at(c.roof);
    r.roof_name = roofs.name.at(c.roof);
  } else if (c.target > 0) {
    r.roof_name = "target " + fmt(c.target, 1) + " ms";
  }
  if (c.roof != ceiling::none || c.target > 0) {
    r.ratio = ratio_at(r.time.ms);
    r.ratio_slow = ratio_at(r.time.quantiles[2]);
    r.ratio_fast = ratio_at(r.time.quantiles[1]);
  }
  if (c.roof == ceiling::none && c.target > 0) {
    r.meets = r.time.ms <= c.target;
    r.target_text = "<= " + fmt(c.target, 2) + " ms";
    r.target_ratio = 1;
  } else if (c.target_rate > 0) {
    r.meets = r.rate >= c.target_rate;
    r.target_text = ">= " + fmt(c.target_rate, 0) + " " + c.unit;
    r.target_ratio = r.roof > 0 ? c.target_rate / r.roof : 0;
  } else if (c.target > 0) {
    r.meets = r.ratio >= c.target;
    r.target_text = ">= " + fmt(100 * c.target, 0) + "% of " + r.roof_name;
    r.target_ratio = c.target;
  } else {  // shown for comparison: no target
    r.meets = true;
    r.target_text = "-";
  }
  std::cout << "  median " << fmt(r.time.ms, 4) << " ms (" << fmt(r.time.min, 4) << " .. " << fmt(r.time.max, 4) << ", "
            << r.time.reps << " runs): " << fmt(r.rate, 1) << " " << c.unit << "\n";
  return r;
}

// The order the table lists the cases in.
const std::vector<std::string> case_order = {"2",       "4",          "5",       "6",     "7", "8", "9", "10", "10 4w",
                                             "11 fp16", "11 fp16 8w", "11 tf32", "11 f32", "12 tf32"};

}  // namespace bench

int main(int argc, char** argv) {
  using namespace bench;
  CLI::App app{"tl-bench: the puzzle kernels at the scaled sizes, timed on the GPU against copy bandwidth and cuBLAS"};
  bool check = false, list = false;
  std::string only, out = ".";
  int samples = 256, num_stages = tl::launch_options{}.num_stages;
  timing t;
  app.add_flag("--check", check, "check each kernel (GPU vs CPU backend, then the scaled run vs the spec) before timing");
  app.add_flag("--list", list, "list the cases and exit");
  app.add_option("--only", only, "comma-separated puzzle numbers or case ids (\"2,11 fp16\")");
  tl_cli::add_number(app, "--reps", t.reps, "timed runs per case (the median is reported)", 20, 100000);
  tl_cli::add_number(app, "--warmup-ms", t.warmup_ms, "untimed runs first, for this long", 0.0, 10000.0);
  tl_cli::add_number(app, "--samples", samples, "output elements checked against the spec with --check", 1, 100000);
  app.add_option("--out", out, "directory for tl-bench.csv and tl-bench.svg (the ratios, through tl::perf_report)");
  tl_cli::add_number(app, "--softmax-programs-per-sm", softmax_programs_per_sm,
                     "puzzle 8: programs resident per multiprocessor (0: as many as fit)", 0, 64);
  tl_cli::add_number(app, "--cooldown-ms", t.cooldown_ms,
                     "idle time before each measurement, so that each starts below the power cap", 0.0, 60000.0);
  tl_cli::add_number(app, "--num-stages", num_stages, "every launch's num_stages (1: no copies ahead of a dot's next K step)",
                     1, 8);
  CLI11_PARSE(app, argc, argv);

  std::vector<bench_case> cases;
  add_streaming_cases(cases);
  add_attention_cases(cases);
  add_matmul_cases(cases);
  add_8warp_cases(cases);
  auto rank = [](const bench_case& c) { return std::find(case_order.begin(), case_order.end(), c.id) - case_order.begin(); };
  std::stable_sort(cases.begin(), cases.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  if (!only.empty()) {
    std::vector<std::string> want;
    std::stringstream ss(only);
    for (std::string w; std::getline(ss, w, ',');) want.push_back(w);
    std::erase_if(cases, [&](const bench_case& c) {
      for (const auto& w : want)
        if (c.id == w || c.id.substr(0, c.id.find(' ')) == w) return false;
      return true;
    });
  }
  if (list) {
    for (const auto& c : cases) std::cout << c.id << "\t" << c.blocks << "\t" << c.size_text(c.scaled) << "\n";
    return 0;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::cerr << "tl-bench: no CUDA device\n";
    return 2;
  }
  try {
    cudaDeviceProp prop{};
    TL_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    const std::string device = prop.name;
    std::cout << "device: " << prop.name << ", " << prop.multiProcessorCount << " SMs, "
              << prop.totalGlobalMem / (1 << 30) << " GiB, L2 " << prop.l2CacheSize / (1 << 20) << " MiB\n";
    cudaStream_t s = nullptr;
    TL_CUDA_CHECK(cudaStreamCreate(&s));
    const ceilings roofs = measure_ceilings(cases, s, t);
    for (const auto& [k, v] : roofs.value)
      std::cout << "ceiling " << roofs.name.at(k) << ": " << fmt(v, 1) << (k == ceiling::copy ? " GB/s" : " TFLOP/s")
                << "\n";

    // Each case is a bar of its ratio to the ceiling beside its target (tl::perf_report: the
    // plot and the CSV); the table below has the rest.
    std::vector<row> rows(cases.size());
    tl::benchmark plot{.x_name = "case",
                       .line_vals = {"tl", "target"},
                       .line_names = {"tl / ceiling", "target"},
                       .styles = {{"#4a8", "-"}, {"#999", "-"}},
                       .ylabel = "ratio to the ceiling (copy bandwidth or cuBLAS; 9, 10: target time / time)",
                       .plot_name = "tl-bench",
                       .bars = true};
    for (std::size_t i = 0; i < cases.size(); ++i) {
      plot.x_vals.push_back(double(i));
      plot.x_labels.push_back(cases[i].id);
    }
    const tl::perf_table ratios =
        tl::perf_report(plot, [&](double x, const std::string& provider) {
          const std::size_t i = std::size_t(x);
          if (provider == "tl") rows[i] = run_case(cases[i], roofs, s, t, check, samples, num_stages);
          const row& r = rows[i];
          if (provider == "tl" && r.ratio > 0) return tl::measurement{r.ratio, r.ratio_slow, r.ratio_fast};
          if (provider == "target" && r.target_ratio > 0) return tl::measurement{r.target_ratio};
          return tl::no_measurement();
        }).run({.print_data = false, .save_path = out});
    (void)ratios;

    bool all_ok = true;
    std::cout << "\ntl-bench on " << device << " (median of " << t.reps << " runs each)\n";
    std::printf("%-10s %-34s %-24s %10s %10s %-9s %-12s %7s  %-22s %s\n", "puzzle", "blocks", "size", "ms", "rate", "unit",
                "ceiling", "ratio", "target", "met");
    for (const auto& r : rows) {
      all_ok = all_ok && r.check_ok;
      std::printf("%-10s %-34s %-24s %10.4f %10.1f %-9s %-12s %7s  %-22s %s%s\n", r.c->id.c_str(), r.c->blocks.c_str(),
                  r.c->size_text(r.c->scaled).c_str(), r.time.ms, r.rate, r.c->unit.c_str(),
                  r.c->roof == ceiling::none ? "-" : (r.roof_name + " " + fmt(r.roof, 0)).c_str(),
                  r.ratio > 0 ? fmt(r.ratio, 3).c_str() : "-", r.target_text.c_str(),
                  r.target_text == "-" ? "-" : r.meets ? "yes" : "NO",
                  r.check_text.empty() ? "" : r.check_ok ? "" : "  CHECK FAILED");
    }
    std::cout << "wrote " << out << "/tl-bench.csv and " << out << "/tl-bench.svg\n";
    TL_CUDA_CHECK(cudaStreamDestroy(s));
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "tl-bench: " << e.what() << "\n";
    return 1;
  }
}
