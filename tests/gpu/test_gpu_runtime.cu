// The host-side runtime on the GPU: tl::buffer in device memory, check_tensors_ready,
// do_bench with CUDA events, the autotuner's CUDA configs, and the guide's kernels against
// the CPU backend on random sizes.
#include "copy.hpp"
#include <tl/tl.hpp>

#include "gpu_testing.hpp"
#include "grey.hpp"
#include "matmul.hpp"

using namespace gpu_testing;

// (a named namespace: nvcc 13 loses a static member variable template of a class in an
// unnamed namespace: "referenced but not defined")
namespace gpu_runtime_test {
template <int B, int WORK>
TL_KERNEL void busy_copy(tl::ptr<const float> x, tl::ptr<float> z, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  tl::block<float, B> v = tl::load(x + offs, offs < n);
  for (int i = 0; i < WORK; ++i) v = v * 1.0001f + 0.0001f;
  tl::store(z + offs, v, offs < n);
}
struct busy_meta {
  int b, work;
};
// Config 2 has 8 warps: not compiled in this translation unit (4 warps), so never timed here.
constexpr tl::config<busy_meta> busy_configs[] = {
    {.meta = {256, 2000}}, {.meta = {256, 0}}, {.meta = {512, 0}, .num_warps = 8}};
struct busy_of {
  template <busy_meta M>
  static constexpr auto kernel = busy_copy<M.b, M.work>;
};
tl::autotuner<busy_configs, busy_of> busy_tuned{{.name = "busy", .key = {2}, .warmup_ms = 2, .rep_ms = 10}};
TL_AUTOTUNE_UNIT(busy_tuned)
}  // namespace gpu_runtime_test
using namespace gpu_runtime_test;

TEST_CASE("buffer in GPU memory: shapes, copies, views, and the checks", "[gpu][runtime]") {
  std::vector<float> host(24);
  for (int i = 0; i < 24; ++i) host[std::size_t(i)] = float(i);
  const tl::buffer<float> a(host, {4, 6}, tl::backend::cuda, "a");
  CHECK(a.to_host() == host);
  const auto back = a.to(tl::backend::cpu);
  CHECK(back.backend() == tl::backend::cpu);
  CHECK(back.to_host() == host);
  const auto t = a.transposed().contiguous("at");
  CHECK(t.backend() == tl::backend::cuda);
  CHECK(t.to_host()[1] == 6.0f);
  CHECK(a.full_like(2.5f).to_host() == std::vector<float>(24, 2.5f));
  CHECK(tl::buffer<float>({3, 3}, tl::backend::cuda).to_host() == std::vector<float>(9, 0.0f));
  CHECK_NOTHROW(tl::check_tensors_ready(tl::backend::cuda, a, tl::ptr<const float>(a)));
  CHECK_THROWS_WITH(tl::check_tensors_ready(tl::backend::cpu, a), Catch::Contains("is in GPU memory"));
  CHECK_THROWS_WITH(tl::check_tensors_ready(tl::backend::cpu, tl::ptr<float>(a.data())),
                    Catch::Contains("is in GPU memory"));
  CHECK_THROWS_WITH(tl::check_tensors_ready(tl::backend::cuda, host), Catch::Contains("is in host memory"));
}

TEST_CASE("a view's device and tl::options_for run the launch where its memory is", "[gpu][runtime]") {
  int devices = 0, current = 0;
  REQUIRE(cudaGetDeviceCount(&devices) == cudaSuccess);
  REQUIRE(cudaGetDevice(&current) == cudaSuccess);
  const int n = 1000;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[std::size_t(i)] = float(i) * 0.5f;
  tl::buffer<float> x(host, {n}, tl::backend::cuda, "x");
  tl::buffer<float> z = x.full_like(-1.0f, "z");  // poisoned
  tl::view<float> xv = x.view_of(), zv = z.view_of();
  xv.device = zv.device = current;  // as tl::from_dlpack and tl::from_torch set it
  const tl::launch_options o = tl::options_for(xv, zv);
  CHECK(o.backend == tl::backend::cuda);
  CHECK(o.device == current);
  tl::launch<busy_copy<256, 0>>(tl::grid(tl::cdiv(n, 256)), o, xv, zv, n);
  CHECK(z.to_host() == host);
  int after = -1;
  REQUIRE(cudaGetDevice(&after) == cudaSuccess);
  CHECK(after == current);  // the launch gives the current device back
  tl::launch_options missing = o;
  missing.device = devices;  // one past the last
  CHECK_THROWS_WITH((tl::launch<busy_copy<256, 0>>(tl::grid(1), missing, x, z, n)),
                    Catch::Contains("device " + std::to_string(devices) + " asked for; this machine has"));
  tl::view<float> other = zv;
  other.device = current + 1;
  CHECK_THROWS_WITH(tl::options_for(xv, other), Catch::Contains("one launch runs on one device"));
}

TEST_CASE("a launch without a backend runs where its arguments are; GPU memory is refused to the CPU backend",
          "[gpu][runtime][launch]") {
  const int n = 1000;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[std::size_t(i)] = float(i) * 0.25f;
  tl::buffer<float> x(host, {n}, tl::backend::cuda, "x");
  tl::buffer<float> z = x.full_like(-1.0f, "z");
  // Buffers and views in GPU memory, no options: the CUDA backend.
  auto r = tl::launch<busy_copy<256, 0>>(tl::grid(tl::cdiv(n, 256)), x, z, n);
  CHECK(r.ok());
  CHECK(z.to_host() == host);
  // Raw pointers into GPU memory: the CUDA runtime says where they are.
  z.fill(-1.0f);
  tl::launch<busy_copy<256, 0>>(tl::grid(tl::cdiv(n, 256)), tl::ptr<const float>(x.data(), n, "xp"),
                                tl::ptr<float>(z.data(), n, "zp"), n);
  CHECK(z.to_host() == host);
  // Host vectors, no options: the CPU backend.
  std::vector<float> out(n, -1.0f);
  tl::launch<busy_copy<256, 0>>(tl::grid(tl::cdiv(n, 256)), host, out, n);
  CHECK(out == host);
  // The CPU backend asked for, with GPU memory: refused by name, nothing runs.
  CHECK_THROWS_WITH((tl::launch<busy_copy<256, 0>>(tl::grid(1), {.backend = tl::backend::cpu},
                                                   tl::ptr<const float>(x.data(), n, "xp"), out, n)),
                    Catch::Contains("argument #0 ('xp') is in GPU memory"));
  // A mix, no options: refused by name; with .backend = cuda the host vector is copied in and out.
  CHECK_THROWS_WITH((tl::launch<busy_copy<256, 0>>(tl::grid(1), x, out, n)),
                    Catch::Contains("argument #0 ('x') is in GPU memory"));
  out.assign(n, -1.0f);
  tl::launch<busy_copy<256, 0>>(tl::grid(tl::cdiv(n, 256)), {.backend = tl::backend::cuda}, x, out, n);
  CHECK(out == host);
}

TEST_CASE("do_bench times a kernel with CUDA events; the autotuner picks the fast CUDA config", "[gpu][runtime]") {
  const int n = 1 << 22;
  const tl::buffer<float> x(random_values<float>(std::size_t(n), -1, 1), tl::backend::cuda, "x");
  tl::buffer<float> z({n}, tl::backend::cuda, "z");
  const tl::launch_options async{.backend = tl::backend::cuda, .wait = false};
  const auto grid = [&](const busy_meta& m) { return tl::grid(tl::cdiv(n, m.b)); };
  const auto fast = tl::do_bench([&] { busy_tuned.launch_config(1, grid, async, x, z, n); },
                                 {.backend = tl::backend::cuda, .quantiles = {0.5, 0.2, 0.8}});
  const auto slow = tl::do_bench([&] { busy_tuned.launch_config(0, grid, async, x, z, n); },
                                 {.backend = tl::backend::cuda});
  CHECK(fast.reps >= 5);
  CHECK(fast.ms > 0.001);       // 32 MB moved: more than a microsecond
  CHECK(slow.ms > 2 * fast.ms);  // 2000 dependent FMAs per element
  CHECK(fast.quantiles[1] <= fast.quantiles[2]);

  busy_tuned(grid, {.backend = tl::backend::cuda}, x, z, n);
  const tl::tuning* t = busy_tuned.tuned({n}, tl::backend::cuda);
  REQUIRE(t != nullptr);
  CHECK(t->best == 1);
  CHECK(t->entries[2].error.find("not compiled") != std::string::npos);
  CHECK(z.to_host() == x.to_host());
}

TEST_CASE("guide kernels: copy, greyscale and matmul agree with the CPU backend", "[gpu][runtime]") {
  for (int rep = 0; rep < 4; ++rep) {
    const int n = random_int(1, 5000);
    const auto v = random_values<int>(std::size_t(n), -1000, 1000);
    auto [zc, rc] = copy<copy_k<128>, 128>(tl::buffer<int>(v, tl::backend::cuda, "x"));
    CHECK(rc.ok());
    CHECK(zc.to_host() == v);

    const int h = random_int(1, 200), w = random_int(1, 300);
    const auto px = random_values<std::uint8_t>(std::size_t(3 * h * w), 0, 255);
    const auto g_cpu = rgb2grey(tl::buffer<std::uint8_t>(px, {3, h, w}, tl::backend::cpu)).to_host();
    const auto g_gpu = rgb2grey(tl::buffer<std::uint8_t>(px, {3, h, w}, tl::backend::cuda)).to_host();
    int worst = 0;  // the GPU may fuse a multiply-add: a pixel can land on the other side of an integer
    for (std::size_t i = 0; i < g_cpu.size(); ++i) worst = std::max(worst, std::abs(int(g_cpu[i]) - int(g_gpu[i])));
    CHECK(worst <= 1);

    const int m = random_int(1, 300), nn = random_int(1, 300), k = random_int(1, 300);
    const auto ha = random_values<tl::fp16>(std::size_t(m * k), -1, 1), hb = random_values<tl::fp16>(std::size_t(k * nn), -1, 1);
    auto run = [&](tl::backend on) {
      const tl::buffer<tl::fp16> a(ha, {m, k}, on, "a"), b(hb, {k, nn}, on, "b");
      tl::buffer<tl::fp16> c(std::vector<tl::fp16>(std::size_t(m * nn), tl::fp16(1e4f)), {m, nn}, on, "c");
      matmul_into<grouped_matmul_k<64, 64, 32, 4>, 64, 64>(a, b, c);
      return c.to_host();
    };
    require_agree(run(tl::backend::cpu), run(tl::backend::cuda), 2e-3, 2e-3,
                  "m n k " + std::to_string(m) + " " + std::to_string(nn) + " " + std::to_string(k));
  }
}
