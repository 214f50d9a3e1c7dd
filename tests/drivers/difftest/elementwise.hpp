// Elementwise programs (registered by elementwise.cpp and elementwise_more.cpp, compiled in
// parallel): a masked 2-D tile of a (any layout, a random mask, `other` where masked off)
// combined with b (a full tile, a row vector b[None, :] or a column vector
// b[:, None]) by one op, cast to the output type and stored.
#pragma once

#include "difftest.hpp"

namespace difftest {
namespace {

enum class bcast { full, row, col };
const char* to_string(bcast b) { return b == bcast::full ? "full" : b == bcast::row ? "row" : "col"; }

// The ops: the tl expression, and the reference, on doubles (floats) or on 64-bit integers
// (wrapped to the result's width afterwards).
struct op_add {
  static constexpr const char* name = "x + y";
  template <class X, class Y> TL_INLINE static auto apply(const X& x, const Y& y) { return x + y; }
  template <class V> static V ref(V x, V y) { return x + y; }
};
struct op_sub {
  static constexpr const char* name = "x - y";
  template <class X, class Y> TL_INLINE static auto apply(const X& x, const Y& y) { return x - y; }
  template <class V> static V ref(V x, V y) { return x - y; }
};
struct op_mul {
  static constexpr const char* name = "x * y";
  template <class X, class Y> TL_INLINE static auto apply(const X& x, const Y& y) { return x * y; }
  template <class V> static V ref(V x, V y) { return x * y; }
};
struct op_div {  // integers: truncating; x / 0 is all ones (tl's definition, the GPU's, for 32 bits and less)
  static constexpr const char* name = "x / y";
  template <class X, class Y> TL_INLINE static auto apply(const X& x, const Y& y) { return x / y; }
  template <class V> static V ref(V x, V y) {
    if constexpr (std::is_integral_v<V>) return y == 0 ? ~V(0) : x / y;  // C++ truncates too
    else return x / y;
  }
};
struct op_maximum {
  static constexpr const char* name = "maximum(x, y)";
  template <class X, class Y> TL_INLINE static auto apply(const X& x, const Y& y) { return tl::maximum(x, y); }
  template <class V> static V ref(V x, V y) { return std::max(x, y); }
};
struct op_minimum {
  static constexpr const char* name = "minimum(x, y)";
  template <class X, class Y> TL_INLINE static auto apply(const X& x, const Y& y) { return tl::minimum(x, y); }
  template <class V> static V ref(V x, V y) { return std::min(x, y); }
};
struct op_where {
  static constexpr const char* name = "where(x < y, x, y * 2)";
  template <class X, class Y> TL_INLINE static auto apply(const X& x, const Y& y) { return tl::where(x < y, x, y * 2); }
  template <class V> static V ref(V x, V y) { return x < y ? x : y * 2; }
};
struct op_exp2_add {
  static constexpr const char* name = "exp2(x) + y";
  template <class X, class Y> TL_INLINE static auto apply(const X& x, const Y& y) { return tl::exp2(x) + y; }
  template <class V> static V ref(V x, V y) { return std::exp2(x) + y; }
};
struct op_sqrt_mul {
  static constexpr const char* name = "sqrt(abs(x)) * y";
  template <class X, class Y> TL_INLINE static auto apply(const X& x, const Y& y) { return tl::sqrt(tl::abs(x)) * y; }
  template <class V> static V ref(V x, V y) { return std::sqrt(std::abs(x)) * y; }
};
struct op_xor {
  static constexpr const char* name = "x ^ y";
  template <class X, class Y> TL_INLINE static auto apply(const X& x, const Y& y) { return x ^ y; }
  template <class V> static V ref(V x, V y) { return x ^ y; }
};
struct op_shl {  // x << (y & 7)
  static constexpr const char* name = "x << (y & 7)";
  template <class X, class Y> TL_INLINE static auto apply(const X& x, const Y& y) { return x << (y & 7); }
  template <class V> static V ref(V x, V y) { return x * (V(1) << (y & 7)); }
};
struct op_fma {
  static constexpr const char* name = "fma(x, y, x)";
  template <class X, class Y> TL_INLINE static auto apply(const X& x, const Y& y) { return tl::fma(x, y, x); }
  template <class V> static V ref(V x, V y) { return x * y + x; }
};
struct op_cast {  // y is not used: the output type is the conversion under test
  static constexpr const char* name = "x (cast)";
  template <class X, class Y> TL_INLINE static auto apply(const X& x, const Y&) { return x; }
  template <class V> static V ref(V x, V) { return x; }
};

template <class Op, class TA, class TB, class TO, int BM, int BN, bcast B>
TL_KERNEL void elementwise_kernel(tl::ptr<const TA> a, tl::ptr<const TB> b, tl::ptr<const std::uint8_t> keep,
                                  tl::ptr<TO> out, int m, int n, int stride_am, int stride_an, TA other) {
  const auto rm = tl::program_id(0) * BM + tl::arange<0, BM>();
  const auto rn = tl::program_id(1) * BN + tl::arange<0, BN>();
  const auto in = (rm(tl::_, tl::None) < m) & (rn(tl::None, tl::_) < n);
  const auto offs = rm(tl::_, tl::None) * n + rn(tl::None, tl::_);
  const auto kept = tl::load(keep + offs, in, 0) != 0;
  const auto x = tl::load(a + rm(tl::_, tl::None) * stride_am + rn(tl::None, tl::_) * stride_an, in & kept, other);
  if constexpr (B == bcast::full) {
    const auto y = tl::load(b + offs, in);
    tl::store(out + offs, Op::apply(x, y).to(tl::dtype<TO>{}), in);
  } else if constexpr (B == bcast::row) {
    const auto y = tl::load(b + rn, rn < n);
    tl::store(out + offs, Op::apply(x, y(tl::None, tl::_)).to(tl::dtype<TO>{}), in);
  } else {
    const auto y = tl::load(b + rm, rm < m);
    tl::store(out + offs, Op::apply(x, y(tl::_, tl::None)).to(tl::dtype<TO>{}), in);
  }
}

// One program: Op on TA and TB computed as C (the promoted type: the reference rounds or
// wraps to it), stored as TO; inputs drawn from [lo, hi] (b: [b_lo, b_hi]).
template <class Op, class TA, class TB, class C, class TO, int BM, int BN, bcast B>
program elementwise(double lo, double hi, double b_lo, double b_hi, tolerance tol) {
  struct inputs {
    matrix_input<TA> a;
    std::vector<TB> b;
    std::vector<std::uint8_t> keep;
  };
  auto make = [=](const params& p) {
    auto g = data_rng(p);
    inputs in;
    in.a = make_matrix<TA>(g, p.m, p.n, p.lay, lo, hi);
    const std::size_t b_size = B == bcast::full ? std::size_t(p.m) * p.n : B == bcast::row ? p.n : p.m;
    in.b = random_values<TB>(g, b_size, b_lo, b_hi);
    in.keep = make_keep(g, p.m, p.n, p.keep);
    return in;
  };
  program pr;
  pr.name = std::string(Op::name) + " " + type_name<TA>() + "," + type_name<TB>() + "->" + type_name<TO>() + " " +
            std::to_string(BM) + "x" + std::to_string(BN) + " b:" + to_string(B);
  pr.family = "elementwise";
  pr.bm = BM;
  pr.bn = BN;
  pr.tol = tol;
  pr.run = [=](const params& p, tl::backend on) {
    const inputs in = make(p);
    std::vector<TO> out(std::size_t(p.m) * p.n, poison<TO>());
    outcome o;
    o.report = tl::launch<elementwise_kernel<Op, TA, TB, TO, BM, BN, B>>(
        tl::grid(tl::cdiv(p.m, BM), tl::cdiv(p.n, BN)), options_for(on), tl::ptr<const TA>(in.a.storage, "a"),
        tl::ptr<const TB>(in.b, "b"), tl::ptr<const std::uint8_t>(in.keep, "keep"), tl::ptr<TO>(out, "out"), p.m, p.n,
        in.a.stride_m, in.a.stride_n, from_double<TA>(p.other));
    o.out = as_doubles(out);
    return o;
  };
  pr.reference = [=](const params& p) {
    const inputs in = make(p);
    const double other = to_double(from_double<TA>(p.other));
    std::vector<double> want(std::size_t(p.m) * p.n);
    for (int i = 0; i < p.m; ++i)
      for (int j = 0; j < p.n; ++j) {
        const std::size_t e = std::size_t(i) * p.n + j;
        const double x = in.keep[e] ? in.a.at(i, j) : other;
        const double y = to_double(in.b[B == bcast::full ? e : B == bcast::row ? std::size_t(j) : std::size_t(i)]);
        if constexpr (is_float<C>)
          want[e] = round_as<TO>(round_as<C>(Op::ref(x, y)));
        else
          want[e] = round_as<TO>(double(wrap_as<C>(Op::ref(std::int64_t(x), std::int64_t(y)))));
      }
    return want;
  };
  return pr;
}

}  // namespace

// The second half of the elementwise programs (elementwise_more.cpp).
void add_more_elementwise_programs(std::vector<program>& programs);

}  // namespace difftest
