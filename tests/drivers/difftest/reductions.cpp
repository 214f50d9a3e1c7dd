// Reduction programs: a masked BM x BN tile of a (any layout, a random mask, `other` where
// masked off; lanes past the edge are masked off too, so they reduce as `other`) reduced
// along one axis, one program per block of the other axis; and a row softmax (max, exp2,
// sum, divide: puzzle 8's pattern) that stores the whole tile.
#include <algorithm>

#include "difftest.hpp"

namespace difftest {
namespace {

enum class reduction { sum, max, min, argmax, argmin, softmax };
const char* to_string(reduction r) {
  switch (r) {
    case reduction::sum: return "sum";
    case reduction::max: return "max";
    case reduction::min: return "min";
    case reduction::argmax: return "argmax";
    case reduction::argmin: return "argmin";
    default: return "softmax";
  }
}

template <reduction R, int Axis, class X>
TL_INLINE auto reduce(const X& x) {
  if constexpr (R == reduction::sum) return tl::sum<Axis>(x);
  else if constexpr (R == reduction::max) return tl::max<Axis>(x);
  else if constexpr (R == reduction::min) return tl::min<Axis>(x);
  else if constexpr (R == reduction::argmax) return tl::argmax<Axis>(x);
  else return tl::argmin<Axis>(x);
}

// The reduced axis is covered by one block (m <= BM for Axis 0, n <= BN for Axis 1); programs
// walk the other axis.
template <reduction R, class T, int BM, int BN, int Axis>
TL_KERNEL void reduction_kernel(tl::ptr<const T> a, tl::ptr<const std::uint8_t> keep, tl::ptr<float> out, int m, int n,
                                int stride_am, int stride_an, T other) {
  const int pid = tl::program_id(0);
  const auto rm = (Axis == 1 ? pid * BM : 0) + tl::arange<0, BM>();
  const auto rn = (Axis == 0 ? pid * BN : 0) + tl::arange<0, BN>();
  const auto in = (rm(tl::_, tl::None) < m) & (rn(tl::None, tl::_) < n);
  const auto kept = tl::load(keep + rm(tl::_, tl::None) * n + rn(tl::None, tl::_), in, 0) != 0;
  const auto x = tl::load(a + rm(tl::_, tl::None) * stride_am + rn(tl::None, tl::_) * stride_an, in & kept, other);
  if constexpr (R == reduction::softmax) {  // along axis 1, in float32
    const auto xf = x.to(tl::float32);
    const auto e = tl::exp2(xf - tl::max<1>(xf)(tl::_, tl::None));
    const auto s = e / tl::sum<1>(e)(tl::_, tl::None);
    tl::store(out + rm(tl::_, tl::None) * n + rn(tl::None, tl::_), s, in);
  } else if constexpr (Axis == 1) {
    tl::store(out + rm, reduce<R, 1>(x).to(tl::float32), rm < m);
  } else {
    tl::store(out + rn, reduce<R, 0>(x).to(tl::float32), rn < n);
  }
}

template <reduction R, class T, int BM, int BN, int Axis>
program reduction_program(double lo, double hi, tolerance tol) {
  struct inputs {
    matrix_input<T> a;
    std::vector<std::uint8_t> keep;
  };
  // The reduced axis fits one block: the sizes are clamped to it.
  auto fit = [](params p) {
    if (Axis == 0 && R != reduction::softmax) p.m = std::min(p.m, BM);
    else p.n = std::min(p.n, BN);
    return p;
  };
  auto make = [=](const params& p) {
    auto g = data_rng(p);
    inputs in;
    in.a = make_matrix<T>(g, p.m, p.n, p.lay, lo, hi);
    in.keep = make_keep(g, p.m, p.n, p.keep);
    return in;
  };
  auto out_size = [](const params& p) {
    return R == reduction::softmax ? std::size_t(p.m) * p.n : Axis == 1 ? std::size_t(p.m) : std::size_t(p.n);
  };
  program pr;
  pr.name = std::string(to_string(R)) + (R == reduction::softmax ? "" : "<" + std::to_string(Axis) + ">") + " " +
            type_name<T>() + " " + std::to_string(BM) + "x" + std::to_string(BN);
  pr.family = "reduction";
  pr.bm = BM;
  pr.bn = BN;
  pr.tol = tol;
  pr.run = [=](const params& p_in, tl::backend on) {
    const params p = fit(p_in);
    const inputs in = make(p);
    std::vector<float> out(out_size(p), poison<float>());
    const int programs = R == reduction::softmax || Axis == 1 ? tl::cdiv(p.m, BM) : tl::cdiv(p.n, BN);
    outcome o;
    o.report = tl::launch<reduction_kernel<R, T, BM, BN, Axis>>(
        tl::grid(programs), options_for(on), tl::ptr<const T>(in.a.storage, "a"),
        tl::ptr<const std::uint8_t>(in.keep, "keep"), tl::ptr<float>(out, "out"), p.m, p.n, in.a.stride_m,
        in.a.stride_n, from_double<T>(p.other));
    o.out = as_doubles(out);
    return o;
  };
  pr.reference = [=](const params& p_in) {
    const params p = fit(p_in);
    const inputs in = make(p);
    const double other = to_double(from_double<T>(p.other));
    // The lane (i, j) of the block that holds it: masked off (past the edge or not kept) -> other.
    auto lane = [&](int i, int j) {
      const bool inside = i < p.m && j < p.n;
      return inside && in.keep[std::size_t(i) * p.n + j] ? in.a.at(i, j) : other;
    };
    std::vector<double> want(out_size(p));
    if constexpr (R == reduction::softmax) {
      for (int i = 0; i < p.m; ++i) {
        double mx = -INFINITY, s = 0;
        for (int j = 0; j < BN; ++j) mx = std::max(mx, lane(i, j));
        for (int j = 0; j < BN; ++j) s += std::exp2(lane(i, j) - mx);
        for (int j = 0; j < p.n; ++j) want[std::size_t(i) * p.n + j] = std::exp2(lane(i, j) - mx) / s;
      }
    } else {
      const int outer = Axis == 1 ? p.m : p.n, inner = Axis == 1 ? BN : BM;
      for (int o = 0; o < outer; ++o) {
        double acc = 0;
        int best = 0;
        for (int r = 0; r < inner; ++r) {
          const double v = Axis == 1 ? lane(o, r) : lane(r, o);
          if (R == reduction::sum) acc += v;
          else if (r == 0) acc = v;
          else if ((R == reduction::max || R == reduction::argmax) ? v > acc : v < acc) acc = v, best = r;
        }
        // A sum of integers wraps at 32 bits (the result type of summing int8 or int32).
        if (R == reduction::sum && !is_float<T>) acc = round_as<std::int32_t>(acc);
        want[std::size_t(o)] = R == reduction::argmax || R == reduction::argmin ? double(best) : round_as<float>(acc);
      }
    }
    return want;
  };
  if constexpr (R == reduction::sum && is_float<T>) {
    // A float sum's rounding depends on its order: the tolerance scales with sum |x|.
    pr.scale = [=](const params& p_in) {
      const params p = fit(p_in);
      const inputs in = make(p);
      const double other = std::abs(to_double(from_double<T>(p.other)));
      std::vector<double> sc(out_size(p), 0.0);
      const int outer = Axis == 1 ? p.m : p.n, inner = Axis == 1 ? BN : BM;
      for (int o = 0; o < outer; ++o)
        for (int r = 0; r < inner; ++r) {
          const int i = Axis == 1 ? o : r, j = Axis == 1 ? r : o;
          const bool inside = i < p.m && j < p.n && in.keep[std::size_t(i) * p.n + j];
          sc[std::size_t(o)] += inside ? std::abs(in.a.at(i, j)) : other;
        }
      return sc;
    };
  }
  return pr;
}

}  // namespace

void add_reduction_programs(std::vector<program>& ps) {
  using tl::bf16;
  using i32 = std::int32_t;
  using i8 = std::int8_t;
  const tolerance sum32{2e-6, 1e-6}, exact{0, 0};  // sum32: abs per unit of sum |x|
  ps.push_back(reduction_program<reduction::sum, float, 32, 64, 1>(-4, 4, sum32));
  ps.push_back(reduction_program<reduction::sum, i32, 64, 32, 0>(-2147483647.0, 2147483647.0, exact));
  ps.push_back(reduction_program<reduction::sum, i8, 16, 128, 1>(-128, 127, exact));
  ps.push_back(reduction_program<reduction::max, float, 16, 128, 1>(-4, 4, exact));
  ps.push_back(reduction_program<reduction::min, bf16, 32, 32, 0>(-4, 4, exact));
  ps.push_back(reduction_program<reduction::argmax, float, 32, 64, 1>(-4, 4, exact));
  ps.push_back(reduction_program<reduction::argmin, i32, 64, 16, 0>(-50, 50, exact));
  ps.push_back(reduction_program<reduction::softmax, float, 16, 128, 1>(-8, 8, {1e-6, 1e-5}));
}

}  // namespace difftest
