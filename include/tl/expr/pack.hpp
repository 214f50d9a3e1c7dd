// tl/expr/pack.hpp: several blocks handled as one, for the ops that take Triton's tuples
// (associative_scan and reduce over (values, indices), ...). zip_fn makes an expression whose
// element is a pack of its operands' elements; an op computes on packs, and unzip_fn<I> reads
// member I of a block of packs.
#pragma once

#include <tuple>
#include <utility>

#include "nodes.hpp"

namespace tl::detail {

// A trivially copyable tuple of element values (a register or a shuffle moves it whole).
template <class... T>
struct pack;
template <>
struct pack<> {};
template <class H, class... T>
struct pack<H, T...> {
  H head;
  pack<T...> tail;
};

template <int I, class H, class... T>
TL_INLINE const auto& get(const pack<H, T...>& p) {
  if constexpr (I == 0) return p.head;
  else return get<I - 1>(p.tail);
}

TL_INLINE pack<> make_pack() { return {}; }
template <class H, class... T>
TL_INLINE pack<H, T...> make_pack(const H& h, const T&... t) {
  return {h, make_pack(t...)};
}

template <class T>
inline constexpr bool is_pack_v = false;
template <class... T>
inline constexpr bool is_pack_v<pack<T...>> = true;

template <class P>
struct pack_size;
template <class... T>
struct pack_size<pack<T...>> : std::integral_constant<int, int(sizeof...(T))> {};
template <int I, class P>
using pack_element_t = std::remove_cvref_t<decltype(get<I>(std::declval<P>()))>;

// Each member of a pack converted (To: a pack of as many members).
template <class To, class From, int... I>
TL_INLINE To convert_members(const From& p, std::integer_sequence<int, I...>) {
  return make_pack(convert<pack_element_t<I, To>>(get<I>(p))...);
}
// A value, or a pack member by member, converted.
template <class To, class From>
TL_INLINE To convert_value(const From& v) {
  if constexpr (is_pack_v<To>) return convert_members<To>(v, std::make_integer_sequence<int, pack_size<To>::value>{});
  else return convert<To>(v);
}

// A pack from what a combine function returns: a std::tuple (Triton's `return a, b`).
template <class P, class Tuple, int... I>
TL_INLINE P pack_from_tuple(const Tuple& t, std::integer_sequence<int, I...>) {
  return make_pack(convert<pack_element_t<I, P>>(std::get<I>(t))...);
}

struct zip_fn {
  template <class... X>
  TL_INLINE pack<X...> operator()(const X&... x) const { return make_pack(x...); }
};
template <int I>
struct unzip_fn {
  template <class P>
  TL_INLINE auto operator()(const P& p) const { return get<I>(p); }
};

// A tuple of blocks as one expression of packs (its blocks broadcast together), and a block
// of packs as a tuple of expressions, member by member.
template <class... E>
TL_INLINE auto zip_blocks(const std::tuple<E...>& t) {
  return std::apply([](const auto&... e) { return map_expr<zip_fn, as_expr_t<E>...>{{}, make_operands(as_expr(e)...)}; }, t);
}
template <class B, int... I>
TL_INLINE auto unzip_block(const B& b, std::integer_sequence<int, I...>) {
  return std::tuple{map_expr<unzip_fn<I>, B>{{}, {b, {}}}...};
}

}  // namespace tl::detail
