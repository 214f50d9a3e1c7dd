// tl/ops/scan.hpp: scans along an axis (cumsum, cumprod, associative_scan) and reductions with
// a combine function of the kernel's own (reduce, and the bitwise xor_sum and reduce_or).
//
//   tl::cumsum<0>(x)                        Triton: tl.cumsum(x, axis=0)
//   tl::cumprod<1>(x, tl::reverse)          Triton: tl.cumprod(x, axis=1, reverse=True)
//   tl::associative_scan<0>(x, combine)     Triton: tl.associative_scan(x, 0, combine)
//   auto [v, i] = tl::reduce<1>(std::tuple{x, idx}, combine)
//                                           Triton: v, i = tl.reduce((x, idx), 1, combine)
//
// A combine function takes two values (or, for a tuple of n blocks, n values then n values, as
// Triton's) and returns one (or a std::tuple of n). It must be associative (reduce's also
// commutative), as in Triton, and must not capture: a lambda written in the kernel, or a class
// with a __host__ __device__ call operator. It computes on the blocks' computation types
// (float for 16-bit floats); results come back in the blocks' element types. A scan returns a
// block of its input's shape; with a tuple, a std::tuple of blocks.
#pragma once

#include <cstddef>
#include <tuple>
#include <utility>
#include <type_traits>

#include "../backend/lowering.hpp"
#include "../expr/pack.hpp"
#include "reduce.hpp"

namespace tl {

struct reverse_t {};
inline constexpr reverse_t reverse{};  // tl::cumsum<0>(x, tl::reverse): Triton's reverse=True

namespace detail {

// How a scan or a reduction combines: T the input element, acc what combine() works on,
// result the output element.
template <class T>
struct add_combiner {
  using result = typename sum_result<T>::type;
  using acc = compute_t<result>;
  TL_INLINE static acc combine(const acc& a, const acc& b) { return op::add{}(a, b); }
};
template <class T>
struct mul_combiner {
  using result = T;
  using acc = compute_t<T>;
  TL_INLINE static acc combine(const acc& a, const acc& b) { return op::mul{}(a, b); }
};
template <class T, class Op>
struct bitwise_combiner {  // xor_sum, reduce_or: in the element type
  using result = T;
  using acc = T;
  TL_INLINE static acc combine(const acc& a, const acc& b) { return Op{}(a, b); }
};

template <class T>
struct compute_of {
  using type = compute_t<T>;
};
template <class... T>
struct compute_of<pack<T...>> {
  using type = pack<compute_t<T>...>;
};

// A kernel's combine function F (stateless, so each backend makes one where it combines).
template <class F, class T>
struct user_combiner {
  using result = T;
  using acc = typename compute_of<T>::type;
  template <int... I>
  TL_INLINE static acc combine_members(const acc& a, const acc& b, std::integer_sequence<int, I...> seq) {
    return pack_from_tuple<acc>(F{}(get<I>(a)..., get<I>(b)...), seq);
  }
  TL_INLINE static acc combine(const acc& a, const acc& b) {
    if constexpr (is_pack_v<acc>) return combine_members(a, b, std::make_integer_sequence<int, pack_size<acc>::value>{});
    else return convert<acc>(F{}(a, b));
  }
};

// Whether F can combine: called with two values (two packs' members), returning a value (a
// tuple of as many).
template <class F, class A>
struct combine_ok : std::bool_constant<std::is_default_constructible_v<F> && std::is_invocable_v<const F&, A, A>> {};
template <class F, class... A>
struct combine_ok<F, pack<A...>> {
  template <class R>
  static constexpr bool tuple_of_n() {
    if constexpr (requires { std::tuple_size<R>::value; }) return std::tuple_size<R>::value == sizeof...(A);
    else return false;
  }
  static constexpr bool value = [] {
    if constexpr (std::is_default_constructible_v<F> && std::is_invocable_v<const F&, A..., A...>)
      return tuple_of_n<std::remove_cvref_t<std::invoke_result_t<const F&, A..., A...>>>();
    else return false;
  }();
};

// A reducer (ops/reduce.hpp) from a combiner: the index marks an empty partial result
// (< 0), since a combine function has no identity to start from.
template <class C>
struct combining_reducer {
  static constexpr bool indexed = true;
  template <class T> using result = typename C::result;
  template <class T> using acc = typename C::acc;
  template <class T> TL_INLINE static acc<T> init() { return acc<T>{}; }
  template <class T>
  TL_INLINE static void step(acc<T>& a, int& idx, const T& v, int) {
    const acc<T> x = convert_value<acc<T>>(v);
    a = idx < 0 ? x : C::combine(a, x);
    idx = 0;
  }
  template <class T>
  TL_INLINE static void combine(acc<T>& a, int& ia, const acc<T>& b, int ib) {
    if (ib >= 0) a = ia < 0 ? b : C::combine(a, b);
    ia = ia < 0 ? ib : ia;
  }
  template <class T> TL_INLINE static result<T> finish(const acc<T>& a, int) { return convert_value<result<T>>(a); }
};

// Whether F's parameters and result have the blocks' types: a combine that takes int on a float
// block truncates every partial result, and one that returns a comparison (bool) gives 0 or 1.
// Each parameter and result is an element type T or its computation type (float for 16-bit
// floats); a generic lambda's parameters are what it is called with, so only its result counts.
template <class X, class T>
inline constexpr bool combine_type_fits = std::is_same_v<X, T> || std::is_same_v<X, compute_t<T>>;
template <class F>
struct call_signature {
  static constexpr bool known = false;
};
#define TL_CALL_SIGNATURE(QUALIFIERS)                         \
  template <class C, class R, class... P>                     \
  struct call_signature<R (C::*)(P...) QUALIFIERS> {          \
    static constexpr bool known = true;                       \
    using params = type_list<std::remove_cvref_t<P>...>;      \
  };
TL_CALL_SIGNATURE()
TL_CALL_SIGNATURE(const)
TL_CALL_SIGNATURE(noexcept)
TL_CALL_SIGNATURE(const noexcept)
#undef TL_CALL_SIGNATURE
template <class Params, class... T>
struct combine_params_fit : std::true_type {};  // a generic lambda's
template <class... P, class... T>
struct combine_params_fit<type_list<P...>, T...> {
  static constexpr bool value = [] {
    if constexpr (sizeof...(P) != 2 * sizeof...(T)) {
      return false;
    } else {
      using twice = std::tuple<T..., T...>;
      return []<std::size_t... I>(std::index_sequence<I...>) {
        return (combine_type_fits<std::tuple_element_t<I, std::tuple<P...>>, std::tuple_element_t<I, twice>> && ...);
      }(std::index_sequence_for<P...>{});
    }
  }();
};
template <class F, class... T>
constexpr bool combine_params_ok() {
  if constexpr (requires { &F::operator(); }) {
    using sig = call_signature<decltype(&F::operator())>;
    if constexpr (sig::known) return combine_params_fit<typename sig::params, T...>::value;
    else return true;
  } else {
    return true;
  }
}
template <class F, class T>
struct combine_types_ok {
  static constexpr bool value = [] {
    if constexpr (!combine_ok<F, compute_t<T>>::value) return true;  // combine_function_does_not_fit says why
    else
      return combine_params_ok<F, T>() &&
             combine_type_fits<std::remove_cvref_t<std::invoke_result_t<const F&, compute_t<T>, compute_t<T>>>, T>;
  }();
};
template <class F, class... T>
struct combine_types_ok<F, pack<T...>> {
  template <class R>
  static constexpr bool result_fits() {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return (combine_type_fits<std::remove_cvref_t<std::tuple_element_t<I, R>>, T> && ...);
    }(std::index_sequence_for<T...>{});
  }
  static constexpr bool value = [] {
    if constexpr (!combine_ok<F, pack<compute_t<T>...>>::value) return true;
    else
      return combine_params_ok<F, T...>() &&
             result_fits<std::remove_cvref_t<std::invoke_result_t<const F&, compute_t<T>..., compute_t<T>...>>>();
  }();
};

// T: the blocks' element type (a pack of them for a tuple), A: what combine works on.
template <class Op, class S, int Axis, class F, class T, class A>
TL_INLINE constexpr bool check_scan_args() {
  constexpr int axis = normalize_axis<S, Axis>;
  static_assert(check<error::axis_out_of_range<S, Axis, (axis >= 0 && axis < S::rank)>>);
  static_assert(check<error::combine_function_does_not_fit<Op, F, A, combine_ok<F, A>::value>>);
  static_assert(check<error::combine_function_types_do_not_fit<Op, F, T, combine_types_ok<F, T>::value>>);
  return axis >= 0 && axis < S::rank && combine_ok<F, A>::value && combine_types_ok<F, T>::value;
}

template <class C, int Axis, bool Reverse, class E>
TL_INLINE auto scan_axis(const E& e) {
  using S = shape_of_t<E>;
  constexpr int axis = normalize_axis<S, Axis>;
  block_t<typename C::result, S> out;
  lowering::scan<C, axis, Reverse, S>(e, out);
  return out;
}

}  // namespace detail

// cumsum<Axis>(x [, tl::reverse]): running sums along Axis. Integers narrower than 32 bits sum
// in int32 (uint32 for unsigned ones and bool), as tl::sum; 16-bit floats in float32.
template <int Axis, class E, class... R>
  requires(detail::is_expr_v<E> && (std::is_same_v<R, reverse_t> && ...) && sizeof...(R) <= 1)
TL_INLINE auto cumsum(const E& e, R...) {
  using S = detail::shape_of_t<E>;
  constexpr int axis = detail::normalize_axis<S, Axis>;
  static_assert(detail::check<error::axis_out_of_range<S, Axis, (axis >= 0 && axis < S::rank)>>);
  return detail::scan_axis<detail::add_combiner<detail::value_of_t<E>>, (axis >= 0 && axis < S::rank) ? Axis : 0,
                           sizeof...(R) == 1>(e);
}

// cumprod<Axis>(x [, tl::reverse]): running products along Axis, in the element type.
template <int Axis, class E, class... R>
  requires(detail::is_expr_v<E> && (std::is_same_v<R, reverse_t> && ...) && sizeof...(R) <= 1)
TL_INLINE auto cumprod(const E& e, R...) {
  using S = detail::shape_of_t<E>;
  constexpr int axis = detail::normalize_axis<S, Axis>;
  static_assert(detail::check<error::axis_out_of_range<S, Axis, (axis >= 0 && axis < S::rank)>>);
  return detail::scan_axis<detail::mul_combiner<detail::value_of_t<E>>, (axis >= 0 && axis < S::rank) ? Axis : 0,
                           sizeof...(R) == 1>(e);
}

// associative_scan<Axis>(x, combine [, tl::reverse]): out[i] = x[0] (+) x[1] (+) ... (+) x[i]
// along Axis, (+) the combine function. With std::tuple{x, y, ...}: one scan of the blocks'
// elements taken together, returning a std::tuple of blocks.
template <int Axis, class E, class F, class... R>
  requires(detail::is_expr_v<E> && (std::is_same_v<R, reverse_t> && ...) && sizeof...(R) <= 1)
TL_INLINE auto associative_scan(const E& e, F, R...) {
  using T = detail::value_of_t<E>;
  using C = detail::user_combiner<F, T>;
  if constexpr (detail::check_scan_args<op::associative_scan, detail::shape_of_t<E>, Axis, F, T, typename C::acc>())
    return detail::scan_axis<C, Axis, sizeof...(R) == 1>(e);
  else
    return detail::block_t<T, detail::shape_of_t<E>>{};
}
template <int Axis, class... E, class F, class... R>
  requires((detail::is_expr_v<E> && ...) && (std::is_same_v<R, reverse_t> && ...) && sizeof...(R) <= 1)
TL_INLINE auto associative_scan(const std::tuple<E...>& blocks, F, R...) {
  auto z = detail::zip_blocks(blocks);
  using Z = decltype(z);
  using C = detail::user_combiner<F, detail::value_of_t<Z>>;
  if constexpr (detail::check_scan_args<op::associative_scan, detail::shape_of_t<Z>, Axis, F, detail::value_of_t<Z>, typename C::acc>()) {
    return detail::unzip_block(detail::scan_axis<C, Axis, sizeof...(R) == 1>(z), std::make_integer_sequence<int, int(sizeof...(E))>{});
  } else {
    return blocks;
  }
}

// reduce<Axis>(x, combine [, tl::keep_dims]): x's elements along Axis combined into one, in an
// order of the backend's choosing (combine: associative and commutative). With
// std::tuple{x, y, ...}: a std::tuple of blocks.
template <int Axis, class E, class F, class... K>
  requires(detail::is_expr_v<E> && (std::is_same_v<K, keep_dims_t> && ...) && sizeof...(K) <= 1)
TL_INLINE auto reduce(const E& e, F, K...) {
  using T = detail::value_of_t<E>;
  using C = detail::user_combiner<F, T>;
  if constexpr (detail::check_scan_args<op::reduce, detail::shape_of_t<E>, Axis, F, T, typename C::acc>())
    return detail::reduce_axis<detail::combining_reducer<C>, Axis, sizeof...(K) == 1>(e);
  else
    return detail::block_t<T, shape<>>{};
}
template <int Axis, class... E, class F, class... K>
  requires((detail::is_expr_v<E> && ...) && (std::is_same_v<K, keep_dims_t> && ...) && sizeof...(K) <= 1)
TL_INLINE auto reduce(const std::tuple<E...>& blocks, F, K...) {
  auto z = detail::zip_blocks(blocks);
  using Z = decltype(z);
  using C = detail::user_combiner<F, detail::value_of_t<Z>>;
  if constexpr (detail::check_scan_args<op::reduce, detail::shape_of_t<Z>, Axis, F, detail::value_of_t<Z>, typename C::acc>()) {
    return detail::unzip_block(detail::reduce_axis<detail::combining_reducer<C>, Axis, sizeof...(K) == 1>(z),
                               std::make_integer_sequence<int, int(sizeof...(E))>{});
  } else {
    return blocks;
  }
}

// xor_sum<Axis>(x), reduce_or<Axis>(x): the bitwise xor and or of integer (or boolean) elements
// along Axis.
template <int Axis, class E, class... K>
  requires(detail::is_expr_v<E> && (std::is_same_v<K, keep_dims_t> && ...) && sizeof...(K) <= 1)
TL_INLINE auto xor_sum(const E& e, K...) {
  using T = detail::value_of_t<E>;
  static_assert(detail::check<error::op_needs_integer_operands<op::xor_sum, T, !detail::is_float_v<T>>>);
  using C = detail::bitwise_combiner<T, op::bit_xor>;
  return detail::reduce_axis<detail::combining_reducer<C>, Axis, sizeof...(K) == 1>(e);
}
template <int Axis, class E, class... K>
  requires(detail::is_expr_v<E> && (std::is_same_v<K, keep_dims_t> && ...) && sizeof...(K) <= 1)
TL_INLINE auto reduce_or(const E& e, K...) {
  using T = detail::value_of_t<E>;
  static_assert(detail::check<error::op_needs_integer_operands<op::reduce_or, T, !detail::is_float_v<T>>>);
  using C = detail::bitwise_combiner<T, op::bit_or>;
  return detail::reduce_axis<detail::combining_reducer<C>, Axis, sizeof...(K) == 1>(e);
}

}  // namespace tl
