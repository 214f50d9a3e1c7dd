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
