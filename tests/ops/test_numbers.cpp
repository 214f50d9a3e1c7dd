// The numbers of Triton's code on the GPU, on the CPU backend too: integer division by zero,
// multiply-add contraction, maximum/minimum on zeros and NaN, weak scalars converted to the
// block's type, and the math functions' flushing of subnormals (docs/03-types.md). References
// are computed here independently (double arithmetic, the C library's fma).
#include "testing.hpp"

#include <bit>
#include <cmath>
#include <limits>

using namespace tl;
using testing::random_block;
using testing::values;

namespace {
template <class T, int N>
block<T, N> block_of(const T (&v)[N]) {
  block<T, N> b;
  for (int i = 0; i < N; ++i) b[i] = v[i];
  return b;
}
std::uint32_t bits(double v) { return std::bit_cast<std::uint32_t>(float(v)); }

// a, b, c of T (16-bit float or float) with c near -(a * b), where one rounding and two differ.
template <class T, int N>
void near_cancelling(block<T, N>& a, block<T, N>& b, block<T, N>& c, block<T, N>& d) {
  a = random_block<T, N>(0.25, 4);
  b = random_block<T, N>(-4, -0.25);
  d = random_block<T, N>(0.9, 1.1);
  std::uniform_real_distribution<double> wiggle(-1e-2, 1e-2);
  for (int i = 0; i < N; ++i) c[i] = T(float(-(double(float(a[i])) * double(float(b[i]))) * (1 + wiggle(testing::rng()))));
}
// a * b + c of 16-bit floats rounded once: exact in double for these magnitudes, then rounded.
template <class T>
double fma_ref(double a, double b, double c) {
  return double(float(detail::convert<T>(std::fma(a, b, c))));
}
}  // namespace

TEST_CASE("integer / and % by zero give all ones, as Triton's code on the GPU", "[elementwise][int][numbers]") {
  const std::int32_t n32[] = {7, -7, 0, std::numeric_limits<std::int32_t>::min()};
  auto a = block_of(n32);
  for (double v : values(a / 0)) REQUIRE(v == -1.0);
  for (double v : values(a % 0)) REQUIRE(v == -1.0);
  REQUIRE(values(a / block_of<std::int32_t, 4>({0, 1, -1, -1}))[3] == double(n32[3]));  // INT_MIN / -1 wraps
  const std::uint32_t u32[] = {7, 0, 0xffffffffu, 100};
  for (double v : values(block_of(u32) / 0u)) REQUIRE(v == 4294967295.0);
  for (double v : values(block_of(u32) % 0u)) REQUIRE(v == 4294967295.0);
  const std::int8_t i8[] = {7, -7, 0, -128};
  for (double v : values(block_of(i8) / 0)) REQUIRE(v == -1.0);
  const std::uint8_t u8[] = {7, 0, 255, 100};
  for (double v : values(block_of(u8) / 0)) REQUIRE(v == 255.0);
  for (double v : values(block_of(u8) % 0)) REQUIRE(v == 255.0);
  // 64 bits: operands that fit in 32 bits are divided in 32 bits on the GPU (0xffffffff).
  const std::int64_t n64[] = {7, 0, -7, std::int64_t(1) << 40};
  const auto q = values(block_of(n64) / std::int64_t{0}), r = values(block_of(n64) % std::int64_t{0});
  const double want[] = {4294967295.0, 4294967295.0, -1.0, -1.0};
  for (int i = 0; i < 4; ++i) {
    REQUIRE(q[std::size_t(i)] == want[i]);
    REQUIRE(r[std::size_t(i)] == want[i]);
  }
  const std::uint64_t u64[] = {7, ~std::uint64_t(0)};
  const auto uq = values(block_of(u64) / std::uint64_t{0});
  REQUIRE(uq[0] == 4294967295.0);
  REQUIRE(uq[1] == double(~std::uint64_t(0)));
  REQUIRE(values(cdiv(block_of(n32), 0))[0] == -1.0);
}

TEST_CASE("a weak scalar takes the block's type before the op: uint8 + 1 wraps, h * 0.1 multiplies by half(0.1)",
          "[elementwise][numbers]") {
  const std::uint8_t u8[] = {0, 1, 200, 255};
  auto u = block_of(u8);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(u + 1)>, std::uint8_t>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(u * 2)>, std::uint8_t>);
  REQUIRE(values(u + 1) == std::vector<double>{1, 2, 201, 0});
  REQUIRE(values(u - 1) == std::vector<double>{255, 0, 199, 254});
  REQUIRE(values(u * 2) == std::vector<double>{0, 2, 144, 254});
  const std::uint16_t u16[] = {65535, 1};
  REQUIRE(values(block_of(u16) + 1)[0] == 0.0);
  auto h = random_block<fp16, 64>(-8, 8);
  auto hb = random_block<bf16, 64>(-8, 8);
  const double tenth16 = double(float(fp16(0.1))), tenth_b16 = double(float(bf16(0.1f)));
  const auto vh = values(h), vb = values(hb);
  const auto m = values(h * 0.1), p = values(h + 0.1), mb = values(hb * 0.1), pb = values(hb + 0.1f);
  for (std::size_t i = 0; i < 64; ++i) {
    INFO("element " << i << ": " << vh[i] << ", " << vb[i]);
    REQUIRE(m[i] == double(float(detail::convert<fp16>(vh[i] * tenth16))));
    REQUIRE(p[i] == double(float(detail::convert<fp16>(vh[i] + tenth16))));
    REQUIRE(mb[i] == double(float(detail::convert<bf16>(vb[i] * tenth_b16))));
    REQUIRE(pb[i] == double(float(detail::convert<bf16>(vb[i] + tenth_b16))));
  }
  // A float32 block: the scalar is float32 anyway; / on a float16 block computes in float32.
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(h / 3)>, float>);
}

TEMPLATE_TEST_CASE("a*b+c, c+a*b, a*b-c, c-a*b and acc += a*b are one fma, rounded once", "[elementwise][numbers]",
                   float, fp16, bf16) {
  using T = TestType;
  block<T, 64> a, b, c, d;
  near_cancelling(a, b, c, d);
  const auto va = values(a), vb = values(b), vc = values(c), vd = values(d);
  auto ref = [](double x, double y, double z) {
    if constexpr (std::is_same_v<T, float>) return double(std::fma(float(x), float(y), float(z)));
    else return fma_ref<T>(x, y, z);
  };
  auto round = [](double x) { return double(float(detail::convert<T>(x))); };  // the product alone, rounded
  const auto abc = values(a * b + c), cab = values(c + a * b), abmc = values(a * b - c), cmab = values(c - a * b);
  const auto abcd = values(a * b + c * d), fused = values(tl::fma(a, b, c));
  block<T, 64> acc = c;
  acc += a * b;
  const auto vacc = values(acc);
  int differ_from_two_roundings = 0;
  for (std::size_t i = 0; i < 64; ++i) {
    INFO("element " << i << ": a " << va[i] << ", b " << vb[i] << ", c " << vc[i]);
    REQUIRE(abc[i] == ref(va[i], vb[i], vc[i]));
    REQUIRE(cab[i] == ref(va[i], vb[i], vc[i]));
    REQUIRE(fused[i] == ref(va[i], vb[i], vc[i]));
    REQUIRE(vacc[i] == ref(va[i], vb[i], vc[i]));
    REQUIRE(abmc[i] == ref(va[i], vb[i], -vc[i]));
    REQUIRE(cmab[i] == ref(-va[i], vb[i], vc[i]));
    REQUIRE(abcd[i] == ref(va[i], vb[i], round(vc[i] * vd[i])));  // the left product is fused
    differ_from_two_roundings += abc[i] != round(round(va[i] * vb[i]) + vc[i]);
  }
  REQUIRE(differ_from_two_roundings > 0);  // the inputs tell one rounding from two
  // Not fused: a product of another type than the sum's.
  block<float, 64> f = random_block<float, 64>();
  if constexpr (!std::is_same_v<T, float>) {
    const auto mixed = values(a * b + f), vf = values(f);
    for (std::size_t i = 0; i < 64; ++i) REQUIRE(mixed[i] == double(float(round(va[i] * vb[i])) + float(vf[i])));
  }
}

TEST_CASE("maximum and minimum: -0.0 below +0.0, a NaN ignored, two NaN the canonical NaN (max.f32)",
          "[elementwise][numbers]") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), payload = std::bit_cast<float>(0x7fc12345u);
  const float x[] = {-0.0f, 0.0f, -0.0f, nan, payload, 1.0f};
  const float y[] = {0.0f, -0.0f, -0.0f, payload, nan, nan};
  auto a = block_of(x), b = block_of(y);
  const auto mx = values(maximum(a, b)), mn = values(minimum(a, b));
  REQUIRE(!std::signbit(mx[0]));
  REQUIRE(!std::signbit(mx[1]));
  REQUIRE(std::signbit(mx[2]));
  REQUIRE(std::signbit(mn[0]));
  REQUIRE(std::signbit(mn[1]));
  REQUIRE(bits(mx[3]) == 0x7fffffffu);
  REQUIRE(bits(mn[4]) == 0x7fffffffu);
  REQUIRE(mx[5] == 1.0);
  REQUIRE(bits(values(maximum(a, b, PropagateNan::ALL))[5]) == 0x7fffffffu);
  REQUIRE(!std::signbit(values(maximum(a, b, PropagateNan::ALL))[0]));
  const fp16 hx[] = {fp16(-0.0f), fp16(0.0f)}, hy[] = {fp16(0.0f), fp16(-0.0f)};
  REQUIRE(!std::signbit(values(maximum(block_of(hx), block_of(hy)))[0]));
  REQUIRE(std::signbit(values(minimum(block_of(hx), block_of(hy)))[1]));
}

TEST_CASE("math flushes subnormals as Triton's GPU instructions do; exp is exp2 of x * log2(e)",
          "[elementwise][numbers]") {
  const float tiny = std::bit_cast<float>(1u), sub = std::bit_cast<float>(0x00012345u), minn = std::bit_cast<float>(0x00800000u);
  const float x[] = {tiny, -sub, sub, minn};
  auto s = block_of(x);
  const auto sq = values(tl::sqrt(s)), rs = values(tl::rsqrt(s)), sr = values(tl::sqrt_rn(s));
  REQUIRE(sq[0] == 0.0);
  REQUIRE(sq[2] == 0.0);
  REQUIRE(sq[3] == double(std::sqrt(minn)));
  REQUIRE(rs[0] == INFINITY);
  REQUIRE(rs[1] == -INFINITY);  // rsqrt(-0.0)
  REQUIRE(sr[0] == double(std::sqrt(tiny)));  // sqrt_rn keeps them
  const auto fl = values(tl::floor(s)), ce = values(tl::ceil(s));
  REQUIRE(fl[1] == 0.0);
  REQUIRE(std::signbit(fl[1]));  // floor(-subnormal) is -0.0, not -1
  REQUIRE(ce[0] == 0.0);         // ceil(subnormal) is 0, not 1
  REQUIRE(values(tl::tanh(s))[0] == 0.0);
  REQUIRE(values(tl::erf(s))[2] == 0.0);
  REQUIRE(values(tl::sin(s))[2] == 0.0);
  const float e[] = {-149.0f, -140.0f, -126.0f, 3.0f};
  const auto e2 = values(tl::exp2(block_of(e)));
  REQUIRE(e2[0] == 0.0);
  REQUIRE(e2[1] == 0.0);
  REQUIRE(e2[2] == double(minn));
  REQUIRE(e2[3] == 8.0);
  // abs clears the sign bit, of NaN too.
  REQUIRE(!std::signbit(values(tl::abs(full<2>(-std::numeric_limits<float>::quiet_NaN(), float32)))[0]));
  // exp(x) = exp2(x * log2(e)) with the product rounded to float32 (Triton's lowering): far
  // from zero the product's rounding shows, as on the GPU.
  auto r = random_block<float, 64>(-80, 80);
  const auto vr = values(r), ex = values(tl::exp(r));
  for (std::size_t i = 0; i < 64; ++i) REQUIRE(ex[i] == double(std::exp2(float(vr[i]) * 1.44269504088896340736f)));
  REQUIRE(bits(values(tl::exp(full<1>(10.0f, float32)))[0]) != bits(std::exp(10.0f)));
}
