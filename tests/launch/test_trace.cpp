// The CPU backend's trace: every load and store of every program, lane by lane.
#include "testing.hpp"
#include "traced_kernels.hpp"

using namespace tl;
using tl::None;
using tl::_;
using traced::add_ten;
using traced::tile_copy;

TEST_CASE("a trace holds every load and store of every program, in program order", "[trace]") {
  std::vector<float> x(200, 1.0f), z(200);
  trace t;
  launch<add_ten<32>>(grid(7), {.trace = &t}, ptr(x, "x"), ptr(z, "z"), 200, 0);
  REQUIRE_THAT(t.kernel, Catch::EndsWith("add_ten<32>"));
  REQUIRE(t.grid[0] == 7);
  REQUIRE(t.accesses.size() == 14);
  for (int p = 0; p < 7; ++p) {
    const auto& ld = t.accesses[std::size_t(2 * p)];
    const auto& st = t.accesses[std::size_t(2 * p + 1)];
    REQUIRE(ld.program[0] == p);
    REQUIRE(ld.op == access_kind::load);
    REQUIRE(st.op == access_kind::store);
    REQUIRE(ld.buffer == "x");
    REQUIRE(st.buffer == "z");
    REQUIRE(ld.buffer_size == 200);
    REQUIRE(ld.element_size == 4);
    REQUIRE(ld.shape == std::vector<int>{32});
    REQUIRE(ld.lanes.size() == 32);
    REQUIRE(st.lanes.size() == 32);
    REQUIRE(st.where.line == ld.where.line);
    for (int i = 0; i < 32; ++i) {
      const auto& l = ld.lanes[std::size_t(i)];
      REQUIRE(l.offset == p * 32 + i);
      REQUIRE(l.masked_in == (p * 32 + i < 200));
      REQUIRE(l.valid == l.masked_in);
      REQUIRE(st.lanes[std::size_t(i)].offset == l.offset);  // masked-off store lanes are traced too
      REQUIRE(st.lanes[std::size_t(i)].masked_in == l.masked_in);
    }
  }
  const auto s = t.sum();
  REQUIRE(s.loads == 7);
  REQUIRE(s.stores == 7);
  REQUIRE(s.lanes == 14 * 32);
  REQUIRE(s.masked_in == 400);
  REQUIRE(s.invalid == 0);
  REQUIRE(s.bytes_loaded == 800);
  REQUIRE(s.bytes_stored == 800);
}

TEST_CASE("a trace marks invalid lanes: masked in, outside the buffer, not accessed", "[trace]") {
  std::vector<float> x(200, 1.0f), z(200);
  trace t;
  const auto r = launch<add_ten<32>>(grid(7), {.failure = on_failure::collect, .threads = 3, .trace = &t}, ptr(x, "x"),
                                     ptr(z, "z"), 200, 1);
  REQUIRE(r.invalid_lanes == 2);
  const auto s = t.sum();
  REQUIRE(s.invalid == 2);
  REQUIRE(s.masked_in == 402);
  REQUIRE(s.bytes_loaded == 800);
  const auto& last_load = t.accesses[12];
  REQUIRE(last_load.program[0] == 6);
  REQUIRE(last_load.lanes[8].offset == 200);
  REQUIRE(last_load.lanes[8].masked_in);
  REQUIRE_FALSE(last_load.lanes[8].valid);
}

TEST_CASE("a trace of a 2-D grid: block shapes and program ids on both axes", "[trace]") {
  const int n0 = 20, n1 = 24;
  std::vector<int> x(n0 * n1, 3), z(n0 * n1);
  trace t;
  launch<tile_copy<8, 16>>(grid(cdiv(n0, 8), cdiv(n1, 16)), {.trace = &t}, x, z, n0, n1);
  REQUIRE(t.accesses.size() == 2 * 3 * 2);
  REQUIRE(t.accesses[0].shape == std::vector<int>{8, 16});
  REQUIRE(t.accesses[0].buffer == "argument #0");
  // Axis 0 varies fastest: programs (0,0), (1,0), (2,0), (0,1), ...
  REQUIRE(t.accesses[2].program[0] == 1);
  REQUIRE(t.accesses[6].program[1] == 1);
  REQUIRE(t.accesses[6].program[0] == 0);
  REQUIRE(t.sum().bytes_stored == std::int64_t(n0) * n1 * 4);
  for (int v : z) REQUIRE(v == 3);
}
