// Random numbers (ops/random.hpp): the GPU draws the CPU backend's words and uniforms bit for
// bit, and its normals within the GPU's math library's few ulp (log, sin, cos). The CPU side is
// checked against an independent Philox in tests/ops/test_random.cpp; Triton's draws are compared on
// the device by tools/bench/tutorials/random_vs_triton.py.
#include "gpu_testing.hpp"

using namespace gpu_testing;

namespace {
template <int B, class O>
TL_KERNEL void draw_kernel(tl::ptr<const O> offsets, std::int64_t seed, tl::ptr<std::uint32_t> words, tl::ptr<float> uniforms,
                           tl::ptr<float> normals, int n) {
  auto i = tl::program_id(0) * B + tl::arange<0, B>();
  auto m = i < n;
  auto o = tl::load(offsets + i, m);
  auto [w0, w1, w2, w3] = tl::randint4x(seed, o);
  tl::store(words + i, w0, m);
  tl::store(words + n + i, w1 ^ w2 ^ w3, m);
  tl::store(words + 2 * n + i, tl::randint<5>(seed, o), m);
  auto [u0, u1, u2, u3] = tl::rand4x(seed, o);
  tl::store(uniforms + i, u0, m);  // as drawn: arithmetic on them may contract into FMAs on the GPU
  tl::store(uniforms + n + i, tl::where(i % 2 == 0, u1, u2), m);
  tl::store(uniforms + 2 * n + i, tl::maximum(tl::rand(seed, o), u3), m);
  auto [n0, n1, n2, n3] = tl::randn4x(seed, o);
  tl::store(normals + i, n0, m);
  tl::store(normals + n + i, n1 + n2 + n3, m);
  tl::store(normals + 2 * n + i, tl::randn(seed, o), m);
}

template <class O>
void draw_and_compare(int n, std::int64_t seed, const std::vector<O>& offsets) {
  auto run = [&](const tl::launch_options& opt) {
    std::vector<std::uint32_t> words(3 * std::size_t(n), 0xdeadbeefu);
    std::vector<float> uniforms(3 * std::size_t(n), NAN), normals(3 * std::size_t(n), NAN);
    tl::launch<draw_kernel<128, O>>(tl::grid(tl::cdiv(n, 128)), opt, tl::ptr<const O>(offsets, "offsets"), seed,
                                    tl::ptr<std::uint32_t>(words, "words"), tl::ptr<float>(uniforms, "uniforms"),
                                    tl::ptr<float>(normals, "normals"), n);
    return std::make_tuple(words, uniforms, normals);
  };
  const auto [cw, cu, cn] = run(cpu);
  const auto [gw, gu, gn] = run(cuda);
  REQUIRE(cw[0] != 0xdeadbeefu);
  REQUIRE(cw == gw);
  require_agree(cu, gu, 0, 0, "uniforms");  // exact
  require_agree(cn, gn, 2e-6, 2e-6, "normals");
}
}  // namespace

TEST_CASE("random numbers: words and uniforms agree bit for bit, normals within a few ulp", "[gpu][random]") {
  const int n = random_int(1000, 20000);
  std::vector<std::int32_t> offs32(static_cast<std::size_t>(n));
  std::vector<std::int64_t> offs64(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    offs32[std::size_t(i)] = i * 3 - 1000;
    offs64[std::size_t(i)] = std::int64_t(rng()());
  }
  for (std::int64_t seed : {std::int64_t(0), std::int64_t(-3), std::int64_t(rng()())}) {
    draw_and_compare(n, seed, offs32);
    draw_and_compare(n, seed, offs64);
  }
}
