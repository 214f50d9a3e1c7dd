// Scans (cumsum, cumprod, associative_scan) along each axis, forward and reversed, and
// reductions with a combine function (reduce, xor_sum, reduce_or), against plain loops.
#include "testing.hpp"

#include <tuple>

using namespace tl;
using testing::random_block;
using testing::values;

namespace {
// Reference scan of x (shape d0 x d1 x d2) along `axis` with f, from the end when reversed.
template <class F>
std::vector<double> scan_ref(const std::vector<double>& x, std::array<int, 3> d, int axis, bool rev, F f) {
  std::vector<double> out(x.size());
  auto flat = [&](std::array<int, 3> c) { return std::size_t((c[0] * d[1] + c[1]) * d[2] + c[2]); };
  for (int i = 0; i < d[0]; ++i)
    for (int j = 0; j < d[1]; ++j)
      for (int k = 0; k < d[2]; ++k) {
        std::array<int, 3> c{i, j, k};
        if (c[axis] != 0) continue;  // one line per start
        double acc = 0;
        for (int s = 0; s < d[axis]; ++s) {
          c[axis] = rev ? d[axis] - 1 - s : s;
          acc = s == 0 ? x[flat(c)] : f(acc, x[flat(c)]);
          out[flat(c)] = acc;
        }
      }
  return out;
}

void require_close(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) REQUIRE(std::fabs(got[i] - want[i]) <= tol * (1 + std::fabs(want[i])));
}

struct max_combine {
  template <class T>
  TL_HD T operator()(T a, T b) const { return a > b ? a : b; }
};
}  // namespace

TEMPLATE_TEST_CASE("cumsum and cumprod along each axis, forward and reversed", "[scan]", float, double, std::int32_t) {
  auto x = random_block<TestType, 3, 8, 4>(-3, 3);
  const auto vx = values(x);
  const std::array<int, 3> d{3, 8, 4};
  const double tol = std::is_same_v<TestType, float> ? 1e-5 : 0;
  auto add = [](double a, double b) { return a + b; };
  auto mul = [](double a, double b) { return a * b; };
  require_close(values(cumsum<0>(x)), scan_ref(vx, d, 0, false, add), tol);
  require_close(values(cumsum<1>(x)), scan_ref(vx, d, 1, false, add), tol);
  require_close(values(cumsum<2>(x)), scan_ref(vx, d, 2, false, add), tol);
  require_close(values(cumsum<-1>(x, reverse)), scan_ref(vx, d, 2, true, add), tol);
  require_close(values(cumsum<1>(x, reverse)), scan_ref(vx, d, 1, true, add), tol);
  require_close(values(cumprod<1>(x)), scan_ref(vx, d, 1, false, mul), tol);
  require_close(values(cumprod<0>(x, reverse)), scan_ref(vx, d, 0, true, mul), tol);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(cumsum<1>(x))>, shape<3, 8, 4>>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(cumsum<1>(x))>, TestType>);
}

TEST_CASE("cumsum widens narrow integers and accumulates 16-bit floats in float32", "[scan]") {
  block<std::int8_t, 64> b;
  for (int i = 0; i < 64; ++i) b[i] = std::int8_t(100 - (i % 7));  // 64 x ~97 overflows int8
  auto s = cumsum<0>(b);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(s)>, std::int32_t>);
  std::int32_t want = 0;
  for (int i = 0; i < 64; ++i) {
    want += 100 - (i % 7);
    REQUIRE(s[i] == want);
  }
  block<bool, 16> flags;
  for (int i = 0; i < 16; ++i) flags[i] = i % 3 == 0;
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(cumsum<0>(flags))>, std::uint32_t>);
  REQUIRE(cumsum<0>(flags)[15] == 6u);
  block<fp16, 256> h;
  for (int i = 0; i < 256; ++i) h[i] = fp16(1.0f / 3);
  // 256 / 3 in float32 before one rounding to fp16: 85.3 -> 85.3125; fp16 steps would stall lower.
  REQUIRE(float(cumsum<0>(h)[255]) == float(fp16(256.0f * float(fp16(1.0f / 3)))));
}

TEST_CASE("associative_scan: running max, and a linear recurrence through a tuple (order matters)", "[scan]") {
  auto x = random_block<float, 4, 32>(-10, 10);
  const auto vx = values(x);
  auto mx = [](double a, double b) { return std::max(a, b); };
  require_close(values(associative_scan<1>(x, max_combine{})), scan_ref(vx, {4, 32, 1}, 1, false, mx), 0);
  require_close(values(associative_scan<0>(x, [](auto a, auto b) { return a > b ? a : b; }, reverse)),
                scan_ref(vx, {4, 32, 1}, 0, true, mx), 0);

  // h[t] = a[t] h[t-1] + b[t]: the pairs (a, b) compose as maps, (a1, b1) then (a2, b2) giving
  // (a1 a2, a2 b1 + b2): associative, not commutative.
  auto a = random_block<float, 2, 64>(0.5, 1.0);
  auto b = random_block<float, 2, 64>(-1, 1);
  auto [ha, hb] = associative_scan<1>(std::tuple{a, b}, [](float a1, float b1, float a2, float b2) {
    return std::tuple{a1 * a2, a2 * b1 + b2};
  });
  for (int r = 0; r < 2; ++r) {
    double h = 0, prod = 1;
    for (int t = 0; t < 64; ++t) {
      h = double(a.at({r, t})) * h + double(b.at({r, t}));
      prod *= double(a.at({r, t}));
      REQUIRE(std::fabs(double(hb.at({r, t})) - h) <= 1e-5 * (1 + std::fabs(h)));
      REQUIRE(std::fabs(double(ha.at({r, t})) - prod) <= 1e-5);
    }
  }
}

TEST_CASE("reduce with a combine function, on one block and on a (value, index) tuple", "[scan][reduce]") {
  auto x = random_block<std::int32_t, 8, 16>(0, 6);  // ties
  auto m = reduce<1>(x, max_combine{});
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(m)>, shape<8>>);
  for (int r = 0; r < 8; ++r) {
    std::int32_t want = x.at({r, 0});
    for (int c = 1; c < 16; ++c) want = std::max(want, x.at({r, c}));
    REQUIRE(m[r] == want);
  }
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(reduce<0>(x, max_combine{}, keep_dims))>, shape<1, 16>>);

  auto idx = broadcast_to<8, 16>(arange<0, 16>()(None, _));
  auto [v, i] = reduce<1>(std::tuple{x, idx}, [](std::int32_t v1, std::int32_t i1, std::int32_t v2, std::int32_t i2) {
    const bool first = v1 > v2 || (v1 == v2 && i1 < i2);
    return std::tuple{first ? v1 : v2, first ? i1 : i2};
  });
  auto am = argmax<1>(x);
  for (int r = 0; r < 8; ++r) {
    REQUIRE(std::int32_t(v.at({r})) == m[r]);
    REQUIRE(std::int32_t(i.at({r})) == am[r]);
  }
}

TEST_CASE("xor_sum and reduce_or", "[scan][reduce]") {
  auto x = random_block<std::int64_t, 4, 32>(0, 1e9);
  auto xs = xor_sum<1>(x);
  auto ro = reduce_or<0>(x);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(xs)>, std::int64_t>);
  for (int r = 0; r < 4; ++r) {
    std::int64_t want = 0;
    for (int c = 0; c < 32; ++c) want ^= x.at({r, c});
    REQUIRE(xs[r] == want);
  }
  for (int c = 0; c < 32; ++c) REQUIRE(ro[c] == (x.at({0, c}) | x.at({1, c}) | x.at({2, c}) | x.at({3, c})));
}

namespace {
// A kernel's scan of loaded rows, the tail masked (other = 0 keeps the sums).
template <int B>
TL_KERNEL void row_cumsum(tl::ptr<const float> x, tl::ptr<float> y, int n_cols, int stride) {
  auto row = program_id(0);
  auto cols = arange<0, B>();
  auto mask = cols < n_cols;
  auto v = load(x + row * stride + cols, mask, 0.0f);
  store(y + row * stride + cols, cumsum<0>(v), mask);
}
}  // namespace

TEST_CASE("a kernel's cumsum over loaded rows with a masked tail", "[scan][launch]") {
  const int rows = 5, cols = 37;
  std::vector<float> x(rows * cols), y(rows * cols, NAN);
  for (auto& e : x) e = float(testing::rng()() % 100) / 10;
  launch<row_cumsum<64>>(grid(rows), tl::ptr<const float>(x, "x"), tl::ptr<float>(y, "y"), cols, cols);
  for (int r = 0; r < rows; ++r) {
    double s = 0;
    for (int c = 0; c < cols; ++c) {
      s += x[std::size_t(r * cols + c)];
      REQUIRE(std::fabs(y[std::size_t(r * cols + c)] - s) <= 1e-4 * (1 + s));
    }
  }
}

TEST_CASE("softmax along each axis; fdiv and sqrt_rn", "[reduce]") {
  auto x = random_block<float, 4, 16>(-5, 5);
  for (int axis : {0, 1}) {
    const auto got = axis == 0 ? values(softmax<0>(x)) : values(softmax(x));
    const int K = axis == 0 ? 4 : 16, L = axis == 0 ? 16 : 4;
    for (int l = 0; l < L; ++l) {
      double m = -1e300, s = 0;
      for (int k = 0; k < K; ++k) m = std::max(m, double(axis == 0 ? x.at({k, l}) : x.at({l, k})));
      for (int k = 0; k < K; ++k) s += std::exp(double(axis == 0 ? x.at({k, l}) : x.at({l, k})) - m);
      for (int k = 0; k < K; ++k) {
        const double want = std::exp(double(axis == 0 ? x.at({k, l}) : x.at({l, k})) - m) / s;
        REQUIRE(std::fabs(got[std::size_t(axis == 0 ? k * 16 + l : l * 16 + k)] - want) <= 1e-6);
      }
    }
  }
  auto y = random_block<float, 64>(1, 5);
  const auto q = values(fdiv(x, 3.0f)), qr = values(fdiv(x, 3.0f, ieee_rounding)), r = values(sqrt_rn(y));
  for (int i = 0; i < 64; ++i) {
    REQUIRE(std::fabs(q[std::size_t(i)] - double(x[i]) / 3) <= 1e-6);
    REQUIRE(float(qr[std::size_t(i)]) == x[i] / 3.0f);
    REQUIRE(float(r[std::size_t(i)]) == std::sqrt(y[i]));
  }
}
