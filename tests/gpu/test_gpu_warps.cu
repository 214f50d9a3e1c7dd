// The same ops with 8 warps per program (this file is compiled with TL_NUM_WARPS=8): other
// layouts, reduction groups and mma tile assignments than the default 4 warps. Its kernels are
// also inlined into their entry points before ptxas (TL_INLINE_KERNELS=1), the setting for
// kernels too large for the compiler to inline: same results.
#include "gpu_testing.hpp"

using namespace gpu_testing;
using tl::None;
using tl::_;

template <int B0, int B1>
TL_KERNEL void softmax_rows_kernel(tl::ptr<const float> x_ptr, tl::ptr<float> z_ptr, int N0, int N1) {
  auto r = tl::program_id(0) * B0 + tl::arange<0, B0>();
  auto c = tl::arange<0, B1>();
  auto m = (r(_, None) < N0) & (c(None, _) < N1);
  auto x = tl::load(x_ptr + r(_, None) * N1 + c(None, _), m, -tl::inf);
  auto e = tl::exp(x - tl::max<1>(x)(_, None));
  tl::store(z_ptr + r(_, None) * N1 + c(None, _), e / tl::sum<1>(e)(_, None), m);
}

template <int M, int N, int K, class T = tl::fp16, bool ScaledA = false>
TL_KERNEL void matmul_kernel(tl::ptr<const T> a_ptr, tl::ptr<const T> b_ptr, tl::ptr<float> z_ptr) {
  auto m = tl::arange<0, M>();
  auto n = tl::arange<0, N>();
  auto k = tl::arange<0, K>();
  auto a = tl::load(a_ptr + m(_, None) * K + k(None, _));
  auto b = tl::load(b_ptr + k(_, None) * N + n(None, _));
  if constexpr (ScaledA) tl::store(z_ptr + m(_, None) * N + n(None, _), tl::dot(a * T(-3), b));
  else tl::store(z_ptr + m(_, None) * N + n(None, _), tl::dot(a, b));
}

TEST_CASE("8 warps: row softmax and an fp16 matmul agree with the CPU", "[gpu][warps]") {
  static_assert(tl::detail::cuda::threads == 256);
  for (int rep = 0; rep < 3; ++rep) {
    const int n0 = random_int(1, 200), n1 = random_int(1, 256);
    auto x = random_values(std::size_t(n0) * n1, -5, 5);
    auto run = [&](const tl::launch_options& o) {
      std::vector<float> z(x.size(), NAN);
      tl::launch<softmax_rows_kernel<16, 256>>(tl::grid(tl::cdiv(n0, 16)), o, x, z, n0, n1);
      return z;
    };
    require_agree(run(cpu), run(cuda), 1e-6, 1e-5);
  }
  std::vector<tl::fp16> a(64 * 32), b(32 * 128);
  for (auto& v : a) v = tl::fp16(random_values(1, -1, 1)[0]);
  for (auto& v : b) v = tl::fp16(random_values(1, -1, 1)[0]);
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> z(64 * 128, NAN);
    tl::launch<matmul_kernel<64, 128, 32>>(tl::grid(1), o, a, b, z);
    return z;
  };
  require_agree(run(cpu), run(cuda), 1e-5, 1e-5);
  auto four_warps = [&] {
    std::vector<float> z(64 * 128);
    tl::launch<matmul_kernel<64, 128, 32>>(tl::grid(1), {.backend = tl::backend::cuda, .num_warps = 4}, a, b, z);
  };
  REQUIRE_THROWS_WITH(four_warps(), Catch::Contains("TL_NUM_WARPS=8"));
}

TEST_CASE("8 warps: a 128 x 128 x 64 tf32 dot (B stored transposed, K in two steps) agrees with the CPU",
          "[gpu][warps][dot]") {
  auto a = random_values(128 * 64, -1, 1), b = random_values(64 * 128, -1, 1);
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> z(128 * 128, NAN);
    tl::launch<matmul_kernel<128, 128, 64, float>>(tl::grid(1), o, a, b, z);
    return z;
  };
  require_agree(run(cpu), run(cuda), 1e-5, 1e-5);
  // A an expression: from the registers of both warpgroups
  auto run_scaled = [&](const tl::launch_options& o) {
    std::vector<float> z(128 * 128, NAN);
    tl::launch<matmul_kernel<128, 128, 64, float, true>>(tl::grid(1), o, a, b, z);
    return z;
  };
  require_agree(run_scaled(cpu), run_scaled(cuda), 1e-4, 1e-5);
}
