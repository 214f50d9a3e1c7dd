// The guide's helpers (its triton_util): 1-D and 2-D offsets and masks of a tile.
//
//   auto rm = get_1d_offset<bm>(pid_m);                  Triton: get_1d_offset(size=bm, n_prev_chunks=pid_m)
//   auto offs = get_2d_offset(rm, rk, stride_am, stride_ak);
//   auto mask = get_2d_mask(rm, rn, m, n);
// (cdiv, breakpoint_if, print_if and check_tensors_ready are tl's own: tl::cdiv, ...)
#pragma once

#include <tl/tl.hpp>

// The offsets of chunk n_prev_chunks of a 1-D range cut in chunks of `size`.
template <int size>
TL_INLINE auto get_1d_offset(int n_prev_chunks) {
  return n_prev_chunks * size + tl::arange<0, size>();
}

// A 2-D block of offsets: offs_0 down the rows, offs_1 along the columns.
template <class O0, class O1>
TL_INLINE auto get_2d_offset(const O0& offs_0, const O1& offs_1, int stride_0, int stride_1 = 1) {
  return tl::expand_dims<1>(offs_0) * stride_0 + tl::expand_dims<0>(offs_1) * stride_1;
}

template <class O>
TL_INLINE auto get_1d_mask(const O& offs, int max) {
  return offs < max;
}

template <class O0, class O1>
TL_INLINE auto get_2d_mask(const O0& offs_0, const O1& offs_1, int max_0, int max_1) {
  return (tl::expand_dims<1>(offs_0) < max_0) & (tl::expand_dims<0>(offs_1) < max_1);
}
