// Element types: fp16/bf16 conversions against an independent reference, Triton's type
// promotion rules, and the defined float-to-integer conversion.
#include "testing.hpp"

#include <cstring>
#include <limits>

using namespace tl;
using tl::detail::promote_t;

namespace {

float bits_to_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Reference binary16 value of a bit pattern, from its fields.
double half_value(std::uint16_t h) {
  const int sign = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  if (e == 31) v = m ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  return sign ? -v : v;
}

// Reference round-to-nearest-even onto a monotone table of positive finite values
// (value(k) increasing for k = 0 .. last), with overflow to infinity past max + half an ulp.
template <class Value>
std::uint16_t reference_round(double v, std::uint16_t last, std::uint16_t inf_bits, Value value) {
  const bool neg = std::signbit(v);
  const double a = std::fabs(v);
  std::uint16_t lo = 0, hi = last;
  if (a >= value(last)) {
    const double ulp = value(last) - value(std::uint16_t(last - 1));
    const double limit = value(last) + ulp / 2;
    std::uint16_t r = a < limit ? last : (a == limit ? inf_bits : inf_bits);
    return std::uint16_t(r | (neg ? 0x8000 : 0));
  }
  while (hi - lo > 1) {  // value(lo) <= a < value(hi)
    const std::uint16_t mid = std::uint16_t((lo + hi) / 2);
    (value(mid) <= a ? lo : hi) = mid;
  }
  const double dlo = a - value(lo), dhi = value(hi) - a;
  std::uint16_t r = dlo < dhi ? lo : dhi < dlo ? hi : ((lo & 1) ? hi : lo);
  return std::uint16_t(r | (neg ? 0x8000 : 0));
}

double bf16_value(std::uint16_t b) { return bits_to_float(std::uint32_t(b) << 16); }

}  // namespace

TEST_CASE("fp16: every bit pattern converts to float and back unchanged", "[dtype]") {
  for (std::uint32_t h = 0; h < 65536; ++h) {
    const float f = static_cast<float>(fp16::from_bits(std::uint16_t(h)));
    const double ref = half_value(std::uint16_t(h));
    if (std::isnan(ref)) {
      REQUIRE(std::isnan(f));
      continue;
    }
    REQUIRE(double(f) == ref);
    REQUIRE(fp16(f).bits == h);
  }
}

TEST_CASE("fp16: float to half rounds to nearest even", "[dtype]") {
  std::uniform_int_distribution<std::uint32_t> bits;
  auto check = [](float f) {
    const std::uint16_t ref = reference_round(double(f), 0x7bff, 0x7c00, half_value);
    INFO("float " << f);
    REQUIRE(fp16(f).bits == ref);
  };
  for (int i = 0; i < 200000; ++i) {
    // Floats in the half range and around it: exponent -30 .. 17.
    const std::uint32_t u = (bits(testing::rng()) & 0x807fffffu) | (std::uint32_t(97 + i % 48) << 23);
    check(bits_to_float(u));
  }
  // Ties, both directions, normal and subnormal; the largest half; overflow.
  for (std::uint16_t h : {0x0001, 0x0002, 0x03ff, 0x0400, 0x3c00, 0x3c01, 0x7bfe}) {
    const double mid = (half_value(h) + half_value(std::uint16_t(h + 1))) / 2;
    check(float(mid));
    check(float(-mid));
  }
  check(65504.0f);
  check(65519.99f);
  check(65520.0f);
  check(1e9f);
  check(std::ldexp(1.0f, -25));  // exactly half the smallest subnormal: ties to 0
  check(std::ldexp(1.5f, -25));
  REQUIRE(fp16(std::numeric_limits<float>::infinity()).bits == 0x7c00);
  REQUIRE(std::isnan(float(fp16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST_CASE("bf16: conversions round to nearest even", "[dtype]") {
  std::uniform_int_distribution<std::uint32_t> bits;
  for (int i = 0; i < 200000; ++i) {
    const float f = bits_to_float(bits(testing::rng()));
    if (std::isnan(f) || std::isinf(f)) continue;
    const std::uint16_t ref = reference_round(double(f), 0x7f7f, 0x7f80, bf16_value);
    INFO("float " << f);
    REQUIRE(bf16(f).bits == ref);
  }
  for (std::uint32_t b = 0; b < 0x7f80; b += 7) REQUIRE(bf16(float(bf16::from_bits(std::uint16_t(b)))).bits == b);
  REQUIRE(std::isnan(float(bf16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST_CASE("promotion follows Triton's rules", "[dtype]") {
  // Tensors with tensors (no weak operands).
  STATIC_REQUIRE(std::is_same_v<promote_t<float, false, fp16, false>, float>);
  STATIC_REQUIRE(std::is_same_v<promote_t<fp16, false, fp16, false>, fp16>);
  STATIC_REQUIRE(std::is_same_v<promote_t<fp16, false, bf16, false>, fp16>);  // step 3 (half) comes before step 4
  STATIC_REQUIRE(std::is_same_v<promote_t<bf16, false, std::int32_t, false>, float>);
  STATIC_REQUIRE(std::is_same_v<promote_t<bf16, false, bf16, false>, bf16>);
  STATIC_REQUIRE(std::is_same_v<promote_t<fp16, false, fp16, false, true>, float>);  // / and % of halves
  STATIC_REQUIRE(std::is_same_v<promote_t<double, false, float, false>, double>);
  STATIC_REQUIRE(std::is_same_v<promote_t<std::int32_t, false, float, false>, float>);
  STATIC_REQUIRE(std::is_same_v<promote_t<std::int8_t, false, fp16, false>, fp16>);
  STATIC_REQUIRE(std::is_same_v<promote_t<std::int8_t, false, std::int32_t, false>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<promote_t<std::int32_t, false, std::uint32_t, false>, std::uint32_t>);
  STATIC_REQUIRE(std::is_same_v<promote_t<std::int64_t, false, std::uint32_t, false>, std::int64_t>);
  STATIC_REQUIRE(std::is_same_v<promote_t<std::uint8_t, false, std::int16_t, false>, std::int16_t>);
  STATIC_REQUIRE(std::is_same_v<promote_t<bool, false, bool, false>, bool>);
  STATIC_REQUIRE(std::is_same_v<promote_t<bool, false, std::int32_t, false>, std::int32_t>);
  // Weak C++ scalars keep the block's type unless their kind is higher.
  STATIC_REQUIRE(std::is_same_v<promote_t<fp16, false, double, true>, fp16>);
  STATIC_REQUIRE(std::is_same_v<promote_t<fp16, false, double, true, true>, float>);
  STATIC_REQUIRE(std::is_same_v<promote_t<std::int8_t, false, int, true>, std::int8_t>);
  // An integer scalar does not take part with an unsigned block either (Triton's kinds: bool,
  // integer, float).
  STATIC_REQUIRE(std::is_same_v<promote_t<std::uint8_t, false, int, true>, std::uint8_t>);
  STATIC_REQUIRE(std::is_same_v<promote_t<int, true, std::uint16_t, false>, std::uint16_t>);
  STATIC_REQUIRE(std::is_same_v<promote_t<std::uint8_t, false, int, true, true>, std::uint8_t>);
  STATIC_REQUIRE(std::is_same_v<promote_t<std::uint8_t, false, float, true>, float>);
  STATIC_REQUIRE(std::is_same_v<promote_t<std::int32_t, false, double, true>, float>);
  STATIC_REQUIRE(std::is_same_v<promote_t<bool, false, int, true>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<promote_t<int, true, float, true>, float>);
  STATIC_REQUIRE(std::is_same_v<promote_t<int, true, int, true>, std::int32_t>);
  // Through the operators.
  block<fp16, 4> h;
  block<std::int32_t, 4> i;
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(h + 1.0)>, fp16>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(h / 2)>, float>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(i * 2)>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(i + std::int64_t{2})>, std::int64_t>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(i + 0.5f)>, float>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(i < 3)>, bool>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(h.to(float32))>, float>);
}

TEST_CASE("conversions: float to integer truncates and saturates, NaN gives 0", "[dtype]") {
  using detail::convert;
  REQUIRE(convert<std::int32_t>(2.9f) == 2);
  REQUIRE(convert<std::int32_t>(-2.9f) == -2);
  REQUIRE(convert<std::int32_t>(1e10f) == std::numeric_limits<std::int32_t>::max());
  REQUIRE(convert<std::int32_t>(-1e10f) == std::numeric_limits<std::int32_t>::min());
  REQUIRE(convert<std::int32_t>(std::numeric_limits<float>::quiet_NaN()) == 0);
  REQUIRE(convert<std::int16_t>(40000.0f) == 32767);
  REQUIRE(convert<std::uint8_t>(-5.0f) == 0);
  REQUIRE(convert<std::int8_t>(fp16(-100.0f)) == -100);
  REQUIRE(convert<bool>(0.5f) == true);
  REQUIRE(convert<bool>(0) == false);
  REQUIRE(float(convert<fp16>(std::int32_t{3})) == 3.0f);
  REQUIRE(float(convert<bf16>(1.0 / 3.0)) == float(bf16(1.0f / 3.0f)));
  // double to 16 bits rounds once: just above a half-way point goes up, although the nearest
  // float is the half-way point itself (which would then tie to even, down).
  const double above_mid = 1.0 + 0x1p-11 + 0x1p-40, below_mid = 1.0 + 0x1p-11 - 0x1p-40;
  REQUIRE(static_cast<float>(above_mid) == 1.0f + 0x1p-11f);
  REQUIRE(float(convert<fp16>(above_mid)) == 1.0f + 0x1p-10f);
  REQUIRE(float(convert<fp16>(below_mid)) == 1.0f);
  REQUIRE(float(convert<bf16>(1.0 + 0x1p-8 + 0x1p-40)) == 1.0f + 0x1p-7f);
  REQUIRE(float(convert<fp16>(1e-30)) == 0.0f);
  REQUIRE(std::isinf(float(convert<fp16>(1e300))));
}

// fp8: decoding from the formats' definitions (in double), and encoding against a search for
// the nearest value over every finite code (ties to the even code; float8e4b15: away from zero,
// and at most 1.75, as Triton's conversion gives).
namespace {
enum class special { ieee, fn, fnuz, finite };
struct fp8_spec {
  int e, m, bias;
  special kind;
  double decode(int b) const {  // NaN for NaN codes, +-inf where the format has them
    const int ef = (b >> m) & ((1 << e) - 1), mf = b & ((1 << m) - 1);
    const double s = (b & 0x80) ? -1.0 : 1.0, nan = std::numeric_limits<double>::quiet_NaN();
    if (kind == special::ieee && ef == (1 << e) - 1) return mf != 0 ? nan : s * INFINITY;
    if (kind == special::fn && ef == (1 << e) - 1 && mf == (1 << m) - 1) return nan;
    if (kind == special::fnuz && b == 0x80) return nan;
    if (ef == 0) return s * mf * std::ldexp(1.0, 1 - bias - m);
    return s * (1 + mf * std::ldexp(1.0, -m)) * std::ldexp(1.0, ef - bias);
  }
  // The largest magnitude a conversion gives.
  double saturated() const {
    double max_finite = 0;
    for (int b = 0; b < 256; ++b)
      if (const double v = decode(b); v == v && !std::isinf(v)) max_finite = std::max(max_finite, v);
    return kind == special::finite ? 1.75 : max_finite;
  }
  // The code of the nearest value to x, saturating; -1 for "a NaN code".
  int encode(double x) const {
    const double sat = saturated();
    if (x != x) {
      if (kind != special::finite) return -1;
      x = std::copysign(sat, x);  // float8e4b15 has no NaN: the saturated value, signed
    }
    int best = -1;
    double best_d = INFINITY;
    const double target = std::fabs(x) >= sat ? std::copysign(sat, x) : x;
    for (int b = 0; b < 256; ++b) {
      const double v = decode(b);
      if (v != v || std::isinf(v) || std::fabs(v) > sat) continue;
      if (v == 0 && std::signbit(v) != std::signbit(target) && kind != special::fnuz) continue;
      const double d = std::fabs(v - target);
      const auto tie_wins = [&] { return kind == special::finite ? std::fabs(v) > std::fabs(decode(best)) : (b & 1) == 0; };
      if (d < best_d || (d == best_d && tie_wins())) best = b, best_d = d;
    }
    return best;
  }
};

template <class T>
void check_fp8(const fp8_spec& spec, const char* name) {
  INFO(name);
  const double sat = spec.saturated();
  for (int b = 0; b < 256; ++b) {
    const double want = spec.decode(b);
    const float got = float(T::from_bits(std::uint8_t(b)));
    INFO("code " << b);
    if (want != want) REQUIRE(got != got);
    else REQUIRE(double(got) == want);
    if (want == want && std::fabs(want) <= sat) REQUIRE(int(T(float(want)).bits) == b);
  }
  std::mt19937 g(11);
  std::vector<float> xs = {0.0f, -0.0f, 1e-30f, -1e-30f, INFINITY, -INFINITY, 1e30f, -1e30f};
  for (int b = 0; b < 255; ++b) {  // midpoints between neighbouring codes: the ties
    const double lo = spec.decode(b), hi = spec.decode(b + 1);
    if (lo == lo && hi == hi && !std::isinf(lo) && !std::isinf(hi) && (b & 0x7f) != 0x7f) xs.push_back(float((lo + hi) / 2));
  }
  std::uniform_real_distribution<double> expo(-24, 18);
  for (int i = 0; i < 4000; ++i) xs.push_back(float((g() & 1 ? -1 : 1) * std::exp2(expo(g))));
  for (float x : xs) {
    INFO("x " << x);
    const int want = spec.encode(double(x));
    const int got = T(x).bits;
    if (want < 0) REQUIRE(float(T::from_bits(std::uint8_t(got))) != float(T::from_bits(std::uint8_t(got))));
    else REQUIRE(got == want);
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  if (spec.kind == special::finite) REQUIRE(T(nan).bits == spec.encode(double(nan)));
  else REQUIRE(float(T(nan)) != float(T(nan)));
}
}  // namespace

TEST_CASE("conversions to 8 bits, and of NaN to 64 bits, give what Triton's code gives on the GPU", "[dtype][numbers]") {
  using detail::convert;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // To 8 bits: saturated to 16 bits (cvt.rzi.s16 / cvt.rzi.u16), then the low byte.
  const float in[] = {127.0f, 128.0f, -129.0f, 200.0f, 256.0f, 300.0f, -300.0f, 32768.0f, -40000.0f, INFINITY, -INFINITY, nan};
  const int want_i8[] = {127, -128, 127, -56, 0, 44, -44, -1, 0, -1, 0, 0};
  const int want_u8[] = {127, 128, 0, 200, 0, 44, 0, 0, 0, 255, 0, 0};
  for (int i = 0; i < 12; ++i) {
    INFO(in[i]);
    REQUIRE(int(convert<std::int8_t>(in[i])) == want_i8[i]);
    REQUIRE(int(convert<std::uint8_t>(in[i])) == want_u8[i]);
    REQUIRE(int(convert<std::int8_t>(double(in[i]))) == want_i8[i]);
    REQUIRE(int(convert<std::uint8_t>(double(in[i]))) == want_u8[i]);
  }
  REQUIRE(int(convert<std::int8_t>(fp16(-200.0f))) == 56);
  REQUIRE(int(convert<std::uint8_t>(fp16(1000.0f))) == 232);
  // NaN: 0, except to 64 bits (from any float) and to 32 bits from float64: the sign bit alone.
  REQUIRE(convert<std::int64_t>(nan) == std::numeric_limits<std::int64_t>::min());
  REQUIRE(convert<std::uint64_t>(nan) == std::uint64_t(1) << 63);
  REQUIRE(convert<std::int64_t>(fp16(nan)) == std::numeric_limits<std::int64_t>::min());
  REQUIRE(convert<std::int32_t>(double(nan)) == std::numeric_limits<std::int32_t>::min());
  REQUIRE(convert<std::uint32_t>(double(nan)) == std::uint32_t(1) << 31);
  REQUIRE(convert<std::uint32_t>(nan) == 0);
  REQUIRE(convert<std::int16_t>(double(nan)) == 0);
  // float8e5's NaN from any NaN: 0x7f (cvt.rn.satfinite.e5m2x2.f32).
  REQUIRE(fp8e5(nan).bits == 0x7f);
  REQUIRE(fp8e5(-nan).bits == 0x7f);
  // In a kernel expression, the same.
  REQUIRE(testing::values(full<2>(128.0f, float32).to(int8))[0] == -128.0);
}

TEST_CASE("fp8: the five formats decode by definition, round to nearest and saturate", "[dtype][fp8]") {
  check_fp8<fp8e4nv>({4, 3, 7, special::fn}, "float8e4nv");
  check_fp8<fp8e5>({5, 2, 15, special::ieee}, "float8e5");
  check_fp8<tl::fp8e4b15>({4, 3, 15, special::finite}, "float8e4b15");
  check_fp8<tl::fp8e4b8>({4, 3, 8, special::fnuz}, "float8e4b8");
  check_fp8<tl::fp8e5b16>({5, 2, 16, special::fnuz}, "float8e5b16");
  REQUIRE(float(fp8e4nv(1000.0f)) == 448.0f);
  REQUIRE(float(fp8e5(INFINITY)) == 57344.0f);
  REQUIRE(float(fp8e5::from_bits(0x7c)) == INFINITY);
  // float8e4b15: every code a number; the largest, 1.875, is never a conversion's result.
  REQUIRE(float(tl::fp8e4b15::from_bits(0x7f)) == 1.875f);
  REQUIRE(tl::fp8e4b15(1.8f).bits == 0x7e);
  REQUIRE(tl::fp8e4b15(-INFINITY).bits == 0xfe);
  REQUIRE(tl::fp8e4b15(1.0f + 1.0f / 16).bits == 0x79);  // a tie: away from zero (even would be 0x78)
  REQUIRE(float(tl::fp8e4b15::from_bits(0x01)) == std::ldexp(1.0f, -17));
  // The fnuz formats: one zero (-0 converts to +0), 0x80 is NaN, no infinities.
  REQUIRE(tl::fp8e4b8(-0.0f).bits == 0x00);
  REQUIRE(tl::fp8e5b16(-1e-30f).bits == 0x00);
  REQUIRE(tl::fp8e4b8(std::numeric_limits<float>::quiet_NaN()).bits == 0x80);
  REQUIRE(float(tl::fp8e4b8(INFINITY)) == 240.0f);
  REQUIRE(float(tl::fp8e5b16::from_bits(0x7f)) == 57344.0f);
  REQUIRE(float(tl::fp8e4b8::from_bits(0x01)) == std::ldexp(1.0f, -10));
}

TEST_CASE("fp8 promotion: the same type stays, two fp8 types give float16, wider floats win", "[dtype][fp8]") {
  STATIC_REQUIRE(std::is_same_v<promote_t<fp8e4nv, false, fp8e4nv, false>, fp8e4nv>);
  STATIC_REQUIRE(std::is_same_v<promote_t<fp8e4nv, false, fp8e5, false>, fp16>);
  STATIC_REQUIRE(std::is_same_v<promote_t<fp8e4nv, false, fp8e4nv, false, true>, float>);
  STATIC_REQUIRE(std::is_same_v<promote_t<fp8e5, false, fp16, false>, fp16>);
  STATIC_REQUIRE(std::is_same_v<promote_t<fp8e5, false, bf16, false>, float>);
  STATIC_REQUIRE(std::is_same_v<promote_t<fp8e5, false, float, false>, float>);
  STATIC_REQUIRE(std::is_same_v<promote_t<fp8e5, false, float, true>, fp8e5>);  // a weak scalar
  STATIC_REQUIRE(std::is_same_v<promote_t<fp8e5, false, float, true, true>, float>);
  STATIC_REQUIRE(tl::detail::dtype_name<fp8e4nv>() == std::string_view("float8e4nv"));
  STATIC_REQUIRE(tl::detail::dtype_name<tl::fp8e4b15>() == std::string_view("float8e4b15"));
  STATIC_REQUIRE(tl::detail::dtype_name<tl::fp8e4b8>() == std::string_view("float8e4b8"));
  STATIC_REQUIRE(tl::detail::dtype_name<tl::fp8e5b16>() == std::string_view("float8e5b16"));
  STATIC_REQUIRE(std::is_same_v<promote_t<tl::fp8e4b8, false, tl::fp8e4b8, false>, tl::fp8e4b8>);
  STATIC_REQUIRE(std::is_same_v<promote_t<tl::fp8e4b15, false, fp8e4nv, false>, fp16>);
  STATIC_REQUIRE(std::is_same_v<promote_t<tl::fp8e5b16, false, float, true>, tl::fp8e5b16>);
}

template <class F8>
TL_KERNEL void fp8_round_trip_k(tl::ptr<const float> x, tl::ptr<F8> q, tl::ptr<float> y, int n) {
  auto i = tl::program_id(0) * 64 + tl::arange<0, 64>();
  tl::store(q + i, tl::load(x + i, i < n).to(tl::dtype<F8>{}), i < n);
  tl::store(y + i, tl::load(q + i, i < n) * 2 + 0.0f, i < n);  // fp8 * 2 (a weak scalar): fp8, rounded and saturated
}

TEMPLATE_TEST_CASE("fp8 buffers: .to(float8), store, load, arithmetic, .to(float32) in a kernel", "[dtype][fp8]", fp8e4nv,
                   fp8e5, tl::fp8e4b15, tl::fp8e4b8, tl::fp8e5b16) {
  std::mt19937 g(3);
  const float range = std::is_same_v<TestType, tl::fp8e4b15> ? 2.5f : 300.0f;  // a little beyond the largest value
  std::uniform_real_distribution<float> d(-range, range);
  const int n = 150;
  std::vector<float> x(n), y(n, -1);
  for (auto& v : x) v = d(g);
  std::vector<TestType> q(n);
  REQUIRE(tl::launch<fp8_round_trip_k<TestType>>(tl::grid(3), tl::ptr(std::as_const(x), "x"), tl::ptr(q, "q"),
                                                 tl::ptr(y, "y"), n)
              .ok());
  for (int i = 0; i < n; ++i) {
    REQUIRE(q[std::size_t(i)].bits == TestType(x[std::size_t(i)]).bits);
    REQUIRE(y[std::size_t(i)] == float(TestType(float(TestType(x[std::size_t(i)])) * 2)));
  }
}

namespace {
// z = x converted to w's element type, then to z_ptr's: Triton's x.to(w.dtype) and
// x.to(z_ptr.dtype.element_ty).
template <int B>
TL_KERNEL void convert_like(tl::ptr<const float> x_ptr, tl::ptr<const tl::fp16> w_ptr, tl::ptr<int> z_ptr) {
  auto offs = tl::arange<0, B>();
  auto x = tl::load(x_ptr + offs);
  auto w = tl::load(w_ptr + offs);
  auto h = x.to(w.dtype());
  static_assert(std::is_same_v<tl::detail::value_of_t<decltype(h)>, tl::fp16>);
  tl::store(z_ptr + offs, (h + w).to(z_ptr.element_ty()));
}
}  // namespace

TEST_CASE("x.to(w.dtype()) and x.to(p.element_ty()): another block's or pointer's element type", "[dtype]") {
  static_assert(std::is_same_v<decltype(tl::arange<0, 4>().dtype()), tl::dtype<std::int32_t>>);
  static_assert(std::is_same_v<decltype(tl::ptr<const float>().element_ty()), tl::dtype<float>>);
  std::vector<float> x{1.25f, 2.0f, -3.5f, 2049.0f};
  std::vector<tl::fp16> w{tl::fp16(0.5f), tl::fp16(1.0f), tl::fp16(-0.25f), tl::fp16(0.0f)};
  std::vector<int> z(4, -99);
  tl::launch<convert_like<4>>(tl::grid(1), tl::ptr<const float>(x, "x"), tl::ptr<const tl::fp16>(w, "w"), tl::ptr<int>(z, "z"));
  // In fp16: 1.75, 3, -3.75, and 2049 rounds to 2048 (to even; float32 would keep 2049); int truncates.
  REQUIRE(z == std::vector<int>{1, 3, -3, 2048});
}
