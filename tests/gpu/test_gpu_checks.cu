// The GPU's debug checks (this file is compiled with TL_DEVICE_CHECKS=1): invalid accesses
// are skipped and reported like the CPU backend reports them; device_assert likewise.
#include <tl/tl.hpp>

#include "gpu_testing.hpp"

#include <unistd.h>

#include <cstdio>
#include <span>

using namespace gpu_testing;
using tl::None;
using tl::_;

// Off by one: the mask lets lane n through, in the last program only.
template <int B>
TL_KERNEL void off_by_one_kernel(tl::ptr<const float> x_ptr, tl::ptr<float> z_ptr, int n) {
  auto i = tl::program_id(0) * B + tl::arange<0, B>();
  auto x = tl::load(x_ptr + i, i <= n, -1.0f);
  tl::store(z_ptr + i, x + 1, i <= n);
}

// A 2-D tile masked by rows only: every column past N1 is read and written out of bounds.
template <int B0, int B1>
TL_KERNEL void row_mask_only_kernel(tl::ptr<const float> x_ptr, tl::ptr<float> z_ptr, int N0, int N1) {
  auto r = tl::program_id(0) * B0 + tl::arange<0, B0>();
  auto c = tl::arange<0, B1>();
  auto offs = r(_, None) * N1 + c(None, _);
  auto m = r(_, None) < N0;
  tl::store(z_ptr + offs, tl::load(x_ptr + offs, m) * 2, m);
}

void require_same_report(const tl::launch_report& a, const tl::launch_report& b) {
  INFO("cpu:\n" << a.str() << "\ncuda:\n" << b.str());
  REQUIRE(a.invalid_ops == b.invalid_ops);
  REQUIRE(a.invalid_lanes == b.invalid_lanes);
  REQUIRE(a.invalid.size() == b.invalid.size());
  for (std::size_t k = 0; k < a.invalid.size(); ++k) {
    const auto &x = a.invalid[k], &y = b.invalid[k];
    for (int i = 0; i < 3; ++i) REQUIRE(x.program[i] == y.program[i]);
    REQUIRE(x.op == y.op);
    REQUIRE(x.where.line == y.where.line);
    REQUIRE(std::string(x.where.file) == std::string(y.where.file));
    REQUIRE(x.buffer == y.buffer);
    REQUIRE(x.buffer_size == y.buffer_size);
    REQUIRE(x.lanes == y.lanes);
    REQUIRE(x.invalid_lanes == y.invalid_lanes);
    REQUIRE(x.reason == y.reason);
    REQUIRE(x.first.size() == y.first.size());
    for (std::size_t l = 0; l < x.first.size(); ++l) {
      REQUIRE(x.first[l].offset == y.first[l].offset);
      REQUIRE(x.first[l].rank == y.first[l].rank);
      for (int d = 0; d < x.first[l].rank; ++d) REQUIRE(x.first[l].index[d] == y.first[l].index[d]);
    }
  }
}

TEST_CASE("an off-by-one mask is reported on the GPU as on the CPU, and nothing is written outside",
          "[gpu][check]") {
  const int n = 1000;
  auto x = random_values(std::size_t(n));
  std::vector<float> z_cpu(std::size_t(n), 0.0f);
  const auto on_cpu = tl::launch<off_by_one_kernel<256>>(tl::grid(tl::cdiv(n, 256)),
                                                         {.failure = tl::on_failure::collect}, tl::ptr(x, "x"),
                                                         tl::ptr(z_cpu, "z"), n);
  // z lives in a device buffer with a guard zone behind the n elements the kernel is given.
  std::vector<float> guarded(std::size_t(n + 64), 0.0f);
  tl::cuda::buffer<float> zbuf(guarded, "z storage");
  const auto on_gpu = tl::launch<off_by_one_kernel<256>>(
      tl::grid(tl::cdiv(n, 256)), {.backend = tl::backend::cuda, .failure = tl::on_failure::collect}, tl::ptr(x, "x"),
      tl::ptr<float>(zbuf.data(), n, "z"), n);
  REQUIRE_FALSE(on_gpu.ok());
  REQUIRE(on_gpu.invalid_ops == 2);
  require_same_report(on_cpu, on_gpu);
  const auto z_gpu = zbuf.to_host();
  for (int i = 0; i < n; ++i) REQUIRE(z_gpu[std::size_t(i)] == z_cpu[std::size_t(i)]);
  for (int i = n; i < n + 64; ++i) REQUIRE(z_gpu[std::size_t(i)] == 0.0f);
  REQUIRE_THAT(on_gpu.str(), Catch::Contains("program (3, 0, 0): invalid load") &&
                                 Catch::Contains("buffer 'x' (1000 elements)") && Catch::Contains("-> offset 1000"));
}

TEST_CASE("a row-only mask: many programs, many lanes, the same report as the CPU's", "[gpu][check]") {
  const int n0 = 37, n1 = 20;
  auto x = random_values(std::size_t(n0) * n1);
  std::vector<float> z_cpu(x.size(), 0.0f), z_gpu(x.size(), 0.0f);
  const auto on_cpu = tl::launch<row_mask_only_kernel<8, 32>>(tl::grid(tl::cdiv(n0, 8)), {.failure = tl::on_failure::collect},
                                                              tl::ptr(x, "x"), tl::ptr(z_cpu, "z"), n0, n1);
  const auto on_gpu = tl::launch<row_mask_only_kernel<8, 32>>(
      tl::grid(tl::cdiv(n0, 8)), {.backend = tl::backend::cuda, .failure = tl::on_failure::collect}, tl::ptr(x, "x"),
      tl::ptr(z_gpu, "z"), n0, n1);
  REQUIRE_FALSE(on_gpu.ok());
  require_same_report(on_cpu, on_gpu);
  require_agree(z_cpu, z_gpu);
  auto launch_raising = [&] { tl::launch<row_mask_only_kernel<8, 32>>(tl::grid(tl::cdiv(n0, 8)), cuda, x, z_gpu, n0, n1); };
  REQUIRE_THROWS_AS(launch_raising(), tl::launch_error);
}

template <int B>
TL_KERNEL void assert_kernel(tl::ptr<const int> x_ptr, int n) {
  auto i = tl::program_id(0) * B + tl::arange<0, B>();
  auto x = tl::load(x_ptr + i, i < n);
  tl::device_assert(x >= 0, "x must be non-negative");
}

TEST_CASE("device_assert fails the launch with the program, line, message and lanes", "[gpu][check]") {
  std::vector<int> x(300, 1);
  x[5] = -1;
  x[260] = -3;
  x[261] = -3;
  const auto on_cpu = tl::launch<assert_kernel<128>>(tl::grid(3), {.failure = tl::on_failure::collect}, x, 300);
  const auto on_gpu =
      tl::launch<assert_kernel<128>>(tl::grid(3), {.backend = tl::backend::cuda, .failure = tl::on_failure::collect}, x, 300);
  INFO(on_gpu.str());
  REQUIRE(on_gpu.asserts.size() == 2);
  REQUIRE(on_cpu.asserts.size() == 2);
  for (std::size_t k = 0; k < 2; ++k) {
    REQUIRE(on_gpu.asserts[k].program[0] == on_cpu.asserts[k].program[0]);
    REQUIRE(on_gpu.asserts[k].where.line == on_cpu.asserts[k].where.line);
    REQUIRE(on_gpu.asserts[k].message == "x must be non-negative");
    REQUIRE(on_gpu.asserts[k].failing_lanes == on_cpu.asserts[k].failing_lanes);
  }
}

// Races between programs, found on the GPU as on the CPU (this file has TL_DEVICE_CHECKS=1).
template <int B>
TL_KERNEL void reads_next_kernel(tl::ptr<float> x, int n) {  // x[i] = 2 x[i + 1]: the next program's first
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(x + offs, tl::load(x + offs + 1, offs + 1 < n) * 2.0f, offs < n);
}
template <int B>
TL_KERNEL void two_views_kernel(tl::ptr<float> a, tl::ptr<float> b) {
  auto offs = tl::arange<0, B>();
  if (tl::program_id(0) == 0) tl::store(a + offs, 1.0f);
  else tl::store(b + offs, 2.0f);
}
template <int B>
TL_KERNEL void own_elements_kernel(tl::ptr<float> x, tl::ptr<const float> s, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(x + offs, tl::load(x + offs, offs < n) * tl::load(s + 0), offs < n);
}

TEST_CASE("races between programs are found on the GPU as on the CPU", "[gpu][check][race]") {
  const tl::launch_options gpu{.backend = tl::backend::cuda, .failure = tl::on_failure::collect};
  // Stores of one element by two programs: each is found once, whichever program is first.
  std::vector<float> x(1024, 1.0f);
  const std::span<float> all(x);
  auto r = tl::launch<two_views_kernel<128>>(tl::grid(2), gpu, tl::ptr<float>(all.subspan(0, 256), "a"),
                                             tl::ptr<float>(all.subspan(64, 256), "b"));
  INFO(r.str());
  CHECK(r.race_count == 64);  // elements 64..127: both views
  REQUIRE(!r.races.empty());
  CHECK(r.races[0].kind == tl::race_kind::store_store);
  CHECK((r.races[0].buffer == "a" || r.races[0].buffer == "b"));
  // A load of what another program stores: the boundaries of 8 programs, 7 of them (at least:
  // a load and a store at the same instant may both see the other).
  r = tl::launch<reads_next_kernel<128>>(tl::grid(8), gpu, tl::ptr<float>(x, "x"), 1024);
  CHECK(r.race_count >= 7);
  CHECK(r.race_count <= 14);
  // Each program on its own elements, all loading s[0]: no race.
  std::vector<float> s(1, 1.5f);
  r = tl::launch<own_elements_kernel<128>>(tl::grid(8), gpu, tl::ptr<float>(x, "x"), s, 1024);
  CHECK(r.ok());
  CHECK(r.race_check_bytes > 0);
  // Off: nothing is tracked.
  tl::launch_options off = gpu;
  off.detect_races = false;
  r = tl::launch<reads_next_kernel<128>>(tl::grid(8), off, tl::ptr<float>(x, "x"), 1024);
  CHECK(r.race_count == 0);
}

// A kernel's own mistakes (an axis, a loop step of 0): recorded like a failed assertion, with
// the line, where the CPU backend stops the launch with the same line.
template <int B>
TL_KERNEL void kernel_mistakes(tl::ptr<int> out, int axis, int step) {
  int count = 0;
  for (int j : tl::range(0, 8, step)) count += j >= 0;
  tl::store(out + tl::program_id(0) * B + tl::arange<0, B>(), tl::program_id(axis) + count);
}

TEST_CASE("a kernel's own mistakes are recorded with their line on the GPU", "[gpu][check]") {
  std::vector<int> out(2 * 128, -1);
  const tl::launch_options gpu{.backend = tl::backend::cuda, .failure = tl::on_failure::collect};
  auto r = tl::launch<kernel_mistakes<128>>(tl::grid(2), gpu, out, 3, 1);
  INFO(r.str());
  REQUIRE(r.asserts.size() == 2);  // one per program
  CHECK(r.asserts[0].message == "tl::program_id: the axis must be 0, 1 or 2");
  CHECK_THROWS_WITH(tl::launch<kernel_mistakes<128>>(tl::grid(2), out, 3, 1),
                    Catch::Contains("tl::program_id: the axis is 3 (at ") &&
                        Catch::Contains(":" + std::to_string(r.asserts[0].where.line) + ")"));
  r = tl::launch<kernel_mistakes<128>>(tl::grid(2), gpu, out, 0, 0);
  REQUIRE(r.asserts.size() == 2);
  CHECK(r.asserts[0].message == "tl::range: the step is 0; a loop needs a positive or a negative step");
  CHECK(out[0] == 0);  // no iteration: the program id plus 0
  CHECK(out[128] == 1);
  r = tl::launch<kernel_mistakes<128>>(tl::grid(2), gpu, out, 0, 3);
  CHECK(r.ok());
  CHECK(out[128] == 1 + 3);
}

template <int B>
TL_KERNEL void print_kernel(tl::ptr<const int> x_ptr) {
  auto x = tl::load(x_ptr + tl::arange<0, B>());
  tl::print_if("=1", "x", x, "sum", tl::sum(x));
}

// What f() writes to file descriptor 1, device printf included (flushed when the launch waits).
template <class F>
std::string capture_stdout(F&& f) {
  std::fflush(stdout);
  const int saved = dup(1);
  FILE* tmp = std::tmpfile();
  dup2(fileno(tmp), 1);
  f();
  cudaDeviceSynchronize();
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  std::rewind(tmp);
  std::string out;
  for (int ch; (ch = std::fgetc(tmp)) != EOF;) out += char(ch);
  std::fclose(tmp);
  return out;
}

TEST_CASE("print_if prints the selected program's whole block from the GPU", "[gpu][debug]") {
  std::vector<int> x = {3, 1, 4, 1};
  tl::launch_report r;
  const std::string out = capture_stdout([&] { r = tl::launch<print_kernel<4>>(tl::grid(3), cuda, x); });
  REQUIRE(r.ok());
  REQUIRE(out == "pid (1, 0, 0) x [3, 1, 4, 1] sum 9\n");  // program 1 only, once, the whole block
}
