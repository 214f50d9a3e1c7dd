// tl/ops/tensor_descriptor.hpp: tensor descriptors (Triton's tl.make_tensor_descriptor).
//
//   auto a_desc = tl::make_tensor_descriptor(a_ptr, {M, K}, {K, 1}, tl::block_shape<BLOCK_M, BLOCK_K>);
//   auto a = a_desc.load({off_m, off_k});      // a BLOCK_M x BLOCK_K block; outside the shape: 0
//   c_desc.store({off_m, off_n}, c);           // elements outside the shape are not written
//
// A descriptor names a strided tensor (base, shape, strides in elements; Triton requires the last
// stride to be 1, which the CUDA backend's fast paths check at run time, any other value taking
// the element-by-element path) and
// the block shape its loads and stores move. A load at offsets o reads element o + i of the
// tensor for each i of the block where 0 <= o + i < shape, and gives 0 elsewhere; a store writes
// only there. Both are lowered as tl::load and tl::store of base + (o + i) . strides masked by
// the shape: affine pointers and a convex mask, which the CUDA backend moves 16 bytes at a time;
// the CPU backend checks every element against base's buffer as for any load, so a descriptor
// whose shape does not fit its buffer is reported at the first access outside it, with the
// descriptor call's line. Ranks 1 to 3; shapes, strides and offsets are 64-bit (a tensor may hold
// more than 2^31 elements), and the shape, strides, offsets and block shape must have one rank.
//
// A dot operand that is a descriptor's load is read again from memory by the dot, as any loaded
// block (expr/loaded.hpp), through cp.async (backend/cuda/dot_copy.hpp); with
// TL_DESCRIPTOR_TMA=1 on sm_90a, a rank-2 descriptor's block goes through the bulk tensor copy
// engine (TMA) instead, whose tensor map the dot builds on first use
// (backend/cuda/tensor_maps.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../core/diagnostics.hpp"
#include "creation.hpp"
#include "memory.hpp"
#include "shape_ops.hpp"

namespace tl {

// The block shape of a descriptor, at compile time (Triton: block_shape=[BLOCK_M, BLOCK_K]).
template <int... B>
struct block_shape_t {};
template <int... B>
inline constexpr block_shape_t<B...> block_shape{};

namespace detail {
// A block's first element may lie anywhere in a tensor of 64-bit extent, but the block itself is
// at most 2^31 elements along an axis: the in-block index i (0 <= i < B, an int32 arange) is
// inside the tensor where lo <= i < hi, the axis' bounds measured from the block's first element
// and clamped to [0, B], so the mask stays 32-bit and exact at any offset and shape.
TL_HD constexpr int clamp_to_block(std::int64_t v, int b) { return v < 0 ? 0 : v > b ? b : int(v); }
TL_HD constexpr int block_lo(std::int64_t offset, int b) { return offset >= 0 ? 0 : offset <= -b ? b : int(-offset); }
TL_HD constexpr int block_hi(std::int64_t offset, std::int64_t shape, int b) {
  return offset >= shape ? 0 : clamp_to_block(shape - offset, b);  // offset < shape: no overflow
}
// The lists given to make_tensor_descriptor and to a descriptor's load and store, against the
// block shape's rank.
template <int Rank, std::size_t Given>
inline constexpr bool ranks_match = std::size_t(Rank) == Given;
}  // namespace detail

template <class T, int... B>
struct tensor_descriptor {
  static constexpr int rank = int(sizeof...(B));
  static_assert(rank >= 1 && rank <= 3, "tl::make_tensor_descriptor: ranks 1 to 3");
  ptr<T> base;
  std::int64_t shape[rank];
  std::int64_t strides[rank];

  // The block at offsets o: elements o + i inside the shape, 0 outside.
  template <std::size_t R>
  TL_HD auto load(const std::int64_t (&o)[R], source_location where = source_location::current()) const {
    static_assert(detail::check<error::descriptor_offsets_of_another_rank<op::load, tl::shape<B...>, int(R),
                                                                         detail::ranks_match<rank, R>>>);
    if constexpr (detail::ranks_match<rank, R>) {
      detail::descriptor_source<rank> source;
      source.base = base.get();
      for (int d = 0; d < rank; ++d) {
        source.shape[d] = shape[d];
        source.strides[d] = strides[d];
        source.offsets[d] = o[d];
      }
      return detail::load_pointers(pointers(o), inside(o), 0, where, source);
    }
  }
  // Writes the elements of value at o + i inside the shape (value broadcasts to the block).
  template <std::size_t R, class V>
  TL_HD void store(const std::int64_t (&o)[R], V value, source_location where = source_location::current()) const {
    static_assert(detail::check<error::descriptor_offsets_of_another_rank<op::store, tl::shape<B...>, int(R),
                                                                         detail::ranks_match<rank, R>>>);
    if constexpr (detail::ranks_match<rank, R>) tl::store(pointers(o), value, inside(o), where);
  }

 private:
  static constexpr int dims[] = {B...};
  // Axis d's in-block index i (0 <= i < B_d) as a block broadcastable to the block shape.
  template <int D>
  TL_HD static auto axis() {
    auto i = arange<0, dims[D]>();
    if constexpr (rank == 1) return i;
    else if constexpr (rank == 2) return expand_dims<1 - D>(i);
    else if constexpr (D == 0) return expand_dims<1>(expand_dims<1>(i));
    else if constexpr (D == 1) return expand_dims<2>(expand_dims<0>(i));
    else return expand_dims<0>(expand_dims<0>(i));
  }
  // The block's first element, in 64 bits, then each element's offset from it.
  TL_HD ptr<T> first(const std::int64_t (&o)[rank]) const {
    std::int64_t at = 0;
    for (int d = 0; d < rank; ++d) at += o[d] * strides[d];
    return base + at;
  }
  TL_HD auto pointers(const std::int64_t (&o)[rank]) const {
    if constexpr (rank == 1) return first(o) + axis<0>() * strides[0];
    else if constexpr (rank == 2) return first(o) + (axis<0>() * strides[0] + axis<1>() * strides[1]);
    else return first(o) + (axis<0>() * strides[0] + axis<1>() * strides[1] + axis<2>() * strides[2]);
  }
  template <int D>
  TL_HD auto inside_axis(const std::int64_t (&o)[rank]) const {
    constexpr int b = dims[D];  // a constant: device code cannot read the array itself
    auto i = axis<D>();
    return (i >= detail::block_lo(o[D], b)) & (i < detail::block_hi(o[D], shape[D], b));
  }
  TL_HD auto inside(const std::int64_t (&o)[rank]) const {
    if constexpr (rank == 1) return inside_axis<0>(o);
    else if constexpr (rank == 2) return inside_axis<0>(o) & inside_axis<1>(o);
    else return inside_axis<0>(o) & inside_axis<1>(o) & inside_axis<2>(o);
  }
};

// make_tensor_descriptor(base, shape, strides, block_shape<...>): strides in elements; shape and
// strides may be run-time values, 64-bit. The three lists have the block shape's rank.
template <class T, int... B, std::size_t RS, std::size_t RT>
TL_HD tensor_descriptor<T, B...> make_tensor_descriptor(ptr<T> base, const std::int64_t (&shape)[RS],
                                                        const std::int64_t (&strides)[RT], block_shape_t<B...>) {
  constexpr int rank = int(sizeof...(B));
  static_assert(detail::check<error::descriptor_lists_of_another_rank<tl::shape<B...>, int(RS), int(RT),
                                                                      detail::ranks_match<rank, RS> &&
                                                                          detail::ranks_match<rank, RT>>>);
  tensor_descriptor<T, B...> d{base, {}, {}};
  if constexpr (detail::ranks_match<rank, RS> && detail::ranks_match<rank, RT>) {
    for (int i = 0; i < rank; ++i) {
      d.shape[i] = shape[i];
      d.strides[i] = strides[i];
    }
  }
  return d;
}

// Triton's functional forms: tl.load_tensor_descriptor(desc, offsets), tl.store_tensor_descriptor(desc, offsets, value).
template <class T, int... B, std::size_t R>
TL_HD auto load_tensor_descriptor(const tensor_descriptor<T, B...>& desc, const std::int64_t (&o)[R],
                                  source_location where = source_location::current()) {
  return desc.load(o, where);
}
template <class T, int... B, std::size_t R, class V>
TL_HD void store_tensor_descriptor(const tensor_descriptor<T, B...>& desc, const std::int64_t (&o)[R], V value,
                                   source_location where = source_location::current()) {
  desc.store(o, value, where);
}

}  // namespace tl
