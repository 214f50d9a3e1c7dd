// Puzzle 6: fused outer multiplication, backwards.
// With f = relu(x_{j,i} * y_j), the gradient with respect to x given dz is
// dx_{j,i} = (x_{j,i} * y_j > 0 ? y_j : 0) * dz_{j,i}.
#include "harness.hpp"

using tl::None;
using tl::_;

// Triton: def mul_relu_block_back_kernel(x_ptr, y_ptr, dz_ptr, dx_ptr, N0, N1, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void mul_relu_block_back_kernel(tl::ptr<float> x_ptr, tl::ptr<float> y_ptr, tl::ptr<float> dz_ptr,
                                          tl::ptr<float> dx_ptr, int N0, int N1) {
  auto block_id_i = tl::program_id(0);
  auto block_id_j = tl::program_id(1);
  auto off_i = block_id_i * B0 + tl::arange<0, B0>();
  auto off_j = block_id_j * B1 + tl::arange<0, B1>();
  auto off_ji = off_j(_, None) * N0 + off_i(None, _);  // (B1, B0)
  auto mask_i = off_i < N0;
  auto mask_j = off_j < N1;
  auto mask_ji = mask_j(_, None) & mask_i(None, _);

  auto x = tl::load(x_ptr + off_ji, mask_ji);
  auto y = tl::load(y_ptr + off_j, mask_j);
  auto dz = tl::load(dz_ptr + off_ji, mask_ji);

  auto df = tl::where(x * y(_, None) > 0, 1.0f, 0.0f);
  auto dxy_x = y(_, None);
  auto dx = df * dxy_x * dz;
  tl::store(dx_ptr + off_ji, dx, mask_ji);
}

static std::vector<double> mul_relu_block_back_spec(const std::vector<float>& x, const std::vector<float>& y,
                                                    const std::vector<float>& dz) {
  const std::size_t n0 = x.size() / y.size();
  std::vector<double> dx(x.size());
  for (std::size_t j = 0; j < y.size(); ++j)
    for (std::size_t i = 0; i < n0; ++i) {
      const std::size_t k = j * n0 + i;
      dx[k] = (double(x[k]) * double(y[j]) > 0 ? double(y[j]) : 0.0) * double(dz[k]);
    }
  return dx;
}

namespace {
// The compile-time parameters, in the order of the configurations compiled below.
constexpr const char* constexpr_names[] = {"B0", "B1"};
using blocks = puzzles::configs<puzzles::cfg<32, 32>, puzzles::cfg<16, 64>, puzzles::cfg<64, 8>>;
}  // namespace

namespace puzzles {
puzzle puzzle_06() {
  puzzle p;
  p.id = "6";
  p.number = 6;
  p.title = "fused outer multiplication, backwards";
  p.formula = "dx[j,i] = (x[j,i] * y[j] > 0 ? y[j] : 0) * dz[j,i]";
  p.size_names = {"N0", "N1"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.puzzle_sizes = {.N0 = 100, .N1 = 90};
  p.puzzle_constexprs = {.B0 = 32, .B1 = 32};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = random_sizes_2d;
  p.run = [](const request& r) {
    return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
      constexpr int B0 = decltype(c)::v[0], B1 = decltype(c)::v[1];
      rng g(r.seed);
      const std::size_t n = std::size_t(r.n.N1) * r.n.N0;
      auto x = random_floats(n, g);
      auto y = random_floats(r.n.N1, g);
      auto dz = random_floats(n, g);
      auto dx = poisoned(n);
      outcome o;
      o.report = tl::launch<mul_relu_block_back_kernel<B0, B1>>(
          tl::grid(tl::cdiv(r.n.N0, B0), tl::cdiv(r.n.N1, B1)), r.launch, tl::ptr(x, "x"), tl::ptr(y, "y"),
          tl::ptr(dz, "dz"), tl::ptr(dx, "dx"), r.n.N0, r.n.N1);
      compare(o, dx, mul_relu_block_back_spec(x, y, dz), {r.n.N1, r.n.N0});
      return o;
    });
  };
  return p;
}
}  // namespace puzzles
