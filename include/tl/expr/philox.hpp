// tl/expr/philox.hpp: the Philox-4x32 and 4x64 counter-based generator and the maps from its
// words to uniform and normal floats, as scalar functions that both backends run. They follow
// Triton's triton.language.random step for step (the same constants, the same operation
// order, float32 arithmetic), so a kernel draws the numbers a Triton kernel draws for the same
// seed and offsets (docs/02-triton-to-tl.md, "Random numbers", says where the bits agree).
#pragma once

#include <cstdint>
#include <type_traits>

#include "../core/dtype.hpp"
#include "functors.hpp"

namespace tl::detail {

template <class U>
struct philox_words {
  U w[4];
};

template <class U>
struct philox_constants;
template <>
struct philox_constants<std::uint32_t> {
  static constexpr std::uint32_t key_a = 0x9E3779B9u, key_b = 0xBB67AE85u;
  static constexpr std::uint32_t round_a = 0xD2511F53u, round_b = 0xCD9E8D57u;
};
template <>
struct philox_constants<std::uint64_t> {
  static constexpr std::uint64_t key_a = 0x9E3779B97F4A7C15ull, key_b = 0xBB67AE8584CAA73Bull;
  static constexpr std::uint64_t round_a = 0xD2E7470EE14C6C93ull, round_b = 0xCA5A826395121157ull;
};

// NRounds rounds on the counter (c0, c1, c2, c3) with the key (k0, k1).
template <int NRounds, class U>
TL_INLINE philox_words<U> philox_rounds(U c0, U c1, U c2, U c3, U k0, U k1) {
  using K = philox_constants<U>;
  TL_UNROLL
  for (int r = 0; r < NRounds; ++r) {
    const U a0 = c0, a2 = c2;
    c0 = static_cast<U>(op::umulhi{}(K::round_b, a2) ^ c1 ^ k0);
    c2 = static_cast<U>(op::umulhi{}(K::round_a, a0) ^ c3 ^ k1);
    c1 = static_cast<U>(K::round_b * a2);
    c3 = static_cast<U>(K::round_a * a0);
    k0 = static_cast<U>(k0 + K::key_a);
    k1 = static_cast<U>(k1 + K::key_b);
  }
  return {{c0, c1, c2, c3}};
}

// Triton's philox(seed, c0, c1, c2, c3): 32-bit counters take the seed's two halves as the
// key, 64-bit counters the whole seed and 0.
template <int NRounds, class S, class C>
TL_INLINE auto philox_of(S seed, C c0, C c1, C c2, C c3) {
  const auto s = static_cast<std::uint64_t>(seed);
  if constexpr (sizeof(C) <= 4) {
    using U = std::uint32_t;
    return philox_rounds<NRounds, U>(U(c0), U(c1), U(c2), U(c3), U(s & 0xffffffffu), U(s >> 32));
  } else {
    using U = std::uint64_t;
    return philox_rounds<NRounds, U>(U(c0), U(c1), U(c2), U(c3), U(s), U(0));
  }
}

// Triton's randint4x(seed, offset): 32-bit Philox whose counter is the offset's low and high
// 32 bits (the high word 0 for offsets of 32 bits or fewer), then two zero words.
template <int NRounds, class S, class O>
TL_INLINE philox_words<std::uint32_t> randint4x_of(S seed, O offset) {
  using U = std::uint32_t;
  const U lo = static_cast<U>(offset);
  U hi = 0;
  if constexpr (sizeof(O) > 4) hi = static_cast<U>(offset >> 32);
  const auto s = static_cast<std::uint64_t>(seed);
  return philox_rounds<NRounds, U>(lo, hi, U(0), U(0), U(s & 0xffffffffu), U(s >> 32));
}

// A random word as a float32 in [0, 1): read as signed, negatives folded onto the positive
// range, scaled so that the largest word stays below 1.
TL_INLINE float uniform_from_word(std::uint32_t word) {
  std::int32_t x = static_cast<std::int32_t>(word);
  x = x < 0 ? -1 - x : x;
  return static_cast<float>(x) * 4.6566127342e-10f;
}

// The same for a 64-bit word (Triton's uint_to_uniform_float on 64-bit integers).
TL_INLINE float uniform_from_word(std::uint64_t word) {
  std::int64_t x = static_cast<std::int64_t>(word);
  x = x < 0 ? -1 - x : x;
  return static_cast<float>(x) * 1.0842020432385337e-19f;
}

// Box-Muller's square root: on the GPU the approximate instruction that Triton's tl.sqrt
// compiles to, so that the normals are Triton's bit for bit; the CPU's is correctly rounded
// (a normal then differs from the GPU's by a few ulp at most).
TL_INLINE float box_muller_sqrt(float x) {
#if TL_DEVICE_PASS
  float r;
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#else
  return op::sqrt{}(x);
#endif
}

// Box-Muller: two uniforms to two standard normals (Triton's pair_uniform_to_normal).
struct normal_pair {
  float n0, n1;
};
TL_INLINE normal_pair normals_from_uniforms(float u1, float u2) {
  u1 = op::maximum{}(1.0e-7f, u1);
  const float th = 6.283185307179586f * u2;
  const float r = box_muller_sqrt(-2.0f * op::log{}(u1));
  return {r * op::cos{}(th), r * op::sin{}(th)};
}

}  // namespace tl::detail
