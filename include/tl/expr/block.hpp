// tl/expr/block.hpp: tl::block<T, D...>, a block whose elements are held (materialized).
//
// Loads, reductions, dot, zeros and full return blocks; elementwise arithmetic returns lazy
// expressions that are evaluated when they become a block (or are stored). A block is what
// a loop carries: `auto acc = tl::zeros<B0>(tl::float32); acc += tl::sum<1>(x);`.
//
// tl::basic_block<O, T, D...> also names the register order O the CUDA backend holds it in
// (core/order.hpp); tl::block<T, D...> is the standard order, and tl::zeros, tl::full and
// tl::dot make tiled blocks in the tensor cores' accumulator order. Both hold the same
// values and mix freely in expressions: only where they meet does one go through shared memory.
#pragma once

#include "../backend/cuda/registers.hpp"
#include "../backend/cuda/staging.hpp"
#include "chunk.hpp"
#include "nodes.hpp"

namespace tl {

template <detail::order O, class T, int... D>
struct basic_block : expr_base<basic_block<O, T, D...>> {
  using value_type = T;
  using shape_type = shape<D...>;
  static constexpr int rank = shape_type::rank;
  static constexpr std::int64_t size = shape_type::size;
  static_assert(O != detail::order::any, "tl: a held block has a register order");
  // Only tiled shapes have two orders; every other block is standard, so that one shape has one type.
  static_assert(O == detail::order::standard || detail::cuda::tiled_shape<shape_type>,
                "tl: only tiled blocks (2-D and more, power-of-two sizes, at least 16 x 16) have the accumulator order");
  static constexpr detail::order register_order = O;

#if TL_DEVICE_PASS
  // CUDA: this thread's slots of the block (backend/cuda/layout.hpp), and where the block
  // was staged in shared memory when an evaluation reads it through a broadcast or view.
  using layout = detail::cuda::layout<shape_type, O>;
  detail::cuda::slot_array<T, layout::slots> v;  // 16-bit elements two to a register
  const T* staged = nullptr;
#else
  // CPU: every element, row-major. Default construction zero-fills, so nothing reads garbage.
  T v[size > 0 ? size : 1]{};
#endif

  basic_block() = default;

  template <class E>
    requires detail::is_expr_v<E>
  TL_HD basic_block(const E& e) {  // NOLINT: implicit, so `tl::block<float, B> x = expr;` reads naturally
    assign(e);
  }

  template <class E>
    requires detail::is_expr_v<E>
  TL_HD basic_block& operator=(const E& e) {
    assign(e);
    return *this;
  }

  // A rank-0 block is a scalar.
  TL_HD operator T() const
    requires(rank == 0)
  {
    return v[0];
  }

  TL_INLINE T at(const coord<rank>& c, [[maybe_unused]] int slot = -1) const {
#if TL_DEVICE_PASS
    if constexpr (layout::replicated) {
      if (size == 1 || slot >= 0) return v[slot >= 0 ? slot : 0];
      // Read through a broadcast: every thread holds every element; a chain of selects (not
      // an indexed array, which would put the block in local memory).
      const auto f = detail::ravel<shape_type>(c);
      T r = v[0];
      TL_UNROLL
      for (int k = 1; k < int(size); ++k)
        if (f == k) r = v[k];
      return r;
    } else {
      return slot >= 0 ? v[slot] : staged[detail::ravel<shape_type>(c)];
    }
#else
    return v[detail::ravel<shape_type>(c)];
#endif
  }
#if !TL_DEVICE_PASS
  // The element at a row-major flat index (host code: tests, the CPU backend).
  TL_INLINE T& operator[](std::int64_t flat) { return v[flat]; }
  TL_INLINE const T& operator[](std::int64_t flat) const { return v[flat]; }
  TL_INLINE T* data() { return v; }
  TL_INLINE const T* data() const { return v; }
#endif

  // Every element set to x (held elements only, on the CUDA backend).
  TL_INLINE void fill(T x) {
#if TL_DEVICE_PASS
    constexpr int n = layout::slots;
#else
    constexpr int n = int(sizeof(v) / sizeof(T));
#endif
    TL_UNROLL
    for (int i = 0; i < n; ++i) v[i] = x;
  }

  template <class E>
  TL_HD basic_block& operator+=(E e) { return update<op::add>(e); }
  template <class E>
  TL_HD basic_block& operator-=(E e) { return update<op::sub>(e); }
  template <class E>
  TL_HD basic_block& operator*=(E e) { return update<op::mul>(e); }
  template <class E>
  TL_HD basic_block& operator/=(E e) { return update<op::div>(e); }
  template <class E>
  TL_HD basic_block& operator%=(E e) { return update<op::mod>(e); }
  template <class E>
  TL_HD basic_block& operator&=(E e) { return update<op::bit_and>(e); }
  template <class E>
  TL_HD basic_block& operator|=(E e) { return update<op::bit_or>(e); }
  template <class E>
  TL_HD basic_block& operator^=(E e) { return update<op::bit_xor>(e); }
  template <class E>
  TL_HD basic_block& operator<<=(E e) { return update<op::shl>(e); }
  template <class E>
  TL_HD basic_block& operator>>=(E e) { return update<op::shr>(e); }

 private:
  template <class E>
  TL_HD void assign(const E& e) {
    using S = detail::shape_of_t<E>;
    using V = detail::value_of_t<E>;
    constexpr bool same_shape = std::is_same_v<S, shape_type> || S::rank == 0;
    static_assert(detail::check<error::assigned_shape_differs<shape_type, S, same_shape>>);
    static_assert(detail::check<error::assigned_type_differs<T, V, std::is_same_v<T, V>>>);
    if constexpr (same_shape && std::is_same_v<T, V>) {
      // Writing in place is safe: nodes hold copies of their operands, this block included.
#if TL_DEVICE_PASS
      E ex = e;  // a copy whose broadcast blocks can be pointed at their staged copies
      detail::cuda::stage<shape_type, O>(ex);
      const int t = detail::cuda::thread_id();
      constexpr int V = layout::vec;
      if constexpr (V > 1 && S::rank >= 1 && S::dim(S::rank - 1) % V == 0) {
        // By chunks of the layout (expr/chunk.hpp): an operand broadcast along the rows is
        // read once per chunk.
        TL_UNROLL
        for (int i = 0; i < layout::slots; i += V) {
          if (!layout::valid(t, i)) continue;
          const auto w = detail::operand_chunk<shape_type, O, V>(ex, layout::coords(t, i), i);
          TL_UNROLL
          for (int k = 0; k < V; ++k) v[i + k] = w.x[k];
        }
      } else {
        TL_UNROLL
        for (int i = 0; i < layout::slots; ++i) {
          if (!layout::valid(t, i)) continue;
          if constexpr (S::rank == 0) v[i] = ex.at(coord<0>{}, -1);
          else v[i] = detail::operand_at<shape_type, O>(ex, layout::coords(t, i), i);
        }
      }
#else
      for (std::int64_t i = 0; i < size; ++i) {
        if constexpr (S::rank == 0) v[i] = e.at(coord<0>{});
        else v[i] = e.at(detail::unravel<shape_type>(i));
      }
#endif
    }
  }

  template <class Op, class E>
  TL_HD basic_block& update(const E& e) {
    if constexpr (detail::check<error::operand_is_not_a_block_or_scalar<E, detail::is_operand_v<E>>> &&
                  detail::is_operand_v<E>) {
      using rhs = detail::as_expr_t<E>;
      using node = detail::binary<Op, basic_block, rhs>;
      using V = typename node::value_type;
      static_assert(detail::check<error::assigned_type_differs<T, V, std::is_same_v<T, V>>>);
      if constexpr (std::is_same_v<T, V>) assign(node{{}, *this, detail::as_expr(e)});
    }
    return *this;
  }
};

// A block in the standard register order.
template <class T, int... D>
using block = basic_block<detail::order::standard, T, D...>;

namespace detail {
template <class T, class S, order O>
struct block_of;
template <class T, order O, int... D>
struct block_of<T, shape<D...>, O> {
  using type = basic_block<O, T, D...>;
};
// The block of element type T and shape S in order O (any: standard).
template <class T, class S, order O = order::standard>
using block_t = typename block_of<T, S, evaluation_order(O)>::type;
}  // namespace detail

// Evaluate an expression into a block (a value to keep across a loop, or to index twice
// cheaply), in the register order of the blocks it reads.
template <class E>
  requires detail::is_expr_v<E>
TL_INLINE auto eval(const E& e) {
  return detail::block_t<detail::value_of_t<E>, detail::shape_of_t<E>, detail::order_of<E>()>(e);
}

// .to(dtype) and .to(dtype, bitcast), declared on expr_base.
struct bitcast_t {};
inline constexpr bitcast_t bitcast{};

template <class Derived>
template <class T>
TL_INLINE auto expr_base<Derived>::to(dtype<T>) const {
  return detail::cast<T, Derived>{{}, self()};
}

template <class Derived>
template <class T, class B>
TL_INLINE auto expr_base<Derived>::to(dtype<T>, B) const {
  static_assert(std::is_same_v<B, bitcast_t>, "tl: the second argument of .to() can only be tl::bitcast");
  using From = detail::value_of_t<Derived>;
  static_assert(detail::check<error::bitcast_needs_equal_sizes<
                    T, From, sizeof(T) == sizeof(From) && !std::is_same_v<T, bool> && !std::is_same_v<From, bool>>>);
  return detail::bitcast<T, Derived>{{}, self()};
}

}  // namespace tl
