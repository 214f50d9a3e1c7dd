// tl::dot against Eigen in double precision: 2-D and batched 3-D, every input type, with and
// without an accumulator, tf32 rounding of float32 inputs and exact ieee mode.
#include "testing.hpp"

#include <Eigen/Dense>

using namespace tl;
using testing::random_block;
using testing::values;
using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

namespace {
template <class E>
Mat to_matrix(const E& e, int rows, int cols, int batch = 0) {
  const auto v = values(e);
  Mat m(rows, cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m(i, j) = v[std::size_t((batch * rows + i) * cols + j)];
  return m;
}

double tf32_value(float x) { return double(detail::round_to_tf32(x)); }
}  // namespace

TEMPLATE_TEST_CASE("dot of 2-D blocks matches Eigen", "[dot]", fp16, bf16, fp8e4nv, fp8e5, fp8e4b15, fp8e4b8,
                   fp8e5b16, double) {
  auto a = random_block<TestType, 32, 16>(-1, 1);
  auto b = random_block<TestType, 16, 48>(-1, 1);
  auto acc = random_block<typename detail::dot_acc<TestType>::type, 32, 48>(-1, 1);
  const Mat want = to_matrix(a, 32, 16) * to_matrix(b, 16, 48) + to_matrix(acc, 32, 48);
  const auto got = dot(a, b, acc);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(got)>, shape<32, 48>>);
  const double tol = std::is_same_v<TestType, double> ? 1e-12 : 1e-5;
  REQUIRE((to_matrix(got, 32, 48) - want).cwiseAbs().maxCoeff() <= tol);
}

TEST_CASE("float32 dot cuts inputs to tf32 by default, exact with tl::ieee", "[dot]") {
  auto a = random_block<float, 16, 32>(-1, 1);
  auto b = random_block<float, 32, 16>(-1, 1);
  Mat ta(16, 32), tb(32, 16);
  for (int i = 0; i < 16; ++i)
    for (int k = 0; k < 32; ++k) {
      ta(i, k) = tf32_value(a[i * 32 + k]);
      tb(k, i) = tf32_value(b[k * 16 + i]);
    }
  const Mat want_tf32 = ta * tb;
  const Mat want_exact = to_matrix(a, 16, 32) * to_matrix(b, 32, 16);
  const Mat got_tf32 = to_matrix(dot(a, b), 16, 16);
  const Mat got_exact = to_matrix(dot(a, b, ieee), 16, 16);
  REQUIRE((got_tf32 - want_tf32).cwiseAbs().maxCoeff() <= 1e-5);
  REQUIRE((got_exact - want_exact).cwiseAbs().maxCoeff() <= 1e-5);
  // tf32 really does lose precision against exact float32 on these inputs.
  REQUIRE((got_tf32 - want_exact).cwiseAbs().maxCoeff() > 1e-5);
  // Toward zero, as the tensor cores read float32 bits: the low 13 mantissa bits dropped.
  REQUIRE(detail::round_to_tf32(1.0f + 0x1p-10f + 0x1p-11f) == 1.0f + 0x1p-10f);
  REQUIRE(detail::round_to_tf32(-(1.0f + 0x1p-11f + 0x1p-12f)) == -1.0f);
  REQUIRE(detail::round_to_tf32(1.0f + 0x1p-10f) == 1.0f + 0x1p-10f);
  REQUIRE(std::isinf(detail::round_to_tf32(INFINITY)));
  REQUIRE(std::isnan(detail::round_to_tf32(NAN)));
}

TEST_CASE("batched 3-D dot multiplies each batch", "[dot]") {
  auto a = random_block<float, 3, 16, 16>(-1, 1);
  auto b = random_block<float, 3, 16, 32>(-1, 1);
  const auto got = dot(a, b, ieee);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(got)>, shape<3, 16, 32>>);
  for (int t = 0; t < 3; ++t) {
    const Mat want = to_matrix(a, 16, 16, t) * to_matrix(b, 16, 32, t);
    REQUIRE((to_matrix(got, 16, 32, t) - want).cwiseAbs().maxCoeff() <= 1e-5);
  }
}

TEST_CASE("int8 dot accumulates exactly in int32", "[dot]") {
  auto a = random_block<std::int8_t, 16, 64>(-128, 128);
  auto b = random_block<std::int8_t, 64, 16>(-128, 128);
  const auto got = dot(a, b);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(got)>, std::int32_t>);
  REQUIRE(to_matrix(got, 16, 16) == to_matrix(a, 16, 64) * to_matrix(b, 64, 16));
}

TEMPLATE_TEST_CASE("out_dtype float16 rounds the float32 result once", "[dot]", fp16, bf16, fp8e4nv, fp8e5b16) {
  auto a = random_block<TestType, 32, 16>(-1, 1);
  auto b = random_block<TestType, 16, 32>(-1, 1);
  auto acc = random_block<fp16, 32, 32>(-1, 1);
  const Mat ab = to_matrix(a, 32, 16) * to_matrix(b, 16, 32);
  const auto got = dot(a, b, float16);
  const auto got_acc = dot(a, b, acc, float16);
  const auto got_lazy_acc = dot(a, b, (acc * 1.0f).to(float16), ieee, float16);  // a lazy fp16 accumulator
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(got)>, fp16>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(got_acc)>, fp16>);
  const auto v = values(got), va = values(got_acc), vl = values(got_lazy_acc), vacc = values(acc);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j) {
      const std::size_t n = std::size_t(i * 32 + j);
      // Products exact, sums in float32 (error far below an fp16 ulp), one rounding to fp16.
      const double want = float(fp16(float(ab(i, j))));
      const double want_acc = float(fp16(float(ab(i, j) + vacc[n])));
      // within one fp16 ulp (a float32 sum next to a rounding midpoint may round the other way)
      REQUIRE(std::abs(v[n] - want) <= 0x1p-10 * std::abs(want) + 1e-4);
      REQUIRE(std::abs(va[n] - want_acc) <= 0x1p-10 * std::abs(want_acc) + 1e-4);
      REQUIRE(vl[n] == va[n]);
    }
  // float32 out is the default dot; an fp16 accumulator alone gives the same fp16 result.
  REQUIRE(values(dot(a, b, float32)) == values(dot(a, b)));
  const auto got_fp16_acc = dot(a, b, acc);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(got_fp16_acc)>, fp16>);
  REQUIRE(values(got_fp16_acc) == va);
}

TEST_CASE("int8 dot with out_dtype int32 is the default", "[dot]") {
  auto a = random_block<std::int8_t, 16, 32>(-128, 128);
  auto b = random_block<std::int8_t, 32, 16>(-128, 128);
  REQUIRE(values(dot(a, b, int32)) == values(dot(a, b)));
}

TEST_CASE("dot takes lazy operands and a lazy accumulator", "[dot]") {
  auto a = random_block<float, 16, 16>(-1, 1);
  auto b = random_block<float, 16, 16>(-1, 1);
  const auto got = dot(a * 2.0f, trans(b), zeros<16, 16>(float32) + 1.0f, ieee);
  const Mat want = 2.0 * to_matrix(a, 16, 16) * to_matrix(b, 16, 16).transpose() + Mat::Ones(16, 16);
  REQUIRE((to_matrix(got, 16, 16) - want).cwiseAbs().maxCoeff() <= 1e-5);
}

// The CUDA backend reads a dot operand that is a loaded block from memory at the dot
// (expr/loaded.hpp); the CPU checks that nothing stored to that memory in between.
template <int Clobber>
TL_KERNEL void store_between_load_and_dot(ptr<float> a_ptr, ptr<float> b_ptr, ptr<float> z_ptr) {
  auto i = arange<0, 16>();
  auto offs = i(_, None) * 16 + i(None, _);
  auto a = load(a_ptr + offs);
  auto b = load(b_ptr + offs);
  if constexpr (Clobber == 1) store(a_ptr + offs, a + 1.0f);  // a store to what a read: reported
  if constexpr (Clobber == 2) {  // a updated in place first: an ordinary block, no longer checked
    a += 0.0f;
    store(a_ptr + offs, a + 1.0f);
  }
  if constexpr (Clobber == 3) store(b_ptr + offs, b);  // the same values: nothing changed
  store(z_ptr + offs, dot(a, b, ieee));
}

TEST_CASE("a store between a load and the dot it feeds is reported", "[dot][launch]") {
  std::vector<float> a(256), b(256), z(256);
  for (int i = 0; i < 256; ++i) {
    a[std::size_t(i)] = float(i % 7) - 3.0f;
    b[std::size_t(i)] = float(i % 5) - 2.0f;
  }
  auto want = [&](int r, int c) {  // the product of the values loaded
    double s = 0;
    for (int k = 0; k < 16; ++k) s += double(a[std::size_t(r * 16 + k)]) * double(b[std::size_t(k * 16 + c)]);
    return s;
  };
  auto a2 = a;
  launch<store_between_load_and_dot<0>>(grid(1), a2, b, z);
  REQUIRE(z[1 * 16 + 2] == float(want(1, 2)));
  launch<store_between_load_and_dot<2>>(grid(1), a2, b, z);  // updated in place first: fine
  REQUIRE(z[3 * 16 + 4] == float(want(3, 4)));
  REQUIRE(a2[5] == a[5] + 1.0f);
  launch<store_between_load_and_dot<3>>(grid(1), a, b, z);  // stored the same values: fine
  a2 = a;
  try {
    launch<store_between_load_and_dot<1>>(grid(1), a2, b, z);
    FAIL("the launch should have failed");
  } catch (const launch_error& e) {
    REQUIRE(e.report().asserts.size() == 1);
    REQUIRE(e.report().asserts[0].failing_lanes == 256);  // a + 1 differs from a everywhere
    REQUIRE_THAT(e.what(), Catch::Contains("stored to before the tl::dot it feeds") && Catch::Contains("test_dot.cpp"));
  }
}

namespace {
// Independent decoders of the microscaling formats (OCP MX v1.0), in double.
double e2m1_ref(int c) {
  static const double mag[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  return (c & 8) ? -mag[c & 7] : mag[c & 7];
}
double e4m3_ref(int b) {  // bias 7, 3 mantissa bits, subnormals, S.1111.111 is NaN
  const int e = (b >> 3) & 15, m = b & 7;
  const double v = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1 + m / 8.0, e - 7);
  return (b & 128) ? -v : v;
}
double e5m2_ref(int b) {  // bias 15, 2 mantissa bits
  const int e = (b >> 2) & 31, m = b & 3;
  const double v = e == 0 ? std::ldexp(m / 4.0, -14) : std::ldexp(1 + m / 4.0, e - 15);
  return (b & 128) ? -v : v;
}
int random_byte(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(testing::rng()); }
// An e8m0 scale as Triton's upcast reads it: 2^(s - 127), and 0 for s = 0.
double e8m0_ref(int s) { return s == 0 ? 0.0 : std::ldexp(1.0, s - 127); }
}  // namespace

TEST_CASE("dot_scaled: fp4, fp8 and bf16 operands with e8m0 scales against a plain loop in double", "[dot][dot_scaled]") {
  constexpr int M = 32, K = 64, N = 16;
  // e2m1 (two codes a byte along K, the first in the low bits) times e4m3 bits, both scaled.
  block<std::uint8_t, M, K / 2> a;
  block<std::uint8_t, M, K / 32> as;
  block<std::uint8_t, K, N> b;
  block<std::uint8_t, N, K / 32> bs;
  for (int i = 0; i < M * K / 2; ++i) a[i] = std::uint8_t(random_byte(0, 255));
  // Scales of 2^-7 to 2^7, and some 0 (which Triton's upcast reads as a factor of 0).
  for (int i = 0; i < M * K / 32; ++i) as[i] = std::uint8_t(random_byte(0, 7) == 0 ? 0 : random_byte(120, 134));
  for (int i = 0; i < K * N; ++i) {
    int v = random_byte(0, 255);
    if ((v & 127) == 127) v = 0x38;  // not NaN
    b[i] = std::uint8_t(v);
  }
  for (int i = 0; i < N * K / 32; ++i) bs[i] = std::uint8_t(random_byte(0, 7) == 0 ? 0 : random_byte(120, 134));
  const auto got = values(dot_scaled<"e2m1", "e4m3">(a, as, b, bs));
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double want = 0, size = 0;
      for (int k = 0; k < K; ++k) {
        const int code = (a[m * (K / 2) + k / 2] >> (4 * (k % 2))) & 15;
        const double x = e2m1_ref(code) * e8m0_ref(as[m * (K / 32) + k / 32]);
        const double y = e4m3_ref(b[k * N + n]) * e8m0_ref(bs[n * (K / 32) + k / 32]);
        want += x * y;
        size += std::fabs(x * y);
      }
      INFO("element " << m << ", " << n);
      REQUIRE(std::fabs(got[std::size_t(m * N + n)] - want) <= 1e-6 * size + 1e-30);
    }

  // e4m3 (a tl::fp8e4nv block) times e2m1 packed along K (K/2 x N bytes).
  block<fp8e4nv, M, K> e;
  for (int i = 0; i < M * K; ++i) {
    int v = random_byte(0, 255);
    if ((v & 127) == 127) v = 0x40;
    e[i] = detail::bit_cast<fp8e4nv>(std::uint8_t(v));
  }
  block<std::uint8_t, K / 2, N> f;
  for (int i = 0; i < K / 2 * N; ++i) f[i] = std::uint8_t(random_byte(0, 255));
  const auto got3 = values(dot_scaled<"e4m3", "e2m1">(e, as, f, bs));
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double want = 0, size = 0;
      for (int k = 0; k < K; ++k) {
        const double x = e4m3_ref(detail::bit_cast<std::uint8_t>(e[m * K + k])) * e8m0_ref(as[m * (K / 32) + k / 32]);
        const int code = (f[(k / 2) * N + n] >> (4 * (k % 2))) & 15;
        const double y = e2m1_ref(code) * e8m0_ref(bs[n * (K / 32) + k / 32]);
        want += x * y;
        size += std::fabs(x * y);
      }
      INFO("element " << m << ", " << n);
      REQUIRE(std::fabs(got3[std::size_t(m * N + n)] - want) <= 1e-6 * size + 1e-30);
    }

  // bf16 without a scale times e5m2 (a tl::fp8e5 block), plus an accumulator.
  auto c = random_block<bf16, M, K>(-2, 2);
  block<fp8e5, K, N> d;
  for (int i = 0; i < K * N; ++i) {
    const int v = random_byte(0, 255) & 0x7b;  // exponent below 31: finite
    d[i] = detail::bit_cast<fp8e5>(std::uint8_t(v));
  }
  auto acc = random_block<float, M, N>(-1, 1);
  const auto got2 = values(dot_scaled<"bf16", "e5m2">(c, None, d, bs, acc));
  const auto vc = values(c);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double want = acc[m * N + n], size = std::fabs(want);
      for (int k = 0; k < K; ++k) {
        const double y = e5m2_ref(detail::bit_cast<std::uint8_t>(d[k * N + n])) * e8m0_ref(bs[n * (K / 32) + k / 32]);
        want += vc[std::size_t(m * K + k)] * y;
        size += std::fabs(vc[std::size_t(m * K + k)] * y);
      }
      INFO("element " << m << ", " << n);
      REQUIRE(std::fabs(got2[std::size_t(m * N + n)] - want) <= 1e-6 * size + 1e-30);
    }

  // fp16 times e4m3: both upcast to float16 (Triton's choice when a format is "fp16"); scales of
  // 2^-2 to 2^2 keep every scaled e4m3 value exact in float16.
  auto g = random_block<fp16, M, K>(-2, 2);
  block<std::uint8_t, N, K / 32> gs;
  for (int i = 0; i < N * K / 32; ++i) gs[i] = std::uint8_t(random_byte(125, 129));
  const auto got4 = values(dot_scaled<"fp16", "e4m3">(g, None, b, gs));
  const auto vg = values(g);
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      double want = 0, size = 0;
      for (int k = 0; k < K; ++k) {
        const double y = e4m3_ref(b[k * N + n]) * e8m0_ref(gs[n * (K / 32) + k / 32]);
        want += vg[std::size_t(m * K + k)] * y;
        size += std::fabs(vg[std::size_t(m * K + k)] * y);
      }
      INFO("element " << m << ", " << n);
      REQUIRE(std::fabs(got4[std::size_t(m * N + n)] - want) <= 1e-6 * size + 1e-30);
    }
}

// ---- range::fold: the loop the backend schedules (ops/program.hpp) ----
namespace {
// C = A @ B^T through descriptors, the K loop as a fold (step `step` tiles from `first`).
template <int BM, int BN, int BK>
TL_KERNEL void fold_nt_k(tl::ptr<const fp16> a, tl::ptr<const fp16> b, tl::ptr<float> c, int M, int N, int K,
                         int first, int step) {
  auto ad = make_tensor_descriptor(a, {M, K}, {K, 1}, block_shape<BM, BK>);
  auto bd = make_tensor_descriptor(b, {N, K}, {K, 1}, block_shape<BN, BK>);
  auto cd = make_tensor_descriptor(c, {M, N}, {N, 1}, block_shape<BM, BN>);
  const int m = program_id(0) * BM, n = program_id(1) * BN;
  const int stop = step > 0 ? cdiv(K, BK) : -1;
  auto acc = range(first, stop, step, {.num_stages = 3}).fold(zeros<BM, BN>(float32), [&](int k, auto acc) {
    return dot(ad.load({m, k * BK}), trans(bd.load({n, k * BK})), acc);
  });
  cd.store({m, n}, acc);
}
}  // namespace

TEST_CASE("range::fold runs the plain loop: a descriptor matmul against Eigen at random sizes, any step", "[dot][loop]") {
  std::mt19937 g(31);
  for (int trial = 0; trial < 6; ++trial) {
    const int M = std::uniform_int_distribution<int>(1, 70)(g), N = std::uniform_int_distribution<int>(1, 70)(g);
    const int K = std::uniform_int_distribution<int>(1, 90)(g);
    std::vector<fp16> a(std::size_t(M) * K), b(std::size_t(N) * K);
    std::uniform_real_distribution<float> d(-1, 1);
    for (auto& x : a) x = fp16(d(g));
    for (auto& x : b) x = fp16(d(g));
    const int tiles = (K + 15) / 16;
    // Forward one tile a step, or backwards every second tile from the last.
    const bool back = trial % 2 == 1;
    const int first = back ? tiles - 1 : 0, step = back ? -2 : 1;
    std::vector<float> c(std::size_t(M) * N, std::nanf(""));
    launch<fold_nt_k<16, 16, 16>>(grid(cdiv(M, 16), cdiv(N, 16)), ptr(a), ptr(b), ptr(c), M, N, K, first, step);
    double worst = 0;
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double want = 0;
        for (int t = first; back ? t >= 0 : t < tiles; t += step)
          for (int k = t * 16; k < std::min(K, t * 16 + 16); ++k)
            want += double(float(a[std::size_t(i) * K + k])) * double(float(b[std::size_t(j) * K + k]));
        worst = std::max(worst, std::abs(want - double(c[std::size_t(i) * N + j])));
      }
    INFO("M " << M << " N " << N << " K " << K << (back ? ", step -2 from the last tile" : ""));
    REQUIRE(worst <= 1e-4);
  }
}

TEST_CASE("range::fold calls its body once per iteration, in order, and returns init when it runs none", "[dot][loop]") {
  std::vector<int> seen;
  auto acc = range(10, 0, -3).fold(full<4>(1.0f, float32), [&](int k, auto acc) {
    seen.push_back(k);
    return acc * 2.0f + float(k);
  });
  REQUIRE(seen == std::vector<int>{10, 7, 4, 1});
  float want = 1;
  for (int k : {10, 7, 4, 1}) want = want * 2 + float(k);
  for (int i = 0; i < 4; ++i) REQUIRE(acc[i] == want);
  seen.clear();
  auto none = range(5, 5).fold(full<4>(3.0f, float32), [&](int k, auto acc) {
    seen.push_back(k);
    return acc + 1.0f;
  });
  REQUIRE(seen.empty());
  for (int i = 0; i < 4; ++i) REQUIRE(none[i] == 3.0f);
}
