// Elementwise ops against plain-loop references, on random blocks, with broadcasting.
#include "testing.hpp"

#include <bit>
#include <limits>

using namespace tl;
using testing::random_block;
using testing::values;

namespace {

// Checks e(i) == f(a(i), b(i)) for every element, where a and b are already broadcast to e's shape.
template <class E, class F>
void check_elementwise(const E& e, const std::vector<double>& a, const std::vector<double>& b, F f, double tol = 0) {
  const auto got = values(e);
  REQUIRE(got.size() == a.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double want = f(a[i], b[i]);
    INFO("element " << i << ": a " << a[i] << ", b " << b[i]);
    if (std::isnan(want)) REQUIRE(std::isnan(got[i]));
    else REQUIRE(std::fabs(got[i] - want) <= tol * std::max(1.0, std::fabs(want)));
  }
}

}  // namespace

TEST_CASE("arithmetic on float blocks matches double arithmetic rounded once", "[elementwise]") {
  auto a = random_block<float, 4, 8>();
  auto b = random_block<float, 4, 8>(0.5, 3);
  const auto va = values(a), vb = values(b);
  const double eps = 1e-6;
  check_elementwise(a + b, va, vb, [](double x, double y) { return x + y; }, eps);
  check_elementwise(a - b, va, vb, [](double x, double y) { return x - y; }, eps);
  check_elementwise(a * b, va, vb, [](double x, double y) { return x * y; }, eps);
  check_elementwise(a / b, va, vb, [](double x, double y) { return x / y; }, eps);
  check_elementwise(div_rn(a, b), va, vb, [](double x, double y) { return double(float(x) / float(y)); });
  check_elementwise(a % b, va, vb, [](double x, double y) { return std::fmod(x, y); }, eps);
  check_elementwise(maximum(a, b), va, vb, [](double x, double y) { return std::max(x, y); });
  check_elementwise(minimum(a, b), va, vb, [](double x, double y) { return std::min(x, y); });
  check_elementwise(a < b, va, vb, [](double x, double y) { return double(x < y); });
  check_elementwise(a >= b, va, vb, [](double x, double y) { return double(x >= y); });
  check_elementwise(a == a, va, va, [](double, double) { return 1.0; });
  check_elementwise(a != b, va, vb, [](double x, double y) { return double(x != y); });
  check_elementwise(-a, va, va, [](double x, double) { return -x; });
}

TEST_CASE("broadcasting: trailing axes align, size-1 axes stretch", "[elementwise][broadcast]") {
  auto col = random_block<float, 4, 1>();
  auto row = random_block<float, 8>();
  auto sum = col + row;  // (4, 1) + (8,) -> (4, 8)
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(sum)>, shape<4, 8>>);
  const auto got = values(sum);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) REQUIRE(got[std::size_t(i * 8 + j)] == double(col[i] + row[j]));

  auto cube = random_block<float, 2, 1, 8>();
  auto mat = random_block<float, 3, 1>();
  auto c = cube * mat;  // (2, 1, 8) * (3, 1) -> (2, 3, 8)
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(c)>, shape<2, 3, 8>>);
  const auto gc = values(c);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 8; ++k)
        REQUIRE(gc[std::size_t((i * 3 + j) * 8 + k)] == double(float(cube[i * 8 + k]) * float(mat[j])));

  auto s = row + 2.5f;  // scalar broadcast
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(s)>, shape<8>>);
  REQUIRE(values(s)[3] == double(row[3] + 2.5f));
  REQUIRE(values(2.5f - row)[5] == double(2.5f - row[5]));
}

TEST_CASE("integer arithmetic wraps and has defined division by zero", "[elementwise][int]") {
  auto a = random_block<std::int32_t, 16>(-1000, 1000);
  auto b = random_block<std::int32_t, 16>(1, 50);
  const auto va = values(a), vb = values(b);
  check_elementwise(a / b, va, vb, [](double x, double y) { return std::trunc(x / y); });
  check_elementwise(a % b, va, vb, [](double x, double y) { return std::fmod(x, y); });
  check_elementwise(cdiv(b, 7), vb, vb, [](double x, double) { return std::ceil(x / 7); });
  check_elementwise(a & b, va, vb, [](double x, double y) { return double(std::int32_t(x) & std::int32_t(y)); });
  check_elementwise(a | b, va, vb, [](double x, double y) { return double(std::int32_t(x) | std::int32_t(y)); });
  check_elementwise(a ^ b, va, vb, [](double x, double y) { return double(std::int32_t(x) ^ std::int32_t(y)); });
  check_elementwise(~a, va, va, [](double x, double) { return double(~std::int32_t(x)); });
  check_elementwise(a >> 3, va, va, [](double x, double) { return std::floor(x / 8); });  // arithmetic shift

  const int max = std::numeric_limits<std::int32_t>::max(), min = std::numeric_limits<std::int32_t>::min();
  auto m = full<4>(max, int32);
  REQUIRE(values(m + 1)[0] == double(min));
  REQUIRE(values(m * 2)[0] == -2.0);
  REQUIRE(values(m / 0)[0] == -1.0);  // all ones, as the GPU (test_numbers.cpp)
  REQUIRE(values(m % 0)[0] == -1.0);
  REQUIRE(values(full<4>(min, int32) / -1)[0] == double(min));
  // Shifts by the width or more: 0 to the left, the sign to the right (PTX's clamped shifts).
  REQUIRE(values(m << 32)[0] == 0.0);
  REQUIRE(values(full<4>(-8, int32) >> 40)[0] == -1.0);
  REQUIRE(values(full<4>(8u, uint32) >> 40u)[0] == 0.0);
  REQUIRE(values(full<4>(1, int32) << 31)[0] == double(min));
}

TEST_CASE("masks: comparisons, & | ^ ~ and logical ops on bool blocks", "[elementwise][mask]") {
  auto a = random_block<bool, 32>();
  auto b = random_block<bool, 32>();
  const auto va = values(a), vb = values(b);
  check_elementwise(a & b, va, vb, [](double x, double y) { return double(bool(x) && bool(y)); });
  check_elementwise(a | b, va, vb, [](double x, double y) { return double(bool(x) || bool(y)); });
  check_elementwise(a ^ b, va, vb, [](double x, double y) { return double(bool(x) != bool(y)); });
  check_elementwise(~a, va, va, [](double x, double) { return double(!bool(x)); });
  check_elementwise(!a, va, va, [](double x, double) { return double(!bool(x)); });
  check_elementwise(a && b, va, vb, [](double x, double y) { return double(bool(x) && bool(y)); });
  check_elementwise(a || b, va, vb, [](double x, double y) { return double(bool(x) || bool(y)); });
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(a & b)>, bool>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(arange<0, 8>() < 5)>, bool>);
}

TEST_CASE("math functions match the C library in double", "[elementwise][math]") {
  auto x = random_block<float, 64>(0.1, 8);
  const auto vx = values(x);
  const double tol = 4e-7;
  // exp is Triton's exp2(x * log2(e)): the product's rounding adds up to |x| 2^-24 relative.
  check_elementwise(exp(x), vx, vx, [](double v, double) { return std::exp(v); }, 1.5e-6);
  check_elementwise(exp2(x), vx, vx, [](double v, double) { return std::exp2(v); }, tol);
  check_elementwise(log(x), vx, vx, [](double v, double) { return std::log(v); }, tol);
  check_elementwise(log2(x), vx, vx, [](double v, double) { return std::log2(v); }, tol);
  check_elementwise(sqrt(x), vx, vx, [](double v, double) { return std::sqrt(v); }, tol);
  check_elementwise(rsqrt(x), vx, vx, [](double v, double) { return 1 / std::sqrt(v); }, tol);
  check_elementwise(sigmoid(x - 4), vx, vx, [](double v, double) { return 1 / (1 + std::exp(-(double(float(v) - 4)))); }, tol);
  check_elementwise(sin(x), vx, vx, [](double v, double) { return std::sin(v); }, tol);
  check_elementwise(cos(x), vx, vx, [](double v, double) { return std::cos(v); }, tol);
  check_elementwise(floor(x), vx, vx, [](double v, double) { return std::floor(v); });
  check_elementwise(ceil(x), vx, vx, [](double v, double) { return std::ceil(v); });
  check_elementwise(abs(-x), vx, vx, [](double v, double) { return v; });
  check_elementwise(tanh(x - 4), vx, vx, [](double v, double) { return std::tanh(double(float(v) - 4)); }, tol);
  check_elementwise(erf(x - 4), vx, vx, [](double v, double) { return std::erf(double(float(v) - 4)); }, tol);
  // Scalars give scalars.
  REQUIRE(exp2(3.0f) == 8.0f);
  REQUIRE(maximum(2, 5) == 5);
}

TEST_CASE("16-bit floats compute in float and round each result", "[elementwise][fp16]") {
  auto a = random_block<fp16, 32>();
  auto b = random_block<fp16, 32>();
  const auto r = eval(a * b + 1);  // one fma in float16 (test_numbers.cpp): rounded once
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(r)>, fp16>);
  for (int i = 0; i < 32; ++i) {
    REQUIRE(r[i].bits == detail::convert<fp16>(double(float(a[i])) * double(float(b[i])) + 1.0).bits);
  }
  auto e = eval(exp(a));
  for (int i = 0; i < 32; ++i) REQUIRE(e[i].bits == fp16(std::exp2(float(a[i]) * 1.44269504088896340736f)).bits);
  auto hb = random_block<bf16, 16>();
  auto s = eval(hb + hb);
  for (int i = 0; i < 16; ++i) REQUIRE(float(s[i]) == float(bf16(float(hb[i]) * 2)));
}

TEST_CASE("where, fma and clamp broadcast all their operands", "[elementwise]") {
  auto c = random_block<bool, 4, 1>();
  auto a = random_block<float, 8>();
  auto w = where(c, a, -1.0f);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(w)>, shape<4, 8>>);
  const auto vw = values(w);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) REQUIRE(vw[std::size_t(i * 8 + j)] == (c[i] ? double(a[j]) : -1.0));
  auto t = where(a > 0, 1.0, 0);  // Triton: tl.where(x > 0, 1.0, 0) is float32
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(t)>, float>);

  auto x = random_block<float, 16>();
  auto y = random_block<float, 16>();
  const auto f = values(fma(x, y, 1.5f));
  for (int i = 0; i < 16; ++i) REQUIRE(f[std::size_t(i)] == double(std::fma(x[i], y[i], 1.5f)));
  const auto cl = values(clamp(x, -1, 1));
  for (int i = 0; i < 16; ++i) REQUIRE(cl[std::size_t(i)] == std::clamp(double(x[i]), -1.0, 1.0));
}

TEST_CASE("maximum and minimum ignore NaN like the GPU's max.f32", "[elementwise]") {
  auto x = full<4>(std::numeric_limits<float>::quiet_NaN(), float32);
  REQUIRE(values(maximum(x, 2.0f))[0] == 2.0);
  REQUIRE(values(minimum(3.0f, x))[0] == 3.0);
}

TEST_CASE("maximum and minimum with PropagateNan::ALL: NaN where either operand is NaN", "[elementwise]") {
  auto a = random_block<float, 8, 4>();
  auto b = random_block<float, 8, 4>();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int i = 0; i < 32; i += 5) a.v[std::size_t(i)] = nan;
  for (int i = 0; i < 32; i += 7) b.v[std::size_t(i)] = nan;
  const auto va = values(a), vb = values(b);
  auto both_nan = [](double x, double y, double r) { return std::isnan(x) || std::isnan(y) ? NAN : r; };
  check_elementwise(maximum(a, b, PropagateNan::ALL), va, vb, [&](double x, double y) { return both_nan(x, y, std::max(x, y)); });
  check_elementwise(minimum(a, b, PropagateNan::ALL), va, vb, [&](double x, double y) { return both_nan(x, y, std::min(x, y)); });
  // NONE is the default: a NaN operand is ignored.
  check_elementwise(maximum(a, b, PropagateNan::NONE), va, vb, [](double x, double y) {
    return std::isnan(x) ? y : std::isnan(y) ? x : std::max(x, y);
  });
  // The NaN is the canonical one (all mantissa bits set), whatever the operand's payload (as max.NaN.f32).
  const float payload = std::bit_cast<float>(0x7fc12345u);
  REQUIRE(std::bit_cast<std::uint32_t>(float(values(maximum(full<2>(payload, float32), 1.0f, PropagateNan::ALL))[0])) ==
          0x7fffffffu);
  // Integers have no NaN: the same as without the flag.
  auto i = random_block<std::int32_t, 16>(-100, 100), j = random_block<std::int32_t, 16>(-100, 100);
  REQUIRE(values(maximum(i, j, PropagateNan::ALL)) == values(maximum(i, j)));
  REQUIRE(maximum(2.0f, nan, PropagateNan::ALL) != maximum(2.0f, nan, PropagateNan::ALL));
}

TEST_CASE("add, sub, mul: the operators' function forms, wrapping on integers", "[elementwise][int]") {
  auto a = random_block<std::int32_t, 4, 8>(-1000, 1000);
  auto b = random_block<std::int32_t, 8>(-1000, 1000);
  REQUIRE(values(add(a, b)) == values(a + b));
  REQUIRE(values(sub(a, b)) == values(a - b));
  REQUIRE(values(mul(a, 3)) == values(a * 3));
  auto big = full<4>(std::numeric_limits<std::int32_t>::max(), int32);
  REQUIRE(values(add(big, 1))[0] == double(std::numeric_limits<std::int32_t>::min()));
  auto x = random_block<float, 16>();
  REQUIRE(values(mul(x, x)) == values(x * x));
}

TEST_CASE("to_tensor: a C++ value as a rank-0 block of the type it stands for", "[elementwise]") {
  auto f = to_tensor(1.5);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(f)>, float>);
  STATIC_REQUIRE(detail::shape_of_t<decltype(f)>::rank == 0);
  REQUIRE(float(f) == 1.5f);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(to_tensor(7))>, std::int32_t>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(to_tensor(7u))>, std::uint32_t>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(to_tensor(std::int64_t(7)))>, std::int64_t>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(to_tensor(true))>, bool>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(to_tensor(fp16(2.0f)))>, fp16>);
  REQUIRE(std::int64_t(to_tensor(std::int64_t(1) << 40)) == std::int64_t(1) << 40);
  // A block stays what it is; a rank-0 block is strong, so it widens what it meets, as Triton's does.
  auto x = random_block<fp16, 8>();
  STATIC_REQUIRE(std::is_same_v<decltype(to_tensor(x)), decltype(x)>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(x + 1.0)>, fp16>);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(x + to_tensor(1.0))>, float>);
}

TEST_CASE("casts: .to(dtype) and bitcast", "[elementwise][cast]") {
  auto x = random_block<float, 16>(-300, 300);
  const auto i8 = values(x.to(int8));
  const auto h = eval(x.to(float16));
  for (int i = 0; i < 16; ++i) {
    // To int8: saturated to 16 bits, then the low byte (docs/03-types.md).
    REQUIRE(i8[std::size_t(i)] == double(std::int8_t(std::int16_t(std::trunc(double(x[i]))))));
    REQUIRE(h[i].bits == fp16(x[i]).bits);
  }
  const auto bits = eval(full<2>(1.0f, float32).to(uint32, bitcast));
  REQUIRE(bits[0] == 0x3f800000u);
  REQUIRE(values(eval(bits.to(float32, bitcast)))[1] == 1.0);
  REQUIRE(values(cast<double>(arange<0, 4>()))[3] == 3.0);
}

namespace {
__extension__ typedef unsigned __int128 u128;  // the reference's exact 128-bit product

template <int B>
TL_KERNEL void umulhi_kernel(ptr<const std::uint32_t> a32, ptr<const std::int32_t> b32, ptr<const std::uint64_t> a64,
                             ptr<const std::int64_t> b64, ptr<std::uint32_t> h32, ptr<std::int64_t> h64) {
  auto offs = arange<0, B>();
  store(h32 + offs, umulhi(load(a32 + offs), load(b32 + offs)));  // int32 with uint32: uint32
  store(h64 + offs, umulhi(load(b64 + offs), load(b64 + offs) ^ std::int64_t(0x5bd1e995)));
  store(h64 + B + offs, umulhi(load(a64 + offs), std::uint64_t(0x9E3779B97F4A7C15ull)).to(int64));
}
}  // namespace

TEST_CASE("umulhi: the high half of the unsigned product, 32 and 64 bits", "[elementwise][int]") {
  std::mt19937_64 rng(17);
  constexpr int B = 64;
  std::vector<std::uint32_t> a32(B), h32(B);
  std::vector<std::int32_t> b32(B);
  std::vector<std::uint64_t> a64(B);
  std::vector<std::int64_t> b64(B), h64(2 * B);
  for (int i = 0; i < B; ++i) {
    a32[std::size_t(i)] = std::uint32_t(rng());
    b32[std::size_t(i)] = std::int32_t(std::uint32_t(rng()));
    a64[std::size_t(i)] = i < 2 ? ~0ull * std::uint64_t(i) : rng();  // 0 and all ones too
    b64[std::size_t(i)] = std::int64_t(rng());
  }
  launch<umulhi_kernel<B>>(grid(1), ptr<const std::uint32_t>(a32, "a32"), ptr<const std::int32_t>(b32, "b32"),
                           ptr<const std::uint64_t>(a64, "a64"), ptr<const std::int64_t>(b64, "b64"), ptr<std::uint32_t>(h32, "h32"),
                           ptr<std::int64_t>(h64, "h64"));
  for (int i = 0; i < B; ++i) {
    const std::size_t k = std::size_t(i);
    REQUIRE(h32[k] == std::uint32_t((std::uint64_t(a32[k]) * std::uint32_t(b32[k])) >> 32));
    const std::uint64_t x = std::uint64_t(b64[k]), y = std::uint64_t(b64[k] ^ std::int64_t(0x5bd1e995));
    REQUIRE(std::uint64_t(h64[k]) == std::uint64_t((u128(x) * y) >> 64));
    REQUIRE(std::uint64_t(h64[B + k]) == std::uint64_t((u128(a64[k]) * 0x9E3779B97F4A7C15ull) >> 64));
  }
  REQUIRE(umulhi(std::uint32_t(0xffffffffu), std::uint32_t(0xffffffffu)) == 0xfffffffeu);  // scalars too
}

namespace {
// The steps of the Collatz walk from v (at most 200): a scalar function with a loop and branches.
int collatz_steps(int v) {
  int s = 0;
  while (v > 1 && s < 200) {
    v = v % 2 ? 3 * v + 1 : v / 2;
    ++s;
  }
  return s;
}
struct softplus_fn {  // a class with a TL_HD call operator works as well as a lambda
  TL_HD float operator()(float x, float beta) const { return x * beta > 20.f ? x : std::log1p(std::exp(x * beta)) / beta; }
};
}  // namespace

TEST_CASE("map_elementwise: a scalar function with loops and branches, one result or a tuple", "[elementwise][map]") {
  auto n = random_block<int, 8, 16>(1, 1000);
  auto steps = map_elementwise(
      [](int v) {
        int s = 0;
        while (v > 1 && s < 200) {
          v = v % 2 ? 3 * v + 1 : v / 2;
          ++s;
        }
        return s;
      },
      n);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(steps)>, int>);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(steps)>, shape<8, 16>>);
  const auto vs = values(steps), vn = values(n);
  for (std::size_t i = 0; i < vs.size(); ++i) REQUIRE(vs[i] == collatz_steps(int(vn[i])));

  // Broadcast operands, a C++ scalar among them, and a class instead of a lambda.
  auto col = random_block<float, 4, 1>(-30, 30);
  auto row = random_block<float, 8>(0.5, 2);
  auto sp = map_elementwise(softplus_fn{}, col, row);
  STATIC_REQUIRE(std::is_same_v<detail::shape_of_t<decltype(sp)>, shape<4, 8>>);
  const auto vsp = values(sp);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) {
      const double x = col[i], b = row[j];
      const double want = x * b > 20 ? x : std::log1p(std::exp(x * b)) / b;
      REQUIRE(std::fabs(vsp[std::size_t(i * 8 + j)] - want) <= 1e-5 * std::max(1.0, std::fabs(want)));
    }

  // A std::tuple result: a std::tuple of blocks, the function run once an element.
  auto [lo, hi, k] = map_elementwise(
      [](float a, float b) { return std::tuple{a < b ? a : b, a < b ? b : a, int(a < b)}; }, col, row);
  STATIC_REQUIRE(std::is_same_v<detail::value_of_t<decltype(k)>, int>);
  const auto vlo = values(lo), vhi = values(hi), vk = values(k);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) {
      const std::size_t e = std::size_t(i * 8 + j);
      REQUIRE(vlo[e] == double(std::min(col[i], row[j])));
      REQUIRE(vhi[e] == double(std::max(col[i], row[j])));
      REQUIRE(vk[e] == double(col[i] < row[j]));
    }
}

namespace {
// map_elementwise inside a kernel, with masks, at random sizes (the CPU backend; the GPU test
// runs the same kernel on both).
template <int B>
TL_KERNEL void clipped_collatz_kernel(tl::ptr<const int> x_ptr, tl::ptr<int> out_ptr, int n) {
  auto i = tl::program_id(0) * B + tl::arange<0, B>();
  auto m = i < n;
  auto x = tl::load(x_ptr + i, m, 1);
  auto s = tl::map_elementwise(
      [](int v, int cap) {
        int steps = 0;
        while (v > 1 && steps < cap) {
          v = (v & 1) ? 3 * v + 1 : v >> 1;
          ++steps;
        }
        return steps;
      },
      x, 200);
  tl::store(out_ptr + i, s, m);
}
}  // namespace

TEST_CASE("map_elementwise in a kernel: masked, at random sizes", "[elementwise][map][launch]") {
  for (int rep = 0; rep < 4; ++rep) {
    const int n = std::uniform_int_distribution<int>(1, 700)(testing::rng());
    std::vector<int> x(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n), -7);
    for (auto& v : x) v = std::uniform_int_distribution<int>(1, 100000)(testing::rng());
    launch<clipped_collatz_kernel<128>>(grid(cdiv(n, 128)), x, out, n);
    for (int i = 0; i < n; ++i) REQUIRE(out[std::size_t(i)] == collatz_steps(x[std::size_t(i)]));
  }
}
