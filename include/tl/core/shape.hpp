// tl/core/shape.hpp: compile-time block shapes, coordinates, and numpy broadcasting.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "../config.hpp"

namespace tl {

// The shape of a block, known at compile time: shape<B1, B0> is a B1 x B0 block.
// shape<> is a scalar (rank 0).
template <int... D>
struct shape {
  static constexpr int rank = sizeof...(D);
  static constexpr std::int64_t size = (std::int64_t{1} * ... * D);
  TL_HD static constexpr int dim(int i) {
    constexpr int d[] = {D..., 0};
    return d[i];
  }
};

// A position inside a block: one index per axis.
template <int R>
struct coord {
  int v[R > 0 ? R : 1];
  TL_HD constexpr int& operator[](int i) { return v[i]; }
  TL_HD constexpr const int& operator[](int i) const { return v[i]; }
};

namespace detail {

// Row-major flattening, the layout of every block and of the CPU backend's storage.
// Coordinates inside the block are never negative: unsigned, 32-bit where the block allows
// (as unravel below), so that ravel(unravel(f)) folds back to f (a reshape's index map).
template <class S>
TL_INLINE constexpr std::int64_t ravel(const coord<S::rank>& c) {
  using U = std::conditional_t<(S::size <= (std::int64_t(1) << 31)), std::uint32_t, std::uint64_t>;
  U flat = 0;
  for (int i = 0; i < S::rank; ++i) flat = flat * U(S::dim(i)) + static_cast<U>(c[i]);
  return static_cast<std::int64_t>(flat);
}

template <class S>
TL_INLINE constexpr coord<S::rank> unravel(std::int64_t flat) {
  // Flat indices are never negative: unsigned division by the (constant) sizes is a shift and
  // a mask for powers of two, and lets the compiler see that consecutive indices within an
  // aligned run share their higher coordinates.
  // 32-bit arithmetic where the block is small enough (every block but the largest).
  using U = std::conditional_t<(S::size <= (std::int64_t(1) << 31)), std::uint32_t, std::uint64_t>;
  auto u = static_cast<U>(flat);
  coord<S::rank> c{};
  for (int i = S::rank - 1; i >= 0; --i) {
    c[i] = static_cast<int>(u % U(S::dim(i)));
    u /= U(S::dim(i));
  }
  return c;
}

// ---- broadcasting (numpy rules: align trailing axes; size 1 stretches) ----

template <class A, class B>
struct broadcast_shapes;

template <int... A, int... B>
struct broadcast_shapes<shape<A...>, shape<B...>> {
  static constexpr int rank = sizeof...(A) > sizeof...(B) ? int(sizeof...(A)) : int(sizeof...(B));
  // Extent of the result along axis i (aligned from the right), and whether it is valid.
  static constexpr int dim_a(int i) {
    const int k = i - (rank - int(sizeof...(A)));
    return k < 0 ? 1 : shape<A...>::dim(k);
  }
  static constexpr int dim_b(int i) {
    const int k = i - (rank - int(sizeof...(B)));
    return k < 0 ? 1 : shape<B...>::dim(k);
  }
  static constexpr bool ok() {
    for (int i = 0; i < rank; ++i)
      if (dim_a(i) != dim_b(i) && dim_a(i) != 1 && dim_b(i) != 1) return false;
    return true;
  }
  static constexpr bool value = ok();
  static constexpr int out(int i) { return dim_a(i) == 1 ? dim_b(i) : dim_a(i); }
  template <int... I>
  static auto make(std::integer_sequence<int, I...>) -> shape<out(I)...>;
  using type = decltype(make(std::make_integer_sequence<int, rank>{}));
};

template <class A, class B>
inline constexpr bool broadcastable_v = broadcast_shapes<A, B>::value;

// Can From be broadcast to exactly To (one direction, as mask and other to a load)?
template <class From, class To>
inline constexpr bool broadcastable_to_v =
    broadcast_shapes<From, To>::value && std::is_same_v<typename broadcast_shapes<From, To>::type, To> &&
    From::rank <= To::rank;

template <class A, class B>
using broadcast_t = typename broadcast_shapes<A, B>::type;

template <class... S>
struct broadcast_all;
template <class S>
struct broadcast_all<S> {
  using type = S;
  static constexpr bool value = true;
};
template <class S, class T, class... R>
struct broadcast_all<S, T, R...> {
  static constexpr bool head_ok = broadcastable_v<S, T>;
  using head = std::conditional_t<head_ok, broadcast_t<S, T>, S>;
  using type = typename broadcast_all<head, R...>::type;
  static constexpr bool value = head_ok && broadcast_all<head, R...>::value;
};

// The coordinate inside an operand of shape From that a result coordinate of rank R maps
// to: leading axes dropped, stretched (size-1) axes pinned to 0.
template <class From, int R>
TL_INLINE constexpr coord<From::rank> broadcast_coord(const coord<R>& c) {
  coord<From::rank> out{};
  constexpr int lead = R - From::rank;
  for (int i = 0; i < From::rank; ++i) out[i] = From::dim(i) == 1 ? 0 : c[i + lead];
  return out;
}

template <class S, int A>
inline constexpr int normalize_axis = A < 0 ? A + S::rank : A;

// shape S with axis A removed (a reduction) or set to 1 (keep_dims).
template <class S, int A, bool Keep, class Seq = std::make_integer_sequence<int, S::rank>>
struct reduce_shape;
template <class S, int A, bool Keep, int... I>
struct reduce_shape<S, A, Keep, std::integer_sequence<int, I...>> {
  static constexpr int keep_dim(int i) { return i == A ? 1 : S::dim(i); }
  using kept = shape<keep_dim(I)...>;
  template <int J>
  static constexpr int dropped_dim() { return S::dim(J < A ? J : J + 1); }
  template <int... J>
  static auto drop(std::integer_sequence<int, J...>) -> shape<dropped_dim<J>()...>;
  using dropped = decltype(drop(std::make_integer_sequence<int, (S::rank > 0 ? S::rank - 1 : 0)>{}));
  using type = std::conditional_t<Keep, kept, dropped>;
};

// Elements between two neighbours along Axis in row-major order (the product of the later axes).
template <class S, int Axis>
inline constexpr std::int64_t inner_size = [] {
  std::int64_t p = 1;
  for (int a = Axis + 1; a < S::rank; ++a) p *= S::dim(a);
  return p;
}();

// The shapes of a matrix product a @ b (2-D, or batched 3-D): tl::dot's checks and plans.
template <class SA, class SB>
struct dot_shapes {
  static constexpr int r = SA::rank;
  static constexpr bool ranks_ok = SA::rank == SB::rank && (SA::rank == 2 || SA::rank == 3);
  static constexpr int M = ranks_ok ? SA::dim(r - 2) : 16;
  static constexpr int K = ranks_ok ? SA::dim(r - 1) : 16;
  static constexpr int KB = ranks_ok ? SB::dim(r - 2) : 16;
  static constexpr int N = ranks_ok ? SB::dim(r - 1) : 16;
  static constexpr int BA = ranks_ok && r == 3 ? SA::dim(0) : 1;
  static constexpr int BB = ranks_ok && r == 3 ? SB::dim(0) : 1;
  static constexpr bool inner_ok = K == KB;
  static constexpr bool batch_ok = BA == BB;
  static constexpr bool sizes_ok = M >= 16 && N >= 16 && K >= 16;
  using out = std::conditional_t<r == 3, shape<BA, M, N>, shape<M, N>>;
};

}  // namespace detail
}  // namespace tl
