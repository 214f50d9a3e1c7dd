// tl/ops/dot_scaled.hpp: the matrix product of microscaled blocks (Triton's tl.dot_scaled).
//
//   tl::dot_scaled<"e2m1", "e4m3">(lhs, lhs_scale, rhs, rhs_scale [, acc])
//
// lhs is M x K and rhs K x N in one of the OCP microscaling formats, named as Triton names
// them: "e2m1" (fp4, two to a uint8 along K, the first element in the low four bits: an
// M x K/2 or K/2 x N block of uint8), "e4m3" and "e5m2" (fp8: tl::fp8e4nv / tl::fp8e5 blocks,
// or uint8 holding their bits), "bf16" and "fp16". A scale is an e8m0 exponent (uint8) for
// each group of 32 elements along K: M x K/32 for lhs, N x K/32 for rhs, or tl::None for none.
// The result is float32 (plus acc, when given).
//
// As Triton does on GPUs without microscaled tensor cores (Hopper and older), both operands
// are upcast to one 16-bit type, float16 when either format is "fp16" and bfloat16 otherwise,
// each multiplied by its scales in that type, and the two multiplied by tl::dot with float32
// accumulation. A scale s is 2^(s - 127) placed in a float's exponent bits as Triton places it,
// so s = 0 is 0 (the OCP format says 2^-127) and s = 255 makes the elements it scales NaN. The
// same composition runs on both backends. Operands packed along M or N (Triton's lhs_k_pack /
// rhs_k_pack = False) and fast_math are not provided.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dot.hpp"
#include "elementwise.hpp"
#include "shape_ops.hpp"

namespace tl {
namespace detail {

// A format given as a string literal template argument ("e2m1", ...).
template <std::size_t N>
struct format_name {
  char text[N]{};
  constexpr format_name(const char (&s)[N]) {
    for (std::size_t i = 0; i < N; ++i) text[i] = s[i];
  }
  constexpr bool is(const char* s) const {
    std::size_t i = 0;
    for (; i < N && s[i] != '\0'; ++i)
      if (text[i] != s[i]) return false;
    return i == N - 1 && text[i] == '\0';
  }
};

enum class mx_format { e2m1, e4m3, e5m2, bf16, fp16, unknown };
template <format_name F>
inline constexpr mx_format mx_format_of = F.is("e2m1")   ? mx_format::e2m1
                                          : F.is("e4m3") ? mx_format::e4m3
                                          : F.is("e5m2") ? mx_format::e5m2
                                          : F.is("bf16") ? mx_format::bf16
                                          : F.is("fp16") ? mx_format::fp16
                                                         : mx_format::unknown;

// The value of a 4-bit e2m1 code (sign, two exponent bits, one mantissa bit): 0, 0.5, 1, 1.5,
// 2, 3, 4, 6 and their negatives.
struct e2m1_value_fn {
  TL_HD float operator()(std::uint8_t c) const {
    const int e = (c >> 1) & 3, m = c & 1;
    const float magnitude = e == 0 ? 0.5f * float(m) : float(1 << (e - 1)) * (1.0f + 0.5f * float(m));
    return (c & 8) ? -magnitude : magnitude;
  }
};
// The value of an e8m0 scale as Triton computes it: s in a float's exponent bits, 2^(s - 127)
// (s = 0 gives 0), and NaN for 255.
struct e8m0_value_fn {
  TL_HD float operator()(std::uint8_t s) const {
    if (s == 255) return bit_cast<float>(0x7fc00000u);
    return bit_cast<float>(std::uint32_t(s) << 23);
  }
};

// The elements of operand X in format F as float32, K along axis KAxis (0 or 1), unpacked
// from e2m1 pairs where F says so.
template <mx_format F, int KAxis, class X>
TL_INLINE auto mx_values(const X& x) {
  using T = value_of_t<X>;
  if constexpr (F == mx_format::e2m1) {
    using S = shape_of_t<X>;
    const auto lo = map_elementwise(e2m1_value_fn{}, (x & 15).to(dtype<std::uint8_t>{}));
    const auto hi = map_elementwise(e2m1_value_fn{}, ((x >> 4) & 15).to(dtype<std::uint8_t>{}));
    if constexpr (KAxis == 1) {
      return reshape<S::dim(0), 2 * S::dim(1)>(join(lo, hi));  // M x K/2 x 2 -> M x K
    } else {
      return reshape<2 * S::dim(0), S::dim(1)>(permute<0, 2, 1>(join(lo, hi)));  // K/2 x 2 x N -> K x N
    }
  } else if constexpr ((F == mx_format::e4m3 || F == mx_format::e5m2) && std::is_same_v<T, std::uint8_t>) {
    using FP8 = std::conditional_t<F == mx_format::e4m3, fp8e4nv, fp8e5>;
    return x.to(dtype<FP8>{}, tl::bitcast).to(float32);
  } else {
    return x.to(float32);
  }
}

// The scale of each element of an M x K (KAxis 1) or K x N (KAxis 0) operand, from its
// M x K/32 or N x K/32 e8m0 block.
template <int KAxis, int K, class Sc>
TL_INLINE auto mx_scales(const Sc& s) {
  using S = shape_of_t<Sc>;
  constexpr int rows = S::dim(0), groups = S::dim(1);
  const auto per_group = map_elementwise(e8m0_value_fn{}, s.to(dtype<std::uint8_t>{}));
  const auto per_element = reshape<rows, K>(broadcast_to<rows, groups, 32>(expand_dims<-1>(per_group)));
  if constexpr (KAxis == 1) return per_element;
  else return permute<1, 0>(per_element);
}

// One operand upcast to the 16-bit type C with its scales applied (multiplied in C), as a block.
template <class C, mx_format F, int KAxis, int K, class X, class Sc>
TL_INLINE auto mx_upcast(const X& x, const Sc& scale) {
  if constexpr (std::is_same_v<Sc, none_t>) return eval(mx_values<F, KAxis>(x).to(dtype<C>{}));
  else return eval(mx_values<F, KAxis>(x).to(dtype<C>{}) * mx_scales<KAxis, K>(scale).to(dtype<C>{}));
}

template <mx_format F>
inline constexpr int mx_pack = F == mx_format::e2m1 ? 2 : 1;  // elements a stored value holds along K

template <class Sc, int Rows, int K>
constexpr bool mx_scale_fits() {
  if constexpr (std::is_same_v<Sc, none_t>) return true;
  else if constexpr (!is_expr_v<Sc>) return false;
  else return std::is_same_v<shape_of_t<Sc>, shape<Rows, K / 32>> && std::is_same_v<value_of_t<Sc>, std::uint8_t>;
}
// The element types a format is given in: e2m1 bytes, fp8 blocks or their bytes, 16-bit floats.
template <mx_format F, class T>
inline constexpr bool mx_element_fits =
    F == mx_format::e2m1   ? std::is_same_v<T, std::uint8_t>
    : F == mx_format::e4m3 ? std::is_same_v<T, fp8e4nv> || std::is_same_v<T, std::uint8_t>
    : F == mx_format::e5m2 ? std::is_same_v<T, fp8e5> || std::is_same_v<T, std::uint8_t>
    : F == mx_format::bf16 ? std::is_same_v<T, bf16>
                           : std::is_same_v<T, fp16>;

template <format_name LF, format_name RF, class L, class LS, class R, class RS>
constexpr bool check_dot_scaled() {
  constexpr mx_format lf = mx_format_of<LF>, rf = mx_format_of<RF>;
  static_assert(check<error::dot_scaled_format_unknown<0, lf != mx_format::unknown>>);
  static_assert(check<error::dot_scaled_format_unknown<1, rf != mx_format::unknown>>);
  if constexpr (lf == mx_format::unknown || rf == mx_format::unknown) {
    return false;
  } else {
    static_assert(check<error::dot_scaled_element_type_does_not_fit<0, value_of_t<L>, mx_element_fits<lf, value_of_t<L>>>>);
    static_assert(check<error::dot_scaled_element_type_does_not_fit<1, value_of_t<R>, mx_element_fits<rf, value_of_t<R>>>>);
    using SL = shape_of_t<L>;
    using SR = shape_of_t<R>;
    constexpr bool ranks = SL::rank == 2 && SR::rank == 2;
    constexpr int M = ranks ? SL::dim(0) : 0, N = ranks ? SR::dim(1) : 0;
    constexpr int K = ranks ? SL::dim(1) * mx_pack<lf> : 0;
    constexpr bool ok = ranks && K == SR::dim(0) * mx_pack<rf> && K % 32 == 0 && mx_scale_fits<LS, M, K>() &&
                        mx_scale_fits<RS, N, K>();
    constexpr bool types = mx_element_fits<lf, value_of_t<L>> && mx_element_fits<rf, value_of_t<R>>;
    static_assert(check<error::dot_scaled_shapes_do_not_fit<SL, LS, SR, RS, ok>>);
    return ok && types;
  }
}

template <format_name LF, format_name RF, class L, class LS, class R, class RS>
TL_INLINE auto dot_scaled_operands(const L& lhs, const LS& lhs_scale, const R& rhs, const RS& rhs_scale) {
  constexpr mx_format lf = mx_format_of<LF>, rf = mx_format_of<RF>;
  constexpr int K = shape_of_t<L>::dim(1) * mx_pack<lf>;
  using C = std::conditional_t<lf == mx_format::fp16 || rf == mx_format::fp16, fp16, bf16>;
  return std::tuple{mx_upcast<C, lf, 1, K>(lhs, lhs_scale), mx_upcast<C, rf, 0, K>(rhs, rhs_scale)};
}

}  // namespace detail

template <detail::format_name LF, detail::format_name RF, class L, class LS, class R, class RS>
  requires(detail::is_expr_v<L> && detail::is_expr_v<R>)
TL_INLINE auto dot_scaled(const L& lhs, const LS& lhs_scale, const R& rhs, const RS& rhs_scale) {
  if constexpr (detail::check_dot_scaled<LF, RF, L, LS, R, RS>()) {
    const auto [a, b] = detail::dot_scaled_operands<LF, RF>(lhs, lhs_scale, rhs, rhs_scale);
    return dot(a, b);
  } else {
    return zeros<1, 1>(float32);  // after the error above
  }
}

template <detail::format_name LF, detail::format_name RF, class L, class LS, class R, class RS, class Acc>
  requires(detail::is_expr_v<L> && detail::is_expr_v<R> && detail::is_expr_v<Acc>)
TL_INLINE auto dot_scaled(const L& lhs, const LS& lhs_scale, const R& rhs, const RS& rhs_scale, const Acc& acc) {
  if constexpr (detail::check_dot_scaled<LF, RF, L, LS, R, RS>()) {
    const auto [a, b] = detail::dot_scaled_operands<LF, RF>(lhs, lhs_scale, rhs, rhs_scale);
    return dot(a, b, acc);
  } else {
    return zeros<1, 1>(float32);  // after the error above
  }
}

}  // namespace tl
