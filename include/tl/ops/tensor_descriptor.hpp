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
// descriptor call's line. Ranks 1 to 3.
//
// A dot operand that is a descriptor's load is read again from memory by the dot, as any loaded
// block (expr/loaded.hpp), through cp.async (backend/cuda/dot_copy.hpp); with
// TL_DESCRIPTOR_TMA=1 on sm_90a, a rank-2 descriptor's block goes through the bulk tensor copy
// engine (TMA) instead, whose tensor map the dot builds on first use
// (backend/cuda/tensor_maps.hpp).
#pragma once

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

template <class T, int... B>
struct tensor_descriptor {
  static constexpr int rank = int(sizeof...(B));
  static_assert(rank >= 1 && rank <= 3, "tl::make_tensor_descriptor: ranks 1 to 3");
  ptr<T> base;
  std::int64_t shape[rank];
  std::int64_t strides[rank];

  // The block at offsets o: elements o + i inside the shape, 0 outside.
  TL_HD auto load(const std::int64_t (&o)[rank], source_location where = source_location::current()) const {
    detail::descriptor_source<rank> source;
    source.base = base.get();
    for (int d = 0; d < rank; ++d) {
      source.shape[d] = shape[d];
      source.strides[d] = strides[d];
      source.offsets[d] = o[d];
    }
    return detail::load_pointers(pointers(o), inside(o), 0, where, source);
  }
  // Writes the elements of value at o + i inside the shape (value broadcasts to the block).
  template <class V>
  TL_HD void store(const std::int64_t (&o)[rank], V value, source_location where = source_location::current()) const {
    tl::store(pointers(o), value, inside(o), where);
  }

 private:
  static constexpr int dims[] = {B...};
  // Axis d's offsets o[d] + i as a block broadcastable to the block shape.
  template <int D>
  TL_HD auto axis(const std::int64_t (&o)[rank]) const {
    auto i = int(o[D]) + arange<0, dims[D]>();
    if constexpr (rank == 1) return i;
    else if constexpr (rank == 2) return expand_dims<1 - D>(i);
    else if constexpr (D == 0) return expand_dims<1>(expand_dims<1>(i));
    else if constexpr (D == 1) return expand_dims<2>(expand_dims<0>(i));
    else return expand_dims<0>(expand_dims<0>(i));
  }
  TL_HD auto pointers(const std::int64_t (&o)[rank]) const {
    if constexpr (rank == 1) return base + axis<0>(o) * strides[0];
    else if constexpr (rank == 2) return base + (axis<0>(o) * strides[0] + axis<1>(o) * strides[1]);
    else return base + (axis<0>(o) * strides[0] + axis<1>(o) * strides[1] + axis<2>(o) * strides[2]);
  }
  template <int D>
  TL_HD auto inside_axis(const std::int64_t (&o)[rank]) const {
    auto i = axis<D>(o);
    return (i >= 0) & (i < int(shape[D]));
  }
  TL_HD auto inside(const std::int64_t (&o)[rank]) const {
    if constexpr (rank == 1) return inside_axis<0>(o);
    else if constexpr (rank == 2) return inside_axis<0>(o) & inside_axis<1>(o);
    else return inside_axis<0>(o) & inside_axis<1>(o) & inside_axis<2>(o);
  }
};

// make_tensor_descriptor(base, shape, strides, block_shape<...>): strides in elements; shape and
// strides may be run-time values.
template <class T, int... B>
TL_HD tensor_descriptor<T, B...> make_tensor_descriptor(ptr<T> base, const std::int64_t (&shape)[sizeof...(B)],
                                                        const std::int64_t (&strides)[sizeof...(B)], block_shape_t<B...>) {
  tensor_descriptor<T, B...> d{base, {}, {}};
  for (int i = 0; i < int(sizeof...(B)); ++i) {
    d.shape[i] = shape[i];
    d.strides[i] = strides[i];
  }
  return d;
}

// Triton's functional forms: tl.load_tensor_descriptor(desc, offsets), tl.store_tensor_descriptor(desc, offsets, value).
template <class T, int... B>
TL_HD auto load_tensor_descriptor(const tensor_descriptor<T, B...>& desc, const std::int64_t (&o)[sizeof...(B)],
                                  source_location where = source_location::current()) {
  return desc.load(o, where);
}
template <class T, int... B, class V>
TL_HD void store_tensor_descriptor(const tensor_descriptor<T, B...>& desc, const std::int64_t (&o)[sizeof...(B)], V value,
                                   source_location where = source_location::current()) {
  desc.store(o, value, where);
}

}  // namespace tl
