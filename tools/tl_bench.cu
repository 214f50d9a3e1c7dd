// tl-bench: the puzzle kernels at the scaled sizes of PUZZLES.md, timed on the GPU, next to
// the two ceilings measured in the same run: device copy bandwidth (a 1 GiB device-to-device
// copy, bytes read plus written) and cuBLAS (the same products in float32, tf32 and fp16).
//
//   tl-bench                 every case: a table, then tl-bench.csv and tl-bench.svg
//   tl-bench --check         first checks each kernel: GPU against the CPU backend at a small,
//                            ragged size, then the scaled run against the spec on sampled elements
//   tl-bench --only 2,11     some puzzles only
//
// Timing: CUDA events around each run, after warm-up runs; the median of --reps runs (at least
// 20). Inputs are random (never zeros), generated on the device from a counter-based hash, so
// the host can recompute any input element for the spec without copying gigabytes back.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <tl/tl.hpp>

#include "p02_constant_add_block.hpp"
#include "p04_outer_vector_add_block.hpp"
#include "p05_fused_outer_multiplication.hpp"
#include "p06_fused_outer_multiplication_backwards.hpp"
#include "p07_long_sum.hpp"
#include "p08_long_softmax.hpp"
#include "p09_simple_flash_attention.hpp"
#include "p10_conv2d.hpp"
#include "p11_matmul.hpp"
#include "p12_quantized_matmul.hpp"
#include "tl_bench_8warps.hpp"

namespace bench {

// ---------------------------------------------------------------- inputs

// Element i of input stream s: a hash of (s, i), the same on host and device.
TL_HD inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
TL_HD inline float uniform(std::uint32_t s, std::uint64_t i) {  // in [-0.5, 0.5)
  return float(mix64((std::uint64_t(s) << 40) ^ i) >> 40) * 0x1p-24f - 0.5f;
}
TL_HD inline std::int32_t random_bits(std::uint32_t s, std::uint64_t i) {
  return std::int32_t(std::uint32_t(mix64((std::uint64_t(s) << 40) ^ i) >> 32));
}

enum class kind { f32, f16, i32_bits, output };  // output: float32, poisoned with NaN

struct array_spec {
  std::string name;
  std::size_t n = 0;
  kind k = kind::f32;
  std::size_t bytes() const { return n * (k == kind::f16 ? 2 : 4); }
};

// An input element as the kernel sees it (fp16 inputs after their rounding), in double.
inline double input_value(kind k, std::uint32_t s, std::uint64_t i) {
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

// The arrays of one case, on the host (CPU backend) or the device; kernels get checked tl::ptr.
struct arrays {
  std::vector<array_spec> spec;
  std::vector<void*> p;
  std::vector<std::vector<std::byte>> host;  // the storage when on the host
  bool on_device = false;

  template <class T>
  tl::ptr<T> get(int i) const {
    return tl::ptr<T>(static_cast<T*>(p[i]), std::int64_t(spec[i].n), spec[i].name.c_str());
  }
  tl::ptr<float> f32(int i) const { return get<float>(i); }
  tl::ptr<int> i32(int i) const { return get<int>(i); }
  tl::ptr<tl::fp16> f16(int i) const { return get<tl::fp16>(i); }

  static arrays on_host(const std::vector<array_spec>& spec, std::uint32_t seed) {
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
  static arrays on_gpu(const std::vector<array_spec>& spec, std::uint32_t seed) {
    arrays a;
    a.spec = spec;
    a.on_device = true;
    for (std::size_t j = 0; j < spec.size(); ++j) {
      void* p = nullptr;
      TL_CUDA_CHECK(cudaMalloc(&p, spec[j].bytes()));
      a.p.push_back(p);
      a.fill(int(j), seed + std::uint32_t(j));
    }
    TL_CUDA_CHECK(cudaDeviceSynchronize());
    return a;
  }
  void fill(int j, std::uint32_t s) const {
    fill_kernel<<<1024, 256>>>(p[j], spec[j].n, spec[j].k, s);
    TL_CUDA_CHECK(cudaGetLastError());
  }
  std::vector<float> download(int j) const {
    std::vector<float> v(spec[j].n);
    if (on_device) TL_CUDA_CHECK(cudaMemcpy(v.data(), p[j], spec[j].bytes(), cudaMemcpyDeviceToHost));
    else std::copy_n(static_cast<const float*>(p[j]), v.size(), v.begin());
    return v;
  }
  arrays() = default;
  arrays(const arrays&) = delete;
  arrays(arrays&& o) noexcept { *this = std::move(o); }
  arrays& operator=(arrays&& o) noexcept {
    std::swap(spec, o.spec);
    std::swap(p, o.p);
    std::swap(host, o.host);
    std::swap(on_device, o.on_device);
    return *this;
  }
  ~arrays() {
    if (on_device)
      for (void* q : p) cudaFree(q);  // not checked: a destructor must not throw
  }
};

// ---------------------------------------------------------------- cases

struct sizes {
  int N0 = 1, N1 = 1, N2 = 1, T = 1, MID = 1, H = 1, W = 1;
};

enum class ceiling { copy, cublas_f32, cublas_tf32, cublas_f16_batched, cublas_f16_dense, none };

// The value of input array j, element i (recomputed from the hash).
using input_fn = std::function<double(int, std::uint64_t)>;

struct bench_case {
  std::string id;      // "11 fp16"
  std::string blocks;  // "B0=B1=128, B2=1, B_MID=64"
  sizes scaled, small;
  std::function<std::string(const sizes&)> size_text;
  std::function<std::vector<array_spec>(const sizes&)> layout;
  int output = 0;  // which array the kernel writes
  std::function<void(const arrays&, const sizes&, const tl::launch_options&)> launch;
  std::function<double(const input_fn&, const sizes&, std::uint64_t)> spec_at;  // one output element
  double spec_tolerance = 1e-5;  // on ||sampled out - spec|| / ||spec||
  std::string unit;              // GB/s, TFLOP/s, Gpair/s, ms
  std::function<double(const sizes&)> amount;  // bytes, flops or pairs per run
  ceiling roof = ceiling::none;
  double target = 0;       // a ratio to the ceiling, or (roof == none) a time in ms
  double target_rate = 0;  // or an absolute rate (TFLOP/s), if the issue names one
  int input_sets = 1;      // > 1: rotate among copies, where the inputs would stay in L2
  std::string unavailable;  // why this case cannot run in this build (listed, not timed)
};

inline std::string pow2(long v) {
  int e = 0;
  while ((1L << e) < v) ++e;
  return (1L << e) == v ? "2^" + std::to_string(e) : std::to_string(v);
}

inline double relu(double x) { return x > 0 ? x : 0; }

// Puzzle 11 at B0 = B1 = 128, B2 = 1: Launch is p11_fp16_4warps or one of bench::warps8's launchers.
template <class T, auto Launch>
struct p11_launch {
  static void launch(const arrays& a, const sizes& n, const tl::launch_options& o) {
    Launch(a.get<T>(0), a.get<T>(1), a.f32(2), n.N0, n.N1, n.N2, n.MID, o);
  }
};
// fp16 with 4 warps (this translation unit's): with the dot copying the next K step ahead
// (num_stages, default 3), a step's work is issued by half as many warps as with 8, each
// holding the 128 x 128 accumulator's 128 registers: 496 against 415 TFLOP/s measured
// (docs/performance.md, step 44).
void p11_fp16_4warps(tl::ptr<tl::fp16> x, tl::ptr<tl::fp16> y, tl::ptr<float> z, int N0, int N1, int N2, int MID,
                     const tl::launch_options& o) {
  tl::launch<dot_kernel<128, 128, 1, 64, tl::fp16, tl::ieee>>(tl::grid(tl::cdiv(N0, 128), tl::cdiv(N1, 128), N2), o, x,
                                                              y, z, N0, N1, N2, MID);
}

// Idle time before each measurement (milliseconds; time_runs says why).
int cooldown_ms = 1000;

// Puzzle 8's programs resident per multiprocessor (launch_options::programs_per_sm; 0: no cap).
int softmax_programs_per_sm = 0;

std::vector<bench_case> all_cases() {
  std::vector<bench_case> cs;
  const auto f32 = kind::f32;
  const auto out = kind::output;
  using tl::cdiv;
  using tl::grid;

  {  // 2: z = x + 10
    bench_case c;
    c.id = "2";
    c.blocks = "B0=1024";
    c.scaled = {.N0 = 1 << 28};
    c.small = {.N0 = 3 * 1024 + 77};
    c.size_text = [](const sizes& n) { return "N0=" + pow2(n.N0); };
    c.layout = [=](const sizes& n) {
      return std::vector<array_spec>{{"x", std::size_t(n.N0), f32}, {"z", std::size_t(n.N0), out}};
    };
    c.output = 1;
    c.launch = [](const arrays& a, const sizes& n, const tl::launch_options& o) {
      tl::launch<add_mask2_kernel<1024>>(grid(cdiv(n.N0, 1024)), o, a.f32(0), a.f32(1), n.N0);
    };
    c.spec_at = [](const input_fn& in, const sizes&, std::uint64_t i) { return in(0, i) + 10.0; };
    c.unit = "GB/s";
    c.amount = [](const sizes& n) { return 8.0 * n.N0; };
    c.roof = ceiling::copy;
    c.target = 0.95;
    cs.push_back(c);
  }
  auto outer = [&](std::string id, auto kernel_tag, auto f) {
    bench_case c;
    c.id = id;
    c.blocks = "B0=B1=64";
    c.scaled = {.N0 = 1 << 14, .N1 = 1 << 14};
    c.small = {.N0 = 200, .N1 = 150};
    c.size_text = [](const sizes& n) { return "N0=N1=" + pow2(n.N0); };
    c.layout = [=](const sizes& n) {
      return std::vector<array_spec>{
          {"x", std::size_t(n.N0), f32}, {"y", std::size_t(n.N1), f32}, {"z", std::size_t(n.N0) * n.N1, out}};
    };
    c.output = 2;
    c.launch = [](const arrays& a, const sizes& n, const tl::launch_options& o) {
      decltype(kernel_tag)::launch(a, n, o);
    };
    c.spec_at = [=](const input_fn& in, const sizes& n, std::uint64_t e) {
      return f(in(0, e % n.N0), in(1, e / n.N0));
    };
    c.unit = "GB/s";
    c.amount = [](const sizes& n) { return 4.0 * (n.N0 + n.N1 + double(n.N0) * n.N1); };
    c.roof = ceiling::copy;
    c.target = 0.95;
    cs.push_back(c);
  };
  struct p4 {
    static void launch(const arrays& a, const sizes& n, const tl::launch_options& o) {
      tl::launch<add_vec_block_kernel<64, 64>>(grid(cdiv(n.N0, 64), cdiv(n.N1, 64)), o, a.f32(0), a.f32(1), a.f32(2),
                                               n.N0, n.N1);
    }
  };
  struct p5 {
    static void launch(const arrays& a, const sizes& n, const tl::launch_options& o) {
      tl::launch<mul_relu_block_kernel<64, 64>>(grid(cdiv(n.N0, 64), cdiv(n.N1, 64)), o, a.f32(0), a.f32(1), a.f32(2),
                                                n.N0, n.N1);
    }
  };
  outer("4", p4{}, [](double x, double y) { return x + y; });
  outer("5", p5{}, [](double x, double y) { return relu(x * y); });

  {  // 6: dx = (x y > 0 ? y : 0) dz
    bench_case c;
    c.id = "6";
    c.blocks = "B0=B1=64";
    c.scaled = {.N0 = 1 << 14, .N1 = 1 << 14};
    c.small = {.N0 = 200, .N1 = 150};
    c.size_text = [](const sizes& n) { return "N0=N1=" + pow2(n.N0); };
    c.layout = [=](const sizes& n) {
      const std::size_t nn = std::size_t(n.N0) * n.N1;
      return std::vector<array_spec>{{"x", nn, f32}, {"y", std::size_t(n.N1), f32}, {"dz", nn, f32}, {"dx", nn, out}};
    };
    c.output = 3;
    c.launch = [](const arrays& a, const sizes& n, const tl::launch_options& o) {
      tl::launch<mul_relu_block_back_kernel<64, 64>>(grid(cdiv(n.N0, 64), cdiv(n.N1, 64)), o, a.f32(0), a.f32(1),
                                                     a.f32(2), a.f32(3), n.N0, n.N1);
    };
    c.spec_at = [](const input_fn& in, const sizes& n, std::uint64_t e) {
      const double x = in(0, e), y = in(1, e / n.N0), dz = in(2, e);
      return (x * y > 0 ? y : 0.0) * dz;
    };
    c.unit = "GB/s";
    c.amount = [](const sizes& n) { return 4.0 * (3.0 * n.N0 * n.N1 + n.N1); };
    c.roof = ceiling::copy;
    c.target = 0.95;
    cs.push_back(c);
  }
  {  // 7: row sums
    bench_case c;
    c.id = "7";
    c.blocks = "B0=4, B1=1024";
    c.scaled = {.N0 = 1 << 14, .T = 1 << 14};
    c.small = {.N0 = 10, .T = 3000};
    c.size_text = [](const sizes& n) { return "N0=T=" + pow2(n.N0); };
    c.layout = [=](const sizes& n) {
      return std::vector<array_spec>{{"x", std::size_t(n.N0) * n.T, f32}, {"z", std::size_t(n.N0), out}};
    };
    c.output = 1;
    c.launch = [](const arrays& a, const sizes& n, const tl::launch_options& o) {
      tl::launch<sum_kernel<4, 1024>>(grid(cdiv(n.N0, 4)), o, a.f32(0), a.f32(1), n.N0, n.T);
    };
    c.spec_at = [](const input_fn& in, const sizes& n, std::uint64_t i) {
      double s = 0;
      for (int j = 0; j < n.T; ++j) s += in(0, i * n.T + j);
      return s;
    };
    c.unit = "GB/s";
    c.amount = [](const sizes& n) { return 4.0 * n.N0 * n.T; };
    c.roof = ceiling::copy;
    c.target = 0.95;
    cs.push_back(c);
  }
  {  // 8: softmax, two loops (online max and denominator)
    bench_case c;
    c.id = "8";
    c.blocks = "B0=1, B1=1024";
    c.scaled = {.N0 = 1 << 14, .T = 1 << 14};
    c.small = {.N0 = 5, .T = 3000};
    c.size_text = [](const sizes& n) { return "N0=T=" + pow2(n.N0); };
    c.layout = [=](const sizes& n) {
      const std::size_t nn = std::size_t(n.N0) * n.T;
      return std::vector<array_spec>{{"x", nn, f32}, {"z", nn, out}};
    };
    c.output = 1;
    if (softmax_programs_per_sm > 0) c.blocks += ", " + std::to_string(softmax_programs_per_sm) + "/SM";
    c.launch = [](const arrays& a, const sizes& n, const tl::launch_options& o) {
      tl::launch_options capped = o;
      capped.programs_per_sm = softmax_programs_per_sm;
      tl::launch<softmax_kernel<1, 1024>>(grid(n.N0), capped, a.f32(0), a.f32(1), n.N0, n.T);
    };
    c.spec_at = [](const input_fn& in, const sizes& n, std::uint64_t e) {
      const std::uint64_t row = e / n.T * n.T;
      double m = -INFINITY, s = 0;
      for (int j = 0; j < n.T; ++j) m = std::max(m, in(0, row + j));
      for (int j = 0; j < n.T; ++j) s += std::exp(in(0, row + j) - m);
      return std::exp(in(0, e) - m) / s;
    };
    c.unit = "GB/s";
    c.amount = [](const sizes& n) { return 8.0 * n.N0 * n.T; };
    c.roof = ceiling::copy;
    c.target = 0.75;
    cs.push_back(c);
  }
  {  // 9: flash attention on scalars
    bench_case c;
    c.id = "9";
    c.blocks = "B0=B1=128";
    c.scaled = {.N0 = 1 << 16, .T = 1 << 16};
    c.small = {.N0 = 300, .T = 400};
    c.size_text = [](const sizes& n) { return "N0=T=" + pow2(n.N0); };
    c.layout = [=](const sizes& n) {
      return std::vector<array_spec>{{"q", std::size_t(n.N0), f32},
                                     {"k", std::size_t(n.T), f32},
                                     {"v", std::size_t(n.T), f32},
                                     {"z", std::size_t(n.N0), out}};
    };
    c.output = 3;
    c.launch = [](const arrays& a, const sizes& n, const tl::launch_options& o) {
      tl::launch<flashatt_kernel<128, 128>>(grid(cdiv(n.N0, 128)), o, a.f32(0), a.f32(1), a.f32(2), a.f32(3), n.N0,
                                            n.T);
    };
    c.spec_at = [](const input_fn& in, const sizes& n, std::uint64_t i) {
      const double q = in(0, i);
      double m = -INFINITY, s = 0, z = 0;
      for (int j = 0; j < n.T; ++j) m = std::max(m, q * in(1, j));
      for (int j = 0; j < n.T; ++j) {
        const double p = std::exp(q * in(1, j) - m);
        s += p;
        z += p * in(2, j);
      }
      return z / s;
    };
    c.unit = "Gpair/s";
    c.amount = [](const sizes& n) { return double(n.N0) * n.T; };
    c.target = 11.0;  // ms, on an H200
    cs.push_back(c);
  }
  // 10: 2-D convolution, with 8 warps a program (the target) and with 4 (Triton's default)
  auto conv = [&](std::string id, std::string warps, void (*launch)(const arrays&, const sizes&, const tl::launch_options&)) {
    bench_case c;
    c.id = id;
    c.blocks = "B0=32, KH=KW=4, " + warps;
    c.scaled = {.N0 = 1 << 13, .H = 32, .W = 32};
    c.small = {.N0 = 70, .H = 32, .W = 32};
    c.size_text = [](const sizes& n) { return "N0=" + pow2(n.N0) + ", H=W=32"; };
    c.layout = [=](const sizes& n) {
      const std::size_t nn = std::size_t(n.N0) * n.H * n.W;
      return std::vector<array_spec>{{"x", nn, f32}, {"k", 16, f32}, {"z", nn, out}};
    };
    c.output = 2;
    c.launch = launch;
    c.spec_at = [](const input_fn& in, const sizes& n, std::uint64_t e) {
      const std::uint64_t i = e / (n.H * n.W);
      const int h = int(e / n.W % n.H), w = int(e % n.W);
      double z = 0;
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
          if (h + a < n.H && w + b < n.W) z += in(1, a * 4 + b) * in(0, (i * n.H + h + a) * n.W + w + b);
      return z;
    };
    c.unit = "Gpixel/s";
    c.amount = [](const sizes& n) { return double(n.N0) * n.H * n.W; };
    c.input_sets = 4;  // x and z are 32 MiB each: rotate so that a run does not find them in L2
    return c;
  };
  {
    auto c = conv("10", "8 warps", [](const arrays& a, const sizes& n, const tl::launch_options& o) {
      warps8::p10(a.f32(0), a.f32(1), a.f32(2), n.N0, n.H, n.W, o);
    });
    c.target = 0.3;  // ms, on an H200
    cs.push_back(c);
    cs.push_back(conv("10 4w", "4 warps", [](const arrays& a, const sizes& n, const tl::launch_options& o) {
      tl::launch<conv2d_kernel<4, 4, 32>>(grid(cdiv(n.N0, 32)), o, a.f32(0), a.f32(1), a.f32(2), n.N0, n.H, n.W);
    }));
  }
  // 11: batched matmul, written as in the puzzle (a 3-D dot with B2 = 1)
  auto matmul = [&](std::string variant, kind in_kind, int b_mid, ceiling roof, double tol, auto kernel_tag,
                    int warps = warps8::num_warps) {
    bench_case c;
    c.id = "11 " + variant;
    c.blocks = "B0=B1=128, B2=1, B_MID=" + std::to_string(b_mid) + ", " + std::to_string(warps) + " warps";
    c.scaled = {.N0 = 4096, .N1 = 4096, .N2 = 4, .MID = 4096};
    c.small = {.N0 = 200, .N1 = 150, .N2 = 2, .MID = 100};
    c.size_text = [](const sizes& n) { return "N2=" + std::to_string(n.N2) + ", N0=N1=MID=" + std::to_string(n.N0); };
    c.layout = [=](const sizes& n) {
      return std::vector<array_spec>{{"x", std::size_t(n.N2) * n.N0 * n.MID, in_kind},
                                     {"y", std::size_t(n.N2) * n.MID * n.N1, in_kind},
                                     {"z", std::size_t(n.N2) * n.N0 * n.N1, out}};
    };
    c.output = 2;
    c.launch = [](const arrays& a, const sizes& n, const tl::launch_options& o) {
      decltype(kernel_tag)::launch(a, n, o);
    };
    c.spec_at = [](const input_fn& in, const sizes& n, std::uint64_t e) {
      const std::uint64_t i = e / (std::uint64_t(n.N0) * n.N1), j = e / n.N1 % n.N0, k = e % n.N1;
      double z = 0;
      for (int l = 0; l < n.MID; ++l)
        z += in(0, (i * n.N0 + j) * n.MID + l) * in(1, (i * n.MID + l) * n.N1 + k);
      return z;
    };
    c.spec_tolerance = tol;
    c.unit = "TFLOP/s";
    c.amount = [](const sizes& n) { return 2.0 * n.N2 * n.N0 * n.N1 * n.MID; };
    c.roof = roof;
    return c;
  };
  {
    auto c = matmul("fp16", kind::f16, 64, ceiling::cublas_f16_batched, 1e-4, p11_launch<tl::fp16, p11_fp16_4warps>{},
                    TL_NUM_WARPS);
    c.target = 0.70;
    cs.push_back(c);
    cs.push_back(  // for comparison, without a target
        matmul("fp16 8w", kind::f16, 64, ceiling::cublas_f16_batched, 1e-4, p11_launch<tl::fp16, warps8::p11_fp16>{}));
    c = matmul("tf32", kind::f32, 32, ceiling::cublas_tf32, 2e-3, p11_launch<float, warps8::p11_tf32>{});
    c.target_rate = 150;
    cs.push_back(c);
    c = matmul("f32", kind::f32, 32, ceiling::cublas_f32, 1e-5, p11_launch<float, warps8::p11_f32>{});
    cs.push_back(c);
  }
  {  // 12: 4-bit quantized weights times float32 activations, tf32 dot
    bench_case c;
    c.id = "12 tf32";
    c.blocks = "B0=B1=128, B_MID=64";
    c.scaled = {.N0 = 8192, .N1 = 8192, .MID = 8192};
    c.small = {.N0 = 200, .N1 = 150, .MID = 192};
    c.size_text = [](const sizes& n) { return "N0=N1=MID=" + std::to_string(n.N0); };
    c.layout = [=](const sizes& n) {
      return std::vector<array_spec>{{"scale", std::size_t(n.N0) * (n.MID / 8), f32},
                                     {"offset", std::size_t(n.N0) * (n.MID / 64), kind::i32_bits},
                                     {"weight", std::size_t(n.N0) * (n.MID / 8), kind::i32_bits},
                                     {"activation", std::size_t(n.MID) * n.N1, f32},
                                     {"z", std::size_t(n.N0) * n.N1, out}};
    };
    c.output = 4;
    c.launch = [](const arrays& a, const sizes& n, const tl::launch_options& o) {
      tl::launch<quant_dot_kernel<128, 128, 64, tl::tf32>>(grid(cdiv(n.N0, 128), cdiv(n.N1, 128)), o, a.f32(0),
                                                           a.get<int>(1), a.get<int>(2), a.f32(3), a.f32(4), n.N0,
                                                           n.N1, n.MID);
    };
    c.spec_at = [](const input_fn& in, const sizes& n, std::uint64_t e) {
      const std::uint64_t j = e / n.N1, k = e % n.N1;
      double z = 0;
      for (int l = 0; l < n.MID; ++l) {
        const auto word = std::uint32_t(std::int32_t(in(2, j * (n.MID / 8) + l / 8)));
        const auto off = std::uint32_t(std::int32_t(in(1, j * (n.MID / 64) + l / 64)));
        const double w = double((word >> (4 * (l % 8))) & 0xF), shift = double((off >> (4 * (l / 8 % 8))) & 0xF);
        z += in(0, j * (n.MID / 8) + l / 8) * (w - shift) * in(3, std::uint64_t(l) * n.N1 + k);
      }
      return z;
    };
    c.spec_tolerance = 2e-3;
    c.unit = "TFLOP/s";
    c.amount = [](const sizes& n) { return 2.0 * n.N0 * n.N1 * n.MID; };
    c.roof = ceiling::cublas_f16_dense;
    c.target_rate = 150;
    cs.push_back(c);
  }
  return cs;
}

// ---------------------------------------------------------------- timing

struct stats {
  double median = 0, lo = 0, hi = 0;
  int runs = 0;
};

// Runs f warmup times, then reps times between CUDA events; the median of the event times.
template <class F>
stats time_runs(F&& f, cudaStream_t s, int warmup, int reps) {
  // Every measurement (a ceiling or a case) starts from an idle GPU: under sustained tensor-core
  // work an H200 holds its power cap by lowering its clock (1980 -> 1400-1560 MHz seen), so a
  // case timed right after another would run slower than one timed after a pause, and a ratio
  // would depend on the order of the cases (docs/performance.md, step 44).
  TL_CUDA_CHECK(cudaStreamSynchronize(s));
  if (cooldown_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(cooldown_ms));
  for (int i = 0; i < warmup; ++i) f(i);
  TL_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<cudaEvent_t> ev(2 * std::size_t(reps));
  for (auto& e : ev) TL_CUDA_CHECK(cudaEventCreate(&e));
  for (int r = 0; r < reps; ++r) {
    TL_CUDA_CHECK(cudaEventRecord(ev[2 * r], s));
    f(warmup + r);
    TL_CUDA_CHECK(cudaEventRecord(ev[2 * r + 1], s));
  }
  TL_CUDA_CHECK(cudaStreamSynchronize(s));
  TL_CUDA_CHECK(cudaGetLastError());
  std::vector<double> ms(reps);
  for (int r = 0; r < reps; ++r) {
    float t = 0;
    TL_CUDA_CHECK(cudaEventElapsedTime(&t, ev[2 * r], ev[2 * r + 1]));
    ms[r] = t;
  }
  for (auto& e : ev) TL_CUDA_CHECK(cudaEventDestroy(e));
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front(), ms.back(), reps};
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
                     int warmup, int reps) {
  const std::size_t na = std::size_t(batch) * m * k, nb = std::size_t(batch) * k * n, nc = std::size_t(batch) * m * n;
  arrays a = arrays::on_gpu({{"A", na, half ? kind::f16 : kind::f32}, {"B", nb, half ? kind::f16 : kind::f32},
                             {"C", nc, kind::output}},
                            900);
  const cudaDataType_t t = half ? CUDA_R_16F : CUDA_R_32F;
  const float alpha = 1, beta = 0;
  // Row-major C = A B is column-major C^T = B^T A^T.
  auto run = [&](int) {
    BENCH_CUBLAS(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, a.p[1], t, n,
                                            std::int64_t(k) * n, a.p[0], t, k, std::int64_t(m) * k, &beta, a.p[2],
                                            CUDA_R_32F, n, std::int64_t(m) * n, batch, ct, CUBLAS_GEMM_DEFAULT));
  };
  const stats st = time_runs(run, s, warmup, reps);
  return 2.0 * batch * m * n * k / (st.median * 1e-3) / 1e12;
}

ceilings measure_ceilings(const std::vector<bench_case>& cases, cudaStream_t s, int warmup, int reps) {
  ceilings c;
  std::map<ceiling, bool> need;
  for (const auto& b : cases) need[b.roof] = true;
  {  // copy: 1 GiB device to device; read + written bytes
    const std::size_t bytes = std::size_t(1) << 30;
    void *src = nullptr, *dst = nullptr;
    TL_CUDA_CHECK(cudaMalloc(&src, bytes));
    TL_CUDA_CHECK(cudaMalloc(&dst, bytes));
    fill_kernel<<<1024, 256>>>(src, bytes / 4, kind::f32, 77);
    TL_CUDA_CHECK(cudaGetLastError());
    const stats st = time_runs(
        [&](int) { TL_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s)); }, s, warmup, reps);
    c.value[ceiling::copy] = 2.0 * bytes / (st.median * 1e-3) / 1e9;
    c.name[ceiling::copy] = "copy";
    TL_CUDA_CHECK(cudaFree(src));
    TL_CUDA_CHECK(cudaFree(dst));
  }
  cublasHandle_t h = nullptr;
  BENCH_CUBLAS(cublasCreate(&h));
  BENCH_CUBLAS(cublasSetStream(h, s));
  if (need[ceiling::cublas_f32]) {
    c.value[ceiling::cublas_f32] = cublas_tflops(h, s, 4, 4096, 4096, 4096, false, CUBLAS_COMPUTE_32F, warmup, reps);
    c.name[ceiling::cublas_f32] = "cuBLAS f32";
  }
  if (need[ceiling::cublas_tf32]) {
    c.value[ceiling::cublas_tf32] =
        cublas_tflops(h, s, 4, 4096, 4096, 4096, false, CUBLAS_COMPUTE_32F_FAST_TF32, warmup, reps);
    c.name[ceiling::cublas_tf32] = "cuBLAS tf32";
  }
  if (need[ceiling::cublas_f16_batched]) {
    c.value[ceiling::cublas_f16_batched] =
        cublas_tflops(h, s, 4, 4096, 4096, 4096, true, CUBLAS_COMPUTE_32F, warmup, reps);
    c.name[ceiling::cublas_f16_batched] = "cuBLAS fp16";
  }
  if (need[ceiling::cublas_f16_dense]) {
    c.value[ceiling::cublas_f16_dense] = cublas_tflops(h, s, 1, 8192, 8192, 8192, true, CUBLAS_COMPUTE_32F, warmup, reps);
    c.name[ceiling::cublas_f16_dense] = "cuBLAS fp16 dense";
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
  os << "scaled run vs spec: " << (ok ? "ok" : "FAIL") << " (" << nan << " elements unwritten, rel. L2 error "
     << rel << " on " << samples << " samples, bound " << c.spec_tolerance << ")";
  return {ok, os.str()};
}

// ---------------------------------------------------------------- report

struct row {
  const bench_case* c;
  stats st;
  double rate = 0, roof = 0, ratio = 0;
  std::string roof_name;
  bool meets = false;
  std::string target_text, check_text;
  bool check_ok = true;
};

std::string fmt(double v, int prec = 3) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(prec);
  os << v;
  return os.str();
}

void write_csv(const std::string& path, const std::vector<row>& rows, const std::string& device) {
  std::ofstream f(path);
  f << "device,puzzle,blocks,size,median_ms,min_ms,max_ms,runs,value,unit,ceiling,ceiling_value,ratio,target,meets,"
       "checked\n";
  for (const auto& r : rows)
    f << '"' << device << "\"," << r.c->id << ",\"" << r.c->blocks << "\",\"" << r.c->size_text(r.c->scaled) << "\","
      << r.st.median << ',' << r.st.lo << ',' << r.st.hi << ',' << r.st.runs << ',' << r.rate << ',' << r.c->unit
      << ',' << r.roof_name << ',' << r.roof << ',' << r.ratio << ",\"" << r.target_text << "\","
      << (r.meets ? "yes" : "no") << ',' << (r.check_text.empty() ? "no" : r.check_ok ? "ok" : "FAIL") << '\n';
}

// A horizontal bar per case: its ratio to the ceiling (or, for 9 and 10, target time / time),
// with the target marked.
void write_svg(const std::string& path, const std::vector<row>& rows, const std::string& device) {
  const int bar_h = 26, left = 170, width = 560, top = 50;
  const int h = top + bar_h * int(rows.size()) + 50;
  double max_ratio = 1.2;
  for (const auto& r : rows) max_ratio = std::max(max_ratio, r.ratio * 1.05);
  auto x = [&](double v) { return left + v / max_ratio * width; };
  std::ofstream f(path);
  f << "<svg xmlns='http://www.w3.org/2000/svg' width='" << left + width + 120 << "' height='" << h
    << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' fill='white'/>\n"
    << "<text x='10' y='20' font-size='14'>tl-bench on " << device
    << ": ratio to the ceiling (copy bandwidth or cuBLAS; 9 and 10: target time / time)</text>\n";
  for (double g = 0; g <= max_ratio + 1e-9; g += 0.25)
    f << "<line x1='" << x(g) << "' y1='" << top - 5 << "' x2='" << x(g) << "' y2='" << h - 40
      << "' stroke='#ddd'/><text x='" << x(g) - 10 << "' y='" << h - 25 << "'>" << fmt(g, 2) << "</text>\n";
  int drawn = 0;
  for (const auto& r : rows) {
    if (r.ratio <= 0) continue;  // no ceiling and no target (shown for comparison)
    const int y = top + bar_h * drawn++;
    f << "<text x='10' y='" << y + 16 << "'>" << r.c->id << " (" << r.roof_name << ")</text>\n";
    f << "<rect x='" << left << "' y='" << y + 4 << "' width='" << x(r.ratio) - left << "' height='" << bar_h - 8
      << "' fill='" << (r.meets ? "#4a8" : "#d84") << "'/>\n";
    f << "<text x='" << x(r.ratio) + 4 << "' y='" << y + 16 << "'>" << fmt(r.ratio, 2) << "</text>\n";
    double t = 0;
    if (r.c->roof == ceiling::none) t = 1.0;
    else if (r.c->target > 0) t = r.c->target;
    else if (r.c->target_rate > 0 && r.roof > 0) t = r.c->target_rate / r.roof;
    if (t > 0)
      f << "<line x1='" << x(t) << "' y1='" << y + 1 << "' x2='" << x(t) << "' y2='" << y + bar_h - 1
        << "' stroke='black' stroke-width='2'/>\n";
  }
  f << "<text x='10' y='" << h - 8 << "'>bars: measured (green: target met); black ticks: targets</text>\n</svg>\n";
}

}  // namespace bench

int main(int argc, char** argv) {
  using namespace bench;
  CLI::App app{"tl-bench: the puzzle kernels at the scaled sizes, timed on the GPU against copy bandwidth and cuBLAS"};
  bool check = false, list = false;
  std::string only, csv = "tl-bench.csv", svg = "tl-bench.svg";
  int reps = 25, warmup = 3, samples = 256, num_stages = tl::launch_options{}.num_stages;
  app.add_flag("--check", check, "check each kernel (GPU vs CPU backend, then the scaled run vs the spec) before timing");
  app.add_flag("--list", list, "list the cases and exit");
  app.add_option("--only", only, "comma-separated puzzle numbers or case ids (\"2,11 fp16\")");
  app.add_option("--reps", reps, "timed runs per case (the median is reported)")->check(CLI::Range(20, 100000));
  app.add_option("--warmup", warmup, "untimed runs first")->check(CLI::Range(1, 1000));
  app.add_option("--samples", samples, "output elements checked against the spec with --check")->check(CLI::Range(1, 100000));
  app.add_option("--csv", csv, "CSV output");
  app.add_option("--svg", svg, "plot of the ratios (SVG)");
  app.add_option("--softmax-programs-per-sm", softmax_programs_per_sm,
                 "puzzle 8: programs resident per multiprocessor (0: as many as fit)")
      ->check(CLI::Range(0, 64));
  app.add_option("--cooldown-ms", cooldown_ms, "idle time before each measurement, so that each starts below the power cap")
      ->check(CLI::Range(0, 60000));
  app.add_option("--num-stages", num_stages,
                 "every launch's num_stages (1: no copies ahead of a dot's next K step)")
      ->check(CLI::Range(1, 8));
  CLI11_PARSE(app, argc, argv);

  auto cases = all_cases();
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
    const ceilings roofs = measure_ceilings(cases, s, warmup, reps);
    for (const auto& [k, v] : roofs.value)
      std::cout << "ceiling " << roofs.name.at(k) << ": " << fmt(v, 1) << (k == ceiling::copy ? " GB/s" : " TFLOP/s")
                << "\n";
    std::vector<row> rows;
    bool all_ok = true;
    const std::uint32_t seed = 1000;
    std::vector<const bench_case*> skipped;
    for (const auto& c : cases) {
      row r;
      r.c = &c;
      std::cout << "\n== puzzle " << c.id << " (" << c.blocks << ", " << c.size_text(c.scaled) << ")\n" << std::flush;
      if (!c.unavailable.empty()) {
        std::cout << "  not run: " << c.unavailable << "\n";
        skipped.push_back(&c);
        continue;
      }
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
      all_ok = all_ok && r.check_ok;
      r.st = time_runs([&](int i) { c.launch(sets[i % sets.size()], c.scaled, o); }, s, warmup, reps);
      const double amount = c.amount(c.scaled);
      r.rate = amount / (r.st.median * 1e-3) / (c.unit == "TFLOP/s" ? 1e12 : 1e9);  // GB/s, Gpair/s, Gpixel/s
      if (c.roof != ceiling::none) {
        r.roof = roofs.value.at(c.roof);
        r.roof_name = roofs.name.at(c.roof);
        r.ratio = r.rate / r.roof;
      } else if (c.target > 0) {
        r.roof_name = "target " + fmt(c.target, 1) + " ms";
        r.ratio = c.target / r.st.median;
      }
      if (c.roof == ceiling::none && c.target > 0) {
        r.meets = r.st.median <= c.target;
        r.target_text = "<= " + fmt(c.target, 2) + " ms";
      } else if (c.roof == ceiling::none) {  // shown for comparison (10 with 4 warps): no ratio, no target
        r.meets = true;
        r.target_text = "-";
      } else if (c.target_rate > 0) {
        r.meets = r.rate >= c.target_rate;
        r.target_text = ">= " + fmt(c.target_rate, 0) + " " + c.unit;
      } else if (c.target > 0) {
        r.meets = r.ratio >= c.target;
        r.target_text = ">= " + fmt(100 * c.target, 0) + "% of " + r.roof_name;
      } else {
        r.meets = true;
        r.target_text = "-";
      }
      std::cout << "  median " << fmt(r.st.median, 4) << " ms (" << fmt(r.st.lo, 4) << " .. " << fmt(r.st.hi, 4)
                << ", " << r.st.runs << " runs): " << fmt(r.rate, 1) << " " << c.unit << "\n";
      rows.push_back(r);
    }
    // The table, last, so the end of the output has it.
    std::cout << "\ntl-bench on " << device << " (median of " << reps << " runs each)\n";
    std::printf("%-10s %-34s %-24s %10s %10s %-9s %-12s %7s  %-22s %s\n", "puzzle", "blocks", "size", "ms", "rate",
                "unit", "ceiling", "ratio", "target", "met");
    for (const auto& r : rows) {
      std::printf("%-10s %-34s %-24s %10.4f %10.1f %-9s %-12s %7s  %-22s %s%s\n", r.c->id.c_str(), r.c->blocks.c_str(),
                  r.c->size_text(r.c->scaled).c_str(), r.st.median, r.rate, r.c->unit.c_str(),
                  r.c->roof == ceiling::none ? "-" : (r.roof_name + " " + fmt(r.roof, 0)).c_str(),
                  r.ratio > 0 ? fmt(r.ratio, 3).c_str() : "-", r.target_text.c_str(),
                  r.target_text == "-" ? "-" : r.meets ? "yes" : "NO", r.check_text.empty() ? "" : r.check_ok ? "" : "  CHECK FAILED");
    }
    for (const auto* c : skipped) std::printf("%-9s not run: %s\n", c->id.c_str(), c->unavailable.c_str());
    write_csv(csv, rows, device);
    write_svg(svg, rows, device);
    std::cout << "wrote " << csv << " and " << svg << "\n";
    TL_CUDA_CHECK(cudaStreamDestroy(s));
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "tl-bench: " << e.what() << "\n";
    return 1;
  }
}
