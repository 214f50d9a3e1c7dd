// Dot operands copied by the bulk tensor copy engine (TMA, sm_90a: backend/cuda/dot_wgmma.hpp's
// run_from_tma, tensor_maps.hpp): tensor descriptors' blocks as A and trans(B), against the CPU
// backend at random sizes (edge tiles that the copy engine fills with 0), in K loops without the
// ring and with rings of 2 to 4 buffers, in persistent loops (the ring's prediction misses at each new tile), with a
// fixed A and a B walking rows (attention's q and keys), with more maps than a program keeps,
// and with strides the copy engine refuses (the cp.async path). Where the device is not an sm_90
// one, every case still runs, through cp.async, and the count of copy-engine calls is not
// required.
#define TL_COUNT_TMA_CALLS 1
#include <tl/tl.hpp>

#include <algorithm>

#include "gpu_testing.hpp"

using namespace gpu_testing;
using tl::None;
using tl::_;

namespace {

__global__ void read_tma_counts(unsigned long long* out) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) && TL_DESCRIPTOR_TMA
  out[0] = tl::detail::cuda::the_map_pool().calls;
  out[1] = tl::detail::cuda::the_map_pool().misses;
#else
  out[0] = out[1] = 0;
#endif
}
// Dot calls the copy engine has run in this file's kernels so far, and of those the misses
// (tiles not copied ahead by an earlier call).
struct tma_counts {
  unsigned long long calls = 0, misses = 0;
};
tma_counts tma_calls() {
  unsigned long long* d = nullptr;
  unsigned long long n[2] = {0, 0};
  REQUIRE(cudaMalloc(&d, sizeof n) == cudaSuccess);
  read_tma_counts<<<1, 1>>>(d);
  REQUIRE(cudaMemcpy(n, d, sizeof n, cudaMemcpyDeviceToHost) == cudaSuccess);
  REQUIRE(cudaFree(d) == cudaSuccess);
  return {n[0], n[1]};
}
// The copy engine ran, and its predictions hit: K loops of several steps with a ring.
void require_copy_engine_ran(const tma_counts& before) {
  const tma_counts after = tma_calls();
  CHECK(after.calls > before.calls);
  CHECK(after.misses - before.misses < after.calls - before.calls);
}
bool device_has_tma() {
  int dev = 0, major = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  return major == 9;  // the unit's sm_90a code runs there
}

// C = A @ B^T, A M x K and B N x K (row strides lda, ldb), through descriptors.
template <int BM, int BN, int BK, class T>
TL_KERNEL void nt_matmul_k(tl::ptr<const T> a, tl::ptr<const T> b, tl::ptr<float> c, int M, int N, int K, int lda,
                           int ldb) {
  auto ad = tl::make_tensor_descriptor(a, {M, K}, {lda, 1}, tl::block_shape<BM, BK>);
  auto bd = tl::make_tensor_descriptor(b, {N, K}, {ldb, 1}, tl::block_shape<BN, BK>);
  auto cd = tl::make_tensor_descriptor(c, {M, N}, {N, 1}, tl::block_shape<BM, BN>);
  const int m = tl::program_id(0) * BM, n = tl::program_id(1) * BN;
  auto acc = tl::zeros<BM, BN>(tl::float32);
  for (int k : tl::range(0, K, BK)) acc = tl::dot(ad.load({m, k}), tl::trans(bd.load({n, k})), acc);
  cd.store({m, n}, acc);
}

// The same, persistent: `programs` programs walk the tiles in turn.
template <int BM, int BN, int BK>
TL_KERNEL void nt_matmul_persistent_k(tl::ptr<const tl::fp16> a, tl::ptr<const tl::fp16> b, tl::ptr<float> c, int M,
                                      int N, int K, int programs) {
  auto ad = tl::make_tensor_descriptor(a, {M, K}, {K, 1}, tl::block_shape<BM, BK>);
  auto bd = tl::make_tensor_descriptor(b, {N, K}, {K, 1}, tl::block_shape<BN, BK>);
  auto cd = tl::make_tensor_descriptor(c, {M, N}, {N, 1}, tl::block_shape<BM, BN>);
  const int tiles_n = tl::cdiv(N, BN), tiles = tl::cdiv(M, BM) * tiles_n;
  for (int tile : tl::range(tl::program_id(0), tiles, programs)) {
    const int m = tile / tiles_n * BM, n = tile % tiles_n * BN;
    auto acc = tl::zeros<BM, BN>(tl::float32);
    for (int k : tl::range(0, K, BK)) acc = tl::dot(ad.load({m, k}), tl::trans(bd.load({n, k})), acc);
    cd.store({m, n}, acc);
  }
}

// S[m, j] = sum over key blocks of (q @ k_block^T)[m, j]: q stays, the keys walk rows (the
// prediction's step along B's rows, A kept in its buffer).
template <int BM, int BN, int D>
TL_KERNEL void keys_walk_k(tl::ptr<const tl::fp16> q, tl::ptr<const tl::fp16> k, tl::ptr<float> s, int M, int N_KEYS) {
  auto qd = tl::make_tensor_descriptor(q, {M, D}, {D, 1}, tl::block_shape<BM, D>);
  auto kd = tl::make_tensor_descriptor(k, {N_KEYS, D}, {D, 1}, tl::block_shape<BN, D>);
  const int m = tl::program_id(0) * BM;
  auto qb = qd.load({m, 0});
  auto acc = tl::zeros<BM, BN>(tl::float32);
  for (int start : tl::range(0, N_KEYS, BN)) acc += tl::dot(qb, tl::trans(kd.load({start, 0})));
  auto rows = m + tl::arange<0, BM>();
  tl::store(s + (rows(_, None) * BN + tl::arange<0, BN>()(None, _)), acc, rows(_, None) < M);
}

// C = A0 @ B0^T + A1 @ B1^T + A2 @ B2^T over three pairs of matrices: six maps, more than a
// program keeps (four), replaced as the loop goes.
template <int BM, int BN, int BK>
TL_KERNEL void three_pairs_k(tl::ptr<const tl::fp16> a, tl::ptr<const tl::fp16> b, tl::ptr<float> c, int M, int N,
                             int K) {
  const int m = tl::program_id(0) * BM, n = tl::program_id(1) * BN;
  auto acc = tl::zeros<BM, BN>(tl::float32);
  for (int pair = 0; pair < 3; ++pair) {
    auto ad = tl::make_tensor_descriptor(a + pair * M * K, {M, K}, {K, 1}, tl::block_shape<BM, BK>);
    auto bd = tl::make_tensor_descriptor(b + pair * N * K, {N, K}, {K, 1}, tl::block_shape<BN, BK>);
    for (int k : tl::range(0, K, BK)) acc = tl::dot(ad.load({m, k}), tl::trans(bd.load({n, k})), acc);
  }
  auto rows = m + tl::arange<0, BM>();
  auto cols = n + tl::arange<0, BN>();
  tl::store(c + (rows(_, None) * N + cols(None, _)), acc, (rows(_, None) < M) & (cols(None, _) < N));
}

// Past 2^31 elements: a rank-1 descriptor's blocks (the pointer path), and a dot whose A has more
// rows than a tensor map's 32-bit coordinates reach (the copy engine through windows of rows).
template <int B>
TL_KERNEL void long_copy_k(tl::ptr<const float> x, tl::ptr<float> y, std::int64_t n, std::int64_t o) {
  auto xd = tl::make_tensor_descriptor(x, {n}, {1}, tl::block_shape<B>);
  auto yd = tl::make_tensor_descriptor(y, {n}, {1}, tl::block_shape<B>);
  const std::int64_t at = o + std::int64_t(tl::program_id(0)) * B;
  yd.store({at}, xd.load({at}) + 1.0f);
}
template <int BM, int BN, int K>
TL_KERNEL void tall_dot_k(tl::ptr<const tl::fp16> a, tl::ptr<const tl::fp16> b, tl::ptr<float> c, std::int64_t rows,
                          std::int64_t m0, int N) {
  auto ad = tl::make_tensor_descriptor(a, {rows, K}, {K, 1}, tl::block_shape<BM, K>);
  auto bd = tl::make_tensor_descriptor(b, {N, K}, {K, 1}, tl::block_shape<BN, K>);
  const std::int64_t m = m0 + std::int64_t(tl::program_id(0)) * BM;
  auto acc = tl::dot(ad.load({m, 0}), tl::trans(bd.load({0, 0})));
  auto r = tl::program_id(0) * BM + tl::arange<0, BM>();
  tl::store(c + (r(_, None) * BN + tl::arange<0, BN>()(None, _)), acc);
}

template <int BM, int BN, int BK, class T>
void check_nt(int trials, bool aligned_strides, const char* what) {
  for (int trial = 0; trial < trials; ++trial) {
    const int M = trial == 0 ? 256 : random_int(1, 300), N = trial == 0 ? 256 : random_int(1, 300);
    int K = trial == 0 ? 4 * BK : random_int(1, 5 * BK);
    const int align = 16 / int(sizeof(T));
    if (aligned_strides) K = (K + align - 1) / align * align;
    const int lda = K + (trial % 2 ? align : 0), ldb = K;
    const auto a = random_quarters<T>(std::size_t(M) * lda);
    const auto b = random_quarters<T>(std::size_t(N) * ldb);
    auto run = [&](tl::launch_options o, int stages) {
      o.num_stages = stages;
      std::vector<float> c(std::size_t(M) * N, std::nanf(""));
      tl::launch<nt_matmul_k<BM, BN, BK, T>>(tl::grid(tl::cdiv(M, BM), tl::cdiv(N, BN)), o, tl::ptr(a, "a"),
                                             tl::ptr(b, "b"), tl::ptr(c, "c"), M, N, K, lda, ldb);
      return c;
    };
    INFO(what << ": M " << M << " N " << N << " K " << K << " lda " << lda);
    const auto expected = run(cpu, 3);
    for (int stages : {1, 2, 3, 4})  // 1: the arena; else a ring of that many buffers
      require_agree(expected, run(cuda, stages), 0, 0, std::string(what) + ", num_stages " + std::to_string(stages));
  }
}

}  // namespace

TEST_CASE("descriptor operands through the copy engine agree with the CPU (A and trans(B), K loops)",
          "[gpu][dot][descriptor][tma]") {
  const auto before = tma_calls();
  check_nt<128, 128, 64, tl::fp16>(5, true, "fp16 128 x 128 x 64");
  check_nt<64, 64, 32, tl::fp16>(4, true, "fp16 64 x 64 x 32 (64-byte rows)");
  check_nt<64, 128, 16, tl::fp16>(3, true, "fp16 64 x 128 x 16 (32-byte rows)");
  check_nt<64, 64, 128, tl::bf16>(3, true, "bf16 64 x 64 x 128 (two boxes a row)");
  check_nt<128, 64, 128, tl::fp8e4nv>(3, true, "fp8e4nv 128 x 64 x 128");
  check_nt<64, 64, 32, float>(3, true, "float32 (tf32) 64 x 64 x 32");
  if (device_has_tma()) require_copy_engine_ran(before);
  else WARN("not an sm_90 device: the cases ran through cp.async, the copy engine's count is not checked");
}

TEST_CASE("descriptor operands whose strides the copy engine refuses take cp.async and agree with the CPU",
          "[gpu][dot][descriptor][tma]") {
  check_nt<64, 64, 32, tl::fp16>(4, false, "fp16, K not a multiple of 8");
}

TEST_CASE("persistent loops, a fixed A with B walking rows, and more maps than a program keeps agree with the CPU",
          "[gpu][dot][descriptor][tma]") {
  const auto before = tma_calls();
  for (int trial = 0; trial < 3; ++trial) {
    const int M = random_int(100, 400), N = random_int(100, 400), K = 8 * random_int(4, 40);
    const auto a = random_quarters<tl::fp16>(std::size_t(M) * K);
    const auto b = random_quarters<tl::fp16>(std::size_t(N) * K);
    const int programs = random_int(1, 7);
    auto run = [&](const tl::launch_options& o) {
      std::vector<float> c(std::size_t(M) * N, std::nanf(""));
      tl::launch<nt_matmul_persistent_k<128, 64, 64>>(tl::grid(programs), o, tl::ptr(a, "a"), tl::ptr(b, "b"),
                                                      tl::ptr(c, "c"), M, N, K, programs);
      return c;
    };
    INFO("persistent: M " << M << " N " << N << " K " << K << ", " << programs << " programs");
    require_agree(run(cpu), run(cuda), 0, 0, "persistent");
  }
  for (int trial = 0; trial < 3; ++trial) {
    const int M = random_int(1, 300), KEYS = random_int(1, 500);
    const auto q = random_quarters<tl::fp16>(std::size_t(M) * 64);
    const auto k = random_quarters<tl::fp16>(std::size_t(KEYS) * 64);
    auto run = [&](const tl::launch_options& o) {
      std::vector<float> s(std::size_t(M) * 64, std::nanf(""));
      tl::launch<keys_walk_k<128, 64, 64>>(tl::grid(tl::cdiv(M, 128)), o, tl::ptr(q, "q"), tl::ptr(k, "k"),
                                           tl::ptr(s, "s"), M, KEYS);
      return s;
    };
    INFO("keys walk: M " << M << " keys " << KEYS);
    require_agree(run(cpu), run(cuda), 0, 0, "keys walk");
  }
  for (int trial = 0; trial < 2; ++trial) {
    const int M = random_int(50, 200), N = random_int(50, 200), K = 8 * random_int(2, 20);
    const auto a = random_quarters<tl::fp16>(3 * std::size_t(M) * K);
    const auto b = random_quarters<tl::fp16>(3 * std::size_t(N) * K);
    auto run = [&](const tl::launch_options& o) {
      std::vector<float> c(std::size_t(M) * N, std::nanf(""));
      tl::launch<three_pairs_k<64, 64, 32>>(tl::grid(tl::cdiv(M, 64), tl::cdiv(N, 64)), o, tl::ptr(a, "a"),
                                            tl::ptr(b, "b"), tl::ptr(c, "c"), M, N, K);
      return c;
    };
    INFO("three pairs: M " << M << " N " << N << " K " << K);
    require_agree(run(cpu), run(cuda), 0, 0, "three pairs");
  }
  if (device_has_tma()) require_copy_engine_ran(before);
  else WARN("not an sm_90 device: the cases ran through cp.async, the copy engine's count is not checked");
}

TEST_CASE("descriptors past 2^31 elements: blocks through pointers, and dot operands through windows of tensor maps",
          "[gpu][descriptor][tma][large]") {
  // Rank 1: 2^31 + 4096 floats, blocks at the end (partly outside) and past 2^31.
  {
    const std::int64_t n = (std::int64_t(1) << 31) + 4096;
    tl::cuda::buffer<float> x(std::size_t(n), "x"), y(std::size_t(n), "y");
    for (const std::int64_t o : {n - 300, (std::int64_t(1) << 31) + 64}) {
      std::vector<float> xs(512), ys(512, -5.0f);
      for (int i = 0; i < 512; ++i) xs[std::size_t(i)] = float((o + i) % 1000);
      const std::int64_t count = std::min<std::int64_t>(512, n - o);
      REQUIRE(cudaMemcpy(x.data() + o, xs.data(), std::size_t(count) * 4, cudaMemcpyHostToDevice) == cudaSuccess);
      REQUIRE(cudaMemcpy(y.data() + o, ys.data(), std::size_t(count) * 4, cudaMemcpyHostToDevice) == cudaSuccess);
      tl::launch<long_copy_k<128>>(tl::grid(2), cuda, x, y, n, o);  // 256 elements from o
      REQUIRE(cudaMemcpy(ys.data(), y.data() + o, std::size_t(count) * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
      INFO("offset " << o);
      for (std::int64_t i = 0; i < count; ++i)
        REQUIRE(ys[std::size_t(i)] == (i < 256 ? xs[std::size_t(i)] + 1.0f : -5.0f));
    }
  }
  // A dot whose A has 2^31 + 256 rows of 16 fp16 (64 GiB): blocks past 2^31, across the first
  // window's end, and at the tensor's end (rows outside it read as 0).
  {
    constexpr int BM = 128, BN = 64, K = 16;
    const std::int64_t rows = (std::int64_t(1) << 31) + 256;
    tl::cuda::buffer<tl::fp16> a(std::size_t(rows * K), "a");
    const auto bh = random_quarters<tl::fp16>(std::size_t(BN) * K);
    const tl::cuda::buffer<tl::fp16> b(bh, "b");
    const auto before = tma_calls();
    for (const std::int64_t m0 : {(std::int64_t(1) << 31) + 8, (std::int64_t(1) << 30) - 64, rows - 200}) {
      const int programs = 2;
      std::vector<tl::fp16> ah(std::size_t(programs) * BM * K);
      const std::int64_t inside = std::min<std::int64_t>(programs * BM, rows - m0);
      for (auto& e : ah) e = tl::fp16(float(random_int(-8, 8)) / 4);
      REQUIRE(cudaMemcpy(a.data() + m0 * K, ah.data(), std::size_t(inside * K) * 2, cudaMemcpyHostToDevice) ==
              cudaSuccess);
      tl::cuda::buffer<float> c(std::size_t(programs) * BM * BN, "c");
      c.fill(std::nanf(""));
      tl::launch<tall_dot_k<BM, BN, K>>(tl::grid(programs), cuda, a, b, c, rows, m0, BN);
      const std::vector<float> got = c.to_host();
      INFO("first row " << m0);
      std::size_t bad = 0;
      for (int i = 0; i < programs * BM; ++i)
        for (int j = 0; j < BN; ++j) {
          double want = 0;
          if (i < inside)
            for (int k = 0; k < K; ++k)
              want += double(float(ah[std::size_t(i * K + k)])) * double(float(bh[std::size_t(j * K + k)]));
          bad += got[std::size_t(i * BN + j)] != float(want);
        }
      REQUIRE(bad == 0);
    }
    if (device_has_tma()) CHECK(tma_calls().calls > before.calls);
  }
}
