// tl/core/dtype.hpp: element types, dtype tags (tl::float32, ...), and Triton's promotion rules.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "../config.hpp"

namespace tl {

namespace detail {
template <class To, class From>
TL_INLINE To bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "tl::detail::bit_cast: sizes differ");
  To to;
  __builtin_memcpy(static_cast<void*>(&to), &from, sizeof(To));  // To may be fp16 or bf16
  return to;
}

// IEEE binary16, round to nearest even. Software on the host; the CUDA backend may use
// the hardware conversion, which rounds the same way.
TL_HD constexpr std::uint16_t float_to_half_bits(std::uint32_t f) {
  const std::uint32_t sign = (f >> 16) & 0x8000u;
  const std::uint32_t a = f & 0x7fffffffu;
  if (a >= 0x7f800000u)  // inf or NaN (NaN stays quiet NaN)
    return static_cast<std::uint16_t>(sign | 0x7c00u | (a > 0x7f800000u ? (0x200u | ((a >> 13) & 0x3ffu)) : 0u));
  if (a >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to inf
  if (a < 0x38800000u) {  // below 2^-14: a half subnormal (or zero)
    const int e = static_cast<int>(a >> 23);
    if (e < 102) return static_cast<std::uint16_t>(sign);  // below 2^-25: rounds to zero
    const std::uint32_t m = (a & 0x7fffffu) | 0x800000u;
    const int shift = 126 - e;  // value / 2^-24 = m * 2^(e - 126)
    std::uint32_t q = m >> shift;
    const std::uint32_t rem = m & ((1u << shift) - 1u), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (q & 1u))) ++q;
    return static_cast<std::uint16_t>(sign | q);
  }
  std::uint32_t h = (a - 0x38000000u) >> 13;  // rebias the exponent from 127 to 15
  const std::uint32_t rem = a & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<std::uint16_t>(sign | h);
}

TL_HD constexpr std::uint32_t half_bits_to_float_bits(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  int e = (h >> 10) & 0x1f;
  std::uint32_t m = h & 0x3ffu;
  if (e == 0) {
    if (m == 0) return sign;
    e = 1;
    while (!(m & 0x400u)) { m <<= 1; --e; }
    m &= 0x3ffu;
    return sign | (static_cast<std::uint32_t>(e + 112) << 23) | (m << 13);
  }
  if (e == 31) return sign | 0x7f800000u | (m << 13);
  return sign | (static_cast<std::uint32_t>(e + 112) << 23) | (m << 13);
}

TL_HD constexpr std::uint16_t float_to_bf16_bits(std::uint32_t f) {
  if ((f & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((f >> 16) | 0x40u);  // quiet NaN
  const std::uint32_t lsb = (f >> 16) & 1u;
  return static_cast<std::uint16_t>((f + 0x7fffu + lsb) >> 16);
}
// tf32, as the tensor cores read float32 bits (Triton's default dot precision): the low 13
// mantissa bits dropped, toward zero; inf and NaN keep their bits.
TL_INLINE float round_to_tf32(float x) {
  std::uint32_t u = bit_cast<std::uint32_t>(x);
  if ((u & 0x7f800000u) == 0x7f800000u) return x;
  return bit_cast<float>(u & 0xffffe000u);
}

// 8-bit floats of E exponent and M mantissa bits and exponent bias Bias. How each format
// spends its special codes:
//   ieee   the all-ones exponent is infinity and NaN (float8e5, e5m2);
//   fn     no infinities: the all-ones exponent is a normal binade and only S.1111.111 is NaN
//          (float8e4nv, e4m3fn);
//   fnuz   no infinities, no negative zero: 0x80 is the one NaN, every other code a number
//          (the AMD formats float8e4b8 and float8e5b16);
//   finite every code is a number (float8e4b15, Triton's format for fast software conversion).
// From float, for ieee, fn and fnuz: round to nearest even; values beyond the largest finite one
// (infinities too) saturate to it; NaN stays NaN (what the GPU's cvt.rn.satfinite gives, which
// Triton's .to(tl.float8e4nv / tl.float8e5) uses on Hopper); fnuz gives +0 for any zero.
// float8e4b15 as Triton's conversion computes it: the magnitude clamped to 1.75 (NaN too, which
// keeps its sign bit), then rounded to nearest with ties away from zero.
enum class fp8_kind { ieee, fn, fnuz, finite };
TL_INLINE float pow2f(int k) {  // 2^k for -126 <= k <= 127
  return bit_cast<float>(static_cast<std::uint32_t>(k + 127) << 23);
}
template <int E, int M, int Bias, fp8_kind K>
struct fp8_format {
  static constexpr int emin = 1 - Bias;  // the smallest normal exponent
  static constexpr int emax_field = K == fp8_kind::ieee ? (1 << E) - 2 : (1 << E) - 1;
  static constexpr int max_mantissa = K == fp8_kind::fn ? (1 << M) - 2 : (1 << M) - 1;  // fn: all ones is NaN
  static constexpr std::uint8_t max_bits = static_cast<std::uint8_t>((emax_field << M) | max_mantissa);
  // What values beyond the range round to: the largest finite code, except float8e4b15's 1.75.
  static constexpr std::uint8_t saturated_bits = K == fp8_kind::finite ? max_bits - 1 : max_bits;
  static constexpr std::uint8_t nan_bits = K == fp8_kind::fn     ? 0x7f
                                           : K == fp8_kind::fnuz ? 0x80
                                           : K == fp8_kind::ieee  // all ones but the sign, as cvt.rn.satfinite gives
                                               ? static_cast<std::uint8_t>((((1 << E) - 1) << M) | ((1 << M) - 1))
                                               : saturated_bits;
};
template <int E, int M, int Bias, fp8_kind K>
TL_INLINE float fp8_bits_to_float(std::uint8_t b) {
  const float qnan = bit_cast<float>(0x7fc00000u);
  const float sign = (b & 0x80u) ? -1.0f : 1.0f;
  const int e = (b >> M) & ((1 << E) - 1), m = b & ((1 << M) - 1);
  if (K == fp8_kind::ieee && e == (1 << E) - 1) return m == 0 ? sign * bit_cast<float>(0x7f800000u) : qnan;
  if (K == fp8_kind::fn && e == (1 << E) - 1 && m == (1 << M) - 1) return qnan;
  if (K == fp8_kind::fnuz && b == 0x80u) return qnan;
  if (e == 0) return sign * float(m) * pow2f(1 - Bias - M);
  return sign * (1.0f + float(m) * pow2f(-M)) * pow2f(e - Bias);
}
template <int E, int M, int Bias, fp8_kind K>
TL_INLINE std::uint8_t float_to_fp8_bits(float f) {
  using F = fp8_format<E, M, Bias, K>;
  const std::uint32_t u = bit_cast<std::uint32_t>(f);
  const std::uint8_t sign = static_cast<std::uint8_t>((u >> 24) & 0x80u);
  const std::uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return K == fp8_kind::finite ? static_cast<std::uint8_t>(sign | F::nan_bits) : F::nan_bits;
  const float x = bit_cast<float>(a);
  const float saturated = fp8_bits_to_float<E, M, Bias, K>(F::saturated_bits);
  if (x >= saturated) return static_cast<std::uint8_t>(sign | F::saturated_bits);  // infinity too
  // The spacing of representable values at x: 2^(exponent - M), never below the subnormals'.
  const int ex = a >= 0x00800000u ? static_cast<int>(a >> 23) - 127 : -127;
  const int quantum = (ex < F::emin ? F::emin : ex) - M;
  const float y = x * pow2f(-quantum);  // exact: a power of two; y < 2^(M + 1)
  float n = float(static_cast<std::uint32_t>(y));
  const float frac = y - n;
  const bool up = K == fp8_kind::finite ? frac >= 0.5f  // ties away from zero
                                        : frac > 0.5f || (frac == 0.5f && (static_cast<std::uint32_t>(n) & 1u));
  if (up) n += 1.0f;
  const float r = n * pow2f(quantum);  // x rounded; at most the saturated value (checked above,
                                       // and the rounding of a value below it cannot pass it)
  if (r >= saturated) return static_cast<std::uint8_t>(sign | F::saturated_bits);
  if (r == 0.0f) return K == fp8_kind::fnuz ? std::uint8_t{0} : sign;
  const std::uint32_t rb = bit_cast<std::uint32_t>(r);
  const int er = static_cast<int>(rb >> 23) - 127;
  if (er < F::emin) return static_cast<std::uint8_t>(sign | static_cast<std::uint32_t>(r * pow2f(M - F::emin)));
  const std::uint32_t mant = (rb >> (23 - M)) & ((1u << M) - 1u);
  return static_cast<std::uint8_t>(sign | (static_cast<std::uint32_t>(er + Bias) << M) | mant);
}

}  // namespace detail

// 8-bit floats (Triton's five: tl.float8e4nv, tl.float8e5, tl.float8e4b15, tl.float8e4b8,
// tl.float8e5b16). Storage only, as the 16-bit ones: arithmetic happens in float, each result
// rounded back.
template <int E, int M, int Bias, detail::fp8_kind K>
struct fp8 {
  std::uint8_t bits = 0;
  fp8() = default;
  TL_INLINE explicit fp8(float f) : bits(detail::float_to_fp8_bits<E, M, Bias, K>(f)) {}
  TL_INLINE explicit fp8(double d) : fp8(static_cast<float>(d)) {}
  TL_INLINE explicit fp8(int i) : fp8(static_cast<float>(i)) {}
  TL_INLINE operator float() const { return detail::fp8_bits_to_float<E, M, Bias, K>(bits); }
  TL_HD static constexpr fp8 from_bits(std::uint8_t b) { fp8 h; h.bits = b; return h; }
};
using fp8e4nv = fp8<4, 3, 7, detail::fp8_kind::fn>;        // e4m3fn: max 448, no infinities
using fp8e5 = fp8<5, 2, 15, detail::fp8_kind::ieee>;       // e5m2: max 57344, infinities
using fp8e4b15 = fp8<4, 3, 15, detail::fp8_kind::finite>;  // max 1.875 (conversions give at most 1.75)
using fp8e4b8 = fp8<4, 3, 8, detail::fp8_kind::fnuz>;      // e4m3fnuz: max 240, NaN 0x80
using fp8e5b16 = fp8<5, 2, 16, detail::fp8_kind::fnuz>;    // e5m2fnuz: max 57344, NaN 0x80

// 16-bit floats. Storage only: arithmetic happens in float, each result rounded back,
// which gives the correctly rounded half result for + - * / sqrt.
struct fp16 {
  std::uint16_t bits = 0;
  fp16() = default;
  TL_INLINE explicit fp16(float f) {
#if defined(__CUDA_ARCH__)
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(f));  // the hardware's conversion: same rounding
#else
    bits = detail::float_to_half_bits(detail::bit_cast<std::uint32_t>(f));
#endif
  }
  TL_INLINE explicit fp16(double d) : fp16(static_cast<float>(d)) {}
  TL_INLINE explicit fp16(int i) : fp16(static_cast<float>(i)) {}
  TL_INLINE operator float() const {
#if defined(__CUDA_ARCH__)
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
    return f;
#else
    return detail::bit_cast<float>(detail::half_bits_to_float_bits(bits));
#endif
  }
  TL_HD static constexpr fp16 from_bits(std::uint16_t b) { fp16 h; h.bits = b; return h; }
};

struct bf16 {
  std::uint16_t bits = 0;
  bf16() = default;
  TL_INLINE explicit bf16(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(bits) : "f"(f));
#else
    bits = detail::float_to_bf16_bits(detail::bit_cast<std::uint32_t>(f));
#endif
  }
  TL_INLINE explicit bf16(double d) : bf16(static_cast<float>(d)) {}
  TL_INLINE explicit bf16(int i) : bf16(static_cast<float>(i)) {}
  TL_INLINE operator float() const { return detail::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }
  TL_HD static constexpr bf16 from_bits(std::uint16_t b) { bf16 h; h.bits = b; return h; }
};

// dtype tags: values that name an element type, as in Triton (x.to(tl::float16)).
template <class T>
struct dtype {
  using type = T;
};
inline constexpr dtype<bool> int1{};
inline constexpr dtype<std::int8_t> int8{};
inline constexpr dtype<std::int16_t> int16{};
inline constexpr dtype<std::int32_t> int32{};
inline constexpr dtype<std::int64_t> int64{};
inline constexpr dtype<std::uint8_t> uint8{};
inline constexpr dtype<std::uint16_t> uint16{};
inline constexpr dtype<std::uint32_t> uint32{};
inline constexpr dtype<std::uint64_t> uint64{};
inline constexpr dtype<fp16> float16{};
inline constexpr dtype<bf16> bfloat16{};
inline constexpr dtype<fp8e4nv> float8e4nv{};
inline constexpr dtype<fp8e5> float8e5{};
inline constexpr dtype<fp8e4b15> float8e4b15{};
inline constexpr dtype<fp8e4b8> float8e4b8{};
inline constexpr dtype<fp8e5b16> float8e5b16{};
inline constexpr dtype<float> float32{};
inline constexpr dtype<double> float64{};

template <class T>
struct ptr;  // core/ptr.hpp

namespace detail {

template <class T>
struct is_fp8 : std::false_type {};
template <int E, int M, int Bias, fp8_kind K>
struct is_fp8<fp8<E, M, Bias, K>> : std::true_type {};
template <class T>
inline constexpr bool is_fp8_v = is_fp8<T>::value;
// The floats narrower than float32: stored, computed in float.
template <class T>
inline constexpr bool is_small_float_v = std::is_same_v<T, fp16> || std::is_same_v<T, bf16> || is_fp8_v<T>;
template <class T>
inline constexpr bool is_float_v = is_small_float_v<T> || std::is_same_v<T, float> || std::is_same_v<T, double>;

// The element types a block may hold.
template <class T>
inline constexpr bool is_element_v =
    std::is_same_v<T, bool> || std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::int16_t> ||
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint8_t> ||
    std::is_same_v<T, std::uint16_t> || std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t> ||
    is_float_v<T>;

template <class T>
struct is_ptr : std::false_type {};
template <class T>
struct is_ptr<ptr<T>> : std::true_type {};
template <class T>
inline constexpr bool is_ptr_v = is_ptr<T>::value;

template <class T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <class T>
inline constexpr bool is_bool_v = std::is_same_v<T, bool>;

// Triton's kinds, ordered: bool < unsigned < signed < floating.
enum class kind { boolean = 0, uint = 1, sint = 2, floating = 3 };
template <class T>
constexpr kind kind_of() {
  if constexpr (is_bool_v<T>) return kind::boolean;
  else if constexpr (is_float_v<T>) return kind::floating;
  else if constexpr (std::is_unsigned_v<T>) return kind::uint;
  else return kind::sint;
}

// The type arithmetic is done in: 16-bit floats compute in float.
template <class T>
struct compute {
  using type = T;
};
template <>
struct compute<fp16> {
  using type = float;
};
template <>
struct compute<bf16> {
  using type = float;
};
template <int E, int M, int Bias, fp8_kind K>
struct compute<fp8<E, M, Bias, K>> {
  using type = float;
};
template <class T>
using compute_t = typename compute<T>::type;

// C++ scalars mixed into block expressions. Like Python numbers in Triton, they are "weak": a
// scalar whose kind is not above the block's kind takes the block's type (x + 10 stays float16;
// off + 1 stays int32; u8 + 1 stays uint8), and is converted to that type before the op (h *
// 0.1 multiplies by 0.1 rounded to float16). 64-bit integers are strong, so an int64 stride
// widens int32 offsets instead of being truncated.
template <class T>
inline constexpr bool is_weak_scalar_v =
    std::is_floating_point_v<T> || (std::is_integral_v<T> && sizeof(T) <= 4);  // double is weak too

// The dtype a weak scalar stands for when it must take part in promotion.
template <class T>
struct weak_dtype {
  using type = std::conditional_t<
      is_bool_v<T>, bool,
      std::conditional_t<is_float_v<T>, float, std::conditional_t<std::is_unsigned_v<T>, std::uint32_t, std::int32_t>>>;
};

template <bool S, int Bits>
struct int_of_bits;
template <> struct int_of_bits<true, 8> { using type = std::int8_t; };
template <> struct int_of_bits<true, 16> { using type = std::int16_t; };
template <> struct int_of_bits<true, 32> { using type = std::int32_t; };
template <> struct int_of_bits<true, 64> { using type = std::int64_t; };
template <> struct int_of_bits<false, 8> { using type = std::uint8_t; };
template <> struct int_of_bits<false, 16> { using type = std::uint16_t; };
template <> struct int_of_bits<false, 32> { using type = std::uint32_t; };
template <> struct int_of_bits<false, 64> { using type = std::uint64_t; };

// Integer promotion (Triton's integer_promote_impl): same signedness, the wider; mixed,
// the unsigned one if it is at least as wide, else the signed one. bool counts as uint1.
template <class A, class B>
struct int_promote {
  static constexpr int a_bits = is_bool_v<A> ? 1 : int(sizeof(A) * 8);
  static constexpr int b_bits = is_bool_v<B> ? 1 : int(sizeof(B) * 8);
  static constexpr bool a_signed = std::is_signed_v<A> && !is_bool_v<A>;
  static constexpr bool b_signed = std::is_signed_v<B> && !is_bool_v<B>;
  static constexpr int bits_if_same = a_bits > b_bits ? a_bits : b_bits;
  using type_same = std::conditional_t<
      bits_if_same == 1, bool, typename int_of_bits<a_signed, (bits_if_same < 8 ? 8 : bits_if_same)>::type>;
  using unsigned_one = std::conditional_t<a_signed, B, A>;
  using signed_one = std::conditional_t<a_signed, A, B>;
  static constexpr int u_bits = a_signed ? b_bits : a_bits;
  static constexpr int s_bits = a_signed ? a_bits : b_bits;
  using type_mixed = std::conditional_t<(u_bits >= s_bits), std::conditional_t<u_bits == 1, bool, unsigned_one>,
                                        signed_one>;
  using type = std::conditional_t<a_signed == b_signed, type_same, type_mixed>;
};

// Promotion of two tensor dtypes (Triton's computation_type_impl, steps 1 to 6).
template <class A, class B, bool DivOrMod>
struct tensor_promote {
  static constexpr bool any_f64 = std::is_same_v<A, double> || std::is_same_v<B, double>;
  static constexpr bool any_f32 = std::is_same_v<A, float> || std::is_same_v<B, float>;
  static constexpr bool any_f16 = std::is_same_v<A, fp16> || std::is_same_v<B, fp16>;
  static constexpr bool any_bf16 = std::is_same_v<A, bf16> || std::is_same_v<B, bf16>;
  static constexpr bool both_bf16 = std::is_same_v<A, bf16> && std::is_same_v<B, bf16>;
  using int_type = typename std::conditional_t<is_float_v<A> || is_float_v<B>, std::type_identity<int>,
                                               int_promote<A, B>>::type;
  // fp8 (after the wider floats): the same fp8 type stays (float32 for / and %), two different
  // ones give float16; with an integer tensor (which Triton rejects) float32.
  static constexpr bool any_fp8 = is_fp8_v<A> || is_fp8_v<B>;
  using fp8_type = std::conditional_t<std::is_same_v<A, B> && !DivOrMod, A,
                                      std::conditional_t<is_fp8_v<A> && is_fp8_v<B> && !DivOrMod, fp16, float>>;
  using type = std::conditional_t<
      any_f64, double,
      std::conditional_t<
          any_f32, float,
          std::conditional_t<
              any_f16, std::conditional_t<DivOrMod, float, fp16>,
              std::conditional_t<any_bf16, std::conditional_t<(DivOrMod || !both_bf16), float, bf16>,
                                 std::conditional_t<any_fp8, fp8_type, int_type>>>>>;
};

// Promotion with weak scalars (Triton's step 0): a weak operand whose kind is not above
// the other's does not take part. 16-bit floats divide in float32.
template <class A, bool WeakA, class B, bool WeakB, bool DivOrMod>
struct promote_impl {
  using type = typename tensor_promote<A, B, DivOrMod>::type;
};
// A weak scalar's kind, compared with the block's before any promotion: Triton's Python numbers
// are bool, int or float, and an int does not take part with a signed or an unsigned block alike
// (uint8 + 1 stays uint8).
template <class T>
constexpr int weak_kind_rank() {
  constexpr kind k = kind_of<T>();
  return k == kind::boolean ? 0 : k == kind::floating ? 2 : 1;
}
template <class A, class B, bool DivOrMod>
struct promote_impl<A, true, B, false, DivOrMod> {
  using wide = typename tensor_promote<typename weak_dtype<A>::type, B, DivOrMod>::type;
  using kept = std::conditional_t<DivOrMod && is_small_float_v<B>, float, B>;
  using type = std::conditional_t<(weak_kind_rank<A>() <= weak_kind_rank<B>()), kept, wide>;
};
template <class A, class B, bool DivOrMod>
struct promote_impl<A, false, B, true, DivOrMod> : promote_impl<B, true, A, false, DivOrMod> {};
template <class A, class B, bool DivOrMod>
struct promote_impl<A, true, B, true, DivOrMod> {
  using type =
      typename tensor_promote<typename weak_dtype<A>::type, typename weak_dtype<B>::type, DivOrMod>::type;
};

template <class A, bool WeakA, class B, bool WeakB, bool DivOrMod = false>
using promote_t = typename promote_impl<A, WeakA, B, WeakB, DivOrMod>::type;

// double to float rounding to odd: a following rounding to a narrower type (fp16, bf16) then
// equals a direct correct rounding from double, with no double-rounding error.
TL_INLINE float to_float_round_odd(double d) {
  float f = static_cast<float>(d);
  if (d == d && static_cast<double>(f) != d && f - f == 0.0f) {  // inexact and finite
    std::uint32_t u = bit_cast<std::uint32_t>(f);
    if ((u & 1u) == 0) {
      const bool above = (f < 0 ? -double(f) : double(f)) > (d < 0 ? -d : d);
      f = bit_cast<float>(above ? u - 1 : u + 1);  // one step toward d, to the odd neighbour
    }
  }
  return f;
}

// Conversions between element types, with the GPU's rules where C++ leaves them undefined, as
// Triton's code converts: float to integer truncates and saturates (to 8 bits: saturates to 16
// bits, then the low byte); NaN gives 0 (to 64 bits, and from float64 to 32 bits: the sign bit).
template <class To, class From>
TL_INLINE To convert(const From& v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_bool_v<To>) {
    return static_cast<compute_t<From>>(v) != compute_t<From>(0);
  } else if constexpr (is_small_float_v<To>) {
    if constexpr (std::is_same_v<From, double> || sizeof(From) == 8) return To(to_float_round_odd(static_cast<double>(v)));
    else return To(static_cast<float>(static_cast<compute_t<From>>(v)));
  } else if constexpr (is_int_v<To> && is_float_v<From> && sizeof(To) == 1) {
    // To 8 bits through the 16-bit conversion, keeping its low byte (Triton's cvt.rzi.s16 /
    // cvt.rzi.u16): 128.0f gives int8 -128, 256.0f uint8 0, 40000.0f int8 -1.
    using W = std::conditional_t<std::is_signed_v<To>, std::int16_t, std::uint16_t>;
    return static_cast<To>(convert<W>(v));
  } else if constexpr (is_int_v<To> && is_float_v<From>) {
    using F = std::conditional_t<std::is_same_v<From, double>, double, float>;
    const F f = static_cast<F>(v);
    if (!(f == f)) {  // NaN: the GPU's cvt.rzi gives 0, except to 64 bits and from float64 to 32 bits
      if constexpr (sizeof(To) == 8 || (sizeof(To) == 4 && std::is_same_v<F, double>))
        return std::is_signed_v<To> ? std::numeric_limits<To>::min() : To(To(1) << (sizeof(To) * 8 - 1));
      return To(0);
    }
    if (f <= static_cast<F>(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
    if (f >= static_cast<F>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(f);
  } else {
    return static_cast<To>(static_cast<compute_t<From>>(v));
  }
}

template <class T>
constexpr const char* dtype_name() {
  if constexpr (std::is_same_v<T, bool>) return "int1";
  else if constexpr (std::is_same_v<T, std::int8_t>) return "int8";
  else if constexpr (std::is_same_v<T, std::int16_t>) return "int16";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  else if constexpr (std::is_same_v<T, fp16>) return "float16";
  else if constexpr (std::is_same_v<T, bf16>) return "bfloat16";
  else if constexpr (std::is_same_v<T, fp8e4nv>) return "float8e4nv";
  else if constexpr (std::is_same_v<T, fp8e5>) return "float8e5";
  else if constexpr (std::is_same_v<T, fp8e4b15>) return "float8e4b15";
  else if constexpr (std::is_same_v<T, fp8e4b8>) return "float8e4b8";
  else if constexpr (std::is_same_v<T, fp8e5b16>) return "float8e5b16";
  else if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else if constexpr (is_ptr_v<T>) return "pointer";
  else return "unknown";
}

}  // namespace detail
}  // namespace tl

