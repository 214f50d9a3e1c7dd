// Puzzle 8: long softmax.
// z_{i,j} = softmax(x_{i,1} .. x_{i,T})_j, numerically stable, with exp2 (exp(x) = 2^(x log2 e)).
// Each program handles B0 rows, B1 elements at a time.
//
// softmax_kernel: two loops. The first keeps a running max m and a running denominator d:
// when the max grows from m to m', the old terms rescale by exp(m - m'), so
// d' = d * exp(m - m') + sum exp(x - m'). The second loop writes exp(x - m) / d.
// softmax_kernel_three_loops: max, then denominator, then output, one loop each.
// (The original signature's unused N1 parameter is dropped.)
#include "harness.hpp"

using tl::None;
using tl::_;

// Triton: def softmax_kernel(x_ptr, z_ptr, N0, N1, T, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void softmax_kernel(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, int N0, int T) {
  auto block_id_i = tl::program_id(0);
  const float log2_e = 1.44269504f;
  auto off_i = block_id_i * B0 + tl::arange<0, B0>();
  auto mask_i = off_i < N0;
  // x_max and sum_x_exp, in one pass
  auto x_max = tl::full<B0>(-tl::inf, tl::float32);
  auto sum_x_exp = tl::zeros<B0>(tl::float32);
  for (int j : tl::range(0, T, B1)) {
    auto off_j = j + tl::arange<0, B1>();
    auto off_ij = off_i(_, None) * T + off_j(None, _);
    auto mask_j = off_j < T;
    auto mask_ij = mask_i(_, None) & mask_j(None, _);
    auto x = tl::load(x_ptr + off_ij, mask_ij, -tl::inf);
    auto x_max_now = tl::maximum(x_max, tl::max<1>(x));
    auto x_exp = tl::exp2(log2_e * (x - x_max_now(_, None)));
    auto factor = tl::exp2(log2_e * (x_max - x_max_now));
    sum_x_exp = sum_x_exp * factor + tl::sum<1>(x_exp);
    x_max = x_max_now;
  }
  // softmax
  for (int j : tl::range(0, T, B1)) {
    auto off_j = j + tl::arange<0, B1>();
    auto off_ij = off_i(_, None) * T + off_j(None, _);
    auto mask_j = off_j < T;
    auto mask_ij = mask_i(_, None) & mask_j(None, _);
    auto x = tl::load(x_ptr + off_ij, mask_ij);
    auto x_exp = tl::exp2(log2_e * (x - x_max(_, None)));
    auto z = x_exp / sum_x_exp(_, None);
    tl::store(z_ptr + off_ij, z, mask_ij);
  }
}

// Triton: def softmax_kernel_brute_force(x_ptr, z_ptr, N0, N1, T, B0: tl.constexpr, B1: tl.constexpr)
template <int B0, int B1>
TL_KERNEL void softmax_kernel_three_loops(tl::ptr<float> x_ptr, tl::ptr<float> z_ptr, int N0, int T) {
  auto block_id_i = tl::program_id(0);
  const float log2_e = 1.44269504f;
  auto off_i = block_id_i * B0 + tl::arange<0, B0>();
  auto mask_i = off_i < N0;
  // x_max
  auto x_max = tl::full<B0>(-tl::inf, tl::float32);
  for (int j : tl::range(0, T, B1)) {
    auto off_j = j + tl::arange<0, B1>();
    auto off_ij = off_i(_, None) * T + off_j(None, _);
    auto mask_j = off_j < T;
    auto mask_ij = mask_i(_, None) & mask_j(None, _);
    auto x = tl::load(x_ptr + off_ij, mask_ij, -tl::inf);
    x_max = tl::maximum(x_max, tl::max<1>(x));
  }
  // sum_x_exp
  auto sum_x_exp = tl::zeros<B0>(tl::float32);
  for (int j : tl::range(0, T, B1)) {
    auto off_j = j + tl::arange<0, B1>();
    auto off_ij = off_i(_, None) * T + off_j(None, _);
    auto mask_j = off_j < T;
    auto mask_ij = mask_i(_, None) & mask_j(None, _);
    auto x = tl::load(x_ptr + off_ij, mask_ij, -tl::inf);
    auto x_exp = tl::exp2(log2_e * (x - x_max(_, None)));
    sum_x_exp += tl::sum<1>(x_exp);
  }
  // softmax
  for (int j : tl::range(0, T, B1)) {
    auto off_j = j + tl::arange<0, B1>();
    auto off_ij = off_i(_, None) * T + off_j(None, _);
    auto mask_j = off_j < T;
    auto mask_ij = mask_i(_, None) & mask_j(None, _);
    auto x = tl::load(x_ptr + off_ij, mask_ij);
    auto x_exp = tl::exp2(log2_e * (x - x_max(_, None)));
    auto z = x_exp / sum_x_exp(_, None);
    tl::store(z_ptr + off_ij, z, mask_ij);
  }
}

static std::vector<double> softmax_spec(const std::vector<float>& x, int n0, int t) {
  std::vector<double> z(x.size());
  for (int i = 0; i < n0; ++i) {
    const float* row = x.data() + std::size_t(i) * t;
    double m = -INFINITY, d = 0;
    for (int j = 0; j < t; ++j) m = std::max(m, double(row[j]));
    for (int j = 0; j < t; ++j) d += std::exp(double(row[j]) - m);
    for (int j = 0; j < t; ++j) z[std::size_t(i) * t + j] = std::exp(double(row[j]) - m) / d;
  }
  return z;
}

namespace {
// The compile-time parameters, in the order of the configurations compiled below.
constexpr const char* constexpr_names[] = {"B0", "B1"};
using blocks = puzzles::configs<puzzles::cfg<1, 32>, puzzles::cfg<4, 64>, puzzles::cfg<2, 16>>;
}  // namespace

namespace puzzles {
template <template <int, int> class Kernel>
static outcome run_softmax(const request& r) {
  return blocks::dispatch(constexpr_names, r.c, [&](auto c) {
    constexpr int B0 = decltype(c)::v[0], B1 = decltype(c)::v[1];
    rng g(r.seed);
    auto x = random_floats(std::size_t(r.n.N0) * r.n.T, g);
    auto z = poisoned(x.size());
    outcome o;
    o.report = tl::launch<Kernel<B0, B1>::run>(tl::grid(tl::cdiv(r.n.N0, B0)), r.launch, tl::ptr(x, "x"),
                                                tl::ptr(z, "z"), r.n.N0, r.n.T);
    compare(o, z, softmax_spec(x, r.n.N0, r.n.T), {r.n.N0, r.n.T});
    return o;
  });
}

template <int B0, int B1>
struct two_loops {
  static constexpr auto run = softmax_kernel<B0, B1>;
};
template <int B0, int B1>
struct three_loops {
  static constexpr auto run = softmax_kernel_three_loops<B0, B1>;
};

static puzzle softmax_puzzle(std::string id, std::string formula) {
  puzzle p;
  p.id = std::move(id);
  p.number = 8;
  p.title = "long softmax";
  p.formula = std::move(formula);
  p.size_names = {"N0", "T"};
  p.constexpr_names = {std::begin(constexpr_names), std::end(constexpr_names)};
  p.puzzle_sizes = {.N0 = 4, .T = 200};
  p.puzzle_constexprs = {.B0 = 1, .B1 = 32};
  p.compiled = blocks::list(constexpr_names);
  p.random_sizes = [](const constexprs&, rng& g) { return sizes{.N0 = random_int(g, 1, 20), .T = random_int(g, 1, 500)}; };
  return p;
}

puzzle puzzle_08() {
  puzzle p = softmax_puzzle("8", "z[i,:] = softmax(x[i,:]), two loops (online max and denominator)");
  p.run = run_softmax<two_loops>;
  return p;
}

puzzle puzzle_08_three_loops() {
  puzzle p = softmax_puzzle("8/3loop", "z[i,:] = softmax(x[i,:]), three loops (max, denominator, output)");
  p.run = run_softmax<three_loops>;
  return p;
}
}  // namespace puzzles
