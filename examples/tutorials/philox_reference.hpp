// Philox-4x32-10 written out from its definition, with Triton's maps from its words to floats,
// in plain C++ (double where the maps allow): the reference that tutorial 04's spec and the
// random-number tests (tests/ops/test_random.cpp) check tl::rand and its family against.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace tutorials {

inline std::array<std::uint32_t, 4> reference_philox32(std::array<std::uint32_t, 4> c, std::uint32_t k0, std::uint32_t k1,
                                                       int rounds = 10) {
  for (int r = 0; r < rounds; ++r) {
    const std::uint64_t p0 = std::uint64_t(0xD2511F53u) * c[0], p1 = std::uint64_t(0xCD9E8D57u) * c[2];
    c = {std::uint32_t(p1 >> 32) ^ c[1] ^ k0, std::uint32_t(p1), std::uint32_t(p0 >> 32) ^ c[3] ^ k1, std::uint32_t(p0)};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}

// Triton's randint4x(seed, offset): counter (offset's low word, its high word when the offsets
// have 64 bits, 0, 0), key (the seed's low word, its high word).
inline std::array<std::uint32_t, 4> reference_draw(std::int64_t seed, std::int64_t offset, bool wide_offsets, int rounds = 10) {
  const auto s = std::uint64_t(seed), o = std::uint64_t(offset);
  return reference_philox32({std::uint32_t(o), wide_offsets ? std::uint32_t(o >> 32) : 0u, 0u, 0u}, std::uint32_t(s),
                            std::uint32_t(s >> 32), rounds);
}

// Triton's uint_to_uniform_float, in double: the word read as signed, negatives folded.
inline double reference_uniform(std::uint32_t w) {
  const std::int32_t x = std::int32_t(w);
  return (x < 0 ? -1.0 - double(x) : double(x)) * 4.6566127342e-10;
}

// The same in float32 as Triton computes it (the folded word to float, times the float scale):
// what a comparison with p sees, so that a spec keeps exactly the elements the kernel keeps.
inline float reference_uniform_f32(std::uint32_t w) {
  const std::int32_t x = std::int32_t(w);
  return float(x < 0 ? -1 - x : x) * 4.6566127342e-10f;
}

// Box-Muller (Triton's pair_uniform_to_normal), in double.
inline std::array<double, 2> reference_normals(double u1, double u2) {
  const double r = std::sqrt(-2.0 * std::log(std::max(1.0e-7, u1))), th = 6.283185307179586 * u2;
  return {r * std::cos(th), r * std::sin(th)};
}

}  // namespace tutorials
