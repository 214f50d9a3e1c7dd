// Reductions along each axis, with and without keep_dims, against plain loops.
#include "testing.hpp"

#include <limits>

using namespace tl;
using testing::random_block;
using testing::values;

namespace {
// Reference reduction of x (shape d0 x d1 x d2) along `axis`, result in row-major order of the kept axes.
template <class F>
std::vector<double> reduce_ref(const std::vector<double>& x, std::array<int, 3> d, int axis, double init, F f) {
  std::array<int, 3> o = d;
  o[axis] = 1;
  std::vector<double> out(std::size_t(o[0] * o[1] * o[2]), init);
  for (int i = 0; i < d[0]; ++i)
    for (int j = 0; j < d[1]; ++j)
      for (int k = 0; k < d[2]; ++k) {
        std::array<int, 3> c{i, j, k};
        c[axis] = 0;
        double& r = out[std::size_t((c[0] * o[1] + c[1]) * o[2] + c[2])];
        r = f(r, x[std::size_t((i * d[1] + j) * d[2] + k)], axis == 0 ? i : axis == 1 ? j : k);
      }
  return out;
}

template <class A, class B>
void require_close(const A& got, const B& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(std::fabs(got[i] - want[i]) <= tol);
}
}  // namespace

TEMPLATE_TEST_CASE("sum, max and min along each axis of a 3-D block", "[reduce]", float, double, std::int32_t) {
  auto x = random_block<TestType, 3, 5, 4>(-50, 50);
  const auto vx = values(x);
  const std::array<int, 3> d{3, 5, 4};
  const double tol = std::is_same_v<TestType, float> ? 1e-4 : 0;
  auto add = [](double a, double v, int) { return a + v; };
  auto mx = [](double a, double v, int) { return std::max(a, v); };
  auto mn = [](double a, double v, int) { return std::min(a, v); };
  const double inf = std::numeric_limits<double>::infinity();
  require_close(values(sum<0>(x)), reduce_ref(vx, d, 0, 0, add), tol);
  require_close(values(sum<1>(x)), reduce_ref(vx, d, 1, 0, add), tol);
  require_close(values(sum<2>(x)), reduce_ref(vx, d, 2, 0, add), tol);
  require_close(values(sum<-1>(x)), reduce_ref(vx, d, 2, 0, add), tol);
  require_close(values(max<1>(x)), reduce_ref(vx, d, 1, -inf, mx), 0);
  require_close(values(min<2>(x)), reduce_ref(vx, d, 2, inf, mn), 0);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(sum<1>(x))>, shape<3, 4>>);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(sum<1>(x, keep_dims))>, shape<3, 1, 4>>);
  require_close(values(max<0>(x, keep_dims)), reduce_ref(vx, d, 0, -inf, mx), 0);
  double total = 0;
  for (double v : vx) total += v;
  REQUIRE(std::fabs(double(TestType(sum(x))) - total) <= tol * 10);
}

TEST_CASE("argmax and argmin give the first index of the extreme", "[reduce]") {
  auto x = random_block<std::int32_t, 4, 16>(0, 5);  // many ties
  const auto vx = values(x);
  const auto am = values(argmax<1>(x));
  const auto an = values(argmin<1>(x));
  for (int i = 0; i < 4; ++i) {
    const auto row = vx.begin() + i * 16;
    REQUIRE(am[std::size_t(i)] == double(std::max_element(row, row + 16) - row));
    REQUIRE(an[std::size_t(i)] == double(std::min_element(row, row + 16) - row));
  }
  auto y = random_block<float, 8, 3>();
  const auto ay = values(argmax<0>(y, keep_dims));
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(argmax<0>(y, keep_dims))>, shape<1, 3>>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(argmax<0>(y))>, std::int32_t>);
  for (int j = 0; j < 3; ++j) {
    int best = 0;
    for (int i = 1; i < 8; ++i)
      if (y[i * 3 + j] > y[best * 3 + j]) best = i;
    REQUIRE(ay[std::size_t(j)] == best);
  }
}

TEST_CASE("reduction result types follow Triton", "[reduce]") {
  block<std::int8_t, 4> i8;
  block<fp16, 4> h;
  block<bool, 4> m;
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(sum<0>(i8))>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(sum<0>(h))>, fp16>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(max<0>(h))>, float>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(max<0>(i8))>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(sum<0>(m))>, std::uint32_t>);  // bool is uint1
  block<std::uint8_t, 4> u8;
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(max<0>(u8))>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(sum<0>(u8))>, std::uint32_t>);
  // A sum of 127s in int8 does not overflow: it accumulates in int32.
  auto big = full<8>(std::int8_t{127}, int8);
  REQUIRE(std::int32_t(sum(big)) == 8 * 127);
}

TEST_CASE("max ignores NaN; a row of -inf stays -inf", "[reduce]") {
  auto x = full<2, 4>(-inf, float32);
  x[1] = std::numeric_limits<float>::quiet_NaN();
  x[2] = 3.0f;
  const auto r = values(max<1>(x));
  REQUIRE(r[0] == 3.0);
  auto y = full<2, 4>(-inf, float32);
  REQUIRE(std::isinf(values(max<1>(y))[1]));
  // A result is NaN only when every element is.
  auto z = full<2, 4>(std::numeric_limits<float>::quiet_NaN(), float32);
  z[5] = -2.0f;
  const auto zmax = values(max<1>(z)), zmin = values(min<1>(z));
  REQUIRE(std::isnan(zmax[0]));
  REQUIRE(std::isnan(zmin[0]));
  REQUIRE(zmax[1] == -2.0);
  REQUIRE(zmin[1] == -2.0);
  REQUIRE(float(max(z)) == -2.0f);
}

TEST_CASE("reductions of lazy expressions", "[reduce]") {
  auto x = random_block<float, 4, 8>();
  auto y = random_block<float, 8>();
  const auto got = values(sum<1>(x * y(tl::None, tl::_)));
  for (int i = 0; i < 4; ++i) {
    double s = 0;
    for (int j = 0; j < 8; ++j) s += double(x[i * 8 + j] * y[j]);
    REQUIRE(std::fabs(got[std::size_t(i)] - s) < 1e-5);
  }
}
