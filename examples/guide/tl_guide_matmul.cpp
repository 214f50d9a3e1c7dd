// tl-guide, examples 3 and 4: matrix multiplication (naive, swizzle2d, grouped, autotuned).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "matmul.hpp"
#include "tl_guide_examples.hpp"

namespace guide {
namespace {
std::vector<tl::fp16> random_fp16(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist;
  std::vector<tl::fp16> v(n);
  for (auto& e : v) e = tl::fp16(dist(gen));
  return v;
}

// max |c - a @ b| over the elements, with the product in double.
double max_error(const tl::buffer<tl::fp16>& a, const tl::buffer<tl::fp16>& b, const tl::buffer<tl::fp16>& c) {
  const auto ha = a.to_host(), hb = b.to_host(), hc = c.to_host();
  const int m = int(a.shape(0)), k = int(a.shape(1)), n = int(b.shape(1));
  double worst = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int l = 0; l < k; ++l) s += double(float(ha[std::size_t(i * k + l)])) * double(float(hb[std::size_t(l * n + j)]));
      worst = std::max(worst, std::abs(s - double(float(hc[std::size_t(i * n + j)]))));
    }
  return worst;
}

}  // namespace

void matmul_example(tl::backend on, int size) {
  std::printf("== examples 3 and 4: matrix multiplication (backend %s)\n", tl::to_string(on));
  const tl::buffer<tl::fp16> ones_a(std::vector<tl::fp16>(12, tl::fp16(1.0f)), {3, 4}, on, "a");
  const tl::buffer<tl::fp16> ones_b(std::vector<tl::fp16>(20, tl::fp16(1.0f)), {4, 5}, on, "b");
  const auto all_fours = [](const tl::buffer<tl::fp16>& c) {
    for (tl::fp16 v : c.to_host())
      if (float(v) != 4.0f) return false;
    return true;
  };
  check(all_fours(naive_matmul(ones_a, ones_b)), "naive_matmul(ones(3, 4), ones(4, 5)) is all 4");
  if (on == tl::backend::cpu) {
    // The guide's kernel loads 16 x 16 tiles of the 3 x 4 and 4 x 5 matrices unmasked.
    tl::buffer<tl::fp16> c({3, 5}, on, "c");
    const auto r = matmul_into<unmasked_matmul_k<16, 16, 16>, 16, 16>(
        ones_a, ones_b, c, {.failure = tl::on_failure::collect});
    std::printf("  the guide's kernel, loads without masks:\n    %s\n",
                r.str().substr(0, r.str().find('\n', r.str().find('\n') + 1)).c_str());
    check(r.invalid_ops > 0, "the CPU backend reports its loads past the ends of a and b");
  }

  // swizzle2d on 5 x 4 programs, groups of 3
  std::vector<int> xs(20);
  for (int i = 0; i < 20; ++i) xs[std::size_t(i)] = i;
  const tl::buffer<int> x(xs, {5, 4}, on, "x");
  auto z = x.full_like(-1, "z");
  tl::launch<swizzle_k<3>>(tl::grid(5, 4), {.backend = on}, x, z);
  const std::vector<int> expect{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11, 12, 14, 16, 18, 13, 15, 17, 19};
  std::printf("  swizzle2d(5 x 4, group 3): %s\n", join(z.to_host()).c_str());
  check(z.to_host() == expect, "swizzle2d walks groups of 3 rows column by column");

  check(all_fours(grouped_matmul<4>(ones_a, ones_b)), "grouped_matmul(ones(3, 4), ones(4, 5), group 4) is all 4");

  const tl::buffer<tl::fp16> a(random_fp16(std::size_t(size) * std::size_t(size), 0), {size, size}, on, "a");
  const tl::buffer<tl::fp16> b(random_fp16(std::size_t(size) * std::size_t(size), 1), {size, size}, on, "b");
  const double e_naive = max_error(a, b, naive_matmul(a, b));
  check(e_naive < 5e-2, "naive_matmul at " + std::to_string(size) + "^3 matches the reference (max error " +
                            std::to_string(e_naive) + ", atol 5e-2)");
  const double e_grouped = max_error(a, b, grouped_matmul<32>(a, b));
  check(e_grouped < 5e-2, "grouped_matmul (group 32) matches (max error " + std::to_string(e_grouped) + ")");
  const double e_tuned = max_error(a, b, grouped_autotuned_matmul(a, b));
  const tl::tuning* t = grouped_autotuned_matmul_k.tuned({size, size, size}, on);
  check(e_tuned < 5e-2, "grouped_autotuned_matmul matches (max error " + std::to_string(e_tuned) + "), config " +
                            (t ? grouped_autotuned_matmul_k.describe(t->best) : std::string("?")));
}

}  // namespace guide
