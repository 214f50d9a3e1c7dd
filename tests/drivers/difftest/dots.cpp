// Dot programs: C (m x n) = A (m x k, any layout) @ B (k x n, or stored n x k and
// transposed in registers), in a loop over k with masked tiles (other 0), the accumulator in
// float32 (int32 for int8), one program per BM x BN tile of C, as in puzzle 11.
#include "difftest.hpp"

namespace difftest {
namespace {

template <class T, int BM, int BN, int BK, bool TransB>
TL_KERNEL void dot_kernel(tl::ptr<const T> a, tl::ptr<const T> b, tl::ptr<float> c, int m, int n, int k, int stride_am,
                          int stride_ak) {
  using acc_t = std::conditional_t<std::is_integral_v<T>, std::int32_t, float>;
  const auto rm = tl::program_id(0) * BM + tl::arange<0, BM>();
  const auto rn = tl::program_id(1) * BN + tl::arange<0, BN>();
  auto acc = tl::zeros<BM, BN>(tl::dtype<acc_t>{});
  for (int k0 = 0; k0 < k; k0 += BK) {
    const auto rk = k0 + tl::arange<0, BK>();
    const auto a_tile = tl::load(a + rm(tl::_, tl::None) * stride_am + rk(tl::None, tl::_) * stride_ak,
                                 (rm(tl::_, tl::None) < m) & (rk(tl::None, tl::_) < k), 0);
    if constexpr (TransB) {  // b is n x k: load BN x BK and transpose
      const auto b_tile = tl::load(b + rn(tl::_, tl::None) * k + rk(tl::None, tl::_),
                                   (rn(tl::_, tl::None) < n) & (rk(tl::None, tl::_) < k), 0);
      acc = tl::dot(a_tile, tl::trans(b_tile), acc);
    } else {
      const auto b_tile = tl::load(b + rk(tl::_, tl::None) * n + rn(tl::None, tl::_),
                                   (rk(tl::_, tl::None) < k) & (rn(tl::None, tl::_) < n), 0);
      acc = tl::dot(a_tile, b_tile, acc);
    }
  }
  tl::store(c + rm(tl::_, tl::None) * n + rn(tl::None, tl::_), acc.to(tl::float32),
            (rm(tl::_, tl::None) < m) & (rn(tl::None, tl::_) < n));
}

template <class T, int BM, int BN, int BK, bool TransB>
program dot_program(double lo, double hi, tolerance tol) {
  struct inputs {
    matrix_input<T> a;
    std::vector<T> b;
  };
  auto make = [=](const params& p) {
    auto g = data_rng(p);
    inputs in;
    in.a = make_matrix<T>(g, p.m, p.k, p.lay, lo, hi);
    in.b = random_values<T>(g, std::size_t(p.k) * p.n, lo, hi);
    return in;
  };
  auto b_at = [](const inputs& in, const params& p, int kk, int j) {
    return to_double(in.b[TransB ? std::size_t(j) * p.k + kk : std::size_t(kk) * p.n + j]);
  };
  program pr;
  pr.name = std::string("dot ") + type_name<T>() + " " + std::to_string(BM) + "x" + std::to_string(BN) + "x" +
            std::to_string(BK) + (TransB ? " b transposed" : "");
  pr.family = "dot";
  pr.bm = BM;
  pr.bn = BN;
  pr.bk = BK;
  pr.tol = tol;
  pr.run = [=](const params& p, tl::backend on) {
    const inputs in = make(p);
    std::vector<float> out(std::size_t(p.m) * p.n, poison<float>());
    outcome o;
    o.report = tl::launch<dot_kernel<T, BM, BN, BK, TransB>>(
        tl::grid(tl::cdiv(p.m, BM), tl::cdiv(p.n, BN)), options_for(on), tl::ptr<const T>(in.a.storage, "a"),
        tl::ptr<const T>(in.b, "b"), tl::ptr<float>(out, "c"), p.m, p.n, p.k, in.a.stride_m, in.a.stride_n);
    o.out = as_doubles(out);
    return o;
  };
  pr.reference = [=](const params& p) {
    const inputs in = make(p);
    std::vector<double> want(std::size_t(p.m) * p.n);
    for (int i = 0; i < p.m; ++i)
      for (int j = 0; j < p.n; ++j) {
        double s = 0;
        for (int kk = 0; kk < p.k; ++kk) s += in.a.at(i, kk) * b_at(in, p, kk, j);
        want[std::size_t(i) * p.n + j] = s;
      }
    return want;
  };
  pr.scale = [=](const params& p) {  // sum |a||b|: the size of the rounding errors
    const inputs in = make(p);
    std::vector<double> sc(std::size_t(p.m) * p.n);
    for (int i = 0; i < p.m; ++i)
      for (int j = 0; j < p.n; ++j) {
        double s = 0;
        for (int kk = 0; kk < p.k; ++kk) s += std::abs(in.a.at(i, kk) * b_at(in, p, kk, j));
        sc[std::size_t(i) * p.n + j] = s;
      }
    return sc;
  };
  return pr;
}

}  // namespace

void add_dot_programs(std::vector<program>& ps) {
  using tl::bf16;
  using tl::fp16;
  // abs: per unit of sum |a||b| (float32 accumulation; tf32 rounds float32 inputs to 10 bits).
  const tolerance acc32{1e-5, 0}, tf32{2e-3, 0}, exact{0, 0};
  ps.push_back(dot_program<fp16, 64, 64, 32, false>(-2, 2, acc32));
  ps.push_back(dot_program<bf16, 32, 64, 16, true>(-2, 2, acc32));
  ps.push_back(dot_program<float, 32, 32, 32, false>(-2, 2, tf32));
  ps.push_back(dot_program<std::int8_t, 64, 32, 32, false>(-128, 127, exact));
  ps.push_back(dot_program<fp16, 128, 128, 64, false>(-2, 2, acc32));
  ps.push_back(dot_program<fp16, 16, 16, 16, true>(-2, 2, acc32));
}

}  // namespace difftest
