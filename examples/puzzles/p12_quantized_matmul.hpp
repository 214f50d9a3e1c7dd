// Puzzle 12: quantized matrix multiplication.
// z_{j,k} = sum_l scale_{j,l/8} (w_{j,l} - shift_{j,l/8}) activation_{l,k}, where the weights
// are 4-bit values packed FPINT = 8 to an int32 (nibble n of word w is column 8w + n), and
// every GROUP = 8 consecutive columns share one scale and one 4-bit shift. The shifts of the
// eight groups of a 64-column step are the eight nibbles of one offset word: offset is
// [N0, MID / 64] (at the puzzle size, MID = 64, one word per row as in the original).
//
// The kernel; p12_quantized_matmul.cpp holds its spec and how the checker runs it.
#pragma once

#include <tl/kernel.hpp>

using tl::None;
using tl::_;

constexpr int FPINT = 32 / 4;
constexpr int GROUP = 8;

// Triton: def quant_dot_kernel(scale_ptr, offset_ptr, weight_ptr, activation_ptr, z_ptr, N0, N1, MID,
//                              B0: tl.constexpr, B1: tl.constexpr, B_MID: tl.constexpr,
//                              INPUT_PRECISION: tl.constexpr)
// The checker uses tl::ieee (exact float32, as its 1e-3 needs); tl-bench also times tl::tf32.
template <int B0, int B1, int B_MID, auto INPUT_PRECISION = tl::ieee>
TL_KERNEL void quant_dot_kernel(tl::ptr<float> scale_ptr, tl::ptr<int> offset_ptr, tl::ptr<int> weight_ptr,
                                tl::ptr<float> activation_ptr, tl::ptr<float> z_ptr, int N0, int N1, int MID) {
  static_assert(B_MID == FPINT * GROUP, "one step covers the 64 columns whose shifts share an offset word");
  auto block_id_j = tl::program_id(0);
  auto block_id_k = tl::program_id(1);

  auto extract = [](const auto& x) {
    constexpr int BITS = 32 / FPINT;
    auto bit_shift = tl::arange<0, FPINT>() * BITS;
    constexpr int bit_mask = (1 << BITS) - 1;
    return (tl::expand_dims<-1>(x) >> bit_shift) & bit_mask;
  };

  auto off_j = block_id_j * B0 + tl::arange<0, B0>();
  auto off_k = block_id_k * B1 + tl::arange<0, B1>();
  auto mask_j = off_j < N0;
  auto mask_k = off_k < N1;

  auto z = tl::zeros<B0, B1>(tl::float32);
  auto off_z = off_j(_, None) * N1 + off_k(None, _);
  auto mask_z = mask_j(_, None) & mask_k(None, _);

  for (int l : tl::range(0, MID, B_MID)) {
    // scale
    auto off_l_div_g = (l / GROUP) + tl::arange<0, B_MID / GROUP>();
    auto mask_l_div_g = off_l_div_g < (MID / GROUP);
    auto off_scale = off_j(_, None) * (MID / GROUP) + off_l_div_g(None, _);
    auto mask_scale = mask_j(_, None) & mask_l_div_g(None, _);
    auto scale = tl::load(scale_ptr + off_scale, mask_scale);  // (B0, B_MID / GROUP)

    // offset
    auto off_offset = off_j * (MID / B_MID) + l / B_MID;
    auto offset = extract(tl::load(offset_ptr + off_offset, mask_j));  // (B0, 8)

    // weight
    auto off_weight_l = (l / FPINT) + tl::arange<0, B_MID / FPINT>();
    auto mask_weight_l = off_weight_l < (MID / FPINT);
    auto off_weight = off_j(_, None) * (MID / FPINT) + off_weight_l(None, _);
    auto mask_weight = mask_j(_, None) & mask_weight_l(None, _);
    auto weight = extract(tl::load(weight_ptr + off_weight, mask_weight));  // (B0, B_MID / FPINT, FPINT)

    // activation
    auto off_l = l + tl::arange<0, B_MID>();
    auto mask_l = off_l < MID;
    auto off_activation = off_l(_, None) * N1 + off_k(None, _);
    auto mask_activation = mask_l(_, None) & mask_k(None, _);
    auto activation = tl::load(activation_ptr + off_activation, mask_activation);  // (B_MID, B1)

    // true weight
    auto true_weight = tl::reshape<B0, B_MID>(scale(_, _, None) * (weight - offset(_, _, None)));

    // quantized dot product
    z = tl::dot(true_weight, activation, z, INPUT_PRECISION);
  }

  tl::store(z_ptr + off_z, z, mask_z);
}
