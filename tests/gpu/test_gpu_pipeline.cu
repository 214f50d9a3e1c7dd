// The dot's operand ring (backend/cuda/pipeline.hpp, launch_options::num_stages): a wgmma dot
// in a loop copies the next K step's tiles ahead. Whatever order a loop walks K in, however many
// dots share a loop, at edge tiles and with unchecked pointers, the results are bit for bit
// those of the same kernel launched with num_stages = 1 (no copies ahead: the same instructions
// on the same operands), and agree with the CPU.
#include <tl/tl.hpp>

#include "gpu_testing.hpp"

using namespace gpu_testing;
using tl::None;
using tl::_;

namespace {

enum walk : int {
  forward,       // k = 0, BK, 2 BK, ...: each call's tiles are the ones the call before copied ahead
  backward,      // k from the last step down: every prediction is wrong
  evens_odds,    // every other step, then the ones skipped: wrong, then right only by accident
  two_dots,      // two dots of the same shape in one step (the second with another A): they alternate
  fixed_a,       // A is one tile loaded before the loop (as flash attention's q); only B walks
  fixed_then_forward,  // a fixed_a loop, then a forward loop: the ring copies ahead again
  shapes_differ  // two dots of different shapes in one step: the second never owns the ring
};

// C = A B (A: M x K, row stride lda; B: K x N, row stride N), one BM x BN tile per program; the
// walk says in which order the loop visits K. two_dots adds A2 B (A2 = A's rows shifted by one)
// into the same accumulator; shapes_differ computes the first BM / 2 rows of A2 B into a second
// accumulator, stored after C; fixed_a multiplies A's first BK columns with every step of B;
// fixed_then_forward adds a fixed_a loop's product and a forward loop's.
template <int BM, int BN, int BK, walk W>
TL_KERNEL void walk_kernel(tl::ptr<tl::fp16> a_ptr, tl::ptr<tl::fp16> b_ptr, tl::ptr<float> c_ptr, int M, int N, int K,
                           int lda) {
  auto rm = tl::program_id(0) * BM + tl::arange<0, BM>();
  auto rn = tl::program_id(1) * BN + tl::arange<0, BN>();
  auto rk = tl::arange<0, BK>();
  auto acc = tl::zeros<BM, BN>(tl::float32);
  auto rh = tl::program_id(0) * BM + tl::arange<0, BM / 2>();  // shapes_differ: the first half of the rows
  [[maybe_unused]] auto half = tl::zeros<BM / 2, BN>(tl::float32);
  const int steps = tl::cdiv(K, BK);
  auto step = [&](int k, bool fixed = W == fixed_a) {
    auto ka = (fixed ? 0 : k) + rk;
    auto a = tl::load(a_ptr + rm(_, None) * lda + ka(None, _), (rm(_, None) < M) & (ka(None, _) < K));
    auto b = tl::load(b_ptr + (k + rk)(_, None) * N + rn(None, _), ((k + rk)(_, None) < K) & (rn(None, _) < N));
    acc = tl::dot(a, b, acc);
    if constexpr (W == two_dots) {
      auto a2 = tl::load(a_ptr + (rm + 1)(_, None) * lda + ka(None, _), ((rm + 1)(_, None) < M) & (ka(None, _) < K));
      acc = tl::dot(a2, b, acc);
    }
    if constexpr (W == shapes_differ) {  // a dot of half the rows, into its own accumulator
      auto a2 = tl::load(a_ptr + (rh + 1)(_, None) * lda + ka(None, _), ((rh + 1)(_, None) < M) & (ka(None, _) < K));
      half = tl::dot(a2, b, half);
    }
  };
  if constexpr (W == backward) {
    for (int s = steps - 1; s >= 0; --s) step(s * BK);
  } else if constexpr (W == evens_odds) {
    for (int s = 0; s < steps; s += 2) step(s * BK);
    for (int s = 1; s < steps; s += 2) step(s * BK);
  } else if constexpr (W == fixed_then_forward) {
    for (int k : tl::range(0, K, BK)) step(k, true);
    for (int k : tl::range(0, K, BK)) step(k);
  } else {
    for (int k : tl::range(0, K, BK)) step(k);
  }
  tl::store(c_ptr + rm(_, None) * N + rn(None, _), acc, (rm(_, None) < M) & (rn(None, _) < N));
  if constexpr (W == shapes_differ)
    tl::store(c_ptr + M * N + rh(_, None) * N + rn(None, _), half, (rh(_, None) < M) & (rn(None, _) < N));
}

std::vector<tl::fp16> random_halves(std::size_t n) {
  std::vector<tl::fp16> v(n);
  for (auto& e : v) e = static_cast<tl::fp16>(std::round(random_values(1, -8, 8)[0]) / 8);  // exact products
  return v;
}

template <int BM, int BN, int BK, walk W>
void check_walk(int M, int N, int K, int pad, bool unchecked = false) {
  const int lda = K + pad;
  auto a = random_halves(std::size_t(M) * lda), b = random_halves(std::size_t(K) * N);
  const std::size_t out = std::size_t(2) * M * N;
  const std::string what = "walk " + std::to_string(int(W)) + " tile " + std::to_string(BM) + "x" + std::to_string(BN) +
                           "x" + std::to_string(BK) + " sizes " + std::to_string(M) + "x" + std::to_string(N) + "x" +
                           std::to_string(K) + " pad " + std::to_string(pad) + (unchecked ? " unchecked" : "");
  INFO(what);
  const tl::grid g(tl::cdiv(M, BM), tl::cdiv(N, BN));
  std::vector<float> c_cpu(out, 0.0f);
  tl::launch<walk_kernel<BM, BN, BK, W>>(g, cpu, a, b, c_cpu, M, N, K, lda);
  auto on_gpu = [&](int stages, tl::launch_report* report) {
    const tl::cuda::buffer<tl::fp16> da(a, "a"), db(b, "b");
    std::vector<float> zero(out, 0.0f);
    const tl::cuda::buffer<float> dc(zero, "c");
    tl::launch_options o = cuda;
    o.num_stages = stages;
    const tl::launch_report r =
        unchecked ? tl::launch<walk_kernel<BM, BN, BK, W>>(g, o, da.data(), db.data(), dc.data(), M, N, K, lda)
                  : tl::launch<walk_kernel<BM, BN, BK, W>>(g, o, da, db, dc, M, N, K, lda);
    if (report) *report = r;
    return dc.to_host();
  };
  tl::launch_report ring_report, plain_report;
  const auto with_ring = on_gpu(3, &ring_report), without = on_gpu(1, &plain_report);
  // The launch gives the dots' arena always, and the ring's two buffers (the arena's size
  // each) only with num_stages >= 2.
  const int arena = int(tl::detail::cuda::dynamic_bytes({.arena = BM * BK * 2 + BK * BN * 2 <= 32 * 1024 ? 32 * 1024 : 48 * 1024}));
  CHECK(plain_report.dynamic_shared_bytes > 0);
  CHECK(plain_report.dynamic_shared_bytes <= arena);
  // Puzzle 11's loop and tile (4 warps: two programs per multiprocessor) have room for the
  // ring; kernels with two dots need more shared memory, and may not.
  if (W == forward && BM == 128 && BN == 128 && BK == 64)
    CHECK(ring_report.dynamic_shared_bytes == plain_report.dynamic_shared_bytes + 2 * 32 * 1024);
  require_agree(without, with_ring, 0, 0, what + ": num_stages 3 against 1, bit for bit");
  // Products of eighths are exact in fp16 and float32; sums of up to a few hundred of them
  // differ from the CPU's only by the order of the additions.
  require_agree(c_cpu, with_ring, 1e-4, 1e-5, what + ": GPU against CPU");
}

}  // namespace

TEST_CASE("a dot that copies the next K step ahead gives bit for bit the results without", "[gpu][dot][pipeline]") {
  // Whole tiles, K a multiple of the step: every call but the first finds its tiles copied.
  check_walk<128, 128, 64, forward>(256, 256, 512, 0);
  check_walk<64, 128, 64, forward>(128, 256, 320, 8);
  // Edge tiles (M, N, K not multiples): the last step's tiles are partial (the plain path);
  // copies ahead that would leave a buffer are not made.
  check_walk<128, 128, 64, forward>(200, 136, 200, 0);
  check_walk<128, 128, 64, forward>(random_int(1, 300), random_int(1, 300), random_int(1, 400), random_int(0, 3) * 8);
  // Unchecked pointers (raw device pointers: no buffer extent): nothing is copied ahead.
  check_walk<128, 128, 64, forward>(256, 128, 256, 0, true);
}

TEST_CASE("loops that do not walk K one step a call get their own tiles", "[gpu][dot][pipeline]") {
  check_walk<128, 128, 64, backward>(256, 256, 512, 0);
  check_walk<128, 128, 64, evens_odds>(128, 256, 448, 8);
  check_walk<128, 128, 64, fixed_a>(256, 128, 512, 0);
  check_walk<128, 128, 64, fixed_a>(random_int(1, 300), random_int(1, 300), random_int(1, 400), 0);
  check_walk<64, 128, 64, fixed_then_forward>(192, 256, 384, 8);
  check_walk<128, 128, 64, two_dots>(256, 256, 384, 0);
  check_walk<128, 128, 32, shapes_differ>(256, 128, 320, 0);
  check_walk<128, 128, 64, backward>(random_int(1, 300), random_int(1, 300), random_int(1, 400), 0);
}

TEST_CASE("a reservation of programs per multiprocessor leaves the ring's launches their shared memory",
          "[gpu][dot][pipeline]") {
  // The ring's plan (97 KiB of dynamic shared memory for this tile) is worked out once; a launch
  // reserving memory for 3 programs per multiprocessor asks for less, and must not lower the
  // kernel's limit below what the ring's next launch takes.
  const int M = 256, N = 256, K = 256;
  auto a = random_halves(std::size_t(M) * K), b = random_halves(std::size_t(K) * N);
  const tl::grid g(M / 128, N / 128);
  std::vector<float> c_cpu(std::size_t(2) * M * N, 0.0f);
  tl::launch<walk_kernel<128, 128, 64, forward>>(g, cpu, a, b, c_cpu, M, N, K, K);
  const tl::cuda::buffer<tl::fp16> da(a, "a"), db(b, "b");
  auto run = [&](int programs_per_sm) {
    std::vector<float> zero(c_cpu.size(), 0.0f);
    const tl::cuda::buffer<float> dc(zero, "c");
    tl::launch_options o = cuda;
    o.programs_per_sm = programs_per_sm;
    const tl::launch_report r = tl::launch<walk_kernel<128, 128, 64, forward>>(g, o, da, db, dc, M, N, K, K);
    return std::pair{r.dynamic_shared_bytes, dc.to_host()};
  };
  const auto [ring_bytes, first] = run(0);
  const auto [reserved_bytes, reserved] = run(3);
  const auto [again_bytes, again] = run(0);
  CHECK(reserved_bytes < ring_bytes);
  CHECK(again_bytes == ring_bytes);
  require_agree(first, reserved, 0, 0, "3 programs per SM against the ring, bit for bit");
  require_agree(first, again, 0, 0, "the ring after a reservation, bit for bit");
  require_agree(c_cpu, again, 1e-4, 1e-5, "GPU against CPU");
}
