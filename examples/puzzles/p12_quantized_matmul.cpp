// Puzzle 12: quantized matrix multiplication.
// z_{j,k} = sum_l scale_{j,l/8} (w_{j,l} - shift_{j,l/8}) activation_{l,k}, where the weights
// are 4-bit values packed FPINT = 8 to an int32 (nibble n of word w is column 8w + n), and
// every GROUP = 8 consecutive columns share one scale and one 4-bit shift. The shifts of the
// eight groups of a 64-column step are the eight nibbles of one offset word: offset is
// [N0, MID / 64] (at the puzzle size, MID = 64, one word per row as in the original).
#include "harness.hpp"

using tl::None;
using tl::_;

constexpr int FPINT = 32 / 4;
constexpr int GROUP = 8;

// Triton: def quant_dot_kernel(scale_ptr, offset_ptr, weight_ptr, activation_ptr, z_ptr, N0, N1, MID,
//                              B0: tl.constexpr, B1: tl.constexpr, B_MID: tl.constexpr)
template <int B0, int B1, int B_MID>
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
    z = tl::dot(true_weight, activation, z, tl::ieee);  // exact float32, as the checker's 1e-3 needs
  }

  tl::store(z_ptr + off_z, z, mask_z);
}

static std::vector<double> quant_dot_spec(const std::vector<float>& scale, const std::vector<int>& offset,
                                          const std::vector<int>& weight, const std::vector<float>& activation,
                                          int n0, int n1, int mid) {
  auto nibble = [](int word, int n) { return (word >> (4 * n)) & 0xF; };
  std::vector<double> z(std::size_t(n0) * n1, 0.0);
  for (int j = 0; j < n0; ++j)
    for (int l = 0; l < mid; ++l) {
      const int g = l / GROUP;
      const double sc = scale[std::size_t(j) * (mid / GROUP) + g];
      const int w = nibble(weight[std::size_t(j) * (mid / FPINT) + l / FPINT], l % FPINT);
      const int sh = nibble(offset[std::size_t(j) * (mid / 64) + l / 64], g % 8);
      const double tw = sc * double(w - sh);
      for (int k = 0; k < n1; ++k) z[std::size_t(j) * n1 + k] += tw * double(activation[std::size_t(l) * n1 + k]);
    }
  return z;
}

namespace {
// The compile-time parameters, in the order of the configurations compiled below.
constexpr const char* constexpr_names[] = {"B0", "B1", "B_MID"};
using blocks = puzzles::configs<puzzles::cfg<16, 16, 64>, puzzles::cfg<32, 16, 64>, puzzles::cfg<16, 32, 64>>;
}  // namespace

namespace puzzles {
puzzle puzzle_12() {
  puzzle p;
  p.id = "12";
  p.number = 12;
  p.title = "quantized matrix multiplication";
  p.formula = "z[j,k] = sum_l scale[j,l/8] (w[j,l] - shift[j,l/8]) activation[l,k], 4-bit w and shift";
  p.size_names = {"N0", "N1", "MID"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.puzzle_sizes = {.N0 = 32, .N1 = 32, .MID = 64};
  p.puzzle_constexprs = {.B0 = 16, .B1 = 16, .B_MID = 64};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = [](const constexprs&, rng& g) {
    return sizes{.N0 = random_int(g, 1, 80), .N1 = random_int(g, 1, 80), .MID = 64 * random_int(g, 1, 3)};
  };
  p.run = [](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
          constexpr int B0 = decltype(c)::v[0], B1 = decltype(c)::v[1], B_MID = decltype(c)::v[2];
          if (r.n.MID % 64 != 0) throw tl::usage_error("puzzle 12 needs MID to be a multiple of 64");
          rng g(r.seed);
          const int n0 = r.n.N0, n1 = r.n.N1, mid = r.n.MID;
          auto scale = random_floats(std::size_t(n0) * (mid / GROUP), g);
          auto offset = random_ints(std::size_t(n0) * (mid / 64), g, -100000, 100000);
          auto weight = random_ints(std::size_t(n0) * (mid / FPINT), g, -100000, 100000);
          auto activation = random_floats(std::size_t(mid) * n1, g);
          auto z = poisoned(std::size_t(n0) * n1);
          outcome o;
          o.report = tl::launch<quant_dot_kernel<B0, B1, B_MID>>(
              tl::grid(tl::cdiv(n0, B0), tl::cdiv(n1, B1)), r.launch, tl::ptr(scale, "scale"), tl::ptr(offset, "offset"),
              tl::ptr(weight, "weight"), tl::ptr(activation, "activation"), tl::ptr(z, "z"), n0, n1, mid);
          compare(o, z, quant_dot_spec(scale, offset, weight, activation, n0, n1, mid), {n0, n1});
          return o;
        });
  };
  return p;
}
}  // namespace puzzles
