// Tutorial 05's layer norm for one warp count (TL_NUM_WARPS, defined by the including file):
// layer_norm_fwd_by / layer_norm_bwd_by over the block sizes of that warp count (BLOCK_SIZE =
// next_power_of_2(N), at least the set's first), instantiated per element type by
// TL_TORCH_LAYER_NORM(T).
#pragma once

#include <tl/tl.hpp>

#include "launchers.hpp"
#include "t05_layer_norm.hpp"

namespace tl_torch::detail {

template <class T, int... Sizes>
void layer_norm_fwd(tl::view<const T> x, tl::view<T> y, tl::view<const T> w, tl::view<const T> b, tl::view<float> mean,
                    tl::view<float> rstd, float eps, tl::launch_options o) {
  const int M = int(x.size(0)), N = int(x.size(1));
  if (M == 0) return;
  tl::dispatch<Sizes...>(std::max<std::int64_t>(tl::detail::first_value<Sizes...>, tl::next_power_of_2(N)),
                         [&](auto BLOCK_SIZE) {
                           tl::launch<layer_norm_fwd_fused<BLOCK_SIZE, T>>(tl::grid(M), o, x, y, w, b, mean, rstd,
                                                                           int(x.stride(0)), N, eps);
                         });
}

template <class T, int... Sizes>
void layer_norm_bwd(tl::view<const T> dy, tl::view<const T> x, tl::view<const T> w, tl::view<const float> mean,
                    tl::view<const float> rstd, tl::view<T> dx, tl::view<T> partial_dw, tl::view<T> partial_db,
                    tl::view<int> locks, tl::view<T> dw, tl::view<T> db, tl::launch_options o) {
  const int M = int(x.size(0)), N = int(x.size(1));
  if (M == 0) return;
  tl::dispatch<Sizes...>(std::max<std::int64_t>(tl::detail::first_value<Sizes...>, tl::next_power_of_2(N)),
                         [&](auto BLOCK_SIZE_N) {
                           constexpr int GROUP_SIZE_M = layer_norm_group(BLOCK_SIZE_N);
                           tl::launch<layer_norm_bwd_dx_fused<GROUP_SIZE_M, BLOCK_SIZE_N, T>>(
                               tl::grid(M), o, dx, dy, partial_dw, partial_db, x, w, mean, rstd, locks,
                               int(x.stride(0)), N);
                           tl::launch<layer_norm_bwd_dwdb<32, 128, T>>(tl::grid(tl::cdiv(N, 128)), o, partial_dw,
                                                                       partial_db, dw, db, std::min(GROUP_SIZE_M, M), N);
                         });
}

}  // namespace tl_torch::detail

// The halves of launchers.hpp: 4 warps for rows of up to 1024 columns, 8 for wider ones.
template <class T, int Warps>
void tl_torch::layer_norm_fwd_by(tl::view<const T> x, tl::view<T> y, tl::view<const T> w, tl::view<const T> b,
                                 tl::view<float> mean, tl::view<float> rstd, float eps, tl::launch_options o) {
  static_assert(Warps == TL_NUM_WARPS, "a translation unit's blocks are sized for its TL_NUM_WARPS");
  if constexpr (Warps == 4) detail::layer_norm_fwd<T, 256, 512, 1024>(x, y, w, b, mean, rstd, eps, o);
  else detail::layer_norm_fwd<T, 2048, 4096, 8192, 16384>(x, y, w, b, mean, rstd, eps, o);
}
template <class T, int Warps>
void tl_torch::layer_norm_bwd_by(tl::view<const T> dy, tl::view<const T> x, tl::view<const T> w,
                                 tl::view<const float> mean, tl::view<const float> rstd, tl::view<T> dx,
                                 tl::view<T> partial_dw, tl::view<T> partial_db, tl::view<int> locks, tl::view<T> dw,
                                 tl::view<T> db, tl::launch_options o) {
  static_assert(Warps == TL_NUM_WARPS, "a translation unit's blocks are sized for its TL_NUM_WARPS");
  if constexpr (Warps == 4)
    detail::layer_norm_bwd<T, 256, 512, 1024>(dy, x, w, mean, rstd, dx, partial_dw, partial_db, locks, dw, db, o);
  else
    detail::layer_norm_bwd<T, 2048, 4096, 8192, 16384>(dy, x, w, mean, rstd, dx, partial_dw, partial_db, locks, dw, db, o);
}

// Both halves for element type T at this translation unit's warp count.
#define TL_TORCH_LAYER_NORM(T)                                                                                          \
  template void tl_torch::layer_norm_fwd_by<T, TL_NUM_WARPS>(tl::view<const T>, tl::view<T>, tl::view<const T>,         \
                                                             tl::view<const T>, tl::view<float>, tl::view<float>, float, \
                                                             tl::launch_options);                                        \
  template void tl_torch::layer_norm_bwd_by<T, TL_NUM_WARPS>(                                                           \
      tl::view<const T>, tl::view<const T>, tl::view<const T>, tl::view<const float>, tl::view<const float>,            \
      tl::view<T>, tl::view<T>, tl::view<T>, tl::view<int>, tl::view<T>, tl::view<T>, tl::launch_options);
