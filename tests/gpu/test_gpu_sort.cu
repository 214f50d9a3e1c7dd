// Data movement (ops/shape_ops.hpp's flip, join, split, interleave, cat; ops/sort.hpp's sort,
// topk, bitonic_merge, gather, histogram): the GPU against the CPU backend (checked against plain loops in
// tests/ops/test_sort.cpp), bit for bit, with ties, NaNs and signed zeros.
#include <cstring>
#include <tuple>

#include "gpu_testing.hpp"

using namespace gpu_testing;

namespace {
template <int R, int C>
TL_KERNEL void movement_kernel(tl::ptr<const float> x_ptr, tl::ptr<const std::int32_t> k_ptr, tl::ptr<float> out,
                               tl::ptr<std::int32_t> iout) {
  auto r = tl::arange<0, R>();
  auto c = tl::arange<0, C>();
  auto offs = r(tl::_, tl::None) * C + c(tl::None, tl::_);
  auto x = tl::load(x_ptr + offs);
  auto k = tl::load(k_ptr + offs);
  constexpr int N = R * C;
  tl::store(out + offs, tl::flip(x) + tl::flip<0>(x) * 2.0f);
  auto j = tl::join(x, -x);
  tl::store(out + N + offs, tl::sum<2>(j * tl::arange<0, 2>().to(tl::float32)));  // picks -x
  auto [a, b] = tl::split(tl::join(k, k + 1));
  tl::store(iout + offs, b - a);
  auto il = tl::interleave(x, x + 1.0f);
  auto c2 = tl::arange<0, 2 * C>();
  tl::store(out + 2 * N + r(tl::_, tl::None) * (2 * C) + c2(tl::None, tl::_), il);
  auto top = tl::cat(x, x * 3.0f);
  auto r2 = tl::arange<0, 2 * R>();
  tl::store(out + 4 * N + r2(tl::_, tl::None) * C + c(tl::None, tl::_), top);
  tl::store(out + 6 * N + offs, tl::sort(x));
  tl::store(out + 7 * N + offs, tl::sort<0>(x, tl::descending));
  tl::store(iout + N + offs, tl::sort<1>(k, tl::descending));
  auto t4 = tl::topk<2>(x);
  auto c4 = tl::arange<0, 2>();
  tl::store(out + 8 * N + r(tl::_, tl::None) * 2 + c4(tl::None, tl::_), t4);
  auto idx = (k & (C - 1)) ^ 3;
  tl::store(out + 9 * N + offs, tl::gather<1>(x, idx));
  auto idx0 = (k & (R - 1)) - (c(tl::None, tl::_) == 1).to(tl::int32) * 100;  // column 1: outside
  tl::store(out + 10 * N + offs, tl::gather<0>(x, idx0));
  tl::store(iout + 2 * N + tl::arange<0, 64>(), tl::histogram<64>(tl::ravel(k), tl::ravel(offs) % 3 != 0));
  tl::store(out + 11 * N + offs, tl::bitonic_merge(x));
  tl::store(out + 12 * N + offs, tl::bitonic_merge<0>(x, tl::descending));
}

template <int R, int C>
void check_shape() {
  constexpr int N = R * C;
  auto x = random_values<float>(std::size_t(N), -2, 2);
  for (auto& e : x) e = float(int(e * 2)) / 2;  // ties
  x[0] = NAN;
  x[std::size_t(N / 2)] = -0.0f;
  x[std::size_t(N / 2 + 1)] = 0.0f;
  std::vector<std::int32_t> k(static_cast<std::size_t>(N));
  for (auto& e : k) e = random_int(-10, 70);
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> out(std::size_t(13 * N), 1234.5f);
    std::vector<std::int32_t> iout(std::size_t(2 * N + 64), -7);
    tl::launch<movement_kernel<R, C>>(tl::grid(1), o, tl::ptr<const float>(x, "x"), tl::ptr<const std::int32_t>(k, "k"),
                                      tl::ptr<float>(out, "out"), tl::ptr<std::int32_t>(iout, "iout"));
    return std::make_pair(out, iout);
  };
  const auto cpu_out = run(cpu), gpu_out = run(cuda);
  INFO("shape " << R << " x " << C);
  // Bit for bit, signed zeros included; NaN as NaN (arithmetic on NaN gives the GPU's canonical one).
  std::size_t differ = 0, first = 0;
  for (std::size_t i = 0; i < cpu_out.first.size(); ++i) {
    const float a = cpu_out.first[i], b = gpu_out.first[i];
    const bool same = (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof(float)) == 0;
    if (!same && differ++ == 0) first = i;
  }
  INFO(differ << " differ; first at " << first << " (output " << first / N << "): cpu " << cpu_out.first[first] << ", gpu "
              << gpu_out.first[first]);
  REQUIRE(differ == 0);
  REQUIRE(cpu_out.second == gpu_out.second);
}
}  // namespace

TEST_CASE("data movement ops agree bit for bit", "[gpu][sort]") {
  check_shape<8, 32>();
  check_shape<32, 8>();
  check_shape<4, 64>();
  check_shape<64, 4>();
  check_shape<2, 128>();
}
