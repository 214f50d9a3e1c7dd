// Puzzle 11: matrix multiplication.
// z_{i,j,k} = sum_l x_{i,j,l} y_{i,l,k}: a batch of N2 products of N0 x MID and MID x N1
// matrices. A 3-D grid: axis 0 over rows (B0), axis 1 over columns (B1), axis 2 over the
// batch (B2). Each program walks MID in steps of B_MID and accumulates tl::dot of the tiles.
#include "harness.hpp"

using tl::None;
using tl::_;

// Triton: def dot_kernel(x_ptr, y_ptr, z_ptr, N0, N1, N2, MID,
//                        B0: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr, B_MID: tl.constexpr)
template <int B0, int B1, int B2, int B_MID>
TL_KERNEL void dot_kernel(tl::ptr<float> x_ptr, tl::ptr<float> y_ptr, tl::ptr<float> z_ptr, int N0, int N1, int N2,
                          int MID) {
  auto block_id_j = tl::program_id(0);
  auto block_id_k = tl::program_id(1);
  auto block_id_i = tl::program_id(2);

  auto off_i = block_id_i * B2 + tl::arange<0, B2>()(_, None, None);  // (B2, 1, 1)
  auto off_j = block_id_j * B0 + tl::arange<0, B0>()(None, _, None);  // (1, B0, 1)
  auto off_k = block_id_k * B1 + tl::arange<0, B1>()(None, None, _);  // (1, 1, B1)

  auto mask_i = off_i < N2;
  auto mask_j = off_j < N0;
  auto mask_k = off_k < N1;

  auto z = tl::zeros<B2, B0, B1>(tl::float32);

  for (int l : tl::range(0, MID, B_MID)) {
    auto off_l = l + tl::arange<0, B_MID>();
    auto mask_l = off_l < MID;
    auto off_x = off_i * N0 * MID + off_j * MID + off_l(None, None, _);  // (B2, B0, B_MID)
    auto off_y = off_i * N1 * MID + off_l(None, _, None) * N1 + off_k;  // (B2, B_MID, B1)
    auto mask_x = mask_i & mask_j & mask_l(None, None, _);
    auto mask_y = mask_i & mask_l(None, _, None) & mask_k;

    auto x = tl::load(x_ptr + off_x, mask_x);
    auto y = tl::load(y_ptr + off_y, mask_y);
    z = tl::dot(x, y, z, tl::ieee);  // exact float32: the checker's 1e-3 is tighter than tf32
  }

  auto off_z = off_i * N0 * N1 + off_j * N1 + off_k;
  auto mask_z = mask_i & mask_j & mask_k;
  tl::store(z_ptr + off_z, z, mask_z);
}

static std::vector<double> dot_spec(const std::vector<float>& x, const std::vector<float>& y, int n0, int n1, int n2,
                                    int mid) {
  std::vector<double> z(std::size_t(n2) * n0 * n1, 0.0);
  for (int i = 0; i < n2; ++i)
    for (int j = 0; j < n0; ++j)
      for (int k = 0; k < n1; ++k) {
        double acc = 0;
        for (int l = 0; l < mid; ++l)
          acc += double(x[(std::size_t(i) * n0 + j) * mid + l]) * double(y[(std::size_t(i) * mid + l) * n1 + k]);
        z[(std::size_t(i) * n0 + j) * n1 + k] = acc;
      }
  return z;
}

namespace {
// The compile-time parameters, in the order of the configurations compiled below.
constexpr const char* constexpr_names[] = {"B0", "B1", "B2", "B_MID"};
using blocks = puzzles::configs<puzzles::cfg<16, 16, 1, 16>, puzzles::cfg<32, 16, 1, 32>, puzzles::cfg<16, 32, 2, 16>>;
}  // namespace

namespace puzzles {
puzzle puzzle_11() {
  puzzle p;
  p.id = "11";
  p.number = 11;
  p.title = "matrix multiplication";
  p.formula = "z[i,j,k] = sum_l x[i,j,l] y[i,l,k], tl::dot over B_MID steps";
  p.size_names = {"N0", "N1", "N2", "MID"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.puzzle_sizes = {.N0 = 32, .N1 = 32, .N2 = 4, .MID = 64};
  p.puzzle_constexprs = {.B0 = 16, .B1 = 16, .B2 = 1, .B_MID = 16};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = [](const constexprs&, rng& g) {
    return sizes{.N0 = random_int(g, 1, 80), .N1 = random_int(g, 1, 80), .N2 = random_int(g, 1, 4),
                 .MID = random_int(g, 1, 100)};
  };
  p.run = [](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
          constexpr int B0 = decltype(c)::v[0], B1 = decltype(c)::v[1], B2 = decltype(c)::v[2], B_MID = decltype(c)::v[3];
          rng g(r.seed);
          auto x = random_floats(std::size_t(r.n.N2) * r.n.N0 * r.n.MID, g);
          auto y = random_floats(std::size_t(r.n.N2) * r.n.MID * r.n.N1, g);
          auto z = poisoned(std::size_t(r.n.N2) * r.n.N0 * r.n.N1);
          outcome o;
          o.report = tl::launch<dot_kernel<B0, B1, B2, B_MID>>(
              tl::grid(tl::cdiv(r.n.N0, B0), tl::cdiv(r.n.N1, B1), tl::cdiv(r.n.N2, B2)), r.launch, tl::ptr(x, "x"),
              tl::ptr(y, "y"), tl::ptr(z, "z"), r.n.N0, r.n.N1, r.n.N2, r.n.MID);
          compare(o, z, dot_spec(x, y, r.n.N0, r.n.N1, r.n.N2, r.n.MID), {r.n.N2 * r.n.N0, r.n.N1});
          return o;
        });
  };
  return p;
}
}  // namespace puzzles
