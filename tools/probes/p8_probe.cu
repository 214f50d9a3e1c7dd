// Times puzzle 8's two-loop softmax (N0 = T = 2^14, B0 = 1, B1 = 1024) alone, as the puzzle
// writes it, with L2 eviction priorities on its accesses (tl::evict_last on the first
// loop's load, whose rows the second loop reads again; tl::evict_first on the second loop's
// load and store), and with the row's tiles prefetched into L2 some iterations ahead
// (docs/performance.md, steps 35 and 36), each with the programs per multiprocessor given on
// the command line (0: as many as fit). Build as p11_probe.cu says, with -DTL_NUM_WARPS=4.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <tl/tl.hpp>

#include "probe_common.hpp"

#include "p08_long_softmax.hpp"

// L2 prefetches, hand-written (a measurement, not a tl feature). Bulk: thread 0 prefetches the
// whole 4 KiB tile (cp.async.bulk.prefetch); else each thread one 32-byte sector.
template <bool Bulk>
__device__ __forceinline__ void l2_prefetch(const float* p, int tid) {
#ifdef __CUDA_ARCH__
  if constexpr (Bulk) {
    if (tid == 0) asm volatile("cp.async.bulk.prefetch.L2.global [%0], 4096;" ::"l"(p) : "memory");
  } else {
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p + tid * 8));
  }
#endif
}

// Puzzle 8's softmax_kernel with eviction priorities (First for the first loop's load, Second
// for the second loop's load, Store for its store) and prefetches of the row's tile D1
// iterations ahead in the first loop, D2 in the second (0: none).
template <int B0, int B1, class First, class Second, class Store, int D1 = 0, int D2 = 0, bool Bulk = false>
TL_KERNEL void softmax_variant(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, int N0, int T) {
  auto block_id_i = tl::program_id(0);
  const float log2_e = 1.44269504f;
  auto off_i = block_id_i * B0 + tl::arange<0, B0>();
  auto mask_i = off_i < N0;
  auto x_max = tl::full<B0>(-tl::inf, tl::float32);
  auto sum_x_exp = tl::zeros<B0>(tl::float32);
  const float* row = x_ptr.base + x_ptr.offset + std::size_t(block_id_i) * T;
  const int tid = tl::detail::cuda::thread_id();
  for (int d = 0; d < D1; ++d) l2_prefetch<Bulk>(row + d * B1, tid);
  for (int j : tl::range(0, T, B1)) {
    if (D1 > 0 && j + D1 * B1 < T) l2_prefetch<Bulk>(row + j + D1 * B1, tid);
    auto off_j = j + tl::arange<0, B1>();
    auto off_ij = off_i(_, None) * T + off_j(None, _);
    auto mask_ij = mask_i(_, None) & (off_j < T)(None, _);
    auto x = tl::load(x_ptr + off_ij, mask_ij, -tl::inf, First{});
    auto x_max_now = tl::maximum(x_max, tl::max<1>(x));
    auto x_exp = tl::exp2(log2_e * (x - x_max_now(_, None)));
    auto factor = tl::exp2(log2_e * (x_max - x_max_now));
    sum_x_exp = sum_x_exp * factor + tl::sum<1>(x_exp);
    x_max = x_max_now;
  }
  for (int d = 0; d < D2; ++d) l2_prefetch<Bulk>(row + d * B1, tid);
  for (int j : tl::range(0, T, B1)) {
    if (D2 > 0 && j + D2 * B1 < T) l2_prefetch<Bulk>(row + j + D2 * B1, tid);
    auto off_j = j + tl::arange<0, B1>();
    auto off_ij = off_i(_, None) * T + off_j(None, _);
    auto mask_ij = mask_i(_, None) & (off_j < T)(None, _);
    auto x = tl::load(x_ptr + off_ij, mask_ij, 0.0f, Second{});
    auto z = tl::exp2(log2_e * (x - x_max(_, None))) / sum_x_exp(_, None);
    tl::store(z_ptr + off_ij, z, mask_ij, Store{});
  }
}

using none = tl::eviction_policy<tl::eviction::normal>;
using last = tl::eviction_policy<tl::eviction::last>;
using first = tl::eviction_policy<tl::eviction::first>;

int main(int argc, char** argv) {
  const int n = 1 << 14;
  const std::size_t elems = std::size_t(n) * n;
  const auto x = probe::inputs<float>(elems, 1, "x");
  const tl::cuda::buffer<float> z(elems, "z");
  double copy_ms = 0;
  {  // the copy ceiling in this run: 1 GiB read + 1 GiB written
    const tl::cuda::buffer<float> a(elems, "a"), b(elems, "b");
    copy_ms = probe::median_ms([&] {
      TL_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), elems * sizeof(float), cudaMemcpyDeviceToDevice));
    });
  }
  const double bytes = 8.0 * double(elems);  // read once and write once counted
  std::printf("copy: %.4f ms (%.0f GB/s)\n", copy_ms, bytes / copy_ms / 1e6);
  std::vector<int> caps{0};
  for (int i = 1; i < argc; ++i) caps.push_back(std::atoi(argv[i]));
  auto time = [&](const char* name, auto launch) {
    for (int cap : caps) {
      const tl::launch_options o{.backend = tl::backend::cuda, .wait = false, .programs_per_sm = cap};
      const double ms = probe::median_ms([&] { launch(o); });
      std::printf("%-34s %2d/SM: %.4f ms  %.0f GB/s  %.3f of copy\n", name, cap, ms, bytes / ms / 1e6, copy_ms / ms);
    }
  };
  auto hinted = [&]<class F, class S, class W>(const char* name) {
    time(name, [&](const tl::launch_options& o) {
      tl::launch<softmax_variant<1, 1024, F, S, W>>(tl::grid(n), o, x, z, n, n);
    });
  };
  time("puzzle", [&](const tl::launch_options& o) { tl::launch<softmax_kernel<1, 1024>>(tl::grid(n), o, x, z, n, n); });
  hinted.template operator()<none, none, none>("hinted, no hints");
  hinted.template operator()<last, none, none>("loop1 last");
  hinted.template operator()<last, first, none>("loop1 last, loop2 first");
  hinted.template operator()<last, first, first>("loop1 last, loop2+store first");
  hinted.template operator()<none, none, first>("store first");
  auto pf = [&]<int D1, int D2, bool Bulk>(const char* name) {
    time(name, [&](const tl::launch_options& o) {
      tl::launch<softmax_variant<1, 1024, none, none, none, D1, D2, Bulk>>(tl::grid(n), o, x, z, n, n);
    });
  };
  pf.template operator()<0, 0, false>("pf none");
  pf.template operator()<1, 0, false>("pf sector d1=1");
  pf.template operator()<2, 0, false>("pf sector d1=2");
  pf.template operator()<4, 0, false>("pf sector d1=4");
  pf.template operator()<2, 2, false>("pf sector d1=2 d2=2");
  pf.template operator()<1, 0, true>("pf bulk d1=1");
  pf.template operator()<2, 0, true>("pf bulk d1=2");
  pf.template operator()<4, 0, true>("pf bulk d1=4");
  pf.template operator()<8, 0, true>("pf bulk d1=8");
  pf.template operator()<4, 2, true>("pf bulk d1=4 d2=2");
}
