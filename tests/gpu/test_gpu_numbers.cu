// The numbers both backends give alike, bit for bit (docs/03-types.md): casts out of range and of
// NaN, integer division by zero, multiply-add contraction, maximum/minimum on zeros and NaN,
// weak scalars in the block's type, and the flushing of subnormals by the math functions.
#include <cstring>

#include "gpu_testing.hpp"

using namespace gpu_testing;

namespace {
template <class XT, class OT, class F, int B>
TL_KERNEL void unary_kernel(tl::ptr<XT> x, tl::ptr<OT> o) {
  auto i = tl::arange<0, B>();
  tl::store(o + i, F{}(tl::load(x + i)));
}
template <class T, class OT, class F, int B>
TL_KERNEL void ternary_kernel(tl::ptr<T> a, tl::ptr<T> b, tl::ptr<T> c, tl::ptr<OT> o) {
  auto i = tl::arange<0, B>();
  tl::store(o + i, F{}(tl::load(a + i), tl::load(b + i), tl::load(c + i)));
}

// Runs the kernel on both backends (outputs poisoned) and requires the same bytes.
template <auto Kernel, class OT, class... In>
void require_same_bits(std::size_t n, const char* what, std::vector<In>&... in) {
  auto run = [&](const tl::launch_options& o) {
    std::vector<OT> out(n);
    std::memset(static_cast<void*>(out.data()), 0xa5, n * sizeof(OT));
    tl::launch<Kernel>(tl::grid(1), o, in..., out);
    return out;
  };
  const auto c = run(cpu), g = run(cuda);
  std::size_t bad = n;
  for (std::size_t i = n; i-- > 0;)
    if (std::memcmp(&c[i], &g[i], sizeof(OT)) != 0) bad = i;
  INFO(what << ": first differing element " << bad << " of " << n);
  REQUIRE(bad == n);
}

template <class T>
struct to {
  template <class X>
  TL_HD auto operator()(const X& x) const { return x.to(tl::dtype<T>{}); }
};
struct div0 {
  template <class X> TL_HD auto operator()(const X& x) const { return x / (x - x); }
};
struct mod0 {
  template <class X> TL_HD auto operator()(const X& x) const { return x % (x - x); }
};
struct plus1 {
  template <class X> TL_HD auto operator()(const X& x) const { return x + 1; }
};
struct times_tenth {
  template <class X> TL_HD auto operator()(const X& x) const { return x * 0.1 + 0.3f; }
};
struct flushing_math {
  template <class X>
  TL_HD auto operator()(const X& x) const {
    return tl::where(tl::abs(x) < 1e-37f, tl::sqrt(x) + tl::rsqrt(tl::abs(x)) + tl::exp2(x - 149.0f), tl::floor(x) + tl::ceil(x));
  }
};
struct mad {
  template <class X> TL_HD auto operator()(const X& a, const X& b, const X& c) const { return a * b + c; }
};
struct mad_variants {
  template <class X> TL_HD auto operator()(const X& a, const X& b, const X& c) const { return (c - a * b) * (a * b - c) + a * b + c * b; }
};
struct max_min {
  template <class X>
  TL_HD auto operator()(const X& a, const X& b, const X& c) const {
    (void)b;
    return tl::maximum(a, c, tl::PropagateNan::ALL);  // (NaN arithmetic's payloads differ between backends)
  }
};
struct max_only {
  template <class X> TL_HD auto operator()(const X& a, const X& b, const X&) const { return tl::maximum(a, b); }
};
struct min_only {
  template <class X> TL_HD auto operator()(const X& a, const X& b, const X&) const { return tl::minimum(a, b); }
};

std::vector<float> edge_floats(std::size_t n) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float v[] = {0.0f, -0.0f, 127.9f, 128.0f, -129.0f, 200.0f, 256.0f, 300.0f, -300.0f, 32768.0f, -40000.0f, 70000.0f,
                     3e9f, -3e9f, 1e19f, 1e20f, -1e20f, INFINITY, -INFINITY, nan, -nan, 1e-40f, -1.5f, 2.5f};
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = i < std::size(v) ? v[i] : float(random_int(-70000, 70000)) * 0.37f;
  return x;
}
}  // namespace

TEST_CASE("casts out of range and of NaN give the same bits on both backends", "[gpu][numbers]") {
  auto x = edge_floats(128);
  std::vector<double> xd(x.begin(), x.end());
  require_same_bits<unary_kernel<float, std::int8_t, to<std::int8_t>, 128>, std::int8_t>(128, "f32 -> int8", x);
  require_same_bits<unary_kernel<float, std::uint8_t, to<std::uint8_t>, 128>, std::uint8_t>(128, "f32 -> uint8", x);
  require_same_bits<unary_kernel<float, std::int64_t, to<std::int64_t>, 128>, std::int64_t>(128, "f32 -> int64", x);
  require_same_bits<unary_kernel<float, std::uint64_t, to<std::uint64_t>, 128>, std::uint64_t>(128, "f32 -> uint64", x);
  require_same_bits<unary_kernel<float, std::uint32_t, to<std::uint32_t>, 128>, std::uint32_t>(128, "f32 -> uint32", x);
  require_same_bits<unary_kernel<double, std::int32_t, to<std::int32_t>, 128>, std::int32_t>(128, "f64 -> int32", xd);
  require_same_bits<unary_kernel<float, tl::fp8e5, to<tl::fp8e5>, 128>, tl::fp8e5>(128, "f32 -> float8e5", x);
}

TEST_CASE("integer division and modulo by zero give the same bits on both backends", "[gpu][numbers]") {
  auto i32 = random_values<std::int32_t>(128, -1e9, 1e9);
  auto u8 = random_values<std::uint8_t>(128, 0, 255);
  std::vector<std::int64_t> i64(128);
  for (std::size_t i = 0; i < 128; ++i) i64[i] = i % 2 ? std::int64_t(i) * 12345 : -std::int64_t(i) << 40;
  require_same_bits<unary_kernel<std::int32_t, std::int32_t, div0, 128>, std::int32_t>(128, "int32 / 0", i32);
  require_same_bits<unary_kernel<std::int32_t, std::int32_t, mod0, 128>, std::int32_t>(128, "int32 % 0", i32);
  require_same_bits<unary_kernel<std::uint8_t, std::uint8_t, div0, 128>, std::uint8_t>(128, "uint8 / 0", u8);
  require_same_bits<unary_kernel<std::int64_t, std::int64_t, div0, 128>, std::int64_t>(128, "int64 / 0", i64);
  require_same_bits<unary_kernel<std::int64_t, std::int64_t, mod0, 128>, std::int64_t>(128, "int64 % 0", i64);
  std::vector<std::int32_t> q(128);
  tl::launch<unary_kernel<std::int32_t, std::int32_t, div0, 128>>(tl::grid(1), cuda, i32, q);
  REQUIRE(q[5] == -1);
}

TEST_CASE("a*b+c and its variants are one fma on both backends, float32, float16 and bfloat16", "[gpu][numbers]") {
  auto a = random_values(256), b = random_values(256), c = random_values(256);
  for (std::size_t i = 0; i < 256; ++i) c[i] = -a[i] * b[i] * (1.0f + float(random_int(-100, 100)) * 1e-4f);
  require_same_bits<ternary_kernel<float, float, mad, 256>, float>(256, "a*b+c f32", a, b, c);
  require_same_bits<ternary_kernel<float, float, mad_variants, 256>, float>(256, "variants f32", a, b, c);
  std::vector<tl::fp16> ha(256), hb(256), hc(256);
  std::vector<tl::bf16> ba(256), bb(256), bc(256);
  for (std::size_t i = 0; i < 256; ++i) {
    ha[i] = tl::fp16(a[i]), hb[i] = tl::fp16(b[i]), hc[i] = tl::fp16(c[i]);
    ba[i] = tl::bf16(a[i]), bb[i] = tl::bf16(b[i]), bc[i] = tl::bf16(c[i]);
  }
  require_same_bits<ternary_kernel<tl::fp16, tl::fp16, mad, 256>, tl::fp16>(256, "a*b+c f16", ha, hb, hc);
  require_same_bits<ternary_kernel<tl::fp16, tl::fp16, mad_variants, 256>, tl::fp16>(256, "variants f16", ha, hb, hc);
  require_same_bits<ternary_kernel<tl::bf16, tl::bf16, mad, 256>, tl::bf16>(256, "a*b+c bf16", ba, bb, bc);
  require_same_bits<ternary_kernel<tl::bf16, tl::bf16, mad_variants, 256>, tl::bf16>(256, "variants bf16", ba, bb, bc);
  // The fused result: one rounding (the CPU's std::fma), where two roundings differ from it.
  std::vector<float> g(256);
  tl::launch<ternary_kernel<float, float, mad, 256>>(tl::grid(1), cuda, a, b, c, g);
  int fused = 0;
  for (std::size_t i = 0; i < 256; ++i) {
    REQUIRE(g[i] == std::fma(a[i], b[i], c[i]));
    fused += g[i] != a[i] * b[i] + c[i];
  }
  REQUIRE(fused > 0);
}

TEST_CASE("maximum and minimum on zeros and NaN, weak scalars and subnormals: the same bits on both backends",
          "[gpu][numbers]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float v[] = {0.0f, -0.0f, nan, 1.0f, -1.0f, INFINITY, -INFINITY, std::bit_cast<float>(0x7fc12345u)};
  std::vector<float> a(64), b(64), c(64);
  for (std::size_t i = 0; i < 64; ++i) a[i] = v[i % 8], b[i] = v[i / 8], c[i] = v[(i * 3) % 8];
  require_same_bits<ternary_kernel<float, float, max_min, 64>, float>(64, "maximum, PropagateNan::ALL", a, b, c);
  require_same_bits<ternary_kernel<float, float, max_only, 64>, float>(64, "maximum", a, b, c);
  require_same_bits<ternary_kernel<float, float, min_only, 64>, float>(64, "minimum", a, b, c);
  auto u8 = random_values<std::uint8_t>(128, 0, 255);
  u8[0] = 255;
  require_same_bits<unary_kernel<std::uint8_t, std::int32_t, plus1, 128>, std::int32_t>(128, "uint8 + 1", u8);
  std::vector<std::int32_t> w(128);
  tl::launch<unary_kernel<std::uint8_t, std::int32_t, plus1, 128>>(tl::grid(1), cuda, u8, w);
  REQUIRE(w[0] == 0);  // uint8 arithmetic: 255 + 1 wraps
  auto f = random_values(128, -8, 8);
  std::vector<tl::fp16> h(128);
  std::vector<tl::bf16> hb(128);
  for (std::size_t i = 0; i < 128; ++i) h[i] = tl::fp16(f[i]), hb[i] = tl::bf16(f[i]);
  require_same_bits<unary_kernel<tl::fp16, tl::fp16, times_tenth, 128>, tl::fp16>(128, "h * 0.1 + 0.3f", h);
  require_same_bits<unary_kernel<tl::bf16, tl::bf16, times_tenth, 128>, tl::bf16>(128, "hb * 0.1 + 0.3f", hb);
  std::vector<float> s(128);
  for (std::size_t i = 0; i < 128; ++i) s[i] = i % 2 ? std::bit_cast<float>(std::uint32_t(random_int(1, 0x7fffff)) | (i % 4 == 1 ? 0x80000000u : 0u)) : f[i];
  require_same_bits<unary_kernel<float, float, flushing_math, 128>, float>(128, "subnormals flushed", s);
}
