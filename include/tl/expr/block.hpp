// tl/expr/block.hpp: tl::block<T, D...>, a block whose elements are held (materialized).
//
// Loads, reductions, dot, zeros and full return blocks; elementwise arithmetic returns lazy
// expressions that are evaluated when they become a block (or are stored). A block is what
// a loop carries: `auto acc = tl::zeros<B0>(tl::float32); acc += tl::sum<1>(x);`.
//
// Where a block's elements live is the backend's choice: the storage and the evaluation of
// an expression into a block are supplied by the backend of the compilation pass
// (backend/lowering.hpp): every element in row-major order on the CPU, this thread's share in
// registers on the CUDA backend.
#pragma once

#include <type_traits>
#include <utility>

#include "nodes.hpp"

namespace tl {
namespace detail {

// Where a held block's values came from. The frontend records it; a backend may hold blocks
// of different origins differently (the CUDA backend holds a loaded tile in the order that
// gives wide memory accesses and a computed one in the tensor cores' accumulator order,
// docs/04-cuda-backend.md); on the CPU every block is row-major.
enum class origin {
  computed,  // tl::block: zeros, full, dot, reductions, eval, declared blocks
  loaded,    // what tl::load returns (expr/loaded.hpp)
};

// Defined by the backend of the compilation pass (backend/lowering.hpp):
//   block_storage<T, S, O>   the elements (the member `v`), read(c) and fill(x)
//   evaluate_into(b, e)      b's elements set to expression e's (shape and type checked here)
template <class T, class S, origin O>
struct block_storage;
template <class B, class E>
TL_HD void evaluate_into(B& block, const E& e);

// What tl::load returns (expr/loaded.hpp): a block that remembers its pointers and mask.
template <class T, class S, class EP, class EM, class EO, class Src>
struct loaded;
template <class X>
inline constexpr bool is_loaded_v = false;
template <class T, class S, class EP, class EM, class EO, class Src>
inline constexpr bool is_loaded_v<loaded<T, S, EP, EM, EO, Src>> = true;

// Defined by the backend of the compilation pass (backend/lowering.hpp), for an update of
// block B by X, a loaded block the update consumes (written in it: nothing was stored since):
//   value        whether X is loaded again in B's register order, and read from there
//   load(x)      the block so loaded
//   consumed(x)  called first, whichever way the update goes (the CPU backend checks that
//                memory still holds what x read)
template <class B, class X>
struct load_in_order;

template <origin O, class T, int... D>
struct basic_block : expr_base<basic_block<O, T, D...>>, block_storage<T, shape<D...>, O> {
  using value_type = T;
  using shape_type = shape<D...>;
  using storage_type = block_storage<T, shape<D...>, O>;
  static constexpr int rank = shape_type::rank;
  static constexpr std::int64_t size = shape_type::size;
  static constexpr origin block_origin = O;  // also tells a backend this is a held block

  basic_block() = default;

  template <class E>
    requires is_expr_v<E>
  TL_HD basic_block(const E& e) {  // NOLINT: implicit, so `tl::block<float, B> x = expr;` reads naturally
    assign(e);
  }

  template <class E>
    requires is_expr_v<E>
  TL_HD basic_block& operator=(const E& e) {
    assign(e);
    return *this;
  }

  // A rank-0 block is a scalar.
  TL_HD operator T() const
    requires(rank == 0)
  {
    return this->read(coord<0>{});
  }

  TL_INLINE T at(const coord<rank>& c) const { return this->read(c); }

  template <class E>
  TL_HD basic_block& operator+=(E&& e) { return update<op::add>(std::forward<E>(e)); }
  template <class E>
  TL_HD basic_block& operator-=(E&& e) { return update<op::sub>(std::forward<E>(e)); }
  template <class E>
  TL_HD basic_block& operator*=(E&& e) { return update<op::mul>(std::forward<E>(e)); }
  template <class E>
  TL_HD basic_block& operator/=(E&& e) { return update<op::div>(std::forward<E>(e)); }
  template <class E>
  TL_HD basic_block& operator%=(E&& e) { return update<op::mod>(std::forward<E>(e)); }
  template <class E>
  TL_HD basic_block& operator&=(E&& e) { return update<op::bit_and>(std::forward<E>(e)); }
  template <class E>
  TL_HD basic_block& operator|=(E&& e) { return update<op::bit_or>(std::forward<E>(e)); }
  template <class E>
  TL_HD basic_block& operator^=(E&& e) { return update<op::bit_xor>(std::forward<E>(e)); }
  template <class E>
  TL_HD basic_block& operator<<=(E&& e) { return update<op::shl>(std::forward<E>(e)); }
  template <class E>
  TL_HD basic_block& operator>>=(E&& e) { return update<op::shr>(std::forward<E>(e)); }

 private:
  template <class E>
  TL_HD void assign(const E& e) {
    using S = shape_of_t<E>;
    using V = value_of_t<E>;
    constexpr bool same_shape = std::is_same_v<S, shape_type> || S::rank == 0;
    static_assert(check<error::assigned_shape_differs<shape_type, S, same_shape>>);
    static_assert(check<error::assigned_type_differs<T, V, std::is_same_v<T, V>>>);
    // Writing in place is safe: nodes hold copies of their operands, this block included.
    if constexpr (same_shape && std::is_same_v<T, V>) detail::evaluate_into(*this, e);
  }

  template <class Op, class Arg>
  TL_HD basic_block& update(Arg&& e) {
    using E = std::decay_t<Arg>;  // (a string literal: const char*, as the diagnostic names it)
    if constexpr (check<error::operand_is_not_a_block_or_scalar<E, is_operand_v<E>>> && is_operand_v<E>) {
      using rhs = as_expr_t<E>;
      if constexpr (is_ptr_v<T> && (std::is_same_v<Op, op::add> || std::is_same_v<Op, op::sub>)) {
        // A held block of pointers moves by integer offsets (a_ptrs += BLOCK_SIZE_K).
        static_assert(check<error::pointer_block_advances_by_an_integer<E, is_int_v<value_of_t<rhs>>>>);
        if constexpr (is_int_v<value_of_t<rhs>>) assign(pointer_offset<Op, basic_block, rhs>{{}, *this, as_expr(e)});
      } else {
        using node = binary<Op, basic_block, rhs>;
        using V = typename node::value_type;
        static_assert(check<error::assigned_type_differs<T, V, std::is_same_v<T, V>>>);
        if constexpr (std::is_same_v<T, V>) {
          // A load written in the update (acc += tl::load(...)) may be read again from memory
          // in this block's register order instead of converted (backend's load_in_order).
          if constexpr (is_loaded_v<E> && !std::is_lvalue_reference_v<Arg>) {
            using again = load_in_order<basic_block, E>;
            again::consumed(e);
            if constexpr (again::value) {
              if (e.fresh) {
                const auto y = again::load(e);
                assign(binary<Op, basic_block, std::remove_cvref_t<decltype(y)>>{{}, *this, y});
                return *this;
              }
            }
          }
          if constexpr (fused_side<Op, basic_block, rhs>() != 0) assign(fuse_multiply_add<Op>(*this, as_expr(e)));  // acc += a * b
          else assign(node{{}, *this, as_expr(e)});
        }
      }
    }
    return *this;
  }
};

template <class T, class S, origin O>
struct block_of;
template <class T, origin O, int... D>
struct block_of<T, shape<D...>, O> {
  using type = basic_block<O, T, D...>;
};
// The block of element type T and shape S.
template <class T, class S, origin O = origin::computed>
using block_t = typename block_of<T, S, O>::type;

// Is X a held block (a tl::block, or what tl::load returns)?
template <class X>
inline constexpr bool is_held_block_v = requires { std::remove_cvref_t<X>::block_origin; };

}  // namespace detail

// A block: elements of type T in a shape D... fixed at compile time (Triton's tensor).
template <class T, int... D>
using block = detail::basic_block<detail::origin::computed, T, D...>;

// Evaluate an expression into a block (a value to keep across a loop, or to index twice
// cheaply).
template <class E>
  requires detail::is_expr_v<E>
TL_INLINE auto eval(const E& e) {
  return detail::block_t<detail::value_of_t<E>, detail::shape_of_t<E>>(e);
}

// .to(dtype) and .to(dtype, bitcast), declared on expr_base.
struct bitcast_t {};
inline constexpr bitcast_t bitcast{};

template <class Derived>
template <class T>
TL_INLINE auto expr_base<Derived>::to(tl::dtype<T>) const {
  using From = detail::value_of_t<Derived>;
  constexpr bool is_address = std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>;
  constexpr bool from_address = std::is_same_v<From, std::int64_t> || std::is_same_v<From, std::uint64_t>;
  if constexpr (detail::is_ptr_v<T> != detail::is_ptr_v<From> && !std::is_same_v<T, From>)
    static_assert(detail::check<error::pointer_cast_needs_int64<From, T, detail::is_ptr_v<T> ? from_address : is_address>>);
  return detail::cast<T, Derived>{{}, self()};
}

template <class Derived>
template <class T, class B>
TL_INLINE auto expr_base<Derived>::to(tl::dtype<T>, B) const {
  static_assert(std::is_same_v<B, bitcast_t>, "tl: the second argument of .to() can only be tl::bitcast");
  using From = detail::value_of_t<Derived>;
  static_assert(detail::check<error::bitcast_needs_equal_sizes<
                    T, From, sizeof(T) == sizeof(From) && !std::is_same_v<T, bool> && !std::is_same_v<From, bool>>>);
  return detail::bitcast<T, Derived>{{}, self()};
}

}  // namespace tl
