// TL_MIN_PROGRAMS_PER_SM (this file is compiled with TL_NUM_WARPS=8 and
// TL_MIN_PROGRAMS_PER_SM=2): ptxas keeps a kernel's registers within what two programs of 8
// warps leave a multiprocessor (65536 / 512 = 128), spilling if it must, and the results do
// not change.
#include "gpu_testing.hpp"

using namespace gpu_testing;
using tl::None;
using tl::_;

// A tf32 dot whose A is an expression (A from registers, B copied into its transposed place):
// about 170 registers at 8 warps when nothing caps them.
template <int M, int N, int K>
TL_KERNEL void scaled_matmul_kernel(tl::ptr<const float> a_ptr, tl::ptr<const float> s_ptr,
                                    tl::ptr<const float> b_ptr, tl::ptr<float> z_ptr) {
  auto m = tl::arange<0, M>();
  auto n = tl::arange<0, N>();
  auto k = tl::arange<0, K>();
  auto acc = tl::zeros<M, N>(tl::float32);
  for (int step = 0; step < 2; ++step) {
    auto a = tl::load(a_ptr + m(_, None) * (2 * K) + step * K + k(None, _));
    auto s = tl::load(s_ptr + m);
    auto b = tl::load(b_ptr + (step * K + k(_, None)) * N + n(None, _));
    acc += tl::dot(a * s(_, None), b);
  }
  tl::store(z_ptr + m(_, None) * N + n(None, _), acc);
}

TEST_CASE("TL_MIN_PROGRAMS_PER_SM=2 caps an 8-warp kernel at 128 registers, and its dot agrees with the CPU",
          "[gpu][warps][dot]") {
  static_assert(tl::detail::cuda::threads == 256 && TL_MIN_PROGRAMS_PER_SM == 2);
  constexpr int M = 128, N = 128, K = 64;
  auto a = random_values(std::size_t(M) * 2 * K, -1, 1), s = random_values(M, -2, 2),
       b = random_values(std::size_t(2 * K) * N, -1, 1);
  tl::launch_report report;
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> z(std::size_t(M) * N, NAN);
    report = tl::launch<scaled_matmul_kernel<M, N, K>>(tl::grid(1), o, a, s, b, z);
    return z;
  };
  const auto c = run(cpu);
  const auto g = run(cuda);
  require_agree(c, g, 1e-4, 1e-5);
  INFO("registers " << report.registers << ", local memory " << report.local_bytes << " bytes a thread");
  REQUIRE(report.registers > 0);
  REQUIRE(report.registers <= 65536 / (2 * 256));
}
