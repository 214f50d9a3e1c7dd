// tl/expr/functors.hpp: the scalar function behind each elementwise op.
//
// Each functor works on the computation type (float for 16-bit floats). Where C++ leaves
// integer arithmetic undefined, tl defines it, so no backend invokes undefined behaviour:
// signed + - * wrap (as the GPU does); shifts by >= the bit width give 0 or the sign fill
// (PTX's clamped shifts); x / 0 and x % 0 give 0 (PTX leaves these unspecified, so every
// backend must check the divisor to give the same 0).
#pragma once

#include <cmath>
#include <type_traits>

#include "../core/dtype.hpp"

namespace tl::detail {
template <class T>
TL_INLINE T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return static_cast<T>(a + b);
  }
}
template <class T>
TL_INLINE T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return static_cast<T>(a - b);
  }
}
template <class T>
TL_INLINE T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return static_cast<T>(a * b);
  }
}
}  // namespace tl::detail

namespace tl::op {

// Binary ops. `comparison` ops return bool; `div_or_mod` ops promote 16-bit floats to float32.
struct add {
  static constexpr bool comparison = false, div_or_mod = false, bitwise = false;
  template <class T> TL_INLINE T operator()(T a, T b) const { return detail::wrap_add(a, b); }
};
struct sub {
  static constexpr bool comparison = false, div_or_mod = false, bitwise = false;
  template <class T> TL_INLINE T operator()(T a, T b) const { return detail::wrap_sub(a, b); }
};
struct mul {
  static constexpr bool comparison = false, div_or_mod = false, bitwise = false;
  template <class T> TL_INLINE T operator()(T a, T b) const { return detail::wrap_mul(a, b); }
};
struct div {
  static constexpr bool comparison = false, div_or_mod = true, bitwise = false;
  template <class T>
  TL_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == T(0)) return T(0);
      if constexpr (std::is_signed_v<T>)
        if (b == T(-1)) return detail::wrap_sub(T(0), a);  // INT_MIN / -1 wraps
      return static_cast<T>(a / b);
    } else {
#if TL_DEVICE_PASS
      // float32 as Triton divides: div.full.f32, within 2 ulp, a reciprocal and a product
      // instead of IEEE division's refinement and slow path (tl::div_rn rounds exactly).
      // Written as ptxas expands div.full (both operands quartered where |b| > 2^126, then
      // div.approx, which scales subnormal divisors itself): the same instructions, but not an
      // asm statement, which nvcc does not merge with an equal one, so a quotient used twice (a
      // row's mean, stored and then subtracted) would be computed twice.
      if constexpr (std::is_same_v<T, float>) {
        // The scale is picked, not branched on: with a branch here, a quotient under a where()
        // (dropout's where(keep, x / (1 - p), 0)) was compiled as a branch per element.
        const float s = fabsf(b) > 0x1p126f ? 0.25f : 1.0f;
        return __fdividef(a * s, b * s);
      }
#endif
      return a / b;
    }
  }
};
// a / b rounded to nearest (IEEE), on every backend: Triton's tl.math.div_rn.
struct div_rn {
  static constexpr bool comparison = false, div_or_mod = true, bitwise = false;
  template <class T>
  TL_INLINE T operator()(T a, T b) const {
    static_assert(std::is_floating_point_v<T>, "tl: div_rn divides floating-point blocks");
    return a / b;
  }
};
struct mod {
  static constexpr bool comparison = false, div_or_mod = true, bitwise = false;
  template <class T>
  TL_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == T(0)) return T(0);
      if constexpr (std::is_signed_v<T>)
        if (b == T(-1)) return T(0);
      return static_cast<T>(a % b);
    } else {
      return std::fmod(a, b);
    }
  }
};

#define TL_COMPARISON_(name, expr_)                                                     \
  struct name {                                                                         \
    static constexpr bool comparison = true, div_or_mod = false, bitwise = false;      \
    template <class T> TL_INLINE bool operator()(T a, T b) const { return expr_; }     \
  };
TL_COMPARISON_(lt, a < b)
TL_COMPARISON_(le, a <= b)
TL_COMPARISON_(gt, a > b)
TL_COMPARISON_(ge, a >= b)
TL_COMPARISON_(eq, a == b)
TL_COMPARISON_(ne, a != b)
#undef TL_COMPARISON_

struct bit_and {
  static constexpr bool comparison = false, div_or_mod = false, bitwise = true;
  template <class T> TL_INLINE T operator()(T a, T b) const { return static_cast<T>(a & b); }
};
struct bit_or {
  static constexpr bool comparison = false, div_or_mod = false, bitwise = true;
  template <class T> TL_INLINE T operator()(T a, T b) const { return static_cast<T>(a | b); }
};
struct bit_xor {
  static constexpr bool comparison = false, div_or_mod = false, bitwise = true;
  template <class T> TL_INLINE T operator()(T a, T b) const { return static_cast<T>(a ^ b); }
};
// umulhi(a, b): the high half of the 2N-bit product of a and b's N bits read as unsigned
// (Triton's tl.umulhi; the GPU's mul.hi.u32 / mul.hi.u64).
struct umulhi {
  static constexpr bool comparison = false, div_or_mod = false, bitwise = true;
  template <class T>
  TL_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) {
      return false;  // 1 x 1 has no high bit
    } else {
      using U = std::make_unsigned_t<T>;
      constexpr int bits = int(sizeof(T)) * 8;
#if TL_DEVICE_PASS
      if constexpr (bits == 32) return static_cast<T>(__umulhi(static_cast<U>(a), static_cast<U>(b)));
      else if constexpr (bits == 64) return static_cast<T>(__umul64hi(static_cast<U>(a), static_cast<U>(b)));
      else
#endif
      if constexpr (bits == 64) {  // from the four products of the 32-bit halves
        const std::uint64_t x = static_cast<U>(a), y = static_cast<U>(b), m = 0xffffffffu;
        const std::uint64_t ll = (x & m) * (y & m), lh = (x & m) * (y >> 32), hl = (x >> 32) * (y & m), hh = (x >> 32) * (y >> 32);
        const std::uint64_t mid = (ll >> 32) + (lh & m) + (hl & m);
        return static_cast<T>(hh + (lh >> 32) + (hl >> 32) + (mid >> 32));
      } else {
        return static_cast<T>((std::uint64_t(static_cast<U>(a)) * static_cast<U>(b)) >> bits);
      }
    }
  }
};
// Shifts by a negative amount or by >= the width give 0 (left) or the sign fill (right),
// as PTX's clamped shifts do. >> is arithmetic on signed types.
template <class T>
TL_INLINE constexpr bool negative(T b) {
  if constexpr (std::is_signed_v<T>) return b < T(0);
  else return false;  // (a comparison nvcc would call pointless for unsigned types)
}
struct shl {
  static constexpr bool comparison = false, div_or_mod = false, bitwise = true;
  template <class T>
  TL_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) {
      return b ? false : a;
    } else {
      using U = std::make_unsigned_t<T>;
      if (negative(b) || b >= T(sizeof(T) * 8)) return T(0);
      return static_cast<T>(static_cast<U>(static_cast<U>(a) << b));
    }
  }
};
struct shr {
  static constexpr bool comparison = false, div_or_mod = false, bitwise = true;
  template <class T>
  TL_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) {
      return b ? false : a;
    } else {
      if (negative(b) || b >= T(sizeof(T) * 8)) {
        if constexpr (std::is_signed_v<T>) return a < T(0) ? T(-1) : T(0);
        else return T(0);
      }
      return static_cast<T>(a >> b);
    }
  }
};
struct logical_and {
  static constexpr bool comparison = true, div_or_mod = false, bitwise = false;
  template <class T> TL_INLINE bool operator()(T a, T b) const { return bool(a) && bool(b); }
};
struct logical_or {
  static constexpr bool comparison = true, div_or_mod = false, bitwise = false;
  template <class T> TL_INLINE bool operator()(T a, T b) const { return bool(a) || bool(b); }
};
// maximum/minimum ignore a NaN operand (fmax/fmin, the GPU's max.f32/min.f32).
struct maximum {
  static constexpr bool comparison = false, div_or_mod = false, bitwise = false;
  template <class T>
  TL_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) return std::fmax(a, b);
    else return a < b ? b : a;
  }
};
struct minimum {
  static constexpr bool comparison = false, div_or_mod = false, bitwise = false;
  template <class T>
  TL_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) return std::fmin(a, b);
    else return b < a ? b : a;
  }
};
// maximum/minimum with tl::PropagateNan::ALL: NaN if either operand is NaN (the canonical
// quiet NaN, as the GPU's max.NaN.f32 gives), else as above.
struct maximum_nan {
  static constexpr bool comparison = false, div_or_mod = false, bitwise = false;
  template <class T>
  TL_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>)
      if (a != a || b != b) return std::numeric_limits<T>::quiet_NaN();
    return maximum{}(a, b);
  }
};
struct minimum_nan {
  static constexpr bool comparison = false, div_or_mod = false, bitwise = false;
  template <class T>
  TL_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>)
      if (a != a || b != b) return std::numeric_limits<T>::quiet_NaN();
    return minimum{}(a, b);
  }
};
// cdiv(a, b) = ceil(a / b) for integers.
struct cdiv {
  static constexpr bool comparison = false, div_or_mod = true, bitwise = false;
  template <class T>
  TL_INLINE T operator()(T a, T b) const {
    return div{}(detail::wrap_sub(detail::wrap_add(a, b), T(1)), b);
  }
};

// Unary ops. `floating_only` ops reject integer blocks at compile time.
struct neg {
  static constexpr bool floating_only = false, integer_only = false, logical = false;
  template <class T> TL_INLINE T operator()(T a) const { return detail::wrap_sub(T(0), a); }
};
struct bit_not {
  static constexpr bool floating_only = false, integer_only = true, logical = false;
  template <class T>
  TL_INLINE T operator()(T a) const {
    if constexpr (std::is_same_v<T, bool>) return !a;
    else return static_cast<T>(~a);
  }
};
struct logical_not {
  static constexpr bool floating_only = false, integer_only = false, logical = true;
  template <class T> TL_INLINE bool operator()(T a) const { return !bool(a); }
};
struct abs {
  static constexpr bool floating_only = false, integer_only = false, logical = false;
  template <class T>
  TL_INLINE T operator()(T a) const {
    if constexpr (std::is_floating_point_v<T>) return std::fabs(a);
    else if constexpr (std::is_signed_v<T>) return a < T(0) ? detail::wrap_sub(T(0), a) : a;
    else return a;
  }
};

#define TL_MATH_(name, fexpr, dexpr)                                                   \
  struct name {                                                                        \
    static constexpr bool floating_only = true, integer_only = false, logical = false; \
    TL_INLINE float operator()(float a) const { return fexpr; }                        \
    TL_INLINE double operator()(double a) const { return dexpr; }                      \
  };
TL_MATH_(exp, std::exp(a), std::exp(a))
TL_MATH_(exp2, std::exp2(a), std::exp2(a))
TL_MATH_(log, std::log(a), std::log(a))
TL_MATH_(log2, std::log2(a), std::log2(a))
TL_MATH_(sqrt, std::sqrt(a), std::sqrt(a))
TL_MATH_(rsqrt, 1.0f / std::sqrt(a), 1.0 / std::sqrt(a))
TL_MATH_(sigmoid, 1.0f / (1.0f + std::exp(-a)), 1.0 / (1.0 + std::exp(-a)))
TL_MATH_(sin, std::sin(a), std::sin(a))
TL_MATH_(cos, std::cos(a), std::cos(a))
TL_MATH_(floor, std::floor(a), std::floor(a))
TL_MATH_(ceil, std::ceil(a), std::ceil(a))
TL_MATH_(erf, std::erf(a), std::erf(a))
TL_MATH_(tanh, std::tanh(a), std::tanh(a))
#undef TL_MATH_

}  // namespace tl::op
