// tl/bench/do_bench.hpp: timing a function the way Triton's triton.testing.do_bench does.
//
//   auto r = tl::do_bench([&] { matmul(a, b, c); },
//                                  {.backend = tl::backend::cuda, .quantiles = {0.5, 0.2, 0.8}});
//   r.ms                  the median (return_mode), in milliseconds
//   r.quantiles           {median, 20th percentile, 80th percentile}
//   tl::tflops(2.0 * m * n * k, r.ms)
//
// How: one call to compile and settle, an estimate of the time per call from 5 calls, then
// warmup_ms worth of calls, then rep_ms worth of timed calls (at least min_reps), each timed
// alone. On the CUDA backend each call is bracketed by CUDA events on the stream and the L2
// cache is flushed before it (a 256 MB write), so a kernel does not find its inputs cached
// from the call before; the calls are queued without waiting, and the events are read at the
// end. On the CPU backend each call is timed by std::chrono::steady_clock.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "../backend/cuda/error.hpp"
#include "../launch/options.hpp"

namespace tl {

enum class return_mode { median, mean, min, max };

struct bench_options {
  tl::backend backend = tl::backend::cpu;
  double warmup_ms = 25;              // time spent calling before timing
  double rep_ms = 100;                // time spent on timed calls
  std::vector<double> quantiles = {};  // e.g. {0.5, 0.2, 0.8}: r.quantiles in this order
  return_mode mode = return_mode::median;
  int min_reps = 5;                   // timed calls, at least
  int max_reps = 10000;               // and at most
  bool flush_l2 = true;               // CUDA: flush the L2 cache before each timed call
  double cooldown_ms = 0;             // idle time before the first call: a GPU held at its power
                                      // cap by earlier work runs at lower clocks until it cools
  void* stream = nullptr;             // CUDA: the cudaStream_t the function launches on (null: default)
};

struct bench_result {
  double ms = 0;                   // by the options' return_mode (the median by default)
  std::vector<double> quantiles;   // the requested quantiles, in their order
  double median = 0, mean = 0, min = 0, max = 0, stddev = 0;
  int reps = 0;
  std::vector<double> times_ms;    // every timed call, in order
};

// q-quantile of sorted values, interpolated linearly between neighbours (numpy's default).
inline double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = std::clamp(q, 0.0, 1.0) * double(sorted.size() - 1);
  const std::size_t lo = std::size_t(std::floor(pos)), hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - double(lo));
}

inline bench_result summarize(std::vector<double> times, const bench_options& o) {
  bench_result r;
  r.times_ms = times;
  r.reps = int(times.size());
  if (times.empty()) return r;
  std::sort(times.begin(), times.end());
  r.min = times.front();
  r.max = times.back();
  r.median = quantile_of_sorted(times, 0.5);
  r.mean = std::accumulate(times.begin(), times.end(), 0.0) / double(times.size());
  double var = 0;
  for (double t : times) var += (t - r.mean) * (t - r.mean);
  r.stddev = std::sqrt(var / double(times.size()));
  for (double q : o.quantiles) r.quantiles.push_back(quantile_of_sorted(times, q));
  switch (o.mode) {
    case return_mode::median: r.ms = r.median; break;
    case return_mode::mean: r.ms = r.mean; break;
    case return_mode::min: r.ms = r.min; break;
    case return_mode::max: r.ms = r.max; break;
  }
  return r;
}

// TFLOP/s and GB/s from a time in milliseconds.
inline double tflops(double flops, double ms) { return flops / (ms * 1e-3) / 1e12; }
inline double gbps(double bytes, double ms) { return bytes / (ms * 1e-3) / 1e9; }

namespace detail {

inline void check_bench_options(const bench_options& o) {
  for (double q : o.quantiles)
    if (!(q >= 0 && q <= 1))
      throw usage_error("tl::do_bench: quantile " + std::to_string(q) + " is outside [0, 1]");
  if (o.warmup_ms < 0 || o.rep_ms < 0 || o.cooldown_ms < 0)
    throw usage_error("tl::do_bench: warmup_ms, rep_ms and cooldown_ms must be >= 0");
  if (o.min_reps < 1 || o.max_reps < o.min_reps)
    throw usage_error("tl::do_bench: min_reps must be >= 1 and max_reps >= min_reps");
}

inline int reps_for(double budget_ms, double estimate_ms, int lo, int hi) {
  const double n = estimate_ms > 0 ? budget_ms / estimate_ms : double(hi);
  return std::clamp(int(n), lo, hi);
}

inline void cool_down(const bench_options& o) {
  if (o.cooldown_ms > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(o.cooldown_ms));
}

template <class F>
bench_result bench_cpu(F& fn, const bench_options& o) {
  cool_down(o);
  using clock = std::chrono::steady_clock;
  auto timed = [&] {
    const auto t0 = clock::now();
    fn();
    return std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  };
  const unsigned long long launched = detail::async_gpu_launch_count();
  fn();
  if (detail::async_gpu_launch_count() != launched)
    throw usage_error("tl::do_bench: the function launched GPU work without waiting for it (launch_options::wait = "
                      "false), which the host's clock (bench_options::backend = cpu, the default) would not time: "
                      "time it with {.backend = tl::backend::cuda}");
  double estimate = 0;
  for (int i = 0; i < 5; ++i) estimate += timed();
  estimate /= 5;
  const int warmup = reps_for(o.warmup_ms, estimate, 0, o.max_reps);
  for (int i = 0; i < warmup; ++i) fn();
  const int reps = reps_for(o.rep_ms, estimate, o.min_reps, o.max_reps);
  std::vector<double> times;
  times.reserve(std::size_t(reps));
  for (int i = 0; i < reps; ++i) times.push_back(timed());
  return summarize(std::move(times), o);
}

#if defined(__CUDACC__)
// A device buffer written before each timed call: larger than any L2 (H100/H200: 50-60 MB).
inline void* l2_flush_buffer(std::size_t& bytes) {
  static void* p = nullptr;
  static constexpr std::size_t size = std::size_t(256) << 20;
  if (!p) TL_CUDA_CHECK(cudaMalloc(&p, size));
  bytes = size;
  return p;
}

template <class F>
bench_result bench_cuda(F& fn, const bench_options& o) {
  const cudaStream_t s = static_cast<cudaStream_t>(o.stream);
  std::size_t flush_bytes = 0;
  void* flush = o.flush_l2 ? l2_flush_buffer(flush_bytes) : nullptr;
  TL_CUDA_CHECK(cudaStreamSynchronize(s));  // earlier work done: the cool-down is idle time
  cool_down(o);
  fn();
  TL_CUDA_CHECK(cudaStreamSynchronize(s));
  cudaEvent_t e0, e1;
  TL_CUDA_CHECK(cudaEventCreate(&e0));
  TL_CUDA_CHECK(cudaEventCreate(&e1));
  TL_CUDA_CHECK(cudaEventRecord(e0, s));
  for (int i = 0; i < 5; ++i) {
    if (flush) TL_CUDA_CHECK(cudaMemsetAsync(flush, 0, flush_bytes, s));
    fn();
  }
  TL_CUDA_CHECK(cudaEventRecord(e1, s));
  TL_CUDA_CHECK(cudaEventSynchronize(e1));
  float total = 0;
  TL_CUDA_CHECK(cudaEventElapsedTime(&total, e0, e1));
  TL_CUDA_CHECK(cudaEventDestroy(e0));
  TL_CUDA_CHECK(cudaEventDestroy(e1));
  const double estimate = double(total) / 5;
  const int warmup = reps_for(o.warmup_ms, estimate, 0, o.max_reps);
  const int reps = reps_for(o.rep_ms, estimate, o.min_reps, o.max_reps);
  const std::size_t n = static_cast<std::size_t>(reps);
  std::vector<cudaEvent_t> start(n), end(n);
  for (std::size_t i = 0; i < n; ++i) {
    TL_CUDA_CHECK(cudaEventCreate(&start.at(i)));
    TL_CUDA_CHECK(cudaEventCreate(&end.at(i)));
  }
  for (int i = 0; i < warmup; ++i) fn();
  for (std::size_t i = 0; i < n; ++i) {
    if (flush) TL_CUDA_CHECK(cudaMemsetAsync(flush, 0, flush_bytes, s));
    TL_CUDA_CHECK(cudaEventRecord(start.at(i), s));
    fn();
    TL_CUDA_CHECK(cudaEventRecord(end.at(i), s));
  }
  TL_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<double> times;
  times.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    float ms = 0;
    TL_CUDA_CHECK(cudaEventElapsedTime(&ms, start.at(i), end.at(i)));
    times.push_back(double(ms));
    TL_CUDA_CHECK(cudaEventDestroy(start.at(i)));
    TL_CUDA_CHECK(cudaEventDestroy(end.at(i)));
  }
  return summarize(std::move(times), o);
}
#endif

}  // namespace detail

// Times fn() (see the top of this file). fn launches work on o.backend; on the CUDA backend
// it should not wait for it (tl::launch_options::wait = false), or each call's time includes
// the host's round trip. A function that leaves GPU work running while timed on the host's
// clock (o.backend = cpu, the default) is refused: that clock would time the launches only.
template <class F>
bench_result do_bench(F&& fn, const bench_options& o = {}) {
  detail::check_bench_options(o);
  if (o.backend == tl::backend::cpu) return detail::bench_cpu(fn, o);
#if defined(__CUDACC__)
  return detail::bench_cuda(fn, o);
#else
  throw usage_error("tl::do_bench: timing on the CUDA backend needs the translation unit compiled by nvcc");
#endif
}

}  // namespace tl
