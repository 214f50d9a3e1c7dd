// The practitioner's guide's examples (examples/guide/) on the CPU backend: the copy kernel's
// two mistakes are reported, the greyscale and matmul kernels agree with plain-loop references
// on random sizes, the guide's unmasked matmul is caught, swizzle2d, and the autotuned matmul.
#include <filesystem>

#include "copy.hpp"
#include "grey.hpp"
#include "image_png.hpp"
#include "matmul.hpp"
#include "testing.hpp"

namespace {

std::vector<int> iota_vector(int n, int from = 1) {
  std::vector<int> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[std::size_t(i)] = from + i;
  return v;
}

std::vector<tl::fp16> random_fp16(std::size_t n) {
  std::uniform_real_distribution<float> d(-2, 2);
  std::vector<tl::fp16> v(n);
  for (auto& e : v) e = tl::fp16(d(testing::rng()));
  return v;
}

// max |c - a @ b|, strides of a and b given (b may be a transposed view's).
double matmul_error(const std::vector<tl::fp16>& a, std::int64_t sam, std::int64_t sak, const std::vector<tl::fp16>& b,
                    std::int64_t sbk, std::int64_t sbn, const std::vector<tl::fp16>& c, int m, int n, int k) {
  double worst = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int l = 0; l < k; ++l)
        s += double(float(a[std::size_t(i * sam + l * sak)])) * double(float(b[std::size_t(l * sbk + j * sbn)]));
      // c is float16: its rounding is relative
      worst = std::max(worst, std::abs(s - double(float(c[std::size_t(i * n + j)]))) / std::max(1.0, std::abs(s)));
    }
  return worst;
}

}  // namespace

TEST_CASE("guide copy: mistake 1 (offsets not moved by the program id) is reported as a race") {
  const tl::buffer<int> x(iota_vector(6), tl::backend::cpu, "x");
  auto [z, report] = copy<copy_k_same_offsets<2>, 2>(x);
  CHECK(z.to_host() == std::vector<int>{1, 2, 0, 0, 0, 0});
  CHECK_FALSE(report.ok());
  CHECK(report.race_count == 4);  // programs 1 and 2 store z[0] and z[1] after program 0
  REQUIRE_FALSE(report.races.empty());
  CHECK(report.races[0].buffer == "z");
  CHECK(report.races[0].offset <= 1);
  CHECK(report.str().find("both store element") != std::string::npos);
  // Thrown by default, with the same text.
  auto z_again = x.zeros_like("z");
  CHECK_THROWS_WITH(tl::launch<copy_k_same_offsets<2>>(tl::grid(3), x, z_again, 6),
                    Catch::Contains("race(s) between programs"));
}

TEST_CASE("guide copy: mistake 2 (pid * n) leaves programs that store nothing, and the report notes them") {
  const tl::buffer<int> x(iota_vector(6), tl::backend::cpu, "x");
  auto [z, report] = copy<copy_k_times_n<2>, 2>(x);
  CHECK(z.to_host() == std::vector<int>{1, 2, 0, 0, 0, 0});
  CHECK(report.ok());
  CHECK(report.idle_count == 2);
  REQUIRE(report.idle_programs.size() == 2);
  CHECK(report.idle_programs[0] == std::array<int, 3>{1, 0, 0});
  CHECK(report.idle_programs[1] == std::array<int, 3>{2, 0, 0});
  CHECK(report.str().find("2 of 3 programs stored nothing") != std::string::npos);
}

TEST_CASE("guide copy: the right kernel copies every random size, with a clean report") {
  for (int trial = 0; trial < 10; ++trial) {
    const int n = 1 + int(testing::rng()() % 300);
    const std::vector<int> host = iota_vector(n, -50);
    const tl::buffer<int> x(host, tl::backend::cpu, "x");
    auto [z, report] = copy<copy_k<16>, 16>(x);
    CHECK(z.to_host() == host);
    CHECK(report.ok());
    CHECK(report.idle_count == 0);
  }
}

// One program storing its elements twice: not a race (one program's stores are ordered).
template <int B>
TL_KERNEL void store_twice(tl::ptr<int> z_ptr) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(z_ptr + offs, 1);
  tl::store(z_ptr + offs, 2);
}

TEST_CASE("race detection: can be turned off, and is not triggered by one program storing twice") {
  std::vector<int> z(8, -1);
  const auto r = tl::launch<copy_k_same_offsets<8>>(tl::grid(2), {.detect_races = false}, iota_vector(8), z, 8);
  CHECK(r.ok());
  CHECK(r.race_count == 0);
  // the copy kernel with a grid of 1: no second program, no race
  CHECK(tl::launch<copy_k_same_offsets<8>>(tl::grid(1), iota_vector(8), z, 8).ok());
  // each of 4 programs stores its own elements twice
  std::vector<int> w(16, -1);
  const auto twice = tl::launch<store_twice<4>>(tl::grid(4), w);
  CHECK(twice.ok());
  CHECK(twice.race_count == 0);
  CHECK(w == std::vector<int>(16, 2));
}

TEST_CASE("guide greyscale: random image sizes against the formula") {
  for (int trial = 0; trial < 6; ++trial) {
    const int h = 1 + int(testing::rng()() % 70), w = 1 + int(testing::rng()() % 90);
    std::vector<std::uint8_t> pixels(static_cast<std::size_t>(3 * h * w));
    for (auto& p : pixels) p = std::uint8_t(testing::rng()() % 256);
    const tl::buffer<std::uint8_t> x(pixels, {3, h, w}, tl::backend::cpu, "img");
    const std::vector<std::uint8_t> grey = rgb2grey<16, 8>(x).to_host();
    const std::size_t plane = std::size_t(h * w);
    for (std::size_t i = 0; i < plane; ++i) {
      // the kernel's float arithmetic (each sum with a product fused into an fma, as Triton's),
      // truncated by the store
      const float v = std::fma(0.1140f, float(pixels[2 * plane + i]),
                               std::fma(0.2989f, float(pixels[i]), 0.5870f * float(pixels[plane + i])));
      REQUIRE(int(grey[i]) == int(v));
    }
  }
  CHECK_THROWS_WITH(rgb2grey(tl::buffer<std::uint8_t>({2, 4, 4})), Catch::Contains("must be 3 x h x w"));
}

TEST_CASE("guide greyscale: the photo through libpng, written and read back") {
  const guide::planar_image img = guide::read_png_rgb(TL_GUIDE_IMAGE);
  REQUIRE(img.channels == 3);
  REQUIRE(img.h == 300);
  REQUIRE(img.w == 451);
  const tl::buffer<std::uint8_t> x(img.pixels, {3, img.h, img.w}, tl::backend::cpu, "img");
  const std::vector<std::uint8_t> grey = rgb2grey<32, 32>(x).to_host();
  const auto path = std::filesystem::temp_directory_path() / "tl-test-chelsea-grey.png";
  guide::write_png_grey(path.string(), img.h, img.w, grey);
  const guide::planar_image back = guide::read_png_rgb(path.string());  // grey read as RGB: equal channels
  const std::size_t plane = std::size_t(img.h * img.w);
  REQUIRE(back.pixels.size() == 3 * plane);
  for (std::size_t i = 0; i < plane; ++i) REQUIRE(back.pixels[i] == grey[i]);
  // a photo, not a flat image: the grey values spread
  const auto [lo, hi] = std::minmax_element(grey.begin(), grey.end());
  CHECK(int(*hi) - int(*lo) > 150);
  std::filesystem::remove(path);
  CHECK_THROWS_WITH(guide::read_png_rgb("/nonexistent.png"), Catch::Contains("cannot read /nonexistent.png"));
}

TEST_CASE("guide matmul: naive and grouped at random sizes, B given row-major or transposed") {
  for (int trial = 0; trial < 6; ++trial) {
    const int m = 1 + int(testing::rng()() % 70), n = 1 + int(testing::rng()() % 70), k = 1 + int(testing::rng()() % 90);
    const auto ha = random_fp16(std::size_t(m * k)), hb = random_fp16(std::size_t(k * n));
    const tl::buffer<tl::fp16> a(ha, {m, k}, tl::backend::cpu, "a"), b(hb, {k, n}, tl::backend::cpu, "b");
    std::vector<tl::fp16> poison(static_cast<std::size_t>(m * n), tl::fp16(1e4f));
    tl::buffer<tl::fp16> c(poison, {m, n}, tl::backend::cpu, "c");
    matmul_into<naive_matmul_k<16, 16, 16>, 16, 16>(a, b, c);
    CHECK(matmul_error(ha, k, 1, hb, n, 1, c.to_host(), m, n, k) < 2e-3);
    c.upload(poison);
    matmul_into<grouped_matmul_k<32, 16, 16, 3>, 32, 16>(a, b, c);
    CHECK(matmul_error(ha, k, 1, hb, n, 1, c.to_host(), m, n, k) < 2e-3);

    // B as the transposed view of an n x k buffer: the kernel follows its strides.
    const tl::buffer<tl::fp16> bt(hb, {n, k}, tl::backend::cpu, "bt");
    const tl::view<tl::fp16> b_view = bt.transposed();
    c.upload(poison);
    tl::launch<naive_matmul_k<16, 16, 16>>(tl::grid(tl::cdiv(m, 16), tl::cdiv(n, 16)), a, b_view, c, m, n, k, k, 1,
                                           int(b_view.stride(0)), int(b_view.stride(1)), n, 1);
    CHECK(matmul_error(ha, k, 1, hb, 1, k, c.to_host(), m, n, k) < 2e-3);
    // ... which check_tensors_ready refuses for a kernel that assumes row-major
    if (n > 1 && k > 1)
      CHECK_THROWS_WITH(tl::check_tensors_ready(tl::backend::cpu, a, b_view),
                      Catch::Contains("tensor #1 ('bt', ") && Catch::Contains("is not contiguous"));
  }
  CHECK_THROWS_WITH(naive_matmul(tl::buffer<tl::fp16>({3, 4}), tl::buffer<tl::fp16>({5, 4})),
                    Catch::Contains("matrix dims not compatible for matmul: 3 x 4 @ 5 x 4"));
  tl::buffer<float> a({4, 6}), b({6, 3});
  tl::buffer<float> c = tl::buffer<float>({4, 4}).full_like(7.0f, "c");
  CHECK_THROWS_WITH((matmul_into<naive_matmul_k<16, 16, 16, float>, 16, 16>(a, b, c)),
                    "tl::check_shape: 'c' is 4 x 4; the launch needs 4 x 3");
  CHECK(c.to_host() == std::vector<float>(16, 7.0f));  // refused before anything ran
}

TEST_CASE("guide matmul: the guide's kernel, loads without masks, is caught reading past a and b") {
  const tl::buffer<tl::fp16> a(std::vector<tl::fp16>(12, tl::fp16(1.0f)), {3, 4}, tl::backend::cpu, "a");
  const tl::buffer<tl::fp16> b(std::vector<tl::fp16>(20, tl::fp16(1.0f)), {4, 5}, tl::backend::cpu, "b");
  tl::buffer<tl::fp16> c({3, 5}, tl::backend::cpu, "c");
  const auto r = matmul_into<unmasked_matmul_k<16, 16, 16>, 16, 16>(a, b, c, {.failure = tl::on_failure::collect});
  CHECK_FALSE(r.ok());
  CHECK(r.invalid_ops == 2);  // the load of a and the load of b, in the one program
  CHECK(r.str().find("buffer 'a' (12 elements)") != std::string::npos);
  CHECK(r.str().find("buffer 'b' (20 elements)") != std::string::npos);
  // with masks, the same product is right
  CHECK(naive_matmul(a, b).to_host() == std::vector<tl::fp16>(15, tl::fp16(4.0f)));
}

TEST_CASE("guide swizzle2d: 5 x 4 programs in groups of 3") {
  std::vector<int> xs = iota_vector(20, 0);
  const tl::buffer<int> x(xs, {5, 4}, tl::backend::cpu, "x");
  auto z = x.full_like(-1, "z");
  tl::launch<swizzle_k<3>>(tl::grid(5, 4), x, z);
  CHECK(z.to_host() == std::vector<int>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11, 12, 14, 16, 18, 13, 15, 17, 19});
}

TEST_CASE("guide autotuned matmul on the CPU: tunes once per key, runs every config, right result") {
  const int m = 40, n = 72, k = 56;
  const auto ha = random_fp16(std::size_t(m * k)), hb = random_fp16(std::size_t(k * n));
  const tl::buffer<tl::fp16> a(ha, {m, k}, tl::backend::cpu, "a"), b(hb, {k, n}, tl::backend::cpu, "b");
  const int before = grouped_autotuned_matmul_k.tunings_run();
  const auto c = grouped_autotuned_matmul(a, b);
  CHECK(matmul_error(ha, k, 1, hb, n, 1, c.to_host(), m, n, k) < 2e-3);
  const tl::tuning* t = grouped_autotuned_matmul_k.tuned({m, n, k});
  REQUIRE(t != nullptr);
  CHECK(t->entries.size() == std::size(matmul_configs));
  for (const auto& e : t->entries) CHECK(e.error.empty());  // every config compiled for the CPU, and ran
  CHECK(t->best >= 0);
  grouped_autotuned_matmul(a, b);
  CHECK(grouped_autotuned_matmul_k.tunings_run() == before + 1);
}
