// tl/expr/expr.hpp: what every block expression is, and how scalars join one.
//
// A block expression is a small value type with
//   value_type         the element type (tl dtype, or tl::ptr<T> for pointer blocks)
//   shape_type         tl::shape<...>, fixed at compile time
//   at(coord)          the element at a coordinate of that shape: what the expression means
// Nodes hold their operands by value, so `auto` never dangles and a later update of a block
// never changes an expression built from it earlier (Triton's value semantics). How an
// expression is evaluated is each backend's business (backend/*/evaluation.hpp): the CPU
// backend reads at() element by element; the CUDA backend walks the same nodes with its own
// evaluator, per register slot.
#pragma once

#include <type_traits>
#include <utility>

#include "../core/diagnostics.hpp"
#include "../core/dtype.hpp"
#include "../core/shape.hpp"

namespace tl {

// None-style indexing tags: x(None, _) is Triton's x[None, :].
struct none_t {};
struct all_t {};
inline constexpr none_t None{};
inline constexpr all_t _{};

struct keep_dims_t {};
inline constexpr keep_dims_t keep_dims{};  // tl::sum<1>(x, tl::keep_dims)

namespace detail {

struct expr_tag {};

template <class T>
inline constexpr bool is_expr_v = std::is_base_of_v<expr_tag, std::remove_cvref_t<T>>;

// Canonical element type of a C++ scalar (long long -> int64_t, char -> int8_t, ...).
template <class T>
struct canonical {
  using type = T;
};
template <class T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
struct canonical<T> {
  using type = typename int_of_bits<std::is_signed_v<T>, int(sizeof(T) * 8)>::type;
};
template <class T>
using canonical_t = typename canonical<std::remove_cvref_t<T>>::type;

template <class T>
inline constexpr bool is_scalar_v = !is_expr_v<T> && (std::is_arithmetic_v<std::remove_cvref_t<T>> ||
                                                      is_element_v<std::remove_cvref_t<T>> ||
                                                      is_ptr_v<std::remove_cvref_t<T>>);

template <class T>
inline constexpr bool is_operand_v = is_expr_v<T> || is_scalar_v<T>;

// A C++ scalar inside an expression: rank 0, weak if Triton would treat it as a literal.
template <class T, bool Weak>
struct scalar_expr;

template <class E>
struct expr_traits {
  using value_type = typename E::value_type;
  using shape_type = typename E::shape_type;
  static constexpr bool weak = false;
};
template <class T, bool W>
struct expr_traits<scalar_expr<T, W>> {
  using value_type = T;
  using shape_type = shape<>;
  static constexpr bool weak = W;
};

template <class E>
using value_of_t = typename std::remove_cvref_t<E>::value_type;
template <class E>
using shape_of_t = typename std::remove_cvref_t<E>::shape_type;

template <class T>
struct as_expr_type {
  using type = std::remove_cvref_t<T>;
};
template <class T>
  requires is_scalar_v<T>
struct as_expr_type<T> {
  using C = canonical_t<T>;
  using type = scalar_expr<C, is_weak_scalar_v<std::remove_cvref_t<T>>>;
};
template <class T>
using as_expr_t = typename as_expr_type<T>::type;

template <class T>
TL_INLINE as_expr_t<T> as_expr(const T& x) {
  if constexpr (is_expr_v<T>) return static_cast<const as_expr_t<T>&>(x);  // a loaded block: its block
  else return as_expr_t<T>{{}, static_cast<canonical_t<T>>(x)};
}

template <class E>
inline constexpr bool is_weak_v = expr_traits<std::remove_cvref_t<E>>::weak;

// The value type of anything that can be an operand (a scalar's is its own type).
template <class T>
using operand_value_t = value_of_t<as_expr_t<T>>;

template <class E, class Shape, class Map>
struct view;

template <class... T>
struct type_list {};

// How an index list of None/_ maps onto the axes of a block of rank R.
template <int R, class... I>
struct index_plan {
  static constexpr int colons = (0 + ... + int(std::is_same_v<I, all_t>));
  static constexpr bool ok = colons <= R && ((std::is_same_v<I, all_t> || std::is_same_v<I, none_t>) && ...);
  static constexpr int out_rank = int(sizeof...(I)) + (R - colons);
  // is_new[i]: output axis i is an inserted size-1 axis.
  TL_HD static constexpr bool is_new(int i) {
    constexpr bool n[] = {std::is_same_v<I, none_t>..., false};
    return i < int(sizeof...(I)) ? n[i] : false;
  }
};

template <class Shape, class Plan, class Seq = std::make_integer_sequence<int, Plan::out_rank>>
struct indexed_shape;
template <class Shape, class Plan, int... O>
struct indexed_shape<Shape, Plan, std::integer_sequence<int, O...>> {
  static constexpr int src_axis(int o) {
    int s = 0;
    for (int i = 0; i < o; ++i)
      if (!Plan::is_new(i)) ++s;
    return s;
  }
  static constexpr int dim(int o) { return Plan::is_new(o) ? 1 : Shape::dim(src_axis(o)); }
  using type = shape<dim(O)...>;
};

template <class Plan>
struct insert_axes_map {
  template <class Out, class In>
  TL_INLINE static constexpr coord<In::rank> apply(const coord<Out::rank>& c) {
    coord<In::rank> r{};
    int s = 0;
    for (int o = 0; o < Out::rank; ++o)
      if (!Plan::is_new(o)) r[s++] = c[o];
    return r;
  }
};

}  // namespace detail

// The common base of all block expressions: None-style indexing and .to(dtype).
template <class Derived>
struct expr_base : detail::expr_tag {
  TL_INLINE const Derived& self() const { return static_cast<const Derived&>(*this); }

  // x(tl::None, tl::_) inserts a size-1 axis before the first axis (Triton: x[None, :]).
  template <class... I>
  TL_INLINE auto operator()(I...) const {
    using S = detail::shape_of_t<Derived>;
    using plan = detail::index_plan<S::rank, I...>;
    static_assert(detail::check<error::indexing_needs_one_colon_per_axis<Derived, plan::ok>>);
    using out = typename detail::indexed_shape<S, plan>::type;
    return detail::view<Derived, out, detail::insert_axes_map<plan>>{{}, self()};
  }

  // x.to(tl::float16): elementwise conversion (Triton's x.to(tl.float16)); x.to(w.dtype()):
  // to another block's element type (Triton's x.to(w.dtype)).
  template <class T>
  TL_INLINE auto to(tl::dtype<T>) const;
  // x.to(tl::int32, tl::bitcast): reinterpret the bits (sizes must match).
  template <class T, class B>
  TL_INLINE auto to(tl::dtype<T>, B) const;
  // x.dtype(): the element type's tag (Triton's x.dtype); a pointer block's is tl::ptr<T>'s.
  TL_INLINE constexpr auto dtype() const { return tl::dtype<detail::value_of_t<Derived>>{}; }

  // Triton rebinds a name to any value (x = x.to(tl.float16)); a C++ variable keeps its type, so
  // assigning another kind of expression to a lazy one stops at a named error saying what to
  // write (a tl::block, which takes any expression of its shape).
  template <class E>
    requires(detail::is_expr_v<E> && !std::is_same_v<std::remove_cvref_t<E>, Derived>)
  TL_HD Derived& operator=(const E&) {
    static_assert(detail::check<error::lazy_expression_cannot_be_rebound<Derived, E, false>>);
    return static_cast<Derived&>(*this);
  }

  // Only materialized blocks (tl::block, tl::eval) can be updated in place.
  template <class T>
  TL_HD void operator+=(const T&) { lazy_update_error(); }
  template <class T>
  TL_HD void operator-=(const T&) { lazy_update_error(); }
  template <class T>
  TL_HD void operator*=(const T&) { lazy_update_error(); }
  template <class T>
  TL_HD void operator/=(const T&) { lazy_update_error(); }
  template <class T>
  TL_HD void operator%=(const T&) { lazy_update_error(); }
  template <class T>
  TL_HD void operator&=(const T&) { lazy_update_error(); }
  template <class T>
  TL_HD void operator|=(const T&) { lazy_update_error(); }
  template <class T>
  TL_HD void operator^=(const T&) { lazy_update_error(); }
  template <class T>
  TL_HD void operator<<=(const T&) { lazy_update_error(); }
  template <class T>
  TL_HD void operator>>=(const T&) { lazy_update_error(); }

  // A rank-0 expression (a scalar tensor) can be tested: if (tl::load(flag_ptr) != 0) ...
  TL_HD explicit operator bool() const
    requires(detail::shape_of_t<Derived>::rank == 0)
  {
    return detail::convert<bool>(self().at(coord<0>{}));
  }

 private:
  TL_HD static void lazy_update_error() {
    static_assert(detail::check<error::lazy_expression_is_not_assignable<Derived, false>>);
  }
};

namespace detail {
template <class T, bool Weak>
struct scalar_expr : expr_base<scalar_expr<T, Weak>> {
  using expr_base<scalar_expr<T, Weak>>::operator=;
  using value_type = T;
  using shape_type = shape<>;
  T value;
  TL_INLINE T at(const coord<0>&) const { return value; }
};
}  // namespace detail

}  // namespace tl
