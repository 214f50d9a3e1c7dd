// tl-bench: the puzzle kernels at the scaled sizes of the puzzle definitions, timed on the GPU
// (tl::do_bench) next to the two ceilings measured in the same run: device copy bandwidth and
// cuBLAS; reported as a table and, through tl::perf_report, as CSV and a bar plot of each
// case's ratio to its ceiling.
//
// This header: what a case is. The cases themselves are in the cases_*.cu files, a few puzzles
// each, so that they compile in parallel; main.cu runs them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <tl/kernel.hpp>

namespace bench {

// ---- inputs: random (never zeros), generated on the device from a counter-based hash, so
// that the host can recompute any input element for the spec without copying it back ----

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

// The arrays of one case, on the host (CPU backend) or the device (main.cu makes them);
// kernels get checked tl::ptr.
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

  static arrays on_host(const std::vector<array_spec>& spec, std::uint32_t seed);
  static arrays on_gpu(const std::vector<array_spec>& spec, std::uint32_t seed);
  std::vector<float> download(int j) const;
  arrays() = default;
  arrays(const arrays&) = delete;
  arrays(arrays&& o) noexcept { *this = std::move(o); }
  arrays& operator=(arrays&& o) noexcept;
  ~arrays();
};

// ---- cases ----

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
  std::string unit;              // GB/s, TFLOP/s, Gpair/s, Gpixel/s
  std::function<double(const sizes&)> amount;  // bytes, flops, pairs or pixels per run
  ceiling roof = ceiling::none;
  double target = 0;       // a ratio to the ceiling, or (roof == none) a time in ms
  double target_rate = 0;  // or an absolute rate (TFLOP/s)
  int input_sets = 1;      // > 1: rotate among copies, where the inputs would stay in L2
};

// "2^28" for powers of two, else the number.
inline std::string pow2(long v) {
  int e = 0;
  while ((1L << e) < v) ++e;
  return (1L << e) == v ? "2^" + std::to_string(e) : std::to_string(v);
}

using launch_fn = std::function<void(const arrays&, const sizes&, const tl::launch_options&)>;

// Puzzle 10, a 2-D convolution at B0 = 32, KH = KW = 4, with `warps` warps a program.
inline bench_case conv_case(std::string id, int warps, launch_fn launch) {
  bench_case c;
  c.id = std::move(id);
  c.blocks = "B0=32, KH=KW=4, " + std::to_string(warps) + " warps";
  c.scaled = {.N0 = 1 << 13, .H = 32, .W = 32};
  c.small = {.N0 = 70, .H = 32, .W = 32};
  c.size_text = [](const sizes& n) { return "N0=" + pow2(n.N0) + ", H=W=32"; };
  c.layout = [](const sizes& n) {
    const std::size_t nn = std::size_t(n.N0) * n.H * n.W;
    return std::vector<array_spec>{{"x", nn, kind::f32}, {"k", 16, kind::f32}, {"z", nn, kind::output}};
  };
  c.output = 2;
  c.launch = std::move(launch);
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
}

// Puzzle 11, the batched matmul written as in the puzzle (a 3-D dot with B2 = 1), B0 = B1 = 128.
inline bench_case matmul_case(const std::string& variant, kind in_kind, int b_mid, ceiling roof, double tolerance,
                              int warps, launch_fn launch) {
  bench_case c;
  c.id = "11 " + variant;
  c.blocks = "B0=B1=128, B2=1, B_MID=" + std::to_string(b_mid) + ", " + std::to_string(warps) + " warps";
  c.scaled = {.N0 = 4096, .N1 = 4096, .N2 = 4, .MID = 4096};
  c.small = {.N0 = 200, .N1 = 150, .N2 = 2, .MID = 100};
  c.size_text = [](const sizes& n) { return "N2=" + std::to_string(n.N2) + ", N0=N1=MID=" + std::to_string(n.N0); };
  c.layout = [=](const sizes& n) {
    return std::vector<array_spec>{{"x", std::size_t(n.N2) * n.N0 * n.MID, in_kind},
                                   {"y", std::size_t(n.N2) * n.MID * n.N1, in_kind},
                                   {"z", std::size_t(n.N2) * n.N0 * n.N1, kind::output}};
  };
  c.output = 2;
  c.launch = std::move(launch);
  c.spec_at = [](const input_fn& in, const sizes& n, std::uint64_t e) {
    const std::uint64_t i = e / (std::uint64_t(n.N0) * n.N1), j = e / n.N1 % n.N0, k = e % n.N1;
    double z = 0;
    for (int l = 0; l < n.MID; ++l) z += in(0, (i * n.N0 + j) * n.MID + l) * in(1, (i * n.MID + l) * n.N1 + k);
    return z;
  };
  c.spec_tolerance = tolerance;
  c.unit = "TFLOP/s";
  c.amount = [](const sizes& n) { return 2.0 * n.N2 * n.N0 * n.N1 * n.MID; };
  c.roof = roof;
  return c;
}

// The cases, in the order the table lists them (each file adds its own).
void add_streaming_cases(std::vector<bench_case>& cases);  // 2, 4, 5, 6, 7, 8 (cases_streaming.cu)
void add_attention_cases(std::vector<bench_case>& cases);  // 9, 10 with 4 warps (cases_attention.cu)
void add_matmul_cases(std::vector<bench_case>& cases);     // 11 fp16 (4 warps), 12 (cases_matmul.cu)
void add_8warp_cases(std::vector<bench_case>& cases);      // 10, 11 fp16, tf32, f32 with 8 warps (cases_8warps.cu)

// Puzzle 8's programs resident per multiprocessor (launch_options::programs_per_sm; 0: no cap).
extern int softmax_programs_per_sm;

}  // namespace bench
