// dot on the tensor cores (mma.sync, wgmma on sm_90a) and by FMA, against the CPU's emulation.
#include "gpu_testing.hpp"

using namespace gpu_testing;
using tl::None;
using tl::_;

// z = dot(a, b, acc) for M x K and K x N tiles of T (2-D) or a batch of them (3-D).
template <class T, int BT, int M, int N, int K, tl::input_precision P>
TL_KERNEL void dot_kernel(tl::ptr<T> a_ptr, tl::ptr<T> b_ptr, tl::ptr<float> acc_ptr, tl::ptr<float> z_ptr) {
  auto k = tl::arange<0, K>();
  if constexpr (BT == 1) {
    auto m = tl::arange<0, M>()(_, None);
    auto n = tl::arange<0, N>()(None, _);
    auto a = tl::load(a_ptr + m * K + k(None, _));
    auto b = tl::load(b_ptr + k(_, None) * N + n);
    auto acc = tl::load(acc_ptr + m * N + n);
    tl::store(z_ptr + m * N + n, tl::dot(a, b, acc, tl::precision_t<P>{}));
  } else {
    auto bt = tl::arange<0, BT>()(_, None, None);
    auto m = tl::arange<0, M>()(None, _, None);
    auto n = tl::arange<0, N>()(None, None, _);
    auto a = tl::load(a_ptr + bt * M * K + m * K + k(None, None, _));
    auto b = tl::load(b_ptr + bt * K * N + k(None, _, None) * N + n);
    auto acc = tl::load(acc_ptr + bt * M * N + m * N + n);
    tl::store(z_ptr + bt * M * N + m * N + n, tl::dot(a, b, acc, tl::precision_t<P>{}));
  }
}

template <class T, int BT, int M, int N, int K, tl::input_precision P>
void check_dot(double tol) {
  std::vector<T> a(std::size_t(BT) * M * K), b(std::size_t(BT) * K * N);
  for (auto& v : a) v = static_cast<T>(random_values(1, -1, 1)[0]);
  for (auto& v : b) v = static_cast<T>(random_values(1, -1, 1)[0]);
  auto acc = random_values(std::size_t(BT) * M * N);
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> z(std::size_t(BT) * M * N, NAN);
    tl::launch<dot_kernel<T, BT, M, N, K, P>>(tl::grid(1), o, a, b, acc, z);
    return z;
  };
  require_agree(run(cpu), run(cuda), tol, tol,
                "dot " + std::to_string(BT) + "x" + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K));
}

TEST_CASE("dot on tensor cores: fp16, bf16 and tf32 agree with the CPU's emulation", "[gpu][dot]") {
  using enum tl::input_precision;
  check_dot<tl::fp16, 1, 16, 16, 16, tf32>(1e-5);
  check_dot<tl::fp16, 1, 64, 32, 64, tf32>(1e-5);
  check_dot<tl::bf16, 1, 32, 64, 32, tf32>(1e-5);
  check_dot<tl::fp16, 2, 32, 16, 32, tf32>(1e-5);
  check_dot<float, 1, 32, 32, 32, tf32>(1e-5);   // both cut inputs to tf32: sums differ in order only
  check_dot<float, 1, 64, 64, 32, tf32>(1e-5);
  check_dot<float, 2, 16, 32, 16, tf32>(1e-5);
}

// On sm_90a these shapes take wgmma (a warpgroup per 64 rows, operands in swizzled shared
// memory): every swizzle width (rows of 32, 64, 128 bytes and wider), B stored MN-major
// (16-bit, N a multiple of 64) or K-major, one instruction or several along N. Elsewhere
// they take mma.sync and check that instead.
TEST_CASE("dot shapes of every wgmma operand layout agree with the CPU", "[gpu][dot]") {
  using tl::input_precision::tf32;
  check_dot<tl::fp16, 1, 64, 16, 16, tf32>(1e-5);    // 32-byte rows, one n16 instruction
  check_dot<tl::fp16, 1, 64, 64, 32, tf32>(1e-5);    // 64-byte rows, B MN-major
  check_dot<tl::bf16, 1, 128, 256, 64, tf32>(1e-5);  // 128-byte rows, one n256 instruction
  check_dot<tl::fp16, 1, 64, 128, 128, tf32>(1e-5);  // two columns of swizzle atoms along K
  check_dot<tl::bf16, 1, 64, 512, 16, tf32>(1e-5);   // two n256 instructions
  check_dot<tl::fp16, 1, 128, 32, 64, tf32>(1e-5);   // B K-major (N not a multiple of 64)
  check_dot<float, 1, 64, 16, 16, tf32>(1e-5);       // tf32: 64-byte rows
  check_dot<float, 1, 128, 128, 32, tf32>(1e-5);     // tf32: 128-byte rows, two 64-row tiles per warpgroup
}

TEST_CASE("dot without tensor cores: ieee, tf32x3 and float64 agree", "[gpu][dot]") {
  using enum tl::input_precision;
  check_dot<float, 1, 32, 32, 64, ieee>(1e-5);
  check_dot<float, 2, 16, 16, 16, ieee>(1e-5);
  check_dot<float, 1, 16, 32, 16, tf32x3>(1e-5);
  check_dot<double, 1, 16, 16, 32, ieee>(1e-12);
}
