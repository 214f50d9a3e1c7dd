// Scans and reductions with combine functions (ops/scan.hpp): the GPU against the CPU backend
// (checked against plain loops in tests/ops/test_scan.cpp), along each axis of several shapes.
#include <tuple>

#include "gpu_testing.hpp"

using namespace gpu_testing;

namespace {
// Scans of a R x C tile along both axes, forward and reversed, into four outputs.
template <int R, int C>
TL_KERNEL void scan_kernel(tl::ptr<const float> x_ptr, tl::ptr<const std::int32_t> k_ptr, tl::ptr<float> out,
                           tl::ptr<std::int32_t> iout) {
  auto r = tl::arange<0, R>();
  auto c = tl::arange<0, C>();
  auto offs = r(tl::_, tl::None) * C + c(tl::None, tl::_);
  auto x = tl::load(x_ptr + offs);
  auto k = tl::load(k_ptr + offs);
  tl::store(out + offs, tl::cumsum<0>(x));
  tl::store(out + R * C + offs, tl::cumsum<1>(x, tl::reverse));
  tl::store(out + 2 * R * C + offs, tl::associative_scan<1>(x, [](float a, float b) { return a > b ? a : b; }));
  tl::store(out + 3 * R * C + offs, tl::cumprod<0>(x * 0.25f + 1.0f, tl::reverse));
  tl::store(iout + offs, tl::cumsum<1>(k));
  auto [ha, hb] = tl::associative_scan<1>(std::tuple{x * 0.1f + 0.8f, x}, [](float a1, float b1, float a2, float b2) {
    return std::tuple{a1 * a2, a2 * b1 + b2};
  });
  tl::store(out + 4 * R * C + offs, hb + ha);
  // Reductions with combine functions.
  auto idx = tl::broadcast_to<R, C>(c(tl::None, tl::_));
  auto [v, i] = tl::reduce<1>(std::tuple{k, idx}, [](std::int32_t v1, std::int32_t i1, std::int32_t v2, std::int32_t i2) {
    const bool first = v1 > v2 || (v1 == v2 && i1 < i2);
    return std::tuple{first ? v1 : v2, first ? i1 : i2};
  });
  tl::store(iout + R * C + r, v);
  tl::store(iout + R * C + R + r, i);
  tl::store(iout + R * C + 2 * R + r, tl::xor_sum<1>(k));
  tl::store(iout + R * C + 3 * R + c, tl::reduce_or<0>(k));
  tl::store(out + 5 * R * C + c, tl::reduce<0>(x, [](float a, float b) { return a + b; }));
  tl::store(out + 6 * R * C + offs, tl::softmax(x) + tl::softmax<0>(x));
}

template <int R, int C>
void check_shape() {
  const auto x = random_values<float>(std::size_t(R * C), -2, 2);
  std::vector<std::int32_t> k(std::size_t(R * C));
  for (auto& e : k) e = random_int(-1000, 1000);
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> out(std::size_t(7 * R * C), NAN);
    std::vector<std::int32_t> iout(std::size_t(R * C + 3 * R + C), -7);
    tl::launch<scan_kernel<R, C>>(tl::grid(1), o, tl::ptr<const float>(x, "x"), tl::ptr<const std::int32_t>(k, "k"),
                                  tl::ptr<float>(out, "out"), tl::ptr<std::int32_t>(iout, "iout"));
    out.erase(out.begin() + 5 * R * C + C, out.begin() + 6 * R * C);  // reduce<0>'s row only
    return std::make_pair(out, iout);
  };
  const auto c = run(cpu), g = run(cuda);
  INFO("shape " << R << " x " << C);
  require_agree(c.first, g.first, 1e-3, 1e-5, "float scans");  // sums of up to 1024 terms of [-2, 2], added in another order
  REQUIRE(c.second == g.second);
}
}  // namespace

TEST_CASE("scans and combine-function reductions agree along each axis", "[gpu][scan]") {
  check_shape<32, 64>();
  check_shape<64, 16>();
  check_shape<1, 1024>();
  check_shape<128, 2>();
  check_shape<16, 8>();
  check_shape<4, 256>();
}
