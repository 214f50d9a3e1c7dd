// tl/ops/random.hpp: Triton's counter-based random numbers (triton.language.random).
//
//   auto r = tl::rand(seed, offsets);                 Triton: r = tl.rand(seed, offsets)
//   auto [a, b, c, d] = tl::randint4x(seed, offsets); Triton: a, b, c, d = tl.randint4x(seed, offsets)
//   tl::randn<7>(seed, offsets)                       Triton: tl.randn(seed, offsets, n_rounds=7)
//
// The same seed and offset give the same number wherever and whenever they are drawn: no state
// goes through the kernel. Each op returns lazy expressions (Philox runs where the element is
// evaluated; the 4x forms return a std::tuple of four expressions of one draw, and the GPU's
// compiler computes the draw once when they are evaluated together). randint* give uint32,
// rand* float32 in [0, 1), randn* float32 standard normals. The arithmetic is expr/philox.hpp.
#pragma once

#include <tuple>

#include "../expr/block.hpp"
#include "../expr/philox.hpp"
#include "elementwise.hpp"

namespace tl {
namespace detail {

// Word K of randint4x(seed, offset), as drawn, as a uniform float, or (K < 4) a normal.
enum class random_form { word, uniform, normal };

template <random_form Form, int K, int NRounds>
struct random_fn {
  template <class S, class O>
  TL_INLINE auto operator()(S seed, O offset) const {
    const philox_words<std::uint32_t> w = randint4x_of<NRounds>(seed, offset);
    if constexpr (Form == random_form::word) {
      return w.w[K];
    } else if constexpr (Form == random_form::uniform) {
      return uniform_from_word(w.w[K]);
    } else {
      const int pair = K / 2 * 2;  // normals 0, 1 from words 0, 1; normals 2, 3 from words 2, 3
      const normal_pair n = normals_from_uniforms(uniform_from_word(w.w[pair]), uniform_from_word(w.w[pair + 1]));
      return K % 2 == 0 ? n.n0 : n.n1;
    }
  }
};

template <int K, int NRounds>
struct philox_fn {
  template <class S, class C0, class C1, class C2, class C3>
  TL_INLINE auto operator()(S seed, C0 c0, C1 c1, C2 c2, C3 c3) const {
    using C = std::conditional_t<(sizeof(C0) <= 4), std::uint32_t, std::uint64_t>;
    return philox_of<NRounds>(seed, C(c0), C(c1), C(c2), C(c3)).w[K];
  }
};

template <class Op, class S, class O>
TL_INLINE constexpr bool random_operands_ok() {
  using VS = value_of_t<as_expr_t<S>>;
  using VO = value_of_t<as_expr_t<O>>;
  static_assert(check<error::random_needs_integer_seed_and_offsets<Op, VS, VO, is_int_v<VS> && is_int_v<VO>>>);
  static_assert(check<error::operands_have_incompatible_shapes<Op, shape_of_t<as_expr_t<S>>, shape_of_t<as_expr_t<O>>,
                                                                broadcastable_v<shape_of_t<as_expr_t<S>>, shape_of_t<as_expr_t<O>>>>>);
  return true;
}

template <random_form Form, int K, int NRounds, class S, class O>
TL_INLINE auto random_expr(const S& seed, const O& offset) {
  using VS = value_of_t<as_expr_t<S>>;
  using VO = value_of_t<as_expr_t<O>>;
  using EO = std::conditional_t<is_int_v<VO>, as_expr_t<O>, scalar_expr<std::int32_t, false>>;
  using ES = std::conditional_t<is_int_v<VS>, as_expr_t<S>, scalar_expr<std::int32_t, false>>;
  if constexpr (is_int_v<VS> && is_int_v<VO>)
    return map_expr<random_fn<Form, K, NRounds>, ES, EO>{{}, {as_expr(seed), {as_expr(offset), {}}}};
  else
    return map_expr<random_fn<Form, K, NRounds>, ES, EO>{};  // after the error above
}

// The four expressions of one draw in a given form (randint4x, rand4x, randn4x).
template <random_form Form, int NRounds, class S, class O>
TL_INLINE auto four_draws(const S& seed, const O& offsets) {
  auto x0 = random_expr<Form, 0, NRounds>(seed, offsets);
  auto x1 = random_expr<Form, 1, NRounds>(seed, offsets);
  auto x2 = random_expr<Form, 2, NRounds>(seed, offsets);
  auto x3 = random_expr<Form, 3, NRounds>(seed, offsets);
  return std::tuple{x0, x1, x2, x3};  // auto [a, b, c, d] = ...
}

}  // namespace detail

// ---- Triton's building blocks, public in triton.language too ----
namespace detail {
template <int NRounds>
struct philox_impl_fn {
  template <class U, class... K>
  TL_HD std::tuple<U, U, U, U> operator()(U c0, U c1, U c2, U c3, K... k) const {
    const philox_words<U> w = philox_rounds<NRounds, U>(c0, c1, c2, c3, static_cast<U>(k)...);
    return {w.w[0], w.w[1], w.w[2], w.w[3]};
  }
};
struct uint_to_uniform_float_fn {
  template <class U>
  TL_HD float operator()(U x) const {
    return uniform_from_word(static_cast<std::conditional_t<(sizeof(U) == 8), std::uint64_t, std::uint32_t>>(x));
  }
};
struct pair_uniform_to_normal_fn {
  TL_HD std::tuple<float, float> operator()(float u1, float u2) const {
    const normal_pair n = normals_from_uniforms(u1, u2);
    return {n.n0, n.n1};
  }
};
}  // namespace detail

// philox_impl<NRounds>(c0, c1, c2, c3, k0, k1): NRounds rounds of Philox on the counter blocks
// (uint32 or uint64, one type) with the key (k0, k1), the four words as a std::tuple of blocks
// (Triton's tl.philox_impl; tl::philox adds the seed's split into a key).
template <int NRounds = 10, class C0, class C1, class C2, class C3, class K0, class K1>
TL_INLINE auto philox_impl(const C0& c0, const C1& c1, const C2& c2, const C3& c3, const K0& k0, const K1& k1) {
  using U = detail::value_of_t<detail::as_expr_t<C0>>;
  static_assert(std::is_same_v<U, std::uint32_t> || std::is_same_v<U, std::uint64_t>,
                "tl::philox_impl: the counters are uint32 or uint64 blocks (Triton's philox_impl takes no other)");
  static_assert(std::is_same_v<detail::value_of_t<detail::as_expr_t<C1>>, U> &&
                    std::is_same_v<detail::value_of_t<detail::as_expr_t<C2>>, U> &&
                    std::is_same_v<detail::value_of_t<detail::as_expr_t<C3>>, U>,
                "tl::philox_impl: the four counters have one type");
  return map_elementwise(detail::philox_impl_fn<NRounds>{}, c0, c1, c2, c3, k0, k1);
}

// uint_to_uniform_float(x): 32- or 64-bit random integers as float32 uniform in [0, 1)
// (Triton's tl.uint_to_uniform_float; tl::rand is randint through it).
template <class X>
  requires detail::is_expr_v<X>
TL_INLINE auto uint_to_uniform_float(const X& x) {
  using V = detail::value_of_t<X>;
  static_assert(detail::is_int_v<V> && (sizeof(V) == 4 || sizeof(V) == 8),
                "tl::uint_to_uniform_float: x is a block of 32- or 64-bit integers");
  return map_elementwise(detail::uint_to_uniform_float_fn{}, x);
}

// pair_uniform_to_normal(u1, u2): Box-Muller, two float32 uniform blocks to two standard
// normal blocks, as a std::tuple (Triton's tl.pair_uniform_to_normal; tl::randn uses it).
template <class U1, class U2>
  requires(detail::is_operand_v<U1> && detail::is_operand_v<U2>)
TL_INLINE auto pair_uniform_to_normal(const U1& u1, const U2& u2) {
  return map_elementwise(detail::pair_uniform_to_normal_fn{}, detail::as_expr(u1).to(dtype<float>{}),
                         detail::as_expr(u2).to(dtype<float>{}));
}

// randint(seed, offsets): a block of random uint32, the first word of randint4x.
template <int NRounds = 10, class S, class O>
  requires(detail::is_operand_v<S> && detail::is_operand_v<O>)
TL_INLINE auto randint(S seed, O offsets) {
  static_assert(detail::random_operands_ok<op::randint, S, O>());
  return detail::random_expr<detail::random_form::word, 0, NRounds>(seed, offsets);
}

// randint4x(seed, offsets): four blocks of random uint32 from one Philox draw per offset.
template <int NRounds = 10, class S, class O>
  requires(detail::is_operand_v<S> && detail::is_operand_v<O>)
TL_INLINE auto randint4x(S seed, O offsets) {
  static_assert(detail::random_operands_ok<op::randint4x, S, O>());
  return detail::four_draws<detail::random_form::word, NRounds>(seed, offsets);
}

// rand(seed, offsets): a block of float32 uniform in [0, 1).
template <int NRounds = 10, class S, class O>
  requires(detail::is_operand_v<S> && detail::is_operand_v<O>)
TL_INLINE auto rand(S seed, O offsets) {
  static_assert(detail::random_operands_ok<op::rand, S, O>());
  return detail::random_expr<detail::random_form::uniform, 0, NRounds>(seed, offsets);
}

template <int NRounds = 10, class S, class O>
  requires(detail::is_operand_v<S> && detail::is_operand_v<O>)
TL_INLINE auto rand4x(S seed, O offsets) {
  static_assert(detail::random_operands_ok<op::rand4x, S, O>());
  return detail::four_draws<detail::random_form::uniform, NRounds>(seed, offsets);
}

// randn(seed, offsets): a block of float32 standard normals (Box-Muller on the first two words).
template <int NRounds = 10, class S, class O>
  requires(detail::is_operand_v<S> && detail::is_operand_v<O>)
TL_INLINE auto randn(S seed, O offsets) {
  static_assert(detail::random_operands_ok<op::randn, S, O>());
  return detail::random_expr<detail::random_form::normal, 0, NRounds>(seed, offsets);
}

template <int NRounds = 10, class S, class O>
  requires(detail::is_operand_v<S> && detail::is_operand_v<O>)
TL_INLINE auto randn4x(S seed, O offsets) {
  static_assert(detail::random_operands_ok<op::randn4x, S, O>());
  return detail::four_draws<detail::random_form::normal, NRounds>(seed, offsets);
}

// philox(seed, c0, c1, c2, c3): the four words of Philox on a counter of four 32-bit (or four
// 64-bit) blocks, keyed by the seed (Triton's tl.philox).
template <int NRounds = 10, class S, class C0, class C1, class C2, class C3>
  requires(detail::is_operand_v<S> && detail::is_operand_v<C0> && detail::is_operand_v<C1> &&
           detail::is_operand_v<C2> && detail::is_operand_v<C3>)
TL_INLINE auto philox(S seed, C0 c0, C1 c1, C2 c2, C3 c3) {
  using namespace detail;
  using V0 = value_of_t<as_expr_t<C0>>;
  using V1 = value_of_t<as_expr_t<C1>>;
  using V2 = value_of_t<as_expr_t<C2>>;
  using V3 = value_of_t<as_expr_t<C3>>;
  static_assert(random_operands_ok<op::philox, S, C0>());
  constexpr bool ints = is_int_v<V0> && is_int_v<V1> && is_int_v<V2> && is_int_v<V3>;
  constexpr bool one_width = sizeof(V0) == sizeof(V1) && sizeof(V0) == sizeof(V2) && sizeof(V0) == sizeof(V3) &&
                             (sizeof(V0) == 4 || sizeof(V0) == 8);
  static_assert(check<error::philox_counters_need_one_width<V0, V1, V2, V3, !ints || one_width>>);
  using all = broadcast_all<shape_of_t<as_expr_t<S>>, shape_of_t<as_expr_t<C0>>, shape_of_t<as_expr_t<C1>>,
                            shape_of_t<as_expr_t<C2>>, shape_of_t<as_expr_t<C3>>>;
  static_assert(check<error::operands_have_incompatible_shapes<op::philox, shape_of_t<as_expr_t<C0>>,
                                                                typename all::type, all::value>>);
  auto word = [&]<int K>(std::integral_constant<int, K>) {
    using E = map_expr<philox_fn<K, NRounds>, as_expr_t<S>, as_expr_t<C0>, as_expr_t<C1>, as_expr_t<C2>, as_expr_t<C3>>;
    return E{{}, {as_expr(seed), {as_expr(c0), {as_expr(c1), {as_expr(c2), {as_expr(c3), {}}}}}}};
  };
  auto w0 = word(std::integral_constant<int, 0>{});
  auto w1 = word(std::integral_constant<int, 1>{});
  auto w2 = word(std::integral_constant<int, 2>{});
  auto w3 = word(std::integral_constant<int, 3>{});
  return std::tuple{w0, w1, w2, w3};
}

}  // namespace tl
