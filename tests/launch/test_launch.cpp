// Launching on the CPU: every program runs once with its id, grids are validated, reports
// name the program, exceptions propagate, and the debugging helpers behave.
#include "testing.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <sstream>

using namespace tl;

namespace {

TL_KERNEL void record_ids(ptr<int> out, int nx, int ny) {
  const int x = program_id(0), y = program_id(1), z = program_id(2);
  const int flat = (z * ny + y) * nx + x;
  // Each program adds 1 to its own slot and writes its grid size next to it.
  store(out + 4 * flat, load(out + 4 * flat) + 1);
  store(out + 4 * flat + 1, num_programs(0));
  store(out + 4 * flat + 2, num_programs(1));
  store(out + 4 * flat + 3, num_programs(2));
}

template <int B>
TL_KERNEL void copy_unmasked(ptr<float> x, ptr<float> z, [[maybe_unused]] int n) {
  auto offs = program_id(0) * B + arange<0, B>();
  store(z + offs, load(x + offs));  // forgets the mask: the last program goes past n
}

std::vector<int>* order_log = nullptr;
std::mutex order_mutex;
TL_KERNEL void log_order() {
  std::lock_guard<std::mutex> lock(order_mutex);
  order_log->push_back(program_id(0) + 100 * program_id(1));
}

TL_KERNEL void throws_in_program_3() {
  if (program_id(0) == 3) throw std::runtime_error("program 3 failed");
}

TL_KERNEL void asserts_positive(ptr<float> x) {
  auto v = load(x + arange<0, 8>());
  device_assert(v > 0, "x must be positive");
}

TL_KERNEL void prints(ptr<float> x) {
  print_if("=1", "x", load(x + arange<0, 4>()));
}

}  // namespace

TEST_CASE("every program of a 3-D grid runs exactly once with its ids", "[launch]") {
  for (bool sequential : {false, true}) {
    const int nx = 5, ny = 3, nz = 2;
    std::vector<int> out(4 * nx * ny * nz, 0);
    launch<record_ids>(grid(nx, ny, nz), launch_options{.sequential = sequential}, ptr<int>(out, "out"), nx, ny);
    for (int i = 0; i < nx * ny * nz; ++i) {
      REQUIRE(out[4 * i] == 1);
      REQUIRE(out[4 * i + 1] == nx);
      REQUIRE(out[4 * i + 2] == ny);
      REQUIRE(out[4 * i + 3] == nz);
    }
  }
}

TEST_CASE("sequential launches run programs in grid order, axis 0 fastest", "[launch]") {
  std::vector<int> order;
  order_log = &order;
  launch<log_order>(grid(3, 2), launch_options{.sequential = true});
  REQUIRE(order == std::vector<int>{0, 1, 2, 100, 101, 102});
  order.clear();
  setenv("TL_SEQUENTIAL", "1", 1);
  launch<log_order>(grid(3, 2), launch_options{.threads = 8});
  unsetenv("TL_SEQUENTIAL");
  REQUIRE(order == std::vector<int>{0, 1, 2, 100, 101, 102});
  order.clear();
  launch<log_order>(grid(50, 2), launch_options{.threads = 4});  // parallel: every program, any order
  std::sort(order.begin(), order.end());
  REQUIRE(order.size() == 100);
  REQUIRE(std::adjacent_find(order.begin(), order.end()) == order.end());
  order_log = nullptr;
}

TEST_CASE("bad grids are refused before anything runs", "[launch]") {
  std::vector<int> out(4, 0);
  REQUIRE_THROWS_AS(launch<record_ids>(grid(0), ptr<int>(out), 1, 1), usage_error);
  REQUIRE_THROWS_WITH(launch<record_ids>(grid(1, -2), ptr<int>(out), 1, 1), Catch::Contains("grid axis 1 is -2"));
  REQUIRE_THROWS_WITH(launch<record_ids>(grid(1, 1, 70000), ptr<int>(out), 1, 1), Catch::Contains("above the limit"));
  REQUIRE(out[0] == 0);
  REQUIRE_THROWS_AS(program_id(3), usage_error);
}

TEST_CASE("bad options and misaligned buffers are refused before anything runs", "[launch]") {
  std::vector<int> out(8, 0);
  auto bad_warps = [&] { launch<record_ids>(grid(1), {.num_warps = 3}, ptr<int>(out), 1, 1); };
  REQUIRE_THROWS_WITH(bad_warps(), Catch::Contains("num_warps is 3; it must be 1, 2, 4, 8 or 16"));
  for (int stages : {0, -1, 9}) {
    auto bad_stages = [&] { launch<record_ids>(grid(1), {.num_stages = stages}, ptr<int>(out), 1, 1); };
    REQUIRE_THROWS_WITH(bad_stages(), Catch::Contains("num_stages is " + std::to_string(stages) + "; it must be 1 to 8"));
  }
  REQUIRE(out == std::vector<int>(8, 0));  // nothing ran
  // A buffer that starts in the middle of an int.
  ptr<int> odd(reinterpret_cast<int*>(reinterpret_cast<char*>(out.data()) + 1), 4, "odd");
  REQUIRE_THROWS_WITH(launch<record_ids>(grid(1), odd, 1, 1),
                      Catch::Contains("'odd' starts at an address that is not a multiple of 4 bytes"));
  // A null pointer said to have elements, and a negative size.
  REQUIRE_THROWS_WITH(launch<record_ids>(grid(1), ptr<int>(nullptr, 16, "out"), 1, 1),
                      Catch::Contains("buffer 'out' is a null pointer with 16 elements"));
  REQUIRE_THROWS_WITH(launch<record_ids>(grid(1), ptr<int>(out.data(), -5, "out"), 1, 1),
                      Catch::Contains("buffer 'out' has a negative size (-5 elements)"));
  // A null pointer of unknown size is an optional buffer: the launch runs, and an access
  // through it is reported, not made.
  const auto r = launch<record_ids>(grid(1), {.failure = on_failure::collect}, ptr<int>(nullptr), 1, 1);
  REQUIRE(r.invalid_ops > 0);
  REQUIRE_THAT(r.str(), Catch::Contains("through a null pointer"));
  // This file is compiled by the host compiler: the CUDA backend cannot launch from it.
  auto on_cuda = [&] { launch<record_ids>(grid(1), {.backend = tl::backend::cuda}, ptr<int>(out), 1, 1); };
  REQUIRE_THROWS_WITH(on_cuda(), Catch::Contains("needs the launching translation unit compiled by nvcc"));
  for (int v : out) REQUIRE(v == 0);
  // Every valid num_stages runs (the CPU backend has no operand ring: each is the same).
  for (int stages : {1, 2, 8}) REQUIRE(launch<record_ids>(grid(1), {.num_stages = stages}, ptr<int>(out), 1, 1).ok());
  REQUIRE(out[0] == 3);
}

TEST_CASE("an invalid access names the kernel, the program, the op and the offsets", "[launch][check]") {
  std::vector<float> x(100, 1.0f), z(100, 0.0f);
  // 4 programs of 32 lanes over 100 elements: program 3 reads and writes offsets 100..127.
  auto r = launch<copy_unmasked<32>>(grid(4), launch_options{.failure = on_failure::collect}, ptr<float>(x, "x"),
                                      ptr<float>(z, "z"), 100);
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.kernel.find("copy_unmasked<32>") != std::string::npos);
  REQUIRE(r.invalid_ops == 2);
  REQUIRE(r.invalid_lanes == 56);
  REQUIRE(r.registers == 0);  // the CUDA backend's figures
  REQUIRE(r.local_bytes == 0);
  REQUIRE(r.invalid.size() == 2);
  for (const auto& a : r.invalid) {
    REQUIRE(a.program[0] == 3);
    REQUIRE(a.invalid_lanes == 28);
    REQUIRE(a.first.at(0).index[0] == 4);  // lane 4 of program 3 is element 100
    REQUIRE(a.first.at(0).offset == 100);
  }
  REQUIRE(r.invalid[0].op == access_kind::load);
  REQUIRE(r.invalid[0].buffer == "x");
  REQUIRE(r.invalid[1].op == access_kind::store);
  REQUIRE(r.invalid[1].buffer == "z");
  for (int i = 0; i < 100; ++i) REQUIRE(z[i] == 1.0f);  // the valid lanes did their work
  // By default the launch throws, with the whole report in what().
  REQUIRE_THROWS_WITH(launch<copy_unmasked<32>>(grid(4), x, z, 100),
                      Catch::Contains("program (3, 0, 0): invalid load") && Catch::Contains("offset 100"));
  // Unnamed buffers are named by argument position.
  try {
    launch<copy_unmasked<32>>(grid(4), x, z, 100);
  } catch (const launch_error& e) {
    REQUIRE(e.report().invalid.at(0).buffer == "argument #0");
  }
}

TEST_CASE("a correct launch reports nothing", "[launch][check]") {
  std::vector<float> x(128, 1.0f), z(128, 0.0f);
  auto r = launch<copy_unmasked<32>>(grid(4), x, z, 128);
  REQUIRE(r.ok());
  REQUIRE(r.invalid.empty());
  REQUIRE(r.str().find(": ok") != std::string::npos);
}

TEST_CASE("an exception in a program propagates out of the launch", "[launch]") {
  REQUIRE_THROWS_WITH(launch<throws_in_program_3>(grid(8)), "program 3 failed");
  REQUIRE_THROWS_WITH(launch<throws_in_program_3>(grid(8), launch_options{.sequential = true}), "program 3 failed");
}

TEST_CASE("device_assert fails the launch with the program and line", "[launch][debug]") {
  std::vector<float> ok(8, 1.0f), bad(8, 1.0f);
  bad[5] = -1.0f;
  REQUIRE(launch<asserts_positive>(grid(2), ok).ok());
  try {
    launch<asserts_positive>(grid(2), bad);
    FAIL("no error");
  } catch (const launch_error& e) {
    REQUIRE(e.report().asserts.size() == 2);
    REQUIRE(e.report().asserts[0].failing_lanes == 1);
    REQUIRE(std::string(e.what()).find("x must be positive") != std::string::npos);
  }
}

namespace {
// x * scale expected to underflow to 0 where mask holds; stores what it keeps.
TL_KERNEL void expects_zero(ptr<const float> x, ptr<float> z, float scale, int n) {
  auto offs = arange<0, 16>();
  auto v = load(x + offs) * scale;
  store(z + offs, expect_zero(v, offs < n));
}
// A countdown in a while loop whose condition is a rank-0 block.
TL_KERNEL void counts_down(ptr<int> counter, ptr<int> steps) {
  int k = 0;
  while (condition(load(counter) > 0)) {
    store(counter, load(counter) - 1);
    ++k;
  }
  store(steps, k);
}
}  // namespace

TEST_CASE("expect_zero keeps its values and fails the launch where one it expects to be 0 is not", "[launch][debug]") {
  std::vector<float> x(16), z(16, -1.0f);
  for (int i = 0; i < 16; ++i) x[std::size_t(i)] = float(i + 1);
  REQUIRE(launch<expects_zero>(grid(1), x, z, 0.0f, 16).ok());  // all 0 where expected
  for (float v : z) REQUIRE(v == 0.0f);
  REQUIRE(launch<expects_zero>(grid(1), x, z, 1.0f, 0).ok());  // nothing expected: kept as is
  for (int i = 0; i < 16; ++i) REQUIRE(z[std::size_t(i)] == float(i + 1));
  try {
    launch<expects_zero>(grid(1), x, z, 1.0f, 3);
    FAIL("no error");
  } catch (const launch_error& e) {
    REQUIRE(e.report().asserts.size() == 1);
    REQUIRE(e.report().asserts[0].failing_lanes == 3);
    REQUIRE(std::string(e.what()).find("tl::expect_zero") != std::string::npos);
  }
}

TEST_CASE("condition: a while loop on a rank-0 block", "[launch][program]") {
  std::vector<int> counter{5}, steps{-1};
  REQUIRE(launch<counts_down>(grid(1), counter, steps).ok());
  REQUIRE(counter[0] == 0);
  REQUIRE(steps[0] == 5);
  REQUIRE(condition(true));
  REQUIRE(!condition(0));
}

TEST_CASE("print_if prints in the programs its condition selects, with the id in front", "[debug]") {
  std::vector<float> x{1, 2, 3, 4};
  const std::string printed = testing::captured_stdout([&] { launch<prints>(grid(3), launch_options{.sequential = true}, x); });
  REQUIRE(printed == "pid (1, 0, 0) x [1, 2, 3, 4]\n");
}

namespace {
TL_KERNEL void stops_where_asked(ptr<float> x) {
  auto offs = program_id(0) * 4 + arange<0, 4>();
  auto v = load(x + offs);
  breakpoint_if("=1");        // program 1 only
  breakpoint_if(">=1,=0");    // programs 1 and 2 (axis 1 is 0 everywhere here)
  store(x + offs, v);
}
TL_KERNEL void bad_breakpoint(ptr<float>) { breakpoint_if("x1"); }
}  // namespace

TEST_CASE("breakpoint_if calls the debugger's hook in the programs its condition selects", "[debug]") {
  std::vector<float> x(12, 1.0f);
  const long before = breakpoint_stops();
  launch<stops_where_asked>(grid(3), x);
  REQUIRE(breakpoint_stops() - before == 3);
  REQUIRE_THROWS_WITH(launch<bad_breakpoint>(grid(1), x), Catch::Contains("tl::breakpoint_if: bad condition 'x1'"));
}

TEST_CASE("program-id conditions", "[debug]") {
  const int pid[3] = {0, 1, 2};
  REQUIRE(detail::cpu::pid_condition_holds("", pid));
  REQUIRE(detail::cpu::pid_condition_holds("=0", pid));
  REQUIRE_FALSE(detail::cpu::pid_condition_holds(">0", pid));
  REQUIRE(detail::cpu::pid_condition_holds("=0,=1", pid));
  REQUIRE(detail::cpu::pid_condition_holds(",>=1,<3", pid));
  REQUIRE(detail::cpu::pid_condition_holds(" = 0 , != 2", pid));
  REQUIRE_FALSE(detail::cpu::pid_condition_holds(",,!=2", pid));
  REQUIRE_THROWS_AS(detail::cpu::pid_condition_holds("x0", pid), usage_error);
  REQUIRE_THROWS_AS(detail::cpu::pid_condition_holds("=", pid), usage_error);
}

TEST_CASE("swizzle2d matches Triton's definition and is a permutation", "[program]") {
  for (int size_i : {5, 8}) {
    for (int size_j : {4, 7}) {
      for (int size_g : {1, 2, 3}) {
        std::vector<int> seen(std::size_t(size_i * size_j), 0);
        for (int i = 0; i < size_i; ++i)
          for (int j = 0; j < size_j; ++j) {
            // Triton's python definition, step by step.
            int ij = i * size_j + j;
            const int size_gj = size_g * size_j;
            const int group_id = ij / size_gj;
            const int off_i = group_id * size_g;
            const int g = std::min(size_i - off_i, size_g);
            ij = ij % size_gj;
            const auto [ni, nj] = swizzle2d(i, j, size_i, size_j, size_g);
            REQUIRE(ni == off_i + ij % g);
            REQUIRE(nj == ij / g);
            ++seen[std::size_t(ni * size_j + nj)];
          }
        for (int s : seen) REQUIRE(s == 1);
      }
    }
  }
}

TEST_CASE("tl::range walks like Python's range", "[program]") {
  std::vector<int> v;
  for (int j : range(0, 10, 3)) v.push_back(j);
  REQUIRE(v == std::vector<int>{0, 3, 6, 9});
  v.clear();
  for (int j : range(4)) v.push_back(j);
  REQUIRE(v == std::vector<int>{0, 1, 2, 3});
  v.clear();
  for (int j : range(5, 0, -2)) v.push_back(j);
  REQUIRE(v == std::vector<int>{5, 3, 1});
  REQUIRE(cdiv(200, 32) == 7);
  REQUIRE(cdiv(192, 32) == 6);
}

// Load/store races: each program updates its B elements of x in place from a neighbour's.
template <int B>
TL_KERNEL void reads_next(ptr<float> x, int n) {  // x[i] = 2 x[i + 1]: reads the next program's first
  auto offs = program_id(0) * B + arange<0, B>();
  store(x + offs, load(x + offs + 1, offs + 1 < n) * 2.0f, offs < n);
}
template <int B>
TL_KERNEL void reads_previous(ptr<float> x, int n) {  // x[i] = x[i - 1] + 1: reads the previous program's last
  auto offs = program_id(0) * B + arange<0, B>();
  store(x + offs, load(x + offs - 1, (offs >= 1) & (offs < n)) + 1.0f, offs < n);
}
template <int B>
TL_KERNEL void in_place_and_shared_reads(ptr<float> x, ptr<float> s, int n) {
  auto offs = program_id(0) * B + arange<0, B>();
  auto mask = offs < n;
  // Each program updates its own elements; every program loads s[0], which none stores.
  store(x + offs, load(x + offs, mask) * load(s + 0), mask);
}
template <int B>
TL_KERNEL void last_program_stores_what_all_load(ptr<float> x) {
  (void)load(x + arange<0, B>());
  if (program_id(0) == num_programs(0) - 1) store(x + arange<0, B>(), 0.0f);
}

TEST_CASE("a program loading what another stores races, in either order", "[launch][race]") {
  std::vector<float> x(16, 1.0f);
  // In grid order, program 0 loads element 4 before program 1 stores it.
  auto r = launch<reads_next<4>>(grid(4), {.failure = on_failure::collect, .sequential = true}, ptr<float>(x, "x"), 16);
  CHECK(r.race_count == 3);  // elements 4, 8 and 12
  REQUIRE(!r.races.empty());
  CHECK(r.races[0].kind == race_kind::store_after_load);
  CHECK_THAT(r.str(), Catch::Contains("3 race(s) between programs") &&
                          Catch::Contains("race: program (1, 0, 0) stores element 4 of buffer 'x', which program "
                                          "(0, 0, 0) loads (the store at"));
  // Program 1 loads element 3 after program 0 stored it.
  r = launch<reads_previous<4>>(grid(4), {.failure = on_failure::collect, .sequential = true}, ptr<float>(x, "x"), 16);
  CHECK(r.race_count == 3);
  REQUIRE(!r.races.empty());
  CHECK(r.races[0].kind == race_kind::load_after_store);
  CHECK_THAT(r.str(), Catch::Contains("race: program (1, 0, 0) loads element 3 of buffer 'x', which program "
                                      "(0, 0, 0) stores (the load at"));
  // Run in parallel, the order changes from run to run; every boundary is still found.
  for (int run = 0; run < 5; ++run) {
    const auto p = launch<reads_next<4>>(grid(4), {.failure = on_failure::collect, .threads = 4}, ptr<float>(x), 16);
    CHECK(p.race_count >= 3);  // a load and a store at the same instant may both see the other
  }
  CHECK_THROWS_AS(launch<reads_next<4>>(grid(4), ptr<float>(x), 16), launch_error);  // an error by default
  // Several programs loaded the element that the last one stores.
  std::vector<float> y(8, 1.0f);
  r = launch<last_program_stores_what_all_load<8>>(grid(3), {.failure = on_failure::collect, .sequential = true},
                                                    ptr<float>(y, "y"));
  CHECK(r.race_count == 8);
  CHECK_THAT(r.str(), Catch::Contains("race: program (2, 0, 0) stores element 0 of buffer 'y', which other programs "
                                      "load"));
}

// Races through two views of one allocation: program 0 stores through a, the others through b.
template <int B>
TL_KERNEL void store_through_two_views(ptr<float> a, ptr<float> b) {
  auto offs = arange<0, B>();
  if (program_id(0) == 0) store(a + offs, 1.0f);
  else store(b + offs, 2.0f);
}
// Program 0 loads the first B elements through a; the others store 2B elements through b.
template <int B>
TL_KERNEL void load_short_view_store_long(ptr<float> a, ptr<float> b) {
  if (program_id(0) == 0) (void)load(a + arange<0, B>());
  else store(b + arange<0, 2 * B>(), 3.0f);
}

TEST_CASE("races are found between any two views of one allocation", "[launch][race]") {
  std::vector<float> x(16, 0.0f);
  const std::span<float> all(x);
  // Views that start at different addresses: elements 4..7 of x are both views' (offsets 0..3 of b).
  auto r = launch<store_through_two_views<8>>(grid(2), {.failure = on_failure::collect, .sequential = true},
                                               ptr<float>(all.subspan(0, 8), "a"), ptr<float>(all.subspan(4, 8), "b"));
  CHECK(r.race_count == 4);
  CHECK_THAT(r.str(), Catch::Contains("race: programs (0, 0, 0) and (1, 0, 0) both store element 0 of buffer 'b'"));
  // Elements past the end of the view through which the memory was first seen (a: 4 elements)
  // are tracked too: programs 1 and 2 both store elements 4..7 through b.
  r = launch<load_short_view_store_long<4>>(grid(3), {.failure = on_failure::collect, .sequential = true},
                                             ptr<float>(all.subspan(0, 4), "a"), ptr<float>(all.subspan(0, 8), "b"));
  CHECK(r.race_count == 12);  // program 1 stores 0..3 after program 0 loads them; program 2 stores 0..7 again
  CHECK_THAT(r.str(), Catch::Contains("race: programs (1, 0, 0) and (2, 0, 0) both store element 7 of buffer 'b'"));
  // Disjoint views of one allocation do not race.
  r = launch<store_through_two_views<8>>(grid(2), {.failure = on_failure::collect, .threads = 2},
                                         ptr<float>(all.subspan(0, 8), "a"), ptr<float>(all.subspan(8, 8), "b"));
  CHECK(r.ok());
}

template <int B>
TL_KERNEL void store_one_byte(ptr<std::uint8_t> x) {
  store(x + program_id(0) * 4096 + arange<0, B>(), std::uint8_t(7));
}

TEST_CASE("race detection takes memory in proportion to the memory a launch touches", "[launch][race]") {
  // One program stores one byte of a 256 MiB buffer (left uninitialized: the OS gives its pages
  // only when written).
  const std::int64_t n = std::int64_t(256) << 20;
  std::unique_ptr<std::uint8_t[]> big(new std::uint8_t[std::size_t(n)]);
  auto r = launch<store_one_byte<1>>(grid(1), ptr<std::uint8_t>(big.get(), n, "big"));
  CHECK(r.ok());
  CHECK(big[0] == 7);
  CHECK(r.race_check_bytes > 4096);        // one page of records
  CHECK(r.race_check_bytes < (1 << 20));   // not 3 x 4 bytes per element of the buffer (3 GiB)
  // 64 programs, one page each: 64 pages of records (and a table per 64 MiB region touched).
  const auto one = r.race_check_bytes;
  r = launch<store_one_byte<16>>(grid(64), ptr<std::uint8_t>(big.get(), n, "big"));
  CHECK(r.ok());
  CHECK(r.race_check_bytes > 64 * 12 * 4096);
  CHECK(r.race_check_bytes < 2 * one + 64 * (12 * 4096 + 64));
  // Off: nothing is kept.
  r = launch<store_one_byte<1>>(grid(1), {.detect_races = false}, ptr<std::uint8_t>(big.get(), n, "big"));
  CHECK(r.race_check_bytes == 0);
}

TEST_CASE("an in-place update of a program's own elements, and shared loads, are not races", "[launch][race]") {
  std::vector<float> x(40, 1.5f), s(1, 2.0f);
  for (bool sequential : {true, false}) {
    const auto r = launch<in_place_and_shared_reads<8>>(grid(5), {.sequential = sequential, .threads = 3},
                                                        ptr<float>(x, "x"), ptr<float>(s, "s"), 40);
    CHECK(r.ok());
    CHECK(r.race_count == 0);
  }
  for (float v : x) CHECK(v == 6.0f);
}

// out[i] = in[i - 1] + in[i]: with in and out the same memory, each program but the first reads
// an element the previous program writes.
template <int B>
TL_KERNEL void sum_with_previous(ptr<const float> in, ptr<float> out, int n) {
  auto offs = program_id(0) * B + arange<0, B>();
  auto m = offs < n;
  auto prev = load(in + (offs - 1), m & (offs > 0), 0.0f);
  store(out + offs, prev + load(in + offs, m), m);
}
// out[i] = 2 in[i]: each program reads only what it writes itself.
template <int B>
TL_KERNEL void doubles(ptr<const float> in, ptr<float> out, int n) {
  auto offs = program_id(0) * B + arange<0, B>();
  store(out + offs, 2.0f * load(in + offs, offs < n), offs < n);
}

TEST_CASE("one container as a pointer-to-const input and an output: a read of another program's write is a race", "[launch][race]") {
  const int n = 100;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[std::size_t(i)] = float(i % 7);
  // In grid order program 1 reads element 63 after program 0 wrote it.
  for (bool sequential : {true, false}) {
    std::vector<float> v = x;
    const auto r = launch<sum_with_previous<64>>(grid(2), {.failure = on_failure::collect, .sequential = sequential, .threads = 2},
                                                 ptr<const float>(v, "in"), ptr<float>(v, "out"), n);
    INFO(r.str());
    REQUIRE(r.race_count >= 1);  // in parallel a load and a store at one instant may both see the other
    for (const store_race& race : r.races) CHECK(race.offset == 63);
    if (sequential) {
      CHECK(r.races[0].kind == race_kind::load_after_store);
      CHECK(r.races[0].buffer == "in");
    }
    CHECK_THAT(r.str(), Catch::Contains("'in' (a pointer to const) and 'out' are the same memory"));
  }
  // Overlapping views: in starts one element later.
  {
    std::vector<float> v = x;
    const std::span<float> all(v);
    const auto r = launch<sum_with_previous<64>>(grid(2), {.failure = on_failure::collect, .sequential = true},
                                                 ptr<const float>(std::span<const float>(all.subspan(1)), "in"),
                                                 ptr<float>(all.subspan(0, 99), "out"), 99);
    INFO(r.str());
    REQUIRE(r.race_count >= 1);
    CHECK_THAT(r.str(), Catch::Contains("are overlapping memory"));
  }
  // In place, each program its own elements: no race.
  std::vector<float> v = x;
  const auto r = launch<doubles<16>>(grid(cdiv(n, 16)), {.failure = on_failure::collect, .threads = 3},
                                     ptr<const float>(v, "in"), ptr<float>(v, "out"), n);
  INFO(r.str());
  CHECK(r.ok());
  for (int i = 0; i < n; ++i) CHECK(v[std::size_t(i)] == 2.0f * x[std::size_t(i)]);
}

template <int B>
TL_KERNEL void fill_first(ptr<float> z, int n, float value, unsigned short count) {
  auto offs = arange<0, B>();
  store(z + offs, value + float(count), offs < n);
}

TEST_CASE("an argument its parameter cannot hold is refused before the launch", "[launch]") {
  std::vector<float> z(4, -1.0f);
  const std::int64_t big = 3000000000LL;
  CHECK_THROWS_WITH(launch<fill_first<4>>(grid(1), z, big, 1.0f, 1),
                    Catch::Contains("argument #1 of kernel fill_first<4> is 3000000000, which its parameter's type, "
                                    "std::int32_t, cannot hold (it would arrive as -1294967296); pass a value from "
                                    "-2147483648 to 2147483647"));
  CHECK_THROWS_WITH(launch<fill_first<4>>(grid(1), z, 4, 1.0f, -1),
                    Catch::Contains("argument #3 of kernel fill_first<4> is -1, which its parameter's type, "
                                    "std::uint16_t, cannot hold (it would arrive as 65535)"));
  CHECK_THROWS_WITH(launch<fill_first<4>>(grid(1), z, 2.5, 1.0f, 1),
                    Catch::Contains("argument #1 of kernel fill_first<4> is 2.5, which its parameter's type, "
                                    "std::int32_t, would cut to another integer"));
  CHECK_THROWS_WITH(launch<fill_first<4>>(grid(1), z, 4, 1e300, 1),
                    Catch::Contains("argument #2 of kernel fill_first<4> is 1e+300, beyond the "
                                    "largest float"));
  for (float v : z) CHECK(v == -1.0f);  // nothing ran
  // Values that fit arrive as given, whatever their type.
  launch<fill_first<4>>(grid(1), z, std::int64_t(3), 0.5, std::size_t(2));
  CHECK(z == std::vector<float>{2.5f, 2.5f, 2.5f, -1.0f});
  launch<fill_first<4>>(grid(1), z, 4.0, 1.0f, 65535);
  CHECK(z[3] == 65536.0f);
  // A temporary view of a kept container is a fine output (a temporary container is a
  // compile-time error: tests/compile_fail/cf_launch_temporary_output.cpp).
  launch<fill_first<4>>(grid(1), std::span<float>(z).subspan(1), 2, 0.0f, 7);
  CHECK(z == std::vector<float>{65536.0f, 7.0f, 7.0f, 65536.0f});
}

// Mistakes a kernel makes at run time: the launch names the kernel, the program and the line.
template <int B>
TL_KERNEL void reads_axis(ptr<int> out, int axis) {
  store(out + program_id(0), program_id(axis));
}
template <int B>
TL_KERNEL void loops_with_step(ptr<int> out, int step) {
  int count = 0;
  for (int j : range(0, 8, step)) count += j >= 0;
  store(out + program_id(0), count);
}

TEST_CASE("a kernel's own mistakes name the kernel, the program and the line", "[launch]") {
  std::vector<int> out(4, -1);
  CHECK_THROWS_WITH(launch<reads_axis<1>>(grid(4), {.sequential = true}, out, 3),
                    Catch::Matches("tl::launch: kernel reads_axis<1>, program \\(0, 0, 0\\): tl::program_id: the axis is "
                                   "3 \\(at .*test_launch.cpp:[0-9]+\\); it must be 0, 1 or 2"));
  launch<reads_axis<1>>(grid(4), out, 0);
  CHECK(out == std::vector<int>{0, 1, 2, 3});
  CHECK_THROWS_WITH(launch<loops_with_step<1>>(grid(2), out, 0),
                    Catch::Matches("tl::launch: kernel loops_with_step<1>, program \\([01], 0, 0\\): tl::range: the step "
                                   "is 0 \\(at .*test_launch.cpp:[0-9]+\\); a loop needs a positive or a negative step"));
  launch<loops_with_step<1>>(grid(2), out, 3);
  CHECK(out[0] == 3);  // 0, 3, 6
  // A negative step counts down; a step that walks away from the end runs no iteration.
  std::vector<int> v;
  for (int j : range(8, 0, -3)) v.push_back(j);
  CHECK(v == std::vector<int>{8, 5, 2});
  for (int j : range(0, 8, -1)) v.push_back(j);
  CHECK(v.size() == 3);
}

// A plain C++ integer division by zero in a kernel traps on the host; the CPU backend names the
// kernel and the program before the process ends (run in a child process).
template <int B>
TL_KERNEL void divides(ptr<int> out, int d) {
  const int q = 100 / d;
  store(out + program_id(0), q);
}

// The launch's stderr and whether it ended by SIGFPE, run in a child process.
std::string divide_by_zero_in_child(int programs, bool sequential, bool& trapped) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    signal(SIGFPE, SIG_DFL);  // as in a program without handlers (the test framework has its own)
    std::vector<int> out(std::size_t(programs), 0);
    launch<divides<1>>(grid(programs), {.sequential = sequential, .threads = 8}, out, 0);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buf[512];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, std::size_t(n));
  close(fds[0]);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  trapped = WIFSIGNALED(status) && WTERMSIG(status) == SIGFPE;
  return text;
}

TEST_CASE("a kernel's scalar integer division by zero names the kernel, the program and the line", "[launch]") {
#if defined(__SANITIZE_ADDRESS__)
  WARN("skipped under the sanitizers: UndefinedBehaviorSanitizer reports the division first");
#else
  bool trapped = false;
  std::string text = divide_by_zero_in_child(2, true, trapped);
  CHECK(trapped);
  // This file is compiled with line tables (-g1: tests/CMakeLists.txt), so the line is known.
  CHECK_THAT(text, Catch::Matches("tl: integer division by zero in kernel divides<1>, program \\(0, 0, 0\\), at "
                                  ".*test_launch\\.cpp:[0-9]+: a division of plain C\\+\\+ integers in the kernel's "
                                  "code.*\n"));
  // Programs trapping at once on 8 threads: one report, whole.
  text = divide_by_zero_in_child(64, false, trapped);
  CHECK(trapped);
  std::size_t reports = 0;
  for (std::size_t at = text.find("tl: integer"); at != std::string::npos; at = text.find("tl: integer", at + 1)) ++reports;
  CHECK(reports == 1);
  CHECK_THAT(text, Catch::Matches("tl: integer division by zero in kernel divides<1>, program \\([0-9]+, 0, 0\\), at "
                                  ".*test_launch\\.cpp:[0-9]+: .*The process ends here\\.\n"));
  // A program's own SIGFPE handler (here the test framework's) is left alone.
  struct sigaction before {}, after {};
  REQUIRE(sigaction(SIGFPE, nullptr, &before) == 0);
  std::vector<int> out(2, 0);
  launch<divides<1>>(grid(2), out, 4);
  CHECK(out == std::vector<int>{25, 25});
  REQUIRE(sigaction(SIGFPE, nullptr, &after) == 0);
  CHECK(after.sa_sigaction == before.sa_sigaction);
#endif
}

// static_range unrolls at compile time: i is a constant (a template argument here), in order.
template <int B>
TL_KERNEL void static_range_kernel(ptr<const float> x, ptr<float> z) {
  auto offs = arange<0, B>();
  block<float, B> acc = zeros<B>(float32);
  tl::static_range<0, 4>([&](auto i) {
    static_assert(decltype(i)::value >= 0 && decltype(i)::value < 4);
    acc = acc * 10.0f + load(x + i * B + offs) * float(i + 1);
  });
  debug_barrier();  // the program's threads meet here (nothing to wait for on the CPU)
  store(z + offs, acc);
  int order = 0;
  tl::static_range<7, 0, -3>([&](auto i) { order = order * 10 + i; });  // 7, 4, 1
  tl::static_range<3, 3>([&](auto) { order = -1; });                    // no iteration
  store(z + B, float(order));
}

TEST_CASE("static_range runs its body once per value, unrolled, in order; debug_barrier runs", "[program]") {
  constexpr int B = 8;
  std::vector<float> x(4 * B), z(B + 1, -1.0f);
  for (int i = 0; i < 4 * B; ++i) x[std::size_t(i)] = float(i % 5);
  launch<static_range_kernel<B>>(grid(1), ptr<const float>(x, "x"), ptr<float>(z, "z"));
  for (int j = 0; j < B; ++j) {
    double want = 0;
    for (int i = 0; i < 4; ++i) want = want * 10 + double(x[std::size_t(i * B + j)]) * (i + 1);
    REQUIRE(z[std::size_t(j)] == float(want));
  }
  REQUIRE(z[B] == 741.0f);
}

namespace {
template <int B>
TL_KERNEL void fill_block(tl::ptr<int> out, int n) {
  auto offs = tl::arange<0, B>();
  tl::store(out + offs, offs * 0 + B, offs < n);
}
}  // namespace

TEST_CASE("tl::dispatch: a block size chosen at run time from a compiled set; outside it, an error naming the set", "[launch]") {
  REQUIRE(tl::next_power_of_2(1) == 1);
  REQUIRE(tl::next_power_of_2(0) == 1);
  REQUIRE(tl::next_power_of_2(300) == 512);
  REQUIRE(tl::next_power_of_2(1024) == 1024);
  for (int n : {1, 200, 256, 257, 1000}) {
    std::vector<int> out(static_cast<std::size_t>(n), -1);
    tl::dispatch<256, 512, 1024>(std::max<std::int64_t>(256, tl::next_power_of_2(n)), [&](auto B) {
      tl::launch<fill_block<B>>(tl::grid(1), tl::ptr<int>(out, "out"), n);
    });
    REQUIRE(out[0] == std::max(256, int(tl::next_power_of_2(n))));
  }
  REQUIRE(tl::dispatch<1, 2, 3>(3, [](auto v) { return int(v) * 10; }) == 30);
  try {
    tl::dispatch<256, 512>(4096, [](auto) {});
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    REQUIRE(std::string(e.what()) == "tl::dispatch: 4096 is not one of the compiled values 256, 512 (add it to tl::dispatch<...>'s list)");
  }
}

namespace {
template <int B>
TL_KERNEL void hinted_store(tl::ptr<float> x, int n, int start, int step) {
  auto offs = start + tl::arange<0, B>() * step;
  auto o = tl::max_contiguous(tl::multiple_of(offs, B), B);
  tl::store(x + o, 1.0f, o < n);
  tl::max_constancy(offs / B, B);
  tl::assume(n > 0);
}
}  // namespace

TEST_CASE("hints: the CPU backend notes multiple_of, max_contiguous, max_constancy the data contradicts; assume fails", "[launch]") {
  std::vector<float> x(100, 0.0f);
  const tl::launch_report good = tl::launch<hinted_store<16>>(tl::grid(1), tl::ptr<float>(x, "x"), 100, 32, 1);
  REQUIRE(good.ok());
  REQUIRE(good.hint_count == 0);
  const tl::launch_report off = tl::launch<hinted_store<16>>(tl::grid(1), tl::ptr<float>(x, "x"), 100, 8, 1);
  REQUIRE(off.ok());  // a note, not an error
  REQUIRE(off.hint_count == 2);  // multiple_of (8 starts the run); max_constancy (8 / 16 .. 23 / 16 change at 16)
  REQUIRE(off.str().find("tl::multiple_of(x, 16) is contradicted by the data: element 0 is 8") != std::string::npos);
  const tl::launch_report strided = tl::launch<hinted_store<16>>(tl::grid(1), tl::ptr<float>(x, "x"), 100, 0, 2);
  REQUIRE(strided.hint_count >= 1);
  REQUIRE(strided.str().find("tl::max_contiguous(x, 16) is contradicted by the data: element 1 is 2 after 0") != std::string::npos);
  const tl::launch_report assumed = tl::launch<hinted_store<16>>(tl::grid(1), {.failure = tl::on_failure::collect},
                                                                 tl::ptr<float>(x, "x"), 0, 32, 1);
  REQUIRE_FALSE(assumed.ok());
  REQUIRE(assumed.str().find("tl::assume: the assumed condition is false") != std::string::npos);
}

namespace {
// 2-D blocks with one hint value an axis (Triton's lists): the rows' starts (constant along
// the columns) and the full offsets rows * stride + cols.
template <int R, int C>
TL_KERNEL void hinted_tile(tl::ptr<float> x, int stride, int row_hint) {
  auto rows = tl::arange<0, R>();
  auto cols = tl::arange<0, C>();
  auto starts = tl::max_constancy(tl::multiple_of(rows(tl::_, tl::None) * stride + cols(tl::None, tl::_) * 0, {row_hint, 1}), {1, C});
  auto offs = tl::max_contiguous(tl::multiple_of(starts + cols(tl::None, tl::_), {1, C}), {1, C});
  tl::store(x + offs, 2.0f);
}
}  // namespace

TEST_CASE("hints with one value an axis check each axis", "[launch]") {
  std::vector<float> x(8 * 40, 0.0f);
  // Rows start at multiples of 40: a multiple of 8 along both axes holds.
  const tl::launch_report good = tl::launch<hinted_tile<8, 8>>(tl::grid(1), tl::ptr<float>(x, "x"), 40, 8);
  REQUIRE(good.ok());
  REQUIRE(good.hint_count == 0);
  // Every row start a multiple of 16: row 1 starts at 40.
  const tl::launch_report off = tl::launch<hinted_tile<8, 8>>(tl::grid(1), tl::ptr<float>(x, "x"), 40, 16);
  REQUIRE(off.hint_count == 1);
  REQUIRE(off.str().find("tl::multiple_of(x, 16) along axis 0 is contradicted by the data: element 8 is 40") != std::string::npos);
  // A stride of 36 puts row 1 at 36: both the rows' starts and the runs along the columns.
  const tl::launch_report odd = tl::launch<hinted_tile<8, 8>>(tl::grid(1), tl::ptr<float>(x, "x"), 36, 8);
  REQUIRE(odd.hint_count == 2);
  REQUIRE(odd.str().find("tl::multiple_of(x, 8) along axis 1 is contradicted by the data: element 8 is 36") != std::string::npos);
}

// Outputs left partly unwritten: a grid of n / B instead of cdiv(n, B), an offset that skips the
// head, a mask with holes; and what is not noted: rows' padding, an update, an accumulator, a
// mostly unwritten output (a deliberate partial update).
namespace unwritten_test {
template <int B>
TL_KERNEL void scale(ptr<const float> x, ptr<float> z, int n, int skip) {
  auto offs = skip + program_id(0) * B + arange<0, B>();
  store(z + offs, load(x + offs, offs < n) * 2.0f, offs < n);
}
template <int B>
TL_KERNEL void padded_rows(ptr<float> z, int cols, int stride) {
  auto c = arange<0, B>();
  store(z + program_id(0) * stride + c, 1.0f, c < cols);
}
template <int B>
TL_KERNEL void holes(ptr<float> z, int n) {
  auto offs = program_id(0) * B + arange<0, B>();
  store(z + offs, 1.0f, (offs < n) & (offs != 13) & (offs != 40) & (offs != 41));
}
template <int B>
TL_KERNEL void bump(ptr<float> z, int n) {
  auto offs = program_id(0) * B + arange<0, B>();
  store(z + offs, load(z + offs, offs < n) + 1.0f, offs < n);
}
template <int B>
TL_KERNEL void count_into(ptr<int> bins, ptr<const int> keys, int n) {
  auto offs = program_id(0) * B + arange<0, B>();
  atomic_add(bins + load(keys + offs, offs < n), 1, offs < n);
}
}  // namespace unwritten_test

TEST_CASE("outputs left partly unwritten are noted, by default on stderr; fail makes them errors",
          "[launch][unwritten]") {
  using namespace unwritten_test;
  const int n = 100;
  std::vector<float> x(n, 1.0f), z(n, -1.0f);
  // A grid of n / 32 programs: the last 4 elements are never stored.
  auto r = launch<scale<32>>(grid(n / 32), std::as_const(x), ptr(z, "z"), n, 0);
  REQUIRE(r.ok());
  REQUIRE(r.unwritten.size() == 1);
  CHECK(r.unwritten[0] == "z: elements 96..99 of 100 were never stored; is the grid cdiv(n, BLOCK), and does the last "
                          "program's mask reach n?");
  CHECK_THAT(r.str(), Catch::Contains("note: z: elements 96..99 of 100 were never stored"));
  // The same launch failing, and not looked at.
  const auto failed = launch<scale<32>>(grid(n / 32), {.failure = on_failure::collect, .unwritten = unwritten::fail},
                                        std::as_const(x), ptr(z, "z"), n, 0);
  CHECK_FALSE(failed.ok());
  CHECK_THAT(failed.str(), Catch::Contains("1 output(s) not written in full") && Catch::Contains("elements 96..99"));
  CHECK_THROWS_AS(launch<scale<32>>(grid(n / 32), {.unwritten = unwritten::fail}, std::as_const(x), ptr(z, "z"), n, 0),
                  launch_error);
  CHECK(launch<scale<32>>(grid(n / 32), {.unwritten = unwritten::ignore}, std::as_const(x), ptr(z, "z"), n, 0)
            .unwritten.empty());
  CHECK(launch<scale<32>>(grid(n / 32), {.unwritten = unwritten::note}, std::as_const(x), ptr(z, "z"), n, 0)
            .unwritten.size() == 1);
  // cdiv: nothing to note.
  CHECK(launch<scale<32>>(grid(cdiv(n, 32)), std::as_const(x), ptr(z, "z"), n, 0).unwritten.empty());
  // A head skipped, one element.
  r = launch<scale<32>>(grid(cdiv(n, 32)), std::as_const(x), ptr(z, "z"), n, 1);
  REQUIRE(r.unwritten.size() == 1);
  CHECK_THAT(r.unwritten[0], Catch::StartsWith("z: element 0 of 100 was never stored; do the offsets start"));
  // Holes that are no pattern.
  r = launch<holes<32>>(grid(cdiv(n, 32)), ptr(z, "z"), n);
  REQUIRE(r.unwritten.size() == 1);
  CHECK(r.unwritten[0] == "z: 3 of 100 elements were never stored, in 2 runs: 13, 40..41; do the grid and the masks "
                          "cover the output?");
  // Rows of 10 padded to 13: the padding is a pattern, and not noted.
  std::vector<float> rows(7 * 13, -1.0f);
  CHECK(launch<padded_rows<16>>(grid(7), ptr(rows, "rows"), 10, 13).unwritten.empty());
  CHECK(rows[10] == -1.0f);
  // An update (the output is loaded too), an accumulator (atomics), a mostly unwritten output.
  CHECK(launch<bump<32>>(grid(n / 32), ptr(z, "z"), n).unwritten.empty());
  std::vector<int> bins(8, 0), keys(50, 3);
  CHECK(launch<count_into<32>>(grid(2), ptr(bins, "bins"), std::as_const(keys), 50).unwritten.empty());
  CHECK(bins[3] == 50);
  std::vector<float> big(1000, -1.0f);
  CHECK(launch<scale<32>>(grid(1), std::as_const(x), ptr(big, "big"), n, 0).unwritten.empty());
}

TEST_CASE("a kernel called as a plain function is refused at its first program_id", "[launch][unwritten]") {
  std::vector<float> x(64, 1.0f), z(64, -1.0f);
  CHECK_THROWS_WITH(unwritten_test::scale<32>(ptr<const float>(x), ptr<float>(z), 64, 0),
                    Catch::Contains("tl::program_id outside tl::launch") &&
                        Catch::Contains("a kernel called as a plain function runs one program"));
  CHECK(z[0] == -1.0f);
}
