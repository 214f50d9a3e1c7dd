// tl/backend/cuda/registers.hpp: a thread's slots of a block, as they sit in registers.
//
// 32- and 64-bit elements take one array entry (one or two registers) each. 16-bit elements
// (fp16, bf16, int16) go two to a 32-bit word: an array of 16-bit values would take a whole
// register per element (a 128 x 64 fp16 dot operand, 64 per thread, would take 64 registers
// instead of 32), and the words are what 32-bit shared and global moves and the tensor
// cores' fragments want anyway. Slot indices are compile-time constants after unrolling, so
// reading or writing one half is a shift or a byte permute, not a memory access.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../../core/dtype.hpp"
#include "layout.hpp"

namespace tl::detail::cuda {

template <class T, int N>
struct slot_array {
  T x[N > 0 ? N : 1]{};
  static constexpr int size = N;
  TL_INLINE T& operator[](int i) { return x[i]; }
  TL_INLINE const T& operator[](int i) const { return x[i]; }
  // Slots i0 .. i0 + V - 1 as one vector (i0 a multiple of V), and back.
  template <int V>
  TL_INLINE vector_of<T, V> chunk(int i0) const {
    vector_of<T, V> c;
    TL_UNROLL
    for (int k = 0; k < V; ++k) c.x[k] = x[i0 + k];
    return c;
  }
  template <int V>
  TL_INLINE void set_chunk(int i0, const vector_of<T, V>& c) {
    TL_UNROLL
    for (int k = 0; k < V; ++k) x[i0 + k] = c.x[k];
  }
};

template <class T, int N>
  requires(sizeof(T) == 2)
struct slot_array<T, N> {
  std::uint32_t w[(N + 1) / 2 > 0 ? (N + 1) / 2 : 1]{};
  static constexpr int size = N;

  // One half of a word, assignable like an element.
  struct half_ref {
    std::uint32_t& word;
    int hi;
    TL_INLINE operator T() const { return bit_cast<T>(static_cast<std::uint16_t>(word >> (16 * hi))); }
    TL_INLINE half_ref& operator=(T v) {
      const std::uint32_t b = bit_cast<std::uint16_t>(v);
      word = hi ? (word & 0xffffu) | (b << 16) : (word & 0xffff0000u) | b;
      return *this;
    }
    TL_INLINE half_ref& operator=(const half_ref& o) { return *this = T(o); }
  };
  TL_INLINE half_ref operator[](int i) { return {w[i / 2], i % 2}; }
  TL_INLINE T operator[](int i) const { return bit_cast<T>(static_cast<std::uint16_t>(w[i / 2] >> (16 * (i % 2)))); }

  template <int V>
  TL_INLINE vector_of<T, V> chunk(int i0) const {
    if constexpr (V % 2 == 0) {
      vector_of<std::uint32_t, V / 2> c;
      TL_UNROLL
      for (int k = 0; k < V / 2; ++k) c.x[k] = w[i0 / 2 + k];
      return bit_cast<vector_of<T, V>>(c);
    } else {
      vector_of<T, V> c;
      TL_UNROLL
      for (int k = 0; k < V; ++k) c.x[k] = (*this)[i0 + k];
      return c;
    }
  }
  template <int V>
  TL_INLINE void set_chunk(int i0, const vector_of<T, V>& c) {
    if constexpr (V % 2 == 0) {
      const auto words = bit_cast<vector_of<std::uint32_t, V / 2>>(c);
      TL_UNROLL
      for (int k = 0; k < V / 2; ++k) w[i0 / 2 + k] = words.x[k];
    } else {
      TL_UNROLL
      for (int k = 0; k < V; ++k) (*this)[i0 + k] = c.x[k];
    }
  }
};

#if TL_DEVICE_PASS
// A warp shuffle of any trivially copyable value: up to 8 bytes as one 32- or 64-bit word,
// larger ones (the packs of a multi-block scan or reduction) word by word.
template <class T, class Shuffle>
__device__ __forceinline__ T shuffle_word(const T& x, Shuffle&& shuffle) {
  if constexpr (sizeof(T) <= 8) {
    std::conditional_t<(sizeof(T) <= 4), unsigned, unsigned long long> u = 0;
    std::memcpy(&u, &x, sizeof(T));
    u = shuffle(u);
    T r;
    std::memcpy(&r, &u, sizeof(T));
    return r;
  } else {
    constexpr int words = int((sizeof(T) + 3) / 4);
    unsigned u[words] = {};
    std::memcpy(u, &x, sizeof(T));
    TL_UNROLL
    for (int k = 0; k < words; ++k) u[k] = shuffle(u[k]);
    T r;
    std::memcpy(&r, u, sizeof(T));
    return r;
  }
}
#endif

}  // namespace tl::detail::cuda
