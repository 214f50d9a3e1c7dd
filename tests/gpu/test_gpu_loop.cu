// The loop the backend schedules (range::fold; backend/cuda/loop.hpp): on sm_90a a K loop of
// dots on tensor descriptors' blocks runs as a pipeline of bulk tensor copies and wgmma groups.
// Against the CPU backend and the plain loop on the GPU, at random sizes with ragged edges, for
// every type the pipeline takes, with 1 to 5 stages, in persistent loops, and for loops that break
// the pipeline's rules or whose operands it does not take (pointer blocks): they run plain, or
// plain from where they break them, with the same results.
// Inputs are multiples of 1/4, so every sum is exact and results agree bit for bit. Where the
// device is not an sm_90 one, every case still runs (plain), and the count of pipelined
// iterations is not required.
#define TL_COUNT_TMA_CALLS 1
#include <tl/tl.hpp>

#include "gpu_testing.hpp"

using namespace gpu_testing;
using tl::None;
using tl::_;

namespace {

__global__ void read_pipelined_count(unsigned long long* out) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  out[0] = tl::detail::cuda::the_map_pool().calls;
#else
  out[0] = 0;
#endif
}
// Iterations this file's pipelined loops have issued so far.
unsigned long long pipelined() {
  unsigned long long* d = nullptr;
  unsigned long long n = 0;
  REQUIRE(cudaMalloc(&d, sizeof n) == cudaSuccess);
  read_pipelined_count<<<1, 1>>>(d);
  REQUIRE(cudaMemcpy(&n, d, sizeof n, cudaMemcpyDeviceToHost) == cudaSuccess);
  REQUIRE(cudaFree(d) == cudaSuccess);
  return n;
}
bool device_is_sm90() {
  int dev = 0, major = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  return major == 9;
}
void require_pipelined_since(unsigned long long before, const char* what) {
  INFO(what);
  if (device_is_sm90()) CHECK(pipelined() > before);
  else WARN("not an sm_90 device: the loops ran plain, the pipeline's count is not checked");
}

// How the K loop is written: fold (pipelined), a plain for (each dot its own), fold with the loop's
// own num_stages, and four forms that break the pipeline's rules.
enum class form { fold, plain, fold_stages, updated_operand, two_tensors, not_the_dot, stride_k, pointers };

// C = A @ B^T, A M x K and B N x K (row strides lda, ldb), through descriptors.
template <int BM, int BN, int BK, class T, form F>
TL_KERNEL void nt_k(tl::ptr<const T> a, tl::ptr<const T> a2, tl::ptr<const T> b, tl::ptr<float> c, int M, int N, int K,
                    int lda, int ldb, int stages) {
  auto ad = tl::make_tensor_descriptor(a, {M, K}, {lda, 1}, tl::block_shape<BM, BK>);
  auto ad2 = tl::make_tensor_descriptor(a2, {M, K}, {lda, 1}, tl::block_shape<BM, BK>);
  auto bd = tl::make_tensor_descriptor(b, {N, K}, {ldb, 1}, tl::block_shape<BN, BK>);
  auto cd = tl::make_tensor_descriptor(c, {M, N}, {N, 1}, tl::block_shape<BM, BN>);
  const int m = tl::program_id(0) * BM, n = tl::program_id(1) * BN;
  const int k_tiles = tl::cdiv(K, BK);
  auto acc = tl::zeros<BM, BN>(tl::float32);
  if constexpr (F == form::plain) {
    for (int k : tl::range(0, k_tiles)) acc = tl::dot(ad.load({m, k * BK}), tl::trans(bd.load({n, k * BK})), acc);
  } else if constexpr (F == form::fold) {
    acc = tl::range(0, k_tiles).fold(acc, [&](int k, auto acc) {
      auto x = ad.load({m, k * BK});
      auto y = bd.load({n, k * BK});
      return tl::dot(x, tl::trans(y), acc);
    });
  } else if constexpr (F == form::fold_stages) {
    acc = tl::range(0, k_tiles, 1, {.num_stages = stages}).fold(acc, [&](int k, auto acc) {
      return tl::dot(ad.load({m, k * BK}), tl::trans(bd.load({n, k * BK})), acc);
    });
  } else if constexpr (F == form::updated_operand) {
    // From the fourth iteration on, A's block is updated after its load (no longer what memory holds).
    acc = tl::range(0, k_tiles).fold(acc, [&](int k, auto acc) {
      auto x = ad.load({m, k * BK});
      if (k >= 3) x *= T(2);
      return tl::dot(x, tl::trans(bd.load({n, k * BK})), acc);
    });
  } else if constexpr (F == form::two_tensors) {
    // Odd iterations read another A: the pipeline's maps are the first iteration's.
    acc = tl::range(0, k_tiles).fold(acc, [&](int k, auto acc) {
      auto& d = k % 2 ? ad2 : ad;
      return tl::dot(d.load({m, k * BK}), tl::trans(bd.load({n, k * BK})), acc);
    });
  } else if constexpr (F == form::not_the_dot) {
    // The body's result is not the dot itself: a plain loop.
    acc = tl::range(0, k_tiles).fold(acc, [&](int k, auto acc) {
      return tl::dot(ad.load({m, k * BK}), tl::trans(bd.load({n, k * BK})), acc) + 0.0f;
    });
  } else if constexpr (F == form::pointers) {
    // Pointer blocks (tutorial 03's form): not the pipeline's operands, a plain loop.
    auto rows = m + tl::arange<0, BM>();
    auto cols = n + tl::arange<0, BN>();
    auto ks = tl::arange<0, BK>();
    acc = tl::range(0, k_tiles).fold(acc, [&](int k, auto acc) {
      auto kk = k * BK + ks;
      auto x = tl::load(a + (rows(_, None) * lda + kk(None, _)), (rows(_, None) < M) & (kk(None, _) < K), T(0));
      auto y = tl::load(b + (cols(_, None) * ldb + kk(None, _)), (cols(_, None) < N) & (kk(None, _) < K), T(0));
      return tl::dot(x, tl::trans(y), acc);
    });
  } else if constexpr (F == form::stride_k) {
    // Every second K tile, backwards: any step, any direction.
    acc = tl::range(k_tiles - 1, -1, -2).fold(acc, [&](int k, auto acc) {
      return tl::dot(ad.load({m, k * BK}), tl::trans(bd.load({n, k * BK})), acc);
    });
  }
  cd.store({m, n}, acc);
}

// The same, persistent: `programs` programs walk the tiles, a pipelined loop each.
template <int BM, int BN, int BK>
TL_KERNEL void nt_persistent_k(tl::ptr<const tl::fp16> a, tl::ptr<const tl::fp16> b, tl::ptr<float> c, int M, int N,
                               int K, int programs) {
  auto ad = tl::make_tensor_descriptor(a, {M, K}, {K, 1}, tl::block_shape<BM, BK>);
  auto bd = tl::make_tensor_descriptor(b, {N, K}, {K, 1}, tl::block_shape<BN, BK>);
  auto cd = tl::make_tensor_descriptor(c, {M, N}, {N, 1}, tl::block_shape<BM, BN>);
  const int tiles_n = tl::cdiv(N, BN), tiles = tl::cdiv(M, BM) * tiles_n;
  for (int tile : tl::range(tl::program_id(0), tiles, programs)) {
    const int m = tile / tiles_n * BM, n = tile % tiles_n * BN;
    auto acc = tl::range(0, tl::cdiv(K, BK)).fold(tl::zeros<BM, BN>(tl::float32), [&](int k, auto acc) {
      return tl::dot(ad.load({m, k * BK}), tl::trans(bd.load({n, k * BK})), acc);
    });
    cd.store({m, n}, acc);
  }
}

template <int BM, int BN, int BK, class T, form F>
std::vector<float> run_nt(const tl::launch_options& o, const std::vector<T>& a, const std::vector<T>& a2,
                          const std::vector<T>& b, int M, int N, int K, int lda, int ldb, int stages) {
  std::vector<float> c(std::size_t(M) * N, std::nanf(""));
  tl::launch<nt_k<BM, BN, BK, T, F>>(tl::grid(tl::cdiv(M, BM), tl::cdiv(N, BN)), o, tl::ptr(a, "a"), tl::ptr(a2, "a2"),
                                     tl::ptr(b, "b"), tl::ptr(c, "c"), M, N, K, lda, ldb, stages);
  return c;
}

struct problem {
  int M, N, K, lda, ldb;
};
template <class T>
problem random_problem(int trial, int BK, bool aligned) {
  const int align = 16 / int(sizeof(T));
  problem p{};
  p.M = trial == 0 ? 256 : random_int(1, 300);
  p.N = trial == 0 ? 256 : random_int(1, 300);
  p.K = trial == 0 ? 8 * BK : random_int(1, 9 * BK);
  if (aligned) p.K = (p.K + align - 1) / align * align;
  p.lda = p.K + (trial % 2 ? align : 0);
  p.ldb = p.K;
  return p;
}

template <int BM, int BN, int BK, class T>
void check_fold(int trials, const char* what) {
  for (int trial = 0; trial < trials; ++trial) {
    const problem p = random_problem<T>(trial, BK, true);
    const auto a = random_quarters<T>(std::size_t(p.M) * p.lda);
    const auto b = random_quarters<T>(std::size_t(p.N) * p.ldb);
    INFO(what << ": M " << p.M << " N " << p.N << " K " << p.K << " lda " << p.lda);
    const auto expected = run_nt<BM, BN, BK, T, form::plain>(cpu, a, a, b, p.M, p.N, p.K, p.lda, p.ldb, 0);
    require_agree(expected, run_nt<BM, BN, BK, T, form::fold>(cpu, a, a, b, p.M, p.N, p.K, p.lda, p.ldb, 0), 0, 0,
                  std::string(what) + ", fold on the CPU");
    require_agree(expected, run_nt<BM, BN, BK, T, form::plain>(cuda, a, a, b, p.M, p.N, p.K, p.lda, p.ldb, 0), 0, 0,
                  std::string(what) + ", plain loop on the GPU");
    for (int stages : {1, 2, 3, 4}) {  // the launch's num_stages (1: no ring, the loop runs plain)
      tl::launch_options o = cuda;
      o.num_stages = stages;
      require_agree(expected, run_nt<BM, BN, BK, T, form::fold>(o, a, a, b, p.M, p.N, p.K, p.lda, p.ldb, 0), 0, 0,
                    std::string(what) + ", fold, launch num_stages " + std::to_string(stages));
    }
    for (int stages : {2, 3, 5}) {  // the loop's own (5: the arena and four ring buffers, where they fit)
      tl::launch_options o = cuda;
      o.num_stages = 4;
      require_agree(expected, run_nt<BM, BN, BK, T, form::fold_stages>(o, a, a, b, p.M, p.N, p.K, p.lda, p.ldb, stages),
                    0, 0, std::string(what) + ", fold, loop num_stages " + std::to_string(stages));
    }
  }
}

}  // namespace

TEST_CASE("pipelined K loops agree with the plain loop and the CPU at random sizes, for each type and stage count",
          "[gpu][dot][loop][tma]") {
  const auto before = pipelined();
  check_fold<128, 128, 64, tl::fp16>(4, "fp16 128 x 128 x 64");
  check_fold<128, 128, 64, tl::bf16>(2, "bf16 128 x 128 x 64");
  check_fold<64, 64, 32, tl::fp16>(3, "fp16 64 x 64 x 32 (64-byte rows)");
  check_fold<64, 128, 128, tl::bf16>(2, "bf16 64 x 128 x 128 (two boxes a row)");
  check_fold<128, 64, 128, tl::fp8e4nv>(2, "fp8e4nv 128 x 64 x 128");
  check_fold<128, 128, 128, tl::fp8e5>(2, "fp8e5 128 x 128 x 128");
  check_fold<64, 64, 32, float>(2, "float32 (tf32) 64 x 64 x 32");
  require_pipelined_since(before, "the fold's loops were pipelined");
}

TEST_CASE("pipelined loops in a persistent kernel agree with the CPU", "[gpu][dot][loop][tma]") {
  const auto before = pipelined();
  for (int trial = 0; trial < 3; ++trial) {
    const int M = random_int(100, 400), N = random_int(100, 400), K = 8 * random_int(1, 60);
    const auto a = random_quarters<tl::fp16>(std::size_t(M) * K);
    const auto b = random_quarters<tl::fp16>(std::size_t(N) * K);
    const int programs = random_int(1, 7);
    auto run = [&](const tl::launch_options& o) {
      std::vector<float> c(std::size_t(M) * N, std::nanf(""));
      tl::launch<nt_persistent_k<128, 128, 64>>(tl::grid(programs), o, tl::ptr(a, "a"), tl::ptr(b, "b"),
                                                tl::ptr(c, "c"), M, N, K, programs);
      return c;
    };
    INFO("persistent: M " << M << " N " << N << " K " << K << ", " << programs << " programs");
    require_agree(run(cpu), run(cuda), 0, 0, "persistent");
  }
  require_pipelined_since(before, "the persistent kernel's loops were pipelined");
}

TEST_CASE("loops that break the pipeline's rules run plain from there and agree with the CPU",
          "[gpu][dot][loop][tma]") {
  for (int trial = 0; trial < 3; ++trial) {
    const problem p = random_problem<tl::fp16>(trial, 64, true);
    const auto a = random_quarters<tl::fp16>(std::size_t(p.M) * p.lda);
    const auto a2 = random_quarters<tl::fp16>(std::size_t(p.M) * p.lda);
    const auto b = random_quarters<tl::fp16>(std::size_t(p.N) * p.ldb);
    INFO("M " << p.M << " N " << p.N << " K " << p.K);
    auto both = [&]<form F>(const char* what) {
      require_agree(run_nt<128, 128, 64, tl::fp16, F>(cpu, a, a2, b, p.M, p.N, p.K, p.lda, p.ldb, 0),
                    run_nt<128, 128, 64, tl::fp16, F>(cuda, a, a2, b, p.M, p.N, p.K, p.lda, p.ldb, 0), 0, 0, what);
    };
    both.template operator()<form::updated_operand>("an operand updated after its load");
    both.template operator()<form::two_tensors>("another tensor every second iteration");
    both.template operator()<form::not_the_dot>("a body whose result is not the dot");
    both.template operator()<form::stride_k>("a step of -2");
    both.template operator()<form::pointers>("pointer blocks");
  }
  // A row stride the copy engine cannot take (not a multiple of 16 bytes): plain from the start.
  for (int trial = 1; trial < 3; ++trial) {
    problem p = random_problem<tl::fp16>(trial, 64, false);
    p.lda = p.K | 1;
    p.ldb = p.K | 1;
    const auto a = random_quarters<tl::fp16>(std::size_t(p.M) * p.lda);
    const auto b = random_quarters<tl::fp16>(std::size_t(p.N) * p.ldb);
    INFO("M " << p.M << " N " << p.N << " K " << p.K << " odd strides");
    require_agree(run_nt<128, 128, 64, tl::fp16, form::fold>(cpu, a, a, b, p.M, p.N, p.K, p.lda, p.ldb, 0),
                  run_nt<128, 128, 64, tl::fp16, form::fold>(cuda, a, a, b, p.M, p.N, p.K, p.lda, p.ldb, 0), 0, 0,
                  "odd strides");
  }
}
