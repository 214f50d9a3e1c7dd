// Reductions (registers, lane butterflies, shuffles and shared memory) against the CPU.
#include "gpu_testing.hpp"

using namespace gpu_testing;
using tl::None;
using tl::_;

// Every reduction along Axis of a masked (B0, B1) tile, plus the whole-tile sum and max, in
// three kernels (Which): the values, argmax, argmin. (One kernel with all of them compiles
// many times slower: the compiler's optimizations grow faster than the kernel.)
template <int B0, int B1, int Axis, int Which>
TL_KERNEL void reductions_kernel(tl::ptr<float> x_ptr, tl::ptr<float> f_ptr, tl::ptr<int> i_ptr, int N0, int N1) {
  auto r = tl::arange<0, B0>();
  auto c = tl::arange<0, B1>();
  auto m = (r(_, None) < N0) & (c(None, _) < N1);
  auto x = tl::load(x_ptr + r(_, None) * N1 + c(None, _), m, -tl::inf);
  constexpr int n = Axis == 0 ? B1 : B0;
  auto o = tl::arange<0, n>();
  auto xs = tl::where(m, x, 0.0f);
  if constexpr (Which == 0) {
    tl::store(f_ptr + o, tl::sum<Axis>(xs));
    tl::store(f_ptr + n + o, tl::max<Axis>(x));
    tl::store(f_ptr + 2 * n + o, tl::min<Axis>(tl::where(m, x, tl::inf)));
    tl::store(f_ptr + 3 * n, tl::sum(xs));
    tl::store(f_ptr + 3 * n + 1, tl::max(x));
    auto kept = tl::sum<Axis>(xs, tl::keep_dims);  // broadcast back: a staged operand
    tl::store(f_ptr + 3 * n + 2 + r(_, None) * B1 + c(None, _), xs - kept);
  } else if constexpr (Which == 1) {
    tl::store(i_ptr + o, tl::argmax<Axis>(x));
  } else {
    tl::store(i_ptr + n + o, tl::argmin<Axis>(tl::where(m, x, tl::inf)));
  }
}

template <int B0, int B1, int Axis>
void check_reductions(bool with_ties_and_nans) {
  constexpr int n = Axis == 0 ? B1 : B0;
  const int n0 = random_int(1, B0), n1 = random_int(1, B1);
  auto x = random_values(std::size_t(n0) * n1, -2, 2);
  if (with_ties_and_nans)
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] = std::floor(x[i]);  // few distinct values: many ties
      if (i % 17 == 3) x[i] = NAN;
    }
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> f(std::size_t(3 * n + 2 + B0 * B1), -7.0f);
    std::vector<int> idx(std::size_t(2 * n), -7);
    tl::launch<reductions_kernel<B0, B1, Axis, 0>>(tl::grid(1), o, x, f, idx, n0, n1);
    tl::launch<reductions_kernel<B0, B1, Axis, 1>>(tl::grid(1), o, x, f, idx, n0, n1);
    tl::launch<reductions_kernel<B0, B1, Axis, 2>>(tl::grid(1), o, x, f, idx, n0, n1);
    return std::make_pair(f, idx);
  };
  const auto a = run(cpu), b = run(cuda);
  const std::string what = std::to_string(B0) + "x" + std::to_string(B1) + " axis " + std::to_string(Axis) +
                           " sizes " + std::to_string(n0) + "x" + std::to_string(n1);
  require_agree(a.first, b.first, 1e-4, 1e-5, what + " values");
  require_agree(a.second, b.second, 0, 0, what + " indices");
}

TEST_CASE("sum, max, min, argmax, argmin agree along each axis, with ties and NaNs", "[gpu][reduce]") {
  for (int rep = 0; rep < 3; ++rep) {
    const bool hard = rep > 0;
    check_reductions<16, 64, 0>(hard);
    check_reductions<16, 64, 1>(hard);
    check_reductions<128, 8, 0>(hard);
    check_reductions<128, 8, 1>(hard);
    check_reductions<4, 1024, 1>(hard);
    check_reductions<1024, 2, 0>(hard);
    check_reductions<2, 4, 1>(hard);
    // Results that stay in their warp and move by shuffles (round-robin layouts, warps on the
    // top bits), some from slots that differ between the lanes reading them.
    check_reductions<64, 4, 1>(hard);
    check_reductions<256, 2, 1>(hard);
    check_reductions<8, 256, 1>(hard);
    check_reductions<32, 8, 1>(hard);
    check_reductions<16, 8, 0>(hard);
  }
}

// A row's reduction taken back to the row: x(_, None) and keep_dims blocks read in
// assignments and a reduction's input (gathered into registers by warp shuffles where the
// row's warp holds them, staged in shared memory where it does not), in both register orders,
// and in a store's value (staged), against the CPU.
template <class T, int B0, int B1>
TL_KERNEL void row_broadcast_kernel(tl::ptr<const T> x_ptr, tl::ptr<T> y_ptr, tl::ptr<float> f_ptr, int N0, int N1) {
  auto r = tl::arange<0, B0>();
  auto c = tl::arange<0, B1>();
  auto m = (r(_, None) < N0) & (c(None, _) < N1);
  auto offs = r(_, None) * B1 + c(None, _);
  auto x = tl::load(x_ptr + r(_, None) * N1 + c(None, _), m, T(0));  // the standard order
  auto mx = tl::max<1>(x);
  auto total = tl::sum<1>(x.to(tl::float32), tl::keep_dims);
  tl::block<T, B0, B1> y = x;  // a computed block: the accumulator order where tiled
  y -= mx(_, None).to(tl::dtype<T>{});
  auto acc = tl::full<B0, B1>(1.0f, tl::float32);  // the accumulator order where tiled
  acc = acc * mx(_, None).to(tl::float32) + total;
  auto xs = tl::eval(x.to(tl::float32) - total);  // the standard order, a keep_dims block
  tl::store(y_ptr + offs, y, m);
  tl::store(f_ptr + offs, acc, m);
  tl::store(f_ptr + B0 * B1 + offs, xs, m);
  tl::store(f_ptr + 2 * B0 * B1 + r, tl::sum<1>(x.to(tl::float32) * mx(_, None).to(tl::float32)));
  tl::store(f_ptr + 2 * B0 * B1 + B0 + offs, x.to(tl::float32) * total);  // a store's value: staged
}

template <class T, int B0, int B1>
void check_row_broadcast() {
  const int n0 = random_int(1, B0), n1 = random_int(1, B1);
  auto x = random_values<T>(std::size_t(n0) * n1, -4, 4);
  auto run = [&](const tl::launch_options& o) {
    std::vector<T> y(std::size_t(B0) * B1, T(-7.0f));
    std::vector<float> f(std::size_t(3 * B0 * B1 + B0), -7.0f);
    tl::launch<row_broadcast_kernel<T, B0, B1>>(tl::grid(1), o, x, y, f, n0, n1);
    return std::make_pair(y, f);
  };
  const auto a = run(cpu), b = run(cuda);
  const std::string what = std::to_string(B0) + "x" + std::to_string(B1) + " sizes " + std::to_string(n0) + "x" +
                           std::to_string(n1) + (sizeof(T) == 2 ? " fp16" : " fp32");
  require_agree(a.first, b.first, 0, 0, what + " y");
  require_agree(a.second, b.second, 1e-3, 1e-5, what + " f");
}

TEST_CASE("a row's reduction broadcast back to the row agrees, gathered or staged", "[gpu][reduce]") {
  for (int rep = 0; rep < 3; ++rep) {
    check_row_broadcast<float, 64, 64>();    // gathered: rows r, r + 8 of the row's warp
    check_row_broadcast<float, 64, 128>();
    check_row_broadcast<tl::fp16, 64, 64>();
    check_row_broadcast<float, 128, 64>();   // rows 64.. in other warps: staged
    check_row_broadcast<float, 32, 64>();    // row bit 4 on a warp in one layout, a lane in the other: staged
    check_row_broadcast<tl::fp16, 256, 4>();  // round-robin, rows in other warps: staged
    check_row_broadcast<float, 64, 4>();     // round-robin, gathered
    check_row_broadcast<float, 16, 256>();   // a replicated (16,) block: read from registers
  }
}
