// Random numbers (ops/random.hpp) against Philox written out from its definition
// (examples/tutorials/philox_reference.hpp; 4x64 here), the published known-answer vectors of
// Philox-4x32-10 and 4x64-10, and the maps to floats computed in double.
#include "testing.hpp"

#include "philox_reference.hpp"  // examples/tutorials

#include <array>
#include <cmath>

using namespace tl;
using tutorials::reference_draw;
using tutorials::reference_normals;
using tutorials::reference_philox32;
using tutorials::reference_uniform;

namespace {
__extension__ typedef unsigned __int128 u128;

std::array<std::uint64_t, 4> reference_philox64(std::array<std::uint64_t, 4> c, std::uint64_t k0, std::uint64_t k1,
                                               int rounds = 10) {
  for (int r = 0; r < rounds; ++r) {
    const u128 p0 = u128(0xD2E7470EE14C6C93ull) * c[0], p1 = u128(0xCA5A826395121157ull) * c[2];
    c = {std::uint64_t(p1 >> 64) ^ c[1] ^ k0, std::uint64_t(p1), std::uint64_t(p0 >> 64) ^ c[3] ^ k1, std::uint64_t(p0)};
    k0 += 0x9E3779B97F4A7C15ull;
    k1 += 0xBB67AE8584CAA73Bull;
  }
  return c;
}

// Every form on pid * B + arange offsets (int32, as in Triton's tutorials) from a run-time seed.
template <int B>
TL_KERNEL void random_forms(std::int64_t seed, ptr<std::uint32_t> words, ptr<float> uniforms, ptr<float> normals,
                            ptr<std::uint32_t> single_word, ptr<float> single_uniform, ptr<float> single_normal,
                            ptr<std::uint32_t> seven_rounds, int n) {
  auto offs = program_id(0) * B + arange<0, B>();
  auto mask = offs < n;
  auto [w0, w1, w2, w3] = randint4x(seed, offs);
  store(words + offs, w0, mask);
  store(words + n + offs, w1, mask);
  store(words + 2 * n + offs, w2, mask);
  store(words + 3 * n + offs, w3, mask);
  auto [u0, u1, u2, u3] = rand4x(seed, offs);
  store(uniforms + offs, u0, mask);
  store(uniforms + n + offs, u1, mask);
  store(uniforms + 2 * n + offs, u2, mask);
  store(uniforms + 3 * n + offs, u3, mask);
  auto [n0, n1, n2, n3] = randn4x(seed, offs);
  store(normals + offs, n0, mask);
  store(normals + n + offs, n1, mask);
  store(normals + 2 * n + offs, n2, mask);
  store(normals + 3 * n + offs, n3, mask);
  store(single_word + offs, randint(seed, offs), mask);
  store(single_uniform + offs, rand(seed, offs), mask);
  store(single_normal + offs, randn(seed, offs), mask);
  store(seven_rounds + offs, randint<7>(seed, offs), mask);
}

// 64-bit offsets loaded from memory: both words of the offset enter the counter.
template <int B>
TL_KERNEL void random_wide_offsets(int seed, ptr<const std::int64_t> offsets, ptr<std::uint32_t> words, ptr<float> uniforms) {
  auto i = arange<0, B>();
  auto o = load(offsets + i);
  store(words + i, randint(seed, o));
  store(uniforms + i, rand(seed, o));
}

// philox itself, on 32- and 64-bit counters given as blocks and scalars.
template <int B>
TL_KERNEL void philox_direct(std::int64_t seed, ptr<const std::uint32_t> c32, ptr<const std::uint64_t> c64,
                             ptr<std::uint32_t> out32, ptr<std::uint64_t> out64) {
  auto i = arange<0, B>();
  auto [a, b, c, d] = philox(seed, load(c32 + 4 * i), load(c32 + 4 * i + 1), load(c32 + 4 * i + 2), load(c32 + 4 * i + 3));
  store(out32 + 4 * i, a);
  store(out32 + 4 * i + 1, b);
  store(out32 + 4 * i + 2, c);
  store(out32 + 4 * i + 3, d);
  auto [e, f, g, h] = philox(seed, load(c64 + 4 * i), std::uint64_t(0), load(c64 + 4 * i + 2), std::uint64_t(7));
  store(out64 + 4 * i, e);
  store(out64 + 4 * i + 1, f);
  store(out64 + 4 * i + 2, g);
  store(out64 + 4 * i + 3, h);
}
// Triton's building blocks: philox_impl on 32- and 64-bit counters with a loaded key,
// uint_to_uniform_float on 32- and 64-bit words, pair_uniform_to_normal.
template <int B>
TL_KERNEL void random_building_blocks(ptr<const std::uint32_t> c32, ptr<const std::uint64_t> c64, ptr<std::uint32_t> out32,
                                      ptr<std::uint64_t> out64, ptr<float> uniform32, ptr<float> uniform64,
                                      ptr<const float> u, ptr<float> normals) {
  auto i = arange<0, B>();
  auto [a, b, c, d] = philox_impl(load(c32 + 6 * i), load(c32 + 6 * i + 1), load(c32 + 6 * i + 2), load(c32 + 6 * i + 3),
                                  load(c32 + 6 * i + 4), load(c32 + 6 * i + 5));
  store(out32 + 4 * i, a);
  store(out32 + 4 * i + 1, b);
  store(out32 + 4 * i + 2, c);
  store(out32 + 4 * i + 3, d);
  auto [e, f, g, h] = philox_impl<7>(load(c64 + 6 * i), load(c64 + 6 * i + 1), load(c64 + 6 * i + 2),
                                     load(c64 + 6 * i + 3), load(c64 + 6 * i + 4), load(c64 + 6 * i + 5));
  store(out64 + 4 * i, e);
  store(out64 + 4 * i + 1, f);
  store(out64 + 4 * i + 2, g);
  store(out64 + 4 * i + 3, h);
  store(uniform32 + i, uint_to_uniform_float(load(c32 + i)));
  store(uniform64 + i, uint_to_uniform_float(load(c64 + i)));
  auto [n0, n1] = pair_uniform_to_normal(load(u + 2 * i), load(u + 2 * i + 1));
  store(normals + 2 * i, n0);
  store(normals + 2 * i + 1, n1);
}
}  // namespace

TEST_CASE("philox_impl, uint_to_uniform_float and pair_uniform_to_normal against the definitions", "[random]") {
  std::mt19937_64& g = testing::rng();
  constexpr int B = 64;
  std::vector<std::uint32_t> c32(6 * B), out32(4 * B, 0xdeadbeefu);
  std::vector<std::uint64_t> c64(6 * B), out64(4 * B, 0xdeadbeefu);
  std::vector<float> u(2 * B), uniform32(B, -1.f), uniform64(B, -1.f), normals(2 * B, NAN);
  for (auto& x : c32) x = std::uint32_t(g());
  for (auto& x : c64) x = g();
  c32[0] = 0xffffffffu;  // the largest words stay below 1
  c64[1] = ~std::uint64_t(0);
  for (auto& x : u) x = float(std::uniform_real_distribution<double>(0, 1)(g));
  u[0] = 0.0f;  // clamped to 1e-7 before the log
  launch<random_building_blocks<B>>(grid(1), ptr<const std::uint32_t>(c32, "c32"), ptr<const std::uint64_t>(c64, "c64"),
                                    ptr<std::uint32_t>(out32, "out32"), ptr<std::uint64_t>(out64, "out64"),
                                    ptr<float>(uniform32, "uniform32"), ptr<float>(uniform64, "uniform64"),
                                    ptr<const float>(u, "u"), ptr<float>(normals, "normals"));
  for (std::size_t i = 0; i < B; ++i) {
    const auto r32 =
        reference_philox32({c32[6 * i], c32[6 * i + 1], c32[6 * i + 2], c32[6 * i + 3]}, c32[6 * i + 4], c32[6 * i + 5]);
    for (std::size_t w = 0; w < 4; ++w) REQUIRE(out32[4 * i + w] == r32[w]);
    const auto r64 =
        reference_philox64({c64[6 * i], c64[6 * i + 1], c64[6 * i + 2], c64[6 * i + 3]}, c64[6 * i + 4], c64[6 * i + 5], 7);
    for (std::size_t w = 0; w < 4; ++w) REQUIRE(out64[4 * i + w] == r64[w]);
    const double e32 = reference_uniform(c32[i]);
    REQUIRE(uniform32[i] >= 0.0f);
    REQUIRE(uniform32[i] < 1.0f);
    REQUIRE(std::abs(uniform32[i] - e32) <= 1.8e-7 * e32 + 1e-12);
    std::int64_t x = std::int64_t(c64[i]);
    x = x < 0 ? -1 - x : x;
    const double e64 = double(x) * 1.0842020432385337e-19;
    REQUIRE(uniform64[i] >= 0.0f);
    REQUIRE(uniform64[i] < 1.0f);
    REQUIRE(std::abs(uniform64[i] - e64) <= 1.8e-7 * e64 + 1e-12);
    const auto nn = reference_normals(u[2 * i], u[2 * i + 1]);
    for (std::size_t j = 0; j < 2; ++j) REQUIRE(std::abs(normals[2 * i + j] - nn[j]) <= 2e-6 * (1 + std::abs(nn[j])));
  }
}

TEST_CASE("philox: the published known answers of Philox-4x32-10 and 4x64-10", "[random]") {
  // The reference itself first (Random123's kat_vectors).
  REQUIRE(reference_philox32({0, 0, 0, 0}, 0, 0) == std::array<std::uint32_t, 4>{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u});
  REQUIRE(reference_philox32({~0u, ~0u, ~0u, ~0u}, ~0u, ~0u) ==
          std::array<std::uint32_t, 4>{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu});
  REQUIRE(reference_philox32({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}, 0xa4093822u, 0x299f31d0u) ==
          std::array<std::uint32_t, 4>{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u});
  REQUIRE(reference_philox64({0, 0, 0, 0}, 0, 0) ==
          std::array<std::uint64_t, 4>{0x16554d9eca36314cull, 0xdb20fe9d672d0fdcull, 0xd7e772cee186176bull, 0x7e68b68aec7ba23bull});

  // tl's philox on the same counters: the 32-bit key is the seed's two words.
  constexpr int B = 4;
  std::vector<std::uint32_t> c32 = {0, 0, 0, 0, ~0u, ~0u, ~0u, ~0u, 0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 1, 2, 3, 4};
  std::vector<std::uint64_t> c64 = {0, 0, 0, 0, ~0ull, 0, 5, 0, 1ull << 40, 0, 3, 0, 12345, 0, 6789, 0};
  std::vector<std::uint32_t> out32(16, 0xdeadbeefu);
  std::vector<std::uint64_t> out64(16, 0xdeadbeefull);
  for (std::int64_t seed : {std::int64_t(0), std::int64_t(0x299f31d0a4093822ll), std::int64_t(-1)}) {
    launch<philox_direct<B>>(grid(1), seed, ptr<const std::uint32_t>(c32, "c32"), ptr<const std::uint64_t>(c64, "c64"),
                             ptr<std::uint32_t>(out32, "out32"), ptr<std::uint64_t>(out64, "out64"));
    for (int r = 0; r < B; ++r) {
      const auto s = std::uint64_t(seed);
      const auto want32 = reference_philox32({c32[4 * r], c32[4 * r + 1], c32[4 * r + 2], c32[4 * r + 3]}, std::uint32_t(s), std::uint32_t(s >> 32));
      const auto want64 = reference_philox64({c64[4 * r], 0, c64[4 * r + 2], 7}, s, 0);
      for (int k = 0; k < 4; ++k) {
        REQUIRE(out32[std::size_t(4 * r + k)] == want32[std::size_t(k)]);
        REQUIRE(out64[std::size_t(4 * r + k)] == want64[std::size_t(k)]);
      }
    }
    if (seed == 0) REQUIRE(out32[0] == 0x6627e8d5u);
    if (seed == 0x299f31d0a4093822ll) REQUIRE(out32[8] == 0xd16cfe09u);
  }
}

TEST_CASE("randint/rand/randn and their 4x forms: Triton's draws at random sizes and seeds", "[random]") {
  std::mt19937_64& g = testing::rng();
  for (int trial = 0; trial < 4; ++trial) {
    const int n = 1 + int(g() % 3000);
    const std::int64_t seed = trial == 0 ? 0 : trial == 1 ? -7 : std::int64_t(g());
    constexpr int B = 256;
    std::vector<std::uint32_t> words(4 * std::size_t(n), 0xdeadbeefu), single_word(std::size_t(n), 0xdeadbeefu),
        seven(std::size_t(n), 0xdeadbeefu);
    std::vector<float> uniforms(4 * std::size_t(n), -1.f), normals(4 * std::size_t(n), NAN), single_uniform(std::size_t(n), -1.f),
        single_normal(std::size_t(n), NAN);
    launch<random_forms<B>>(grid(cdiv(n, B)), seed, ptr<std::uint32_t>(words, "words"), ptr<float>(uniforms, "uniforms"),
                            ptr<float>(normals, "normals"), ptr<std::uint32_t>(single_word, "single_word"),
                            ptr<float>(single_uniform, "single_uniform"), ptr<float>(single_normal, "single_normal"),
                            ptr<std::uint32_t>(seven, "seven"), n);
    for (int i = 0; i < n; ++i) {
      const auto d = reference_draw(seed, i, false);
      const std::size_t k = std::size_t(i), N = std::size_t(n);
      for (std::size_t w = 0; w < 4; ++w) {  // uniforms: three float32 roundings, within 1.8e-7
        REQUIRE(words[w * N + k] == d[w]);
        const double u = reference_uniform(d[w]);
        REQUIRE(uniforms[w * N + k] >= 0.0f);
        REQUIRE(uniforms[w * N + k] < 1.0f);
        REQUIRE(std::abs(uniforms[w * N + k] - u) <= 1.8e-7 * u + 1e-12);
      }
      REQUIRE(seven[k] == reference_draw(seed, i, false, 7)[0]);
      REQUIRE(single_word[k] == d[0]);
      REQUIRE(single_uniform[k] == uniforms[k]);
      for (std::size_t pair = 0; pair < 2; ++pair) {
        const auto nn = reference_normals(uniforms[2 * pair * N + k], uniforms[(2 * pair + 1) * N + k]);
        for (std::size_t j = 0; j < 2; ++j) REQUIRE(std::abs(normals[(2 * pair + j) * N + k] - nn[j]) <= 2e-6 * (1 + std::abs(nn[j])));
      }
      REQUIRE(single_normal[k] == normals[k]);
    }
  }
}

TEST_CASE("rand and randn: uniform and normal moments over 2^17 draws; wide offsets use both words", "[random]") {
  constexpr int B = 1024, n = 1 << 17;
  std::vector<std::uint32_t> words(4 * std::size_t(n)), w1(n), w7(n);
  std::vector<float> u(4 * std::size_t(n)), nor(4 * std::size_t(n)), u1(n), n1(n);
  launch<random_forms<B>>(grid(n / B), std::int64_t(1234), ptr<std::uint32_t>(words), ptr<float>(u), ptr<float>(nor), ptr<std::uint32_t>(w1),
                          ptr<float>(u1), ptr<float>(n1), ptr<std::uint32_t>(w7), n);
  double su = 0, suu = 0, sn = 0, snn = 0;
  for (std::size_t i = 0; i < u.size(); ++i) su += u[i], suu += double(u[i]) * u[i], sn += nor[i], snn += double(nor[i]) * nor[i];
  const double m = double(u.size());
  CHECK(std::abs(su / m - 0.5) < 0.002);
  CHECK(std::abs(suu / m - su * su / m / m - 1.0 / 12) < 0.001);
  CHECK(std::abs(sn / m) < 0.005);
  CHECK(std::abs(snn / m - 1.0) < 0.01);

  constexpr int W = 64;
  std::vector<std::int64_t> offsets(W);
  for (int i = 0; i < W; ++i) offsets[std::size_t(i)] = (std::int64_t(i % 4) << 32) + i / 4 - (i % 8 == 7 ? (std::int64_t(1) << 40) : 0);
  std::vector<std::uint32_t> wide(W, 0xdeadbeefu);
  std::vector<float> wide_u(W, -1.f);
  launch<random_wide_offsets<W>>(grid(1), 99, ptr<const std::int64_t>(offsets, "offsets"), ptr<std::uint32_t>(wide, "wide"),
                                 ptr<float>(wide_u, "wide_u"));
  for (int i = 0; i < W; ++i) {
    const auto d = reference_draw(99, offsets[std::size_t(i)], true);
    REQUIRE(wide[std::size_t(i)] == d[0]);
    REQUIRE(std::abs(wide_u[std::size_t(i)] - reference_uniform(d[0])) <= 1.8e-7 * reference_uniform(d[0]) + 1e-12);
  }
  REQUIRE(wide[1] != wide[0]);  // offsets 0 and 2^32 differ only in the high word
}
