// Elementwise ops, broadcasting, views and casts: the CUDA backend against the CPU backend.
#include <cstring>

#include "gpu_testing.hpp"

using namespace gpu_testing;
using tl::None;
using tl::_;

// Broadcasts of loaded blocks (staged through shared memory) mixed with same-shape operands
// (read from registers), math functions, where and fma.
template <int B0, int B1>
TL_KERNEL void broadcast_math_kernel(tl::ptr<float> x_ptr, tl::ptr<float> row_ptr, tl::ptr<float> col_ptr,
                                     tl::ptr<float> z_ptr, int N0, int N1) {
  auto i = tl::program_id(0) * B0 + tl::arange<0, B0>();
  auto j = tl::program_id(1) * B1 + tl::arange<0, B1>();
  auto mi = i < N0;
  auto mj = j < N1;
  auto m = mi(_, None) & mj(None, _);
  auto x = tl::load(x_ptr + i(_, None) * N1 + j(None, _), m);
  auto r = tl::load(row_ptr + j, mj);
  auto c = tl::load(col_ptr + i, mi, 1.0f);
  auto y = tl::where(x > 0, tl::exp2(x) * r(None, _), tl::fma(-x, c(_, None), r(None, _)));
  auto z = tl::maximum(y, tl::sqrt(tl::abs(x))) / c(_, None) + tl::cdiv(3, 2);
  tl::store(z_ptr + i(_, None) * N1 + j(None, _), z, m);
}

TEST_CASE("broadcast, math, where and fma agree with the CPU at random sizes", "[gpu][elementwise]") {
  for (int rep = 0; rep < 6; ++rep) {
    const int n0 = random_int(1, 90), n1 = random_int(1, 150);
    auto x = random_values(std::size_t(n0) * n1), r = random_values(n1), c = random_values(n0, 0.5, 2);
    auto run = [&](const tl::launch_options& o) {
      std::vector<float> z(std::size_t(n0) * n1, NAN);
      tl::launch<broadcast_math_kernel<32, 64>>(tl::grid(tl::cdiv(n0, 32), tl::cdiv(n1, 64)), o, x, r, c, z, n0, n1);
      return z;
    };
    require_agree(run(cpu), run(cuda), 1e-6, 1e-6, "sizes " + std::to_string(n0) + " x " + std::to_string(n1));
  }
}

// Views of a loaded block: trans, permute, reshape, expand_dims, broadcast_to.
template <int A, int B>
TL_KERNEL void views_kernel(tl::ptr<int> x_ptr, tl::ptr<int> t_ptr, tl::ptr<int> r_ptr, tl::ptr<int> s_ptr) {
  auto a = tl::arange<0, A>();
  auto b = tl::arange<0, B>();
  auto x = tl::load(x_ptr + a(_, None) * B + b(None, _));      // (A, B)
  auto xt = tl::trans(x);                                       // (B, A)
  tl::store(t_ptr + b(_, None) * A + a(None, _), xt * 3 - 1);
  auto flat = tl::reshape<A * B>(xt);                           // (A*B,) in xt's order
  tl::store(r_ptr + tl::arange<0, A * B>(), flat);
  auto p = tl::permute<1, 0>(tl::expand_dims<0>(tl::sum<1>(x)) + tl::broadcast_to<B, A>(a(None, _)));  // (A, B)
  tl::store(s_ptr + a(_, None) * B + b(None, _), p);
}

TEST_CASE("trans, reshape, permute, expand_dims and broadcast_to move elements like the CPU", "[gpu][views]") {
  auto x = random_values<int>(16 * 64, -100, 100);
  auto run = [&](const tl::launch_options& o) {
    std::vector<int> t(16 * 64, -7), r(16 * 64, -7), s(16 * 64, -7);
    tl::launch<views_kernel<16, 64>>(tl::grid(1), o, x, t, r, s);
    t.insert(t.end(), r.begin(), r.end());
    t.insert(t.end(), s.begin(), s.end());
    return t;
  };
  require_agree(run(cpu), run(cuda));
}

// Casts (fp16, bf16, int8 with saturation), bitcasts, integer division, shifts and bit ops.
template <int B>
TL_KERNEL void casts_bits_kernel(tl::ptr<float> x_ptr, tl::ptr<int> i_ptr, tl::ptr<float> f_ptr, tl::ptr<int> o_ptr,
                                 int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  auto m = offs < n;
  auto x = tl::load(x_ptr + offs, m);
  auto k = tl::load(i_ptr + offs, m);
  auto h = x.to(tl::float16);
  auto bf = (x * 3).to(tl::bfloat16);
  tl::store(f_ptr + offs, h.to(tl::float32) + bf.to(tl::float32) * 0.5f, m);
  auto bits = x.to(tl::int32, tl::bitcast);
  auto q = (k / 7) ^ (k % 5) | ((bits >> 3) & 0xff) << 1;
  auto s = (x * 100).to(tl::int8).to(tl::int32);
  tl::store(o_ptr + offs, q + s + (k << (k & 7)) + tl::where(k < 0, -k, k) % 3, m);
}

TEST_CASE("casts, bitcasts and integer bit ops agree bit for bit", "[gpu][elementwise]") {
  const int n = random_int(300, 2000);
  auto x = random_values(std::size_t(n), -3, 3);
  auto k = random_values<int>(std::size_t(n), -100000, 100000);
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> f(std::size_t(n), NAN);
    std::vector<int> out(std::size_t(n), -1);
    tl::launch<casts_bits_kernel<256>>(tl::grid(tl::cdiv(n, 256)), o, x, k, f, out, n);
    return std::make_pair(f, out);
  };
  const auto a = run(cpu), b = run(cuda);
  require_agree(a.first, b.first, 0, 0, "float results");
  require_agree(a.second, b.second, 0, 0, "int results");
}

// static_range (unrolled, its index a constant) and debug_barrier between a program's stores
// and the loads of what other threads of the program stored.
template <int B>
TL_KERNEL void static_range_barrier_kernel(tl::ptr<const float> x, tl::ptr<float> z, tl::ptr<float> w) {
  auto offs = tl::arange<0, B>();
  tl::block<float, B> acc = tl::zeros<B>(tl::float32);
  tl::static_range<3, -1, -1>([&](auto i) { acc = acc * 2.0f + tl::load(x + i * B + offs) * float(i); });
  tl::store(z + offs, acc);
  tl::debug_barrier();
  tl::store(w + offs, tl::load(z + (B - 1 - offs)) + 1.0f);  // elements other threads stored
}

TEST_CASE("static_range and debug_barrier agree with the CPU", "[gpu][program]") {
  constexpr int B = 512;
  auto x = random_quarters<float>(4 * B);
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> z(B, NAN), w(B, NAN);
    tl::launch<static_range_barrier_kernel<B>>(tl::grid(1), o, x, z, w);
    z.insert(z.end(), w.begin(), w.end());
    return z;
  };
  require_agree(run(cpu), run(cuda), 0, 0, "static_range, debug_barrier");
}

// umulhi on 32- and 64-bit integers (mul.hi on the GPU, the halves' products on the CPU).
template <int B>
TL_KERNEL void umulhi_kernel(tl::ptr<std::uint64_t> a_ptr, tl::ptr<std::int32_t> b_ptr, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  auto m = offs < n;
  auto a = tl::load(a_ptr + offs, m);
  auto b = tl::load(b_ptr + offs, m);
  tl::store(a_ptr + offs, tl::umulhi(a, a ^ std::uint64_t(0x9E3779B97F4A7C15ull)) ^ tl::umulhi(a.to(tl::int64), b.to(tl::int64)).to(tl::uint64), m);
  tl::store(b_ptr + offs, tl::umulhi(b, b + 12345) + tl::umulhi(b.to(tl::uint32), 0xdeadbeefu).to(tl::int32), m);
}

TEST_CASE("umulhi agrees bit for bit, 32 and 64 bits", "[gpu][elementwise]") {
  const int n = random_int(300, 2000);
  std::vector<std::uint64_t> a(static_cast<std::size_t>(n));
  std::vector<std::int32_t> b(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    a[std::size_t(i)] = (std::uint64_t(rng()()) << 32) ^ rng()();
    b[std::size_t(i)] = std::int32_t(std::uint32_t(rng()()));
  }
  auto run = [&](const tl::launch_options& o) {
    auto x = a;
    auto y = b;
    tl::launch<umulhi_kernel<256>>(tl::grid(tl::cdiv(n, 256)), o, x, y, n);
    return std::make_pair(x, y);
  };
  const auto c = run(cpu), g = run(cuda);
  REQUIRE(c.first != a);  // the kernel ran
  REQUIRE(c.first == g.first);  // exact (require_agree compares through double)
  REQUIRE(c.second == g.second);
}

// Unsigned shifts (64- and 32-bit), including shifts by the width and more: 0, as PTX clamps.
template <int B>
TL_KERNEL void unsigned_shift_kernel(tl::ptr<std::uint64_t> a_ptr, tl::ptr<std::uint32_t> b_ptr, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  auto m = offs < n;
  auto a = tl::load(a_ptr + offs, m);
  auto b = tl::load(b_ptr + offs, m);
  tl::store(a_ptr + offs, (a >> (b & 127u).to(tl::uint64)) ^ (a << std::uint64_t(3)), m);
  tl::store(b_ptr + offs, (b << (b & 63u)) | (b >> 1u), m);
}

TEST_CASE("unsigned shifts agree bit for bit, beyond the width too", "[gpu][elementwise]") {
  const int n = random_int(300, 2000);
  std::vector<std::uint64_t> a(static_cast<std::size_t>(n));
  std::vector<std::uint32_t> b(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    a[std::size_t(i)] = std::uint64_t(random_int(0, 1 << 30)) * 2654435761ULL + std::uint64_t(i);
    b[std::size_t(i)] = std::uint32_t(random_int(0, 1 << 30));
  }
  auto run = [&](const tl::launch_options& o) {
    auto x = a;
    auto y = b;
    tl::launch<unsigned_shift_kernel<256>>(tl::grid(tl::cdiv(n, 256)), o, x, y, n);
    return std::make_pair(x, y);
  };
  const auto c = run(cpu), g = run(cuda);
  CHECK(c.first == g.first);
  CHECK(c.second == g.second);
}

// float32 division: / as Triton divides (div.full.f32, within 2 ulp), div_rn exactly rounded.
// `full` is the PTX instruction itself (an asm statement), which `/` must equal bit for bit.
struct div_full_instruction {
  TL_HD float operator()(float a, float b) const {
#ifdef __CUDA_ARCH__
    float q;
    asm("div.full.f32 %0, %1, %2;" : "=f"(q) : "f"(a), "f"(b));
    return q;
#else
    return a / b;
#endif
  }
};
template <int B>
TL_KERNEL void division_kernel(tl::ptr<float> x_ptr, tl::ptr<float> y_ptr, tl::ptr<float> q_ptr, tl::ptr<float> r_ptr,
                               tl::ptr<float> full_ptr, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  auto m = offs < n;
  auto x = tl::load(x_ptr + offs, m);
  auto y = tl::load(y_ptr + offs, m, 1.0f);
  tl::store(q_ptr + offs, x / y, m);
  tl::store(r_ptr + offs, tl::div_rn(x, y), m);
  tl::store(full_ptr + offs, tl::map_elementwise(div_full_instruction{}, x, y), m);
}

TEST_CASE("float division: / within 2 ulp of the exact quotient, div_rn exact", "[gpu][elementwise]") {
  const int n = random_int(1000, 5000);
  auto x = random_values(std::size_t(n), -1e6, 1e6), y = random_values(std::size_t(n), -3, 3);
  // Quotients across the exponent range, and the special cases.
  for (int i = 0; i < n; i += 7) y[std::size_t(i)] = std::ldexp(y[std::size_t(i)], (i % 120) - 60);
  x[0] = 1.0f, y[0] = 0.0f;                 // inf
  x[1] = 0.0f, y[1] = 0.0f;                 // NaN
  x[2] = NAN;
  x[3] = 1e-38f, y[3] = 1e3f;               // a subnormal quotient
  x[4] = 3e38f, y[4] = 2e38f;               // divisors beyond 2^126, where div.full scales
  x[5] = -1.5f, y[5] = 1e38f;
  x[6] = 2.0f, y[6] = INFINITY;
  x[8] = 1e-30f, y[8] = 3e-40f;             // a subnormal divisor
  x[9] = 5.0f, y[9] = -1e-44f;
  std::vector<float> full(std::size_t(n), -7.0f);
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> q(std::size_t(n), -7.0f), r(std::size_t(n), -7.0f);
    tl::launch<division_kernel<256>>(tl::grid(tl::cdiv(n, 256)), o, x, y, q, r, full, n);
    return std::make_pair(q, r);
  };
  const auto a = run(cpu), b = run(cuda);
  require_agree(a.second, b.second, 0, 0, "div_rn, bit for bit");
  REQUIRE(std::memcmp(full.data(), b.first.data(), full.size() * sizeof(float)) == 0);  // div.full.f32 exactly
  std::size_t far = 0;
  for (int i = 0; i < n; ++i) {
    const double exact = double(x[std::size_t(i)]) / double(y[std::size_t(i)]);
    const float got = b.first[std::size_t(i)];
    if (std::isnan(exact) ? !std::isnan(got) : std::isinf(exact) ? got != float(exact) : false) ++far;
    else if (std::isfinite(exact)) {
      const double ulp = std::ldexp(1.0, std::max(std::ilogb(float(exact)), -126) - 23);
      if (std::abs(double(got) - exact) > 2 * ulp) ++far;
    }
  }
  INFO(far << " quotients more than 2 ulp from exact");
  REQUIRE(far == 0);
}

// fp8 on the GPU: conversions, storage, arithmetic and a dot (32 x 32; float8e4b15, float8e4b8
// and float8e5b16 as float16; the fp8 dots on wgmma are in test_gpu_dot.cu), each against the
// CPU backend.
namespace {
template <class F8>
TL_KERNEL void fp8_ops_k(tl::ptr<const float> x, tl::ptr<F8> q, tl::ptr<float> y, int n) {
  auto i = tl::program_id(0) * 128 + tl::arange<0, 128>();
  tl::store(q + i, tl::load(x + i, i < n).to(tl::dtype<F8>{}), i < n);
  tl::store(y + i, (tl::load(q + i, i < n) * 3 + 0.0f).to(tl::float32), i < n);
}
template <class F8>
TL_KERNEL void fp8_dot_k(tl::ptr<const F8> a, tl::ptr<const F8> b, tl::ptr<float> c) {
  auto r = tl::arange<0, 32>(), k = tl::arange<0, 32>(), col = tl::arange<0, 32>();
  auto x = tl::load(a + (r(_, None) * 32 + k(None, _)));
  auto y = tl::load(b + (k(_, None) * 32 + col(None, _)));
  tl::store(c + (r(_, None) * 32 + col(None, _)), tl::dot(x, y));
}
}  // namespace

TEMPLATE_TEST_CASE("fp8 conversions, arithmetic and dot agree with the CPU", "[gpu][fp8]", tl::fp8e4nv, tl::fp8e5,
                   tl::fp8e4b15, tl::fp8e4b8, tl::fp8e5b16) {
  const int n = random_int(1, 1000);
  const float range = std::is_same_v<TestType, tl::fp8e4b15> ? 2.5f : 500.0f;  // a little beyond the largest value
  auto x = random_values<float>(std::size_t(n), -range, range);
  x[0] = INFINITY;
  if (n > 1) x[1] = std::nanf("");
  auto run = [&](const tl::launch_options& o) {
    std::vector<TestType> q(static_cast<std::size_t>(n));
    std::vector<float> y(std::size_t(n), -1);
    tl::launch<fp8_ops_k<TestType>>(tl::grid(tl::cdiv(n, 128)), o, tl::ptr(x, "x"), tl::ptr(q, "q"), tl::ptr(y, "y"), n);
    std::vector<float> bits(q.size());
    for (std::size_t i = 0; i < q.size(); ++i) bits[i] = float(q[i].bits);
    return std::pair{bits, y};
  };
  const auto [cpu_bits, cpu_y] = run(cpu);
  const auto [gpu_bits, gpu_y] = run(cuda);
  require_agree(cpu_bits, gpu_bits, 0, 0, "fp8 codes");
  require_agree(cpu_y, gpu_y, 0, 0, "fp8 arithmetic");
  std::vector<TestType> a(32 * 32), b(32 * 32);
  for (auto& v : a) v = TestType(random_values<float>(1, -2, 2)[0]);
  for (auto& v : b) v = TestType(random_values<float>(1, -2, 2)[0]);
  auto dot_on = [&](const tl::launch_options& o) {
    std::vector<float> c(32 * 32, std::nanf(""));
    tl::launch<fp8_dot_k<TestType>>(tl::grid(1), o, tl::ptr(std::as_const(a), "a"), tl::ptr(std::as_const(b), "b"),
                                    tl::ptr(c, "c"));
    return c;
  };
  require_agree(dot_on(cpu), dot_on(cuda), 1e-5, 1e-5, "fp8 dot");
}

// dot's out_dtype on the GPU: the tensor-core dot's float32 sum rounded once to fp16, with and
// without an fp16 accumulator, against the CPU.
namespace {
TL_KERNEL void dot_out_fp16_k(tl::ptr<const tl::fp16> a, tl::ptr<const tl::fp16> b, tl::ptr<tl::fp16> c,
                              tl::ptr<tl::fp16> d) {
  auto r = tl::arange<0, 64>(), col = tl::arange<0, 64>();
  auto k = tl::arange<0, 32>();
  auto x = tl::load(a + (r(_, None) * 32 + k(None, _)));
  auto y = tl::load(b + (k(_, None) * 64 + col(None, _)));
  auto c_ptrs = c + (r(_, None) * 64 + col(None, _));
  auto first = tl::dot(x, y, tl::float16);
  tl::store(c_ptrs, first);
  tl::store(d + (r(_, None) * 64 + col(None, _)), tl::dot(x, y, first, tl::float16));
}
}  // namespace

TEST_CASE("dot with out_dtype float16 agrees with the CPU", "[gpu][dot]") {
  std::vector<tl::fp16> a(64 * 32), b(32 * 64);
  for (auto& v : a) v = tl::fp16(random_values<float>(1, -1, 1)[0]);
  for (auto& v : b) v = tl::fp16(random_values<float>(1, -1, 1)[0]);
  auto run = [&](const tl::launch_options& o) {
    std::vector<tl::fp16> c(64 * 64, tl::fp16(NAN)), d(64 * 64, tl::fp16(NAN));
    tl::launch<dot_out_fp16_k>(tl::grid(1), o, tl::ptr(std::as_const(a), "a"), tl::ptr(std::as_const(b), "b"),
                               tl::ptr(c, "c"), tl::ptr(d, "d"));
    std::vector<float> out(c.size() + d.size());
    for (std::size_t i = 0; i < c.size(); ++i) out[i] = float(c[i]), out[c.size() + i] = float(d[i]);
    return out;
  };
  // Summation order may differ: one fp16 ulp at |x| < 8.
  require_agree(run(cpu), run(cuda), 8e-3, 2e-3, "dot out_dtype float16");
}

// map_elementwise: a lambda with a loop and branches, a class with a TL_HD operator, and a
// std::tuple result, over broadcast operands and masks.
struct gpu_softplus_fn {
  TL_HD float operator()(float x, float beta) const { return x * beta > 20.f ? x : log1pf(expf(x * beta)) / beta; }
};
template <int B0, int B1>
TL_KERNEL void map_elementwise_kernel(tl::ptr<const int> n_ptr, tl::ptr<const float> x_ptr, tl::ptr<const float> beta_ptr,
                                      tl::ptr<int> steps_ptr, tl::ptr<float> sp_ptr, tl::ptr<float> spread_ptr, int N0, int N1) {
  auto i = tl::program_id(0) * B0 + tl::arange<0, B0>();
  auto j = tl::arange<0, B1>();
  auto mi = i < N0;
  auto mj = j < N1;
  auto m = mi(_, None) & mj(None, _);
  auto offs = i(_, None) * N1 + j(None, _);
  auto n = tl::load(n_ptr + offs, m, 1);
  auto x = tl::load(x_ptr + i, mi, 0.0f);
  auto beta = tl::load(beta_ptr + j, mj, 1.0f);
  auto steps = tl::map_elementwise(
      [](int v, int cap) {
        int s = 0;
        while (v > 1 && s < cap) {
          v = (v & 1) ? 3 * v + 1 : v >> 1;
          ++s;
        }
        return s;
      },
      n, 300);
  tl::store(steps_ptr + offs, steps, m);
  tl::store(sp_ptr + offs, tl::map_elementwise(gpu_softplus_fn{}, x(_, None), beta(None, _)), m);
  auto [lo, hi] = tl::map_elementwise([](float a, float b) { return std::tuple{a < b ? a : b, a < b ? b : a}; }, x(_, None),
                                      beta(None, _));
  tl::store(spread_ptr + offs, hi - lo, m);
}

TEST_CASE("map_elementwise agrees with the CPU: loops, classes, tuples, broadcasts", "[gpu][elementwise][map]") {
  for (int rep = 0; rep < 4; ++rep) {
    const int n0 = random_int(1, 100), n1 = random_int(1, 64);
    std::vector<int> n(static_cast<std::size_t>(n0) * n1);
    for (auto& v : n) v = random_int(1, 100000);
    auto x = random_values(n0, -30, 30), beta = random_values(n1, 0.5, 2);
    auto run = [&](const tl::launch_options& o) {
      std::vector<int> steps(n.size(), -1);
      std::vector<float> sp(n.size(), NAN), spread(n.size(), NAN);
      tl::launch<map_elementwise_kernel<32, 64>>(tl::grid(tl::cdiv(n0, 32)), o, n, x, beta, steps, sp, spread, n0, n1);
      return std::tuple{steps, sp, spread};
    };
    const auto [c_steps, c_sp, c_spread] = run(cpu);
    const auto [g_steps, g_sp, g_spread] = run(cuda);
    const std::string what = "sizes " + std::to_string(n0) + " x " + std::to_string(n1);
    require_agree(c_steps, g_steps, 0, 0, what);
    require_agree(c_sp, g_sp, 1e-6, 1e-5, what);
    require_agree(c_spread, g_spread, 0, 0, what);
  }
}

// Inline assembly the C++ way (docs/02: tl.inline_asm_elementwise): an asm statement in the
// function given to map_elementwise, with the host branch the CPU backend runs.
struct rotate_left_fn {
  TL_HD std::uint32_t operator()(std::uint32_t x, std::uint32_t n) const {
#ifdef __CUDA_ARCH__
    std::uint32_t r;
    asm("shf.l.wrap.b32 %0, %1, %1, %2;" : "=r"(r) : "r"(x), "r"(n));
    return r;
#else
    return (x << (n & 31)) | (x >> ((32 - n) & 31));
#endif
  }
};
template <int B>
TL_KERNEL void rotate_kernel(tl::ptr<const std::uint32_t> x_ptr, tl::ptr<const std::uint32_t> n_ptr, tl::ptr<std::uint32_t> y_ptr,
                             int n) {
  auto i = tl::program_id(0) * B + tl::arange<0, B>();
  auto x = tl::load(x_ptr + i, i < n);
  auto s = tl::load(n_ptr + i, i < n);
  tl::store(y_ptr + i, tl::map_elementwise(rotate_left_fn{}, x, s), i < n);
}

TEST_CASE("inline assembly in map_elementwise agrees with its host branch", "[gpu][elementwise][map]") {
  const int n = random_int(1, 3000);
  std::vector<std::uint32_t> x(static_cast<std::size_t>(n)), s(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = std::uint32_t(rng()());
    s[i] = std::uint32_t(random_int(0, 40));
  }
  auto run = [&](const tl::launch_options& o) {
    std::vector<std::uint32_t> y(x.size(), 0xdeadbeefu);
    tl::launch<rotate_kernel<256>>(tl::grid(tl::cdiv(n, 256)), o, x, s, y, n);
    return y;
  };
  const auto c = run(cpu), g = run(cuda);
  for (std::size_t i = 0; i < x.size(); ++i) {
    INFO("element " << i << ": x " << x[i] << ", shift " << s[i]);
    REQUIRE(c[i] == g[i]);
    REQUIRE(c[i] == ((x[i] << (s[i] % 32)) | (x[i] >> ((32 - s[i] % 32) % 32))));
  }
}

// The smaller ops of triton.language: squeeze / unsqueeze, maximum and minimum propagating NaN,
// add / sub / mul, to_tensor, expect_zero and condition, and the random numbers' building blocks.
template <int B>
TL_KERNEL void small_ops_kernel(tl::ptr<const float> x_ptr, tl::ptr<const float> y_ptr, tl::ptr<float> z_ptr,
                                tl::ptr<const std::uint32_t> w_ptr, tl::ptr<std::uint32_t> philox_ptr, tl::ptr<float> random_ptr,
                                tl::ptr<int> steps_ptr) {
  auto i = tl::arange<0, B>();
  auto x = tl::load(x_ptr + i);
  auto y = tl::load(y_ptr + i);
  auto col = tl::unsqueeze<1>(x);                                               // (B, 1)
  tl::store(z_ptr + i, tl::squeeze<1>(col) * 2);                                 // back to (B,)
  tl::store(z_ptr + B + i, tl::maximum(x, y, tl::PropagateNan::ALL));
  tl::store(z_ptr + 2 * B + i, tl::minimum(x, y, tl::PropagateNan::ALL));
  tl::store(z_ptr + 3 * B + i, tl::maximum(x, y, tl::PropagateNan::NONE));
  tl::store(z_ptr + 4 * B + i, tl::sub(tl::mul(x, y), tl::add(x, tl::to_tensor(1.5))));
  tl::store(z_ptr + 5 * B + i, tl::expect_zero(x * 0.0f, x == x));
  auto w = tl::load(w_ptr + i);
  auto [a, b, c, d] = tl::philox_impl(w, w + 1u, w * 3u, w ^ 5u, w + 7u, w * 11u);
  tl::store(philox_ptr + i, a ^ b);
  tl::store(philox_ptr + B + i, c + d);
  tl::store(random_ptr + i, tl::uint_to_uniform_float(a));
  auto [n0, n1] = tl::pair_uniform_to_normal(tl::uint_to_uniform_float(b), tl::uint_to_uniform_float(c));
  tl::store(random_ptr + B + i, n0);
  tl::store(random_ptr + 2 * B + i, n1);
  int k = 0;
  while (tl::condition(tl::to_tensor(k) < tl::load(steps_ptr))) ++k;
  tl::store(steps_ptr + 1, k);
}

TEST_CASE("squeeze, maximum with PropagateNan, add/sub/mul, to_tensor, philox_impl and friends agree with the CPU",
          "[gpu][elementwise]") {
  constexpr int B = 256;
  auto x = random_values(B), y = random_values(B);
  for (int k = 0; k < B; k += 9) x[std::size_t(k)] = NAN;
  for (int k = 0; k < B; k += 13) y[std::size_t(k)] = NAN;
  std::vector<std::uint32_t> w(B);
  for (auto& v : w) v = std::uint32_t(rng()());
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> z(6 * B, -7.0f), random(3 * B, -7.0f);
    std::vector<std::uint32_t> philox(2 * B, 7u);
    std::vector<int> steps{5, -1};
    tl::launch<small_ops_kernel<B>>(tl::grid(1), o, x, y, z, w, philox, random, steps);
    REQUIRE(steps[1] == 5);
    return std::tuple{z, philox, random};
  };
  const auto [zc, pc, rc] = run(cpu);
  const auto [zg, pg, rg] = run(cuda);
  auto part = [](const std::vector<float>& v, int k) { return std::vector<float>(v.begin() + k * B, v.begin() + (k + 1) * B); };
  const char* names[] = {"squeeze", "maximum ALL", "minimum ALL", "maximum NONE", "", "expect_zero"};
  for (int k : {0, 1, 2, 3, 5}) require_agree(part(zc, k), part(zg, k), 0, 0, names[k]);
  // x * y - (x + 1.5): the GPU's compiler contracts the product and the difference into an fma.
  require_agree(part(zc, 4), part(zg, 4), 1e-6, 1e-6, "add, sub, mul");
  for (int k = 0; k < B; ++k) {
    const bool nan = std::isnan(x[std::size_t(k)]) || std::isnan(y[std::size_t(k)]);
    REQUIRE(std::isnan(zg[std::size_t(B + k)]) == nan);
    REQUIRE(std::isnan(zg[std::size_t(3 * B + k)]) == (std::isnan(x[std::size_t(k)]) && std::isnan(y[std::size_t(k)])));
  }
  REQUIRE(pc == pg);
  require_agree(std::vector<float>(rc.begin(), rc.begin() + B), std::vector<float>(rg.begin(), rg.begin() + B), 0, 0, "uniforms");
  // The GPU's Box-Muller square root is the approximate instruction (Triton's bits), the CPU's exact.
  require_agree(rc, rg, 2e-6, 2e-6, "normals");
}
