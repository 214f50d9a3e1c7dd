// tl/expr/functors.hpp: the scalar function behind each elementwise op.
//
// Each functor works on the computation type (float for 16-bit floats). Where C++ leaves
// integer arithmetic undefined, tl defines it, so no backend invokes undefined behaviour:
// signed + - * wrap (as the GPU does); shifts by >= the bit width give 0 or the sign fill
// (PTX's clamped shifts); x / 0 and x % 0 give what Triton's code gives on the GPU (all ones;
// for 64-bit operands that fit in 32 bits, 0xffffffff: the GPU divides those in 32 bits), checked
// on every backend so that none depends on the hardware's unspecified quotient.
// Float + - * are never contracted into an fma by the compiler (on the device the _rn
// intrinsics, which nvcc does not fuse); the expressions fuse a*b+c themselves (nodes.hpp), on
// both backends alike. The math functions compute what Triton's lowering computes on the GPU:
// on the CUDA backend the same instructions (ex2.approx, sqrt.approx.ftz, ...), on the CPU the
// same formulas and the same flushing of subnormals, with the C library's functions in place of
// the approximate instructions (docs/03-types.md states the bound).
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
#if TL_DEVICE_PASS
    if constexpr (std::is_same_v<T, float>) return __fadd_rn(a, b);
    if constexpr (std::is_same_v<T, double>) return __dadd_rn(a, b);
#endif
    return static_cast<T>(a + b);
  }
}
template <class T>
TL_INLINE T wrap_sub(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
#if TL_DEVICE_PASS
    if constexpr (std::is_same_v<T, float>) return __fsub_rn(a, b);
    if constexpr (std::is_same_v<T, double>) return __dsub_rn(a, b);
#endif
    return static_cast<T>(a - b);
  }
}
template <class T>
TL_INLINE T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
#if TL_DEVICE_PASS
    if constexpr (std::is_same_v<T, float>) return __fmul_rn(a, b);
    if constexpr (std::is_same_v<T, double>) return __dmul_rn(a, b);
#endif
    return static_cast<T>(a * b);
  }
}

// x / 0 and x % 0 on integers: all ones, as the GPU's 32-bit division gives; a 64-bit division
// whose operands fit in 32 bits is done in 32 bits there (0xffffffff), as Triton's code does.
template <class T>
TL_INLINE T integer_division_by_zero(T a) {
  using U = std::make_unsigned_t<T>;
  if constexpr (sizeof(T) == 8)
    if ((static_cast<U>(a) >> 32) == 0) return static_cast<T>(U(0xffffffffu));
  return static_cast<T>(~U(0));
}

// Subnormal float32 values to zero of the same sign (the .ftz of the GPU's instructions).
TL_INLINE float flush_subnormal(float x) {
  const std::uint32_t u = bit_cast<std::uint32_t>(x);
  return (u & 0x7f800000u) == 0 ? bit_cast<float>(u & 0x80000000u) : x;
}
// Triton's float32 math on the GPU, one function each (their double versions are the C library's).
//   exp(x)   ex2.approx.f32(x * log2(e)), the product rounded
//   exp2(x)  ex2.approx.ftz.f32
//   sqrt(x)  sqrt.approx.ftz.f32;  rsqrt(x)  rsqrt.approx.ftz.f32
//   floor, ceil  cvt.rmi.ftz, cvt.rpi.ftz (a subnormal input is zero first)
//   tanh, erf, sin, cos  libdevice's, with subnormal inputs and results flushed
TL_INLINE float exp2_ftz(float x) {
#if TL_DEVICE_PASS
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#else
  return flush_subnormal(std::exp2(flush_subnormal(x)));
#endif
}
TL_INLINE float exp_triton(float x) {
  const float t = wrap_mul(x, 1.44269504088896340736f);
#if TL_DEVICE_PASS
  float r;
  asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(t));
  return r;
#else
  return std::exp2(t);
#endif
}
TL_INLINE float sqrt_ftz(float x) {
#if TL_DEVICE_PASS
  float r;
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#else
  return flush_subnormal(std::sqrt(flush_subnormal(x)));
#endif
}
TL_INLINE float rsqrt_ftz(float x) {
#if TL_DEVICE_PASS
  float r;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#else
  return flush_subnormal(1.0f / std::sqrt(flush_subnormal(x)));
#endif
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
    if constexpr (std::is_same_v<T, bool>) {
      return b ? a : true;  // int1: 1 / 0 and 0 / 0 are all ones
    } else if constexpr (std::is_integral_v<T>) {
      if (b == T(0)) return detail::integer_division_by_zero(a);
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
    if constexpr (std::is_same_v<T, bool>) {
      return !b;  // x % 1 is 0; x % 0 all ones
    } else if constexpr (std::is_integral_v<T>) {
      if (b == T(0)) return detail::integer_division_by_zero(a);
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
// maximum/minimum as the GPU's max.f32/min.f32: a NaN operand is ignored (two NaN give the
// canonical NaN, all mantissa bits set), and -0.0 is below +0.0.
template <class T>
TL_INLINE T canonical_nan() {
  if constexpr (std::is_same_v<T, float>) return detail::bit_cast<float>(0x7fffffffu);
  else return detail::bit_cast<double>(0x7fffffffffffffffull);
}
template <bool Max, class T>
TL_INLINE T float_max_min(T a, T b) {
  if (a != a) return b != b ? canonical_nan<T>() : b;
  if (b != b) return a;
  if (a == b) return (Max ? std::signbit(a) : !std::signbit(a)) ? b : a;  // the zeros' sign
  return (Max ? a < b : b < a) ? b : a;
}
struct maximum {
  static constexpr bool comparison = false, div_or_mod = false, bitwise = false;
  template <class T>
  TL_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) return float_max_min<true>(a, b);
    else return a < b ? b : a;
  }
};
struct minimum {
  static constexpr bool comparison = false, div_or_mod = false, bitwise = false;
  template <class T>
  TL_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) return float_max_min<false>(a, b);
    else return b < a ? b : a;
  }
};
// maximum/minimum with tl::PropagateNan::ALL: NaN if either operand is NaN (the canonical
// NaN, as the GPU's max.NaN.f32 gives), else as above.
struct maximum_nan {
  static constexpr bool comparison = false, div_or_mod = false, bitwise = false;
  template <class T>
  TL_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>)
      if (a != a || b != b) return canonical_nan<T>();
    return maximum{}(a, b);
  }
};
struct minimum_nan {
  static constexpr bool comparison = false, div_or_mod = false, bitwise = false;
  template <class T>
  TL_INLINE T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>)
      if (a != a || b != b) return canonical_nan<T>();
    return minimum{}(a, b);
  }
};
// cdiv(a, b) = ceil(a / b) for integers (the quotient of (a + b - 1) / b, by zero too).
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
    if constexpr (std::is_same_v<T, float>) return detail::bit_cast<float>(detail::bit_cast<std::uint32_t>(a) & 0x7fffffffu);  // NaN too
    else if constexpr (std::is_same_v<T, double>) return detail::bit_cast<double>(detail::bit_cast<std::uint64_t>(a) & 0x7fffffffffffffffull);
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
TL_MATH_(exp, detail::exp_triton(a), std::exp(a))
TL_MATH_(exp2, detail::exp2_ftz(a), std::exp2(a))
TL_MATH_(log, std::log(a), std::log(a))
TL_MATH_(log2, std::log2(a), std::log2(a))
TL_MATH_(sqrt, detail::sqrt_ftz(a), std::sqrt(a))
TL_MATH_(sqrt_rn, std::sqrt(a), std::sqrt(a))
TL_MATH_(rsqrt, detail::rsqrt_ftz(a), 1.0 / std::sqrt(a))
// Triton's sigmoid: 1 / (1 + exp(-x)), its / as tl's (div.full on the GPU).
TL_MATH_(sigmoid, div{}(1.0f, detail::wrap_add(1.0f, detail::exp_triton(-a))), 1.0 / (1.0 + std::exp(-a)))
TL_MATH_(sin, detail::flush_subnormal(std::sin(detail::flush_subnormal(a))), std::sin(a))
TL_MATH_(cos, detail::flush_subnormal(std::cos(detail::flush_subnormal(a))), std::cos(a))
TL_MATH_(floor, std::floor(detail::flush_subnormal(a)), std::floor(a))
TL_MATH_(ceil, std::ceil(detail::flush_subnormal(a)), std::ceil(a))
TL_MATH_(erf, detail::flush_subnormal(std::erf(detail::flush_subnormal(a))), std::erf(a))
TL_MATH_(tanh, detail::flush_subnormal(std::tanh(detail::flush_subnormal(a))), std::tanh(a))
#undef TL_MATH_

}  // namespace tl::op
