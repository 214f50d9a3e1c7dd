// Waits that cannot end on the GPU (this file is compiled with TL_DEVICE_CHECKS=1): a spin on
// atomics whose results stop changing is bounded by the launch's hang_timeout_ms and reported
// with the program, the op, the line, the buffer and the element, as on the CPU backend; waits
// that end are not cut short.
#include <tl/tl.hpp>

#include "gpu_testing.hpp"

#include <algorithm>

using namespace gpu_testing;

namespace {

constexpr int never_released_line = __LINE__ + 2;
TL_KERNEL void never_released_kernel(tl::ptr<int> lock, tl::ptr<int> entered) {
  while (int(tl::atomic_cas(lock, 0, 1)) == 1) {
  }
  tl::atomic_add(entered, 1);
}

TL_KERNEL void locked_increment_kernel(tl::ptr<int> lock, tl::ptr<int> count) {
  while (int(tl::atomic_cas(lock, 0, 1)) == 1) {
  }
  tl::store(count, tl::load(count) + 1);
  tl::atomic_xchg(lock, 0);
}

// A poll without a time budget for a flag that nobody sets, over a block of 128 flags (each
// thread polls its own).
constexpr int polls_forever_line = __LINE__ + 3;
template <int B>
TL_KERNEL void polls_forever_kernel(tl::ptr<int> flags, tl::ptr<int> out) {
  auto came = tl::atomic_poll(flags + tl::arange<0, B>(), 1);
  tl::store(out + tl::program_id(0) * B + tl::arange<0, B>(), came.to(tl::int32));
}

// Program i waits for program i - 1's prefix, then publishes its own.
TL_KERNEL void look_back_kernel(tl::ptr<const int> x, tl::ptr<int> prefix, tl::ptr<int> flags) {
  const int pid = tl::program_id(0);
  int before = 0;
  if (pid > 0) {
    while (int(tl::atomic_load(flags + (pid - 1))) == 0) {
    }
    before = int(tl::atomic_load(prefix + (pid - 1), tl::relaxed));
  }
  tl::atomic_store(prefix + pid, before + int(tl::load(x + pid)), tl::relaxed);
  tl::atomic_store(flags + pid, 1);
}

// Many atomics whose results change (a counter): no wait.
template <int B>
TL_KERNEL void counts_kernel(tl::ptr<int> counter, int rounds) {
  for (int r = 0; r < rounds; ++r) tl::atomic_add(counter + tl::arange<0, B>() * 0, 1);
}

}  // namespace

TEST_CASE("a spin lock never given back is stopped on the GPU and reported with its program, op, line and buffer",
          "[gpu][check][hang]") {
  const tl::launch_options gpu{.backend = tl::backend::cuda, .failure = tl::on_failure::collect, .hang_timeout_ms = 300};
  std::vector<int> lock{0}, entered{0};
  const auto r = tl::launch<never_released_kernel>(tl::grid(4), gpu, tl::ptr<int>(lock, "lock"), tl::ptr<int>(entered, "entered"));
  INFO(r.str());
  REQUIRE(!r.ok());
  REQUIRE(entered[0] == 1);
  REQUIRE(r.hang_count == 3);
  REQUIRE(r.hangs.size() == 3);
  std::vector<int> stopped;
  for (const tl::stuck_wait& h : r.hangs) {
    CHECK(h.op == "tl::atomic_cas");
    CHECK(h.where.line == never_released_line);
    CHECK(h.buffer == "lock");
    CHECK(h.offset == 0);
    stopped.push_back(h.program[0]);
  }
  std::sort(stopped.begin(), stopped.end());
  CHECK(std::count(stopped.begin(), stopped.end(), stopped[0]) == 1);
  CHECK_THAT(r.str(), Catch::Contains("waits in tl::atomic_cas at") && Catch::Contains("of buffer 'lock'"));
  // The first program stopped spun for the bound (later ones stop sooner: the launch fails anyway).
  double longest = 0;
  for (const tl::stuck_wait& h : r.hangs) longest = std::max(longest, h.seconds);
  CHECK(longest >= 0.25);
  CHECK(longest < 5.0);
  // Raising: the report is thrown.
  lock[0] = 0;
  tl::launch_options raise = gpu;
  raise.failure = tl::on_failure::raise;
  CHECK_THROWS_WITH(tl::launch<never_released_kernel>(tl::grid(2), raise, tl::ptr<int>(lock, "lock"), tl::ptr<int>(entered, "entered")),
                    Catch::Contains("wait(s) that could not end"));
}

TEST_CASE("a poll without a time budget gives up after the bound on the GPU, reported", "[gpu][check][hang]") {
  const tl::launch_options gpu{.backend = tl::backend::cuda, .failure = tl::on_failure::collect, .hang_timeout_ms = 200};
  std::vector<int> flags(128, 0), out(2 * 128, -1);
  flags[5] = 1;
  const auto r = tl::launch<polls_forever_kernel<128>>(tl::grid(2), gpu, tl::ptr<int>(flags, "flags"), tl::ptr<int>(out, "out"));
  INFO(r.str());
  REQUIRE(r.hang_count == 2);
  REQUIRE(r.hangs.size() == 2);
  CHECK(r.hangs[0].op == "tl::atomic_poll");
  CHECK(r.hangs[0].where.line == polls_forever_line);
  CHECK(r.hangs[0].buffer == "flags");
  CHECK(out == std::vector<int>(2 * 128, -1));  // stopped before the store
}

TEST_CASE("waits that end are not cut short on the GPU: a spin lock, a look-back scan, a busy counter", "[gpu][check][hang]") {
  const tl::launch_options gpu{.backend = tl::backend::cuda, .failure = tl::on_failure::collect, .hang_timeout_ms = 2000};
  std::vector<int> lock{0}, count{0};
  auto r = tl::launch<locked_increment_kernel>(tl::grid(64), gpu, tl::ptr<int>(lock, "lock"), tl::ptr<int>(count, "count"));
  INFO(r.str());
  CHECK(r.hang_count == 0);
  CHECK(count[0] == 64);
  const int n = 64;
  std::vector<int> x = random_values<int>(n, -50, 50), prefix(n, -12345), flags(n, 0), expect(n);
  for (int i = 0, s = 0; i < n; ++i) expect[std::size_t(i)] = s += x[std::size_t(i)];
  r = tl::launch<look_back_kernel>(tl::grid(n), gpu, tl::ptr<const int>(x, "x"), tl::ptr<int>(prefix, "prefix"), tl::ptr<int>(flags, "flags"));
  CHECK(r.ok());
  CHECK(prefix == expect);
  std::vector<int> counter{0};
  r = tl::launch<counts_kernel<128>>(tl::grid(8), gpu, tl::ptr<int>(counter, "counter"), 3000);
  CHECK(r.ok());
  CHECK(counter[0] == 8 * 3000 * 128);
}
