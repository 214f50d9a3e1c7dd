// tl-guide: the examples of the practitioner's guide to Triton, in tl, each run and checked.
//
//   tl-guide copy                      example 1: the guide's two mistakes, the reports that
//                                      name them (CPU backend), and the right kernel
//   tl-guide grey [--image F] [-o F]   example 2: a PNG photo to greyscale
//   tl-guide matmul [--size N]         examples 3 and 4: naive, swizzle2d, grouped, autotuned
//   tl-guide all                       all three
//   ... --backend cuda                 on the GPU (a CUDA build)
// Exit status 0 when every check passed.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "copy.hpp"
#include "grey.hpp"
#include "image_png.hpp"
#include "matmul.hpp"

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "  [ok]  " : "  [FAIL]", what.c_str());
  if (!ok) ++failures;
}

std::string join(const std::vector<int>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

// ---- example 1 ----
void copy_example(tl::backend on) {
  std::printf("== example 1: copy a tensor (backend %s)\n", tl::to_string(on));
  const std::vector<int> host{1, 2, 3, 4, 5, 6};
  const tl::buffer<int> x(host, on, "x");

  std::printf("mistake 1, the offsets do not move with the program id (offs = tl::arange<0, bs>()):\n");
  auto [z1, r1] = copy<copy_k_same_offsets<2>, 2>(x);
  std::printf("  z = %s\n  %s\n", join(z1.to_host()).c_str(), r1.str().c_str());
  if (on == tl::backend::cpu) check(r1.race_count > 0, "the CPU backend reports programs storing the same elements");
  check(z1.to_host() != host, "z is not x");

  std::printf("mistake 2, pid * n instead of pid * bs:\n");
  auto [z2, r2] = copy<copy_k_times_n<2>, 2>(x);
  std::printf("  z = %s\n  %s\n", join(z2.to_host()).c_str(), r2.str().c_str());
  if (on == tl::backend::cpu) check(r2.idle_count == 2, "the CPU backend notes the 2 programs that stored nothing");
  check(z2.to_host() != host, "z is not x");

  std::printf("right: offs = pid * bs + tl::arange<0, bs>()\n");
  auto [z3, r3] = copy<copy_k<2>, 2>(x);
  std::printf("  z = %s\n  %s\n", join(z3.to_host()).c_str(), r3.str().c_str());
  check(z3.to_host() == host && r3.ok() && r3.idle_count == 0, "z == x, and the report is clean");
}

// ---- example 2 ----
void grey_example(tl::backend on, const std::string& image_path, const std::string& out_path) {
  std::printf("== example 2: greyscale an image (backend %s)\n", tl::to_string(on));
  const guide::planar_image img = guide::read_png_rgb(image_path);
  std::printf("  %s: %d x %d x %d\n", image_path.c_str(), img.channels, img.h, img.w);
  const tl::buffer<std::uint8_t> x(img.pixels, {3, img.h, img.w}, on, "img");
  const std::vector<std::uint8_t> grey = rgb2grey<32, 32>(x).to_host();
  // The reference: the kernel's formula in double, truncated to a byte as the store does.
  const std::size_t plane = std::size_t(img.h) * std::size_t(img.w);
  int worst = 0;
  for (std::size_t i = 0; i < plane; ++i) {
    const double v = 0.2989 * img.pixels[i] + 0.5870 * img.pixels[plane + i] + 0.1140 * img.pixels[2 * plane + i];
    worst = std::max(worst, std::abs(int(grey[i]) - int(v)));
  }
  check(worst <= 1, "every grey pixel within 1 of the reference (worst " + std::to_string(worst) + ")");
  guide::write_png_grey(out_path, img.h, img.w, grey);
  std::printf("  wrote %s\n", out_path.c_str());
}

// ---- examples 3 and 4 ----
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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tl-guide: the practitioner's guide to Triton's examples, in tl"};
  std::string which = "all", backend = "cpu", image = TL_GUIDE_IMAGE, out = "chelsea-grey.png";
  int size = 0;
  app.add_option("example", which, "copy, grey, matmul or all")->check(CLI::IsMember({"copy", "grey", "matmul", "all"}));
  app.add_option("--backend", backend, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_option("--image", image, "the colour PNG of example 2");
  app.add_option("-o,--output", out, "where example 2 writes the grey PNG");
  app.add_option("--size", size, "the random matmul's m = n = k (default 512 on the GPU, 128 on the CPU)");
  CLI11_PARSE(app, argc, argv);
  const tl::backend on = backend == "cuda" ? tl::backend::cuda : tl::backend::cpu;
  if (size <= 0) size = on == tl::backend::cuda ? 512 : 128;
  try {
    if (which == "copy" || which == "all") copy_example(on);
    if (which == "grey" || which == "all") grey_example(on, image, out);
    if (which == "matmul" || which == "all") matmul_example(on, size);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tl-guide: %s\n", e.what());
    return 2;
  }
  std::printf("%s\n", failures ? (std::to_string(failures) + " check(s) failed").c_str() : "all checks passed");
  return failures ? 1 : 0;
}
