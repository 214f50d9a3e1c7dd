// Scan, sort, gather and atomic programs: a masked BM x BN tile of a (any layout; masked-off
// lanes and lanes past the edge read `other`) scanned or sorted along one axis, gathered along
// rows by indices made from the data (some outside the row: they read 0), and every program
// adding its tile into a few counters at once (atomics under contention).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "difftest.hpp"

namespace difftest {
namespace {

enum class movement { cumsum, cumsum_reverse, sort, sort_descending, gather, atomic_add };
const char* to_string(movement r) {
  switch (r) {
    case movement::cumsum: return "cumsum";
    case movement::cumsum_reverse: return "cumsum reverse";
    case movement::sort: return "sort";
    case movement::sort_descending: return "sort descending";
    case movement::gather: return "gather";
    default: return "atomic_add";
  }
}

// A float to int32 as tl converts: truncated, saturated, NaN to 0.
int to_i32(float f) {
  if (!(f == f)) return 0;
  if (f >= 2147483647.0f) return 2147483647;
  if (f <= -2147483648.0f) return -2147483647 - 1;
  return int(f);
}

// The order tl::sort promises, on doubles: NaN after everything, -0 before +0.
bool before(double a, double b) {
  if (std::isnan(b)) return !std::isnan(a);
  if (std::isnan(a)) return false;
  if (a == 0 && b == 0) return std::signbit(a) && !std::signbit(b);
  return a < b;
}

template <movement R, class T, int BM, int BN, int Axis>
TL_KERNEL void movement_kernel(tl::ptr<const T> a, tl::ptr<const std::uint8_t> keep, tl::ptr<float> out, tl::ptr<T> counters,
                               int m, int n, int stride_am, int stride_an, T other) {
  const int pid = tl::program_id(0);
  const auto rm = (Axis == 1 ? pid * BM : 0) + tl::arange<0, BM>();
  const auto rn = (Axis == 0 ? pid * BN : 0) + tl::arange<0, BN>();
  const auto in = (rm(tl::_, tl::None) < m) & (rn(tl::None, tl::_) < n);
  const auto kept = tl::load(keep + rm(tl::_, tl::None) * n + rn(tl::None, tl::_), in, 0) != 0;
  const auto x = tl::load(a + rm(tl::_, tl::None) * stride_am + rn(tl::None, tl::_) * stride_an, in & kept, other);
  const auto at = out + rm(tl::_, tl::None) * n + rn(tl::None, tl::_);
  if constexpr (R == movement::cumsum) tl::store(at, tl::cumsum<Axis>(x).to(tl::float32), in);
  else if constexpr (R == movement::cumsum_reverse) tl::store(at, tl::cumsum<Axis>(x, tl::reverse).to(tl::float32), in);
  else if constexpr (R == movement::sort) tl::store(at, tl::sort<Axis>(x).to(tl::float32), in);
  else if constexpr (R == movement::sort_descending) tl::store(at, tl::sort<Axis>(x, tl::descending).to(tl::float32), in);
  else if constexpr (R == movement::gather) {
    // Row indices from the data: |x| * 3 mod (BN + 4), some past the row's BN lanes (read 0).
    const auto idx = (tl::abs(x.to(tl::float32)) * 3.0f).to(tl::int32) % (BN + 4);
    tl::store(at, tl::gather<1>(x, idx).to(tl::float32), in);
  } else {
    // Every program adds its tile into 4 counters (columns mod 4), all at once.
    tl::atomic_add(counters + (rn(tl::None, tl::_) % 4) + rm(tl::_, tl::None) * 0, x, in);
  }
}

template <movement R, class T, int BM, int BN, int Axis>
program movement_program(double lo, double hi, tolerance tol) {
  struct inputs {
    matrix_input<T> a;
    std::vector<std::uint8_t> keep;
  };
  auto fit = [](params p) {  // the scanned or sorted axis fits one block
    if (Axis == 0) p.m = std::min(p.m, BM);
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
  auto out_size = [](const params& p) { return R == movement::atomic_add ? std::size_t(4) : std::size_t(p.m) * p.n; };
  program pr;
  pr.name = std::string(to_string(R)) + "<" + std::to_string(Axis) + "> " + type_name<T>() + " " + std::to_string(BM) + "x" +
            std::to_string(BN);
  pr.family = "scan";
  pr.bm = BM;
  pr.bn = BN;
  pr.tol = tol;
  pr.run = [=](const params& p_in, tl::backend on) {
    const params p = fit(p_in);
    const inputs in = make(p);
    std::vector<float> out(std::size_t(p.m) * p.n, poison<float>());
    std::vector<T> counters(4, T(0));
    const int programs = Axis == 1 ? tl::cdiv(p.m, BM) : tl::cdiv(p.n, BN);
    outcome o;
    o.report = tl::launch<movement_kernel<R, T, BM, BN, Axis>>(
        tl::grid(programs), options_for(on), tl::ptr<const T>(in.a.storage, "a"), tl::ptr<const std::uint8_t>(in.keep, "keep"),
        tl::ptr<float>(out, "out"), tl::ptr<T>(counters, "counters"), p.m, p.n, in.a.stride_m, in.a.stride_n,
        from_double<T>(p.other));
    o.out = R == movement::atomic_add ? as_doubles(counters) : as_doubles(out);
    return o;
  };
  pr.reference = [=](const params& p_in) {
    const params p = fit(p_in);
    const inputs in = make(p);
    const double other = to_double(from_double<T>(p.other));
    auto lane = [&](int i, int j) {  // masked off (past the edge or not kept): other
      const bool inside = i < p.m && j < p.n;
      return inside && in.keep[std::size_t(i) * p.n + j] ? in.a.at(i, j) : other;
    };
    std::vector<double> want(out_size(p), 0.0);
    if constexpr (R == movement::atomic_add) {
      const int rows = Axis == 1 ? tl::cdiv(p.m, BM) * BM : BM, cols = Axis == 0 ? tl::cdiv(p.n, BN) * BN : BN;
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
          if (i < p.m && j < p.n) want[std::size_t(j % 4)] += lane(i, j);
      if constexpr (!is_float<T>)
        for (auto& w : want) w = round_as<T>(w);
    } else if constexpr (R == movement::gather) {
      for (int i = 0; i < p.m; ++i)
        for (int j = 0; j < p.n; ++j) {
          const int k = to_i32(std::abs(float(lane(i, j))) * 3.0f) % (BN + 4);
          want[std::size_t(i) * p.n + j] = k < BN ? double(float(lane(i, k))) : 0.0;
        }
    } else {
      const int lines = Axis == 1 ? p.m : p.n, len = Axis == 1 ? BN : BM;
      for (int l = 0; l < lines; ++l) {
        std::vector<double> v(static_cast<std::size_t>(len));
        for (int r = 0; r < len; ++r) v[std::size_t(r)] = Axis == 1 ? lane(l, r) : lane(r, l);
        if constexpr (R == movement::sort || R == movement::sort_descending) {
          std::stable_sort(v.begin(), v.end(), before);
          if (R == movement::sort_descending) std::reverse(v.begin(), v.end());
        } else {
          if (R == movement::cumsum_reverse) std::reverse(v.begin(), v.end());
          for (int r = 1; r < len; ++r) v[std::size_t(r)] += v[std::size_t(r - 1)];
          if (R == movement::cumsum_reverse) std::reverse(v.begin(), v.end());
          if constexpr (!is_float<T>)
            for (auto& e : v) e = round_as<std::int32_t>(e);
        }
        for (int r = 0; r < len; ++r) {
          const int i = Axis == 1 ? l : r, j = Axis == 1 ? r : l;
          if (i < p.m && j < p.n) want[std::size_t(i) * p.n + j] = round_as<float>(v[std::size_t(r)]);
        }
      }
    }
    return want;
  };
  if constexpr ((R == movement::cumsum || R == movement::cumsum_reverse || R == movement::atomic_add) && is_float<T>) {
    // A float sum's rounding depends on its order: the tolerance scales with the sum of |x|.
    pr.scale = [=](const params& p_in) {
      const params p = fit(p_in);
      const inputs in = make(p);
      double total = 0;
      for (int i = 0; i < p.m; ++i)
        for (int j = 0; j < p.n; ++j) total += in.keep[std::size_t(i) * p.n + j] ? std::abs(in.a.at(i, j)) : std::abs(p.other);
      return std::vector<double>(out_size(p), total + 1);
    };
  }
  return pr;
}

}  // namespace

void add_scan_programs(std::vector<program>& ps) {
  using i32 = std::int32_t;
  const tolerance sum32{2e-6, 1e-6}, exact{0, 0};
  ps.push_back(movement_program<movement::cumsum, float, 16, 64, 1>(-4, 4, sum32));
  ps.push_back(movement_program<movement::cumsum_reverse, float, 64, 16, 0>(-4, 4, sum32));
  ps.push_back(movement_program<movement::cumsum, i32, 32, 32, 0>(-1000, 1000, exact));
  ps.push_back(movement_program<movement::sort, i32, 16, 64, 1>(-5, 5, exact));  // ties
  ps.push_back(movement_program<movement::sort_descending, float, 64, 16, 0>(-4, 4, exact));
  ps.push_back(movement_program<movement::gather, float, 16, 32, 1>(-8, 8, exact));
  ps.push_back(movement_program<movement::atomic_add, i32, 16, 64, 1>(-1000, 1000, exact));
  ps.push_back(movement_program<movement::atomic_add, float, 32, 32, 1>(-4, 4, sum32));
}

}  // namespace difftest
