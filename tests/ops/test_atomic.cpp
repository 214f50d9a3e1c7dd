// The atomics on the CPU backend: contended updates against plain-loop references, the old
// values they return, masks, bounds checks, the memory orders' spelling, a spin lock, and the
// race detector's view of atomics.
#include "testing.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace tl;

namespace {

// Every program adds its B values into bins[idx % NB] and keeps the old values it saw.
template <int B, class T>
TL_KERNEL void scatter_add(ptr<const int> idx, ptr<const T> val, ptr<T> bins, ptr<T> old, int n, int nbins) {
  auto offs = program_id(0) * B + arange<0, B>();
  auto mask = offs < n;
  auto i = load(idx + offs, mask);
  store(old + offs, atomic_add(bins + i % nbins, load(val + offs, mask), mask), mask);
}

template <class T>
void check_scatter_add(std::uint32_t seed) {
  std::mt19937 rng(seed);
  // float16 and bfloat16 hold every integer up to 2048 and 256: their lanes add -1, 0 or 1, at most 200 of them.
  constexpr bool narrow = std::is_same_v<T, fp16> || std::is_same_v<T, bf16>;
  const int n = 1 + int(rng() % (narrow ? 200 : 3000)), nbins = 1 + int(rng() % 7);
  std::vector<int> idx(static_cast<std::size_t>(n));
  std::vector<T> val(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    idx[std::size_t(i)] = int(rng() % 1000);
    // Small integers (negative ones only for signed types): every sum is exact in every type.
    val[std::size_t(i)] = narrow ? T(int(rng() % 3) - 1) : T(int(rng() % 9) - (std::is_unsigned_v<T> ? 0 : 2));
  }
  std::vector<T> bins(static_cast<std::size_t>(nbins), T(3)), old(static_cast<std::size_t>(n), T(-77));  // old poisoned
  launch<scatter_add<64, T>>(grid(cdiv(n, 64)), ptr<const int>(idx, "idx"), ptr<const T>(val, "val"), ptr<T>(bins, "bins"),
                             ptr<T>(old, "old"), n, nbins);
  std::vector<double> expect(static_cast<std::size_t>(nbins), 3.0);
  for (int i = 0; i < n; ++i) expect[std::size_t(idx[std::size_t(i)] % nbins)] += double(val[std::size_t(i)]);
  for (int b = 0; b < nbins; ++b) REQUIRE(double(bins[std::size_t(b)]) == expect[std::size_t(b)]);
  // Each lane's old value is the bin's start plus the values of some of the bin's other lanes:
  // at least 3 plus all their negative values, at most 3 plus all their positive ones.
  std::vector<double> low(static_cast<std::size_t>(nbins), 3.0), high(static_cast<std::size_t>(nbins), 3.0);
  for (int i = 0; i < n; ++i) {
    const double v = double(val[std::size_t(i)]);
    (v < 0 ? low : high)[std::size_t(idx[std::size_t(i)] % nbins)] += v;
  }
  for (int i = 0; i < n; ++i) {
    const double o = double(old[std::size_t(i)]);
    const std::size_t b = std::size_t(idx[std::size_t(i)] % nbins);
    REQUIRE(o >= low[b]);
    REQUIRE(o <= high[b]);
  }
}

template <int B>
TL_KERNEL void count_up(ptr<int> counter, ptr<int> old, int n) {
  auto offs = program_id(0) * B + arange<0, B>();
  store(old + offs, atomic_add(counter + offs * 0, 1, offs < n), offs < n);
}

}  // namespace

TEST_CASE("atomic_add under contention: the sums of a plain loop, every type", "[atomic]") {
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    check_scatter_add<std::int32_t>(seed);
    check_scatter_add<std::uint32_t>(seed + 10);
    check_scatter_add<std::int64_t>(seed + 20);
    check_scatter_add<std::uint64_t>(seed + 30);
    check_scatter_add<float>(seed + 40);
    check_scatter_add<double>(seed + 50);
    check_scatter_add<fp16>(seed + 60);
    check_scatter_add<bf16>(seed + 70);
  }
}

TEST_CASE("atomic_add returns each lane's old value: one counter, every lane a different one", "[atomic]") {
  for (int n : {1, 37, 1000}) {
    std::vector<int> counter{0}, old(static_cast<std::size_t>(n), -1);
    launch<count_up<32>>(grid(cdiv(n, 32)), ptr<int>(counter, "counter"), ptr<int>(old, "old"), n);
    REQUIRE(counter[0] == n);
    std::sort(old.begin(), old.end());
    for (int i = 0; i < n; ++i) REQUIRE(old[std::size_t(i)] == i);
  }
}

namespace {

template <int B, class T>
TL_KERNEL void extremes(ptr<const T> val, ptr<T> hi, ptr<T> lo, int n) {
  auto offs = program_id(0) * B + arange<0, B>();
  auto mask = offs < n;
  auto v = load(val + offs, mask);
  atomic_max(hi + offs % 3, v, mask, relaxed);
  atomic_min(lo + offs % 3, v, mask, gpu, relaxed);
}

// IEEE order with -0.0 below +0.0 (what the backends promise for floats).
template <class T>
bool below(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (a == 0 && b == 0) return std::signbit(a) && !std::signbit(b);
  }
  return a < b;
}

template <class T>
void check_extremes(std::uint32_t seed) {
  std::mt19937 rng(seed);
  const int n = 1 + int(rng() % 2000);
  std::vector<T> val(static_cast<std::size_t>(n));
  for (auto& v : val) {
    if constexpr (std::is_floating_point_v<T>) {
      const int k = int(rng() % 11);
      v = k == 0 ? T(0.0) : k == 1 ? T(-0.0) : T(std::ldexp(double(int(rng() % 2001) - 1000), int(rng() % 40) - 20));
    } else {
      // Any bits (negative values too for signed types), a quarter of them with smaller magnitudes.
      using U = std::make_unsigned_t<T>;
      const U r = U((std::uint64_t(rng()) << 32) | rng());
      v = T(rng() % 4 == 0 ? U(r >> 12) : r);
    }
  }
  std::vector<T> hi(3, std::numeric_limits<T>::lowest()), lo(3, std::numeric_limits<T>::max());
  if constexpr (std::is_floating_point_v<T>) {
    std::fill(hi.begin(), hi.end(), -std::numeric_limits<T>::infinity());
    std::fill(lo.begin(), lo.end(), std::numeric_limits<T>::infinity());
  }
  std::vector<T> ehi = hi, elo = lo;
  for (int i = 0; i < n; ++i) {
    T& h = ehi[std::size_t(i % 3)];
    T& l = elo[std::size_t(i % 3)];
    if (below(h, val[std::size_t(i)])) h = val[std::size_t(i)];
    if (below(val[std::size_t(i)], l)) l = val[std::size_t(i)];
  }
  launch<extremes<128, T>>(grid(cdiv(n, 128)), ptr<const T>(val, "val"), ptr<T>(hi, "hi"), ptr<T>(lo, "lo"), n);
  for (int k = 0; k < 3; ++k) {
    REQUIRE(std::memcmp(&hi[std::size_t(k)], &ehi[std::size_t(k)], sizeof(T)) == 0);  // bit for bit: -0.0 too
    REQUIRE(std::memcmp(&lo[std::size_t(k)], &elo[std::size_t(k)], sizeof(T)) == 0);
  }
}

}  // namespace

TEST_CASE("atomic_max and atomic_min: a plain loop's extremes, -0.0 below +0.0", "[atomic]") {
  for (std::uint32_t seed : {5u, 6u, 7u}) {
    check_extremes<std::int32_t>(seed);
    check_extremes<std::uint32_t>(seed);
    check_extremes<std::int64_t>(seed);
    check_extremes<std::uint64_t>(seed);
    check_extremes<float>(seed);
    check_extremes<double>(seed);
  }
  // -0.0 against +0.0 in both orders, alone.
  std::vector<float> z{0.0f, -0.0f};
  std::vector<float> hi{-0.0f, -0.0f, -0.0f}, lo{0.0f, 0.0f, 0.0f};
  launch<extremes<2, float>>(grid(1), ptr<const float>(z, "z"), ptr<float>(hi, "hi"), ptr<float>(lo, "lo"), 2);
  REQUIRE(!std::signbit(hi[0]));  // max(-0, +0) = +0
  REQUIRE(std::signbit(lo[1]));   // min(+0, -0) = -0
}

namespace {

template <int B, class T>
TL_KERNEL void bit_ops(ptr<const T> val, ptr<T> acc, ptr<T> old_and, int n) {
  auto offs = program_id(0) * B + arange<0, B>();
  auto mask = offs < n;
  auto v = load(val + offs, mask);
  store(old_and + offs, atomic_and(acc + 0, v, mask), mask);
  atomic_or(acc + 1, v, mask, acquire);
  atomic_xor(acc + 2, v, mask, release, cta);
}

}  // namespace

TEST_CASE("atomic_and, atomic_or, atomic_xor: a plain loop's results", "[atomic]") {
  std::mt19937 rng(9);
  for (int n : {1, 100, 777}) {
    std::vector<std::uint32_t> v32(static_cast<std::size_t>(n));
    std::vector<std::int64_t> v64(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      v32[std::size_t(i)] = rng() | rng() | rng();  // mostly ones, so that the and keeps some
      v64[std::size_t(i)] = std::int64_t((std::uint64_t(rng()) << 32 | rng()) | (std::uint64_t(rng()) << 32 | rng()));
    }
    std::vector<std::uint32_t> a32{~0u, 0u, 0u}, old32(static_cast<std::size_t>(n));
    std::vector<std::int64_t> a64{-1, 0, 0}, old64(static_cast<std::size_t>(n));
    launch<bit_ops<64, std::uint32_t>>(grid(cdiv(n, 64)), ptr<const std::uint32_t>(v32, "v"), ptr<std::uint32_t>(a32, "acc"),
                                       ptr<std::uint32_t>(old32, "old"), n);
    launch<bit_ops<64, std::int64_t>>(grid(cdiv(n, 64)), ptr<const std::int64_t>(v64, "v"), ptr<std::int64_t>(a64, "acc"),
                                      ptr<std::int64_t>(old64, "old"), n);
    std::uint32_t e32[3] = {~0u, 0u, 0u};
    std::int64_t e64[3] = {-1, 0, 0};
    for (int i = 0; i < n; ++i) {
      e32[0] &= v32[std::size_t(i)], e32[1] |= v32[std::size_t(i)], e32[2] ^= v32[std::size_t(i)];
      e64[0] &= v64[std::size_t(i)], e64[1] |= v64[std::size_t(i)], e64[2] ^= v64[std::size_t(i)];
    }
    for (int k = 0; k < 3; ++k) {
      REQUIRE(a32[std::size_t(k)] == e32[k]);
      REQUIRE(a64[std::size_t(k)] == e64[k]);
    }
    // Every old value of the and holds the final result's bits (and came before it).
    for (int i = 0; i < n; ++i) REQUIRE((old32[std::size_t(i)] & e32[0]) == e32[0]);
  }
}

namespace {

template <int B>
TL_KERNEL void exchange_chain(ptr<int> slot, ptr<int> old, int n) {
  auto offs = program_id(0) * B + arange<0, B>();
  store(old + offs, atomic_xchg(slot + offs * 0, offs + 1, offs < n), offs < n);
}

// A lock taken by atomic_cas and given back by atomic_xchg around plain loads and stores.
TL_KERNEL void locked_increment(ptr<int> lock, ptr<int> count, ptr<int> owners) {
  while (int(atomic_cas(lock, 0, 1, acquire)) == 1) {
  }
  const int c = load(count);
  store(owners + c, program_id(0));
  store(count, c + 1);
  atomic_xchg(lock, 0, release);
}

// The same, but program 3 also reads the count without the lock: a race the lock does not order.
// Program `first` (or none, -1) runs as if it were program 3's turn first: the program ids are
// swapped, so that on one thread program 3's stray read and locked section come before all others.
TL_KERNEL void increment_with_a_stray_read(ptr<int> lock, ptr<int> count, ptr<int> owners, ptr<int> seen, int first) {
  int pid = program_id(0);
  if (first >= 0) pid = pid == 0 ? first : pid == first ? 0 : pid;
  if (pid == 3) store(seen, load(count));
  while (int(atomic_cas(lock, 0, 1)) == 1) {  // Triton's default semantics, acq_rel
  }
  const int c = load(count);
  store(owners + c, pid);
  store(count, c + 1);
  atomic_xchg(lock, 0);
}

// A lock taken by atomic_cas and given back by a release atomic_store.
TL_KERNEL void locked_increment_store_unlock(ptr<int> lock, ptr<int> count) {
  while (int(atomic_cas(lock, 0, 1, acquire)) == 1) {
  }
  store(count, load(count) + 1);
  atomic_store(lock, 0);
}

// Program 0 publishes a value with a release store; program 1 polls for it, then reads it.
TL_KERNEL void publish_and_poll(ptr<int> flag, ptr<int> payload, ptr<int> seen, ptr<int> came) {
  if (program_id(0) == 0) {
    atomic_store(payload, 42, relaxed);
    atomic_store(flag, 1);
  } else {
    store(came, atomic_poll(flag, 1, timeout_ns{20'000'000'000ull}).to(int32));
    store(seen, atomic_load(payload, relaxed));
  }
}

}  // namespace

TEST_CASE("atomic_load and atomic_store: masked reads and writes of every width", "[atomic]") {
  std::mt19937_64& g = testing::rng();
  auto check_type = [&]<class T>(T) {
    std::vector<T> x(24), y(24, T(7));
    for (auto& v : x) v = T(int(g() % 100) - 50);
    ptr<T> px(x, "x"), py(y, "y");
    auto offs = arange<0, 32>();
    const auto got = testing::values(atomic_load(px + offs, offs < 24));
    for (int i = 0; i < 32; ++i) REQUIRE(got[std::size_t(i)] == (i < 24 ? double(x[std::size_t(i)]) : 0.0));
    auto keep = (offs % 3 == 0) & (offs < 24);
    atomic_store(py + offs, load(px + offs, keep), keep, relaxed, cta);
    for (int i = 0; i < 24; ++i) REQUIRE(double(y[std::size_t(i)]) == (i % 3 == 0 ? double(x[std::size_t(i)]) : 7.0));
    REQUIRE(double(T(atomic_load(px + 5, relaxed, sys))) == double(x[5]));
  };
  check_type(std::int8_t{});
  check_type(std::uint16_t{});
  check_type(std::int32_t{});
  check_type(std::int64_t{});
  check_type(fp16{});
  check_type(bf16{});
  check_type(float{});
  check_type(double{});
  // An invalid lane is reported, not performed (the valid ones are).
  std::vector<int> z(4, 1);
  auto offs = arange<0, 8>();
  REQUIRE_THROWS_WITH(atomic_store(ptr<int>(z, "z") + offs, 5), Catch::Contains("atomic") && Catch::Contains("'z'"));
  REQUIRE(z == std::vector<int>(4, 5));
}

TEST_CASE("a release atomic_store gives back a lock that atomic_cas took", "[atomic][race]") {
  const int programs = 32;
  std::vector<int> lock{0}, count{0};
  const launch_report rep =
      launch<locked_increment_store_unlock>(grid(programs), {.failure = on_failure::collect}, ptr<int>(lock, "lock"), ptr<int>(count, "count"));
  INFO(rep.str());
  REQUIRE(rep.ok());
  REQUIRE(rep.race_count == 0);
  REQUIRE(count[0] == programs);
  REQUIRE(lock[0] == 0);
}

TEST_CASE("atomic_poll: true where the value comes, false where the time budget runs out", "[atomic]") {
  std::vector<int> x{1, 2, 3, 4};
  ptr<int> p(x, "x");
  auto offs = arange<0, 4>();
  REQUIRE(testing::values(atomic_poll(p + offs, 2 * offs + 1, timeout_ns{1'000'000})) == std::vector<double>{1, 0, 0, 0});
  REQUIRE(testing::values(atomic_poll(p + offs, offs + 1)) == std::vector<double>{1, 1, 1, 1});
  REQUIRE(bool(atomic_poll(p + 3, 4, relaxed, timeout_ns{0})));  // read once even with no time
  std::vector<std::int64_t> w{5};
  REQUIRE(!bool(atomic_poll(ptr<std::int64_t>(w, "w"), std::int64_t(6), timeout_ns{100'000})));
  // Between programs running at once: program 1 waits for program 0's release store.
  std::vector<int> flag{0}, payload{0}, seen{-1}, came{-1};
  const launch_report rep = launch<publish_and_poll>(grid(2), {.failure = on_failure::collect, .threads = 2}, ptr<int>(flag, "flag"),
                                                     ptr<int>(payload, "payload"), ptr<int>(seen, "seen"), ptr<int>(came, "came"));
  INFO(rep.str());
  REQUIRE(came[0] == 1);
  REQUIRE(seen[0] == 42);
}

TEST_CASE("atomic_xchg: the old values and the last value form one chain", "[atomic]") {
  const int n = 500;
  std::vector<int> slot{0}, old(static_cast<std::size_t>(n), -1);
  launch<exchange_chain<16>>(grid(cdiv(n, 16)), ptr<int>(slot, "slot"), ptr<int>(old, "old"), n);
  // The values 0 .. n each appear once among the olds and the final value.
  std::vector<int> all = old;
  all.push_back(slot[0]);
  std::sort(all.begin(), all.end());
  for (int i = 0; i <= n; ++i) REQUIRE(all[std::size_t(i)] == i);
}

TEST_CASE("atomic_cas and atomic_xchg make a spin lock between programs on host threads", "[atomic]") {
  const int programs = 64;
  std::vector<int> lock{0}, count{0}, owners(programs, -1);
  // The lock orders the plain accesses, and the race detector follows it: no race.
  const launch_report rep = launch<locked_increment>(grid(programs), {.failure = on_failure::collect}, ptr<int>(lock, "lock"),
                                                     ptr<int>(count, "count"), ptr<int>(owners, "owners"));
  INFO(rep.str());
  REQUIRE(rep.ok());
  REQUIRE(rep.race_count == 0);
  REQUIRE(count[0] == programs);
  REQUIRE(lock[0] == 0);
  std::sort(owners.begin(), owners.end());
  for (int i = 0; i < programs; ++i) REQUIRE(owners[std::size_t(i)] == i);
}

TEST_CASE("the race detector follows locks: an access without the lock still races", "[atomic][race]") {
  const int programs = 16;
  // In program order on one thread (program 3's stray read after program 0 stored the count
  // under the lock), on many threads, and with program 3 first (its read before every locked
  // access, its own included): each order is reported.
  for (int order = 0; order < 12; ++order) {
    INFO("order " << order);
    std::vector<int> lock{0}, count{0}, owners(programs, -1), seen{-1};
    const launch_options o = order == 0   ? launch_options{.failure = on_failure::collect, .sequential = true}
                             : order == 1 ? launch_options{.failure = on_failure::collect, .threads = 1}
                                          : launch_options{.failure = on_failure::collect, .threads = 4};
    const launch_report rep = order == 1 ? launch<increment_with_a_stray_read>(grid(programs), o, ptr<int>(lock, "lock"),
                                                                               ptr<int>(count, "count"), ptr<int>(owners, "owners"),
                                                                               ptr<int>(seen, "seen"), 3)
                                         : launch<increment_with_a_stray_read>(grid(programs), o, ptr<int>(lock, "lock"),
                                                                               ptr<int>(count, "count"), ptr<int>(owners, "owners"),
                                                                               ptr<int>(seen, "seen"), -1);
    INFO(rep.str());
    REQUIRE(count[0] == programs);
    REQUIRE(rep.race_count > 0);
    bool names_count = false;
    for (const auto& r : rep.races) names_count = names_count || r.buffer == "count";
    REQUIRE(names_count);
  }
}

TEST_CASE("atomic_cas swaps only where the element equals cmp, and returns the old values", "[atomic]") {
  std::vector<float> x{1.0f, 2.0f, 3.0f, 4.0f};
  ptr<float> p(x, "x");
  auto offs = arange<0, 4>();
  const auto old = testing::values(atomic_cas(p + offs, where(offs % 2 == 0, 1.0f * (offs + 1), -1.0f), 9.0f));
  REQUIRE(old == std::vector<double>{1.0, 2.0, 3.0, 4.0});
  REQUIRE(x == std::vector<float>{9.0f, 2.0f, 9.0f, 4.0f});
  std::vector<std::uint64_t> w{5};
  REQUIRE(std::uint64_t(atomic_cas(ptr<std::uint64_t>(w, "w"), std::uint64_t(5), std::uint64_t(7), relaxed, sys)) == 5);
  REQUIRE(w[0] == 7);
}

TEST_CASE("masked-off lanes do nothing and return 0; an invalid lane is reported, not performed", "[atomic]") {
  std::vector<int> x{10, 20, 30, 40};
  ptr<int> p(x, "x");
  auto offs = arange<0, 8>();
  const auto old = testing::values(atomic_add(p + offs, 1, (offs % 2 == 1) & (offs < 4)));
  REQUIRE(old == std::vector<double>{0, 20, 0, 40, 0, 0, 0, 0});
  REQUIRE(x == std::vector<int>{10, 21, 30, 41});
  try {
    (void)atomic_max(p + offs, 100, offs < 6);
    FAIL("no launch_error");
  } catch (const launch_error& e) {
    REQUIRE_THAT(std::string(e.what()), Catch::Contains("atomic") && Catch::Contains("'x'"));
  }
  REQUIRE(x == std::vector<int>{100, 100, 100, 100});  // the valid lanes ran; lanes 4 and 5 did not
}

namespace {

template <int B>
TL_KERNEL void atomic_then_plain(ptr<int> x) {
  if (program_id(0) == 0) atomic_add(x + arange<0, B>(), 1);
  if (program_id(0) == 1) store(x + arange<0, B>(), 5);
}
template <int B>
TL_KERNEL void plain_then_atomic(ptr<int> x) {
  if (program_id(0) == 0) (void)load(x + arange<0, B>());
  if (program_id(0) == 1) atomic_add(x + arange<0, B>(), 1);
}
template <int B>
TL_KERNEL void atomics_only(ptr<int> x) {
  atomic_add(x + arange<0, B>(), 1);
  atomic_max(x + arange<0, B>(), 0);
}

}  // namespace

TEST_CASE("race detection: atomics do not race with atomics; a plain access racing with one is reported", "[atomic][race]") {
  std::vector<int> x(8, 0);
  auto r = launch<atomics_only<8>>(grid(16), {.failure = on_failure::collect}, ptr<int>(x, "x"));
  CHECK(r.race_count == 0);
  REQUIRE(x == std::vector<int>(8, 16));
  std::fill(x.begin(), x.end(), 0);
  r = launch<atomic_then_plain<8>>(grid(2), {.failure = on_failure::collect, .sequential = true}, ptr<int>(x, "x"));
  CHECK(r.race_count == 8);
  REQUIRE(!r.races.empty());
  CHECK(r.races[0].kind == race_kind::plain_after_atomic);
  CHECK_THAT(r.str(), Catch::Contains("without an atomic, which program (0, 0, 0) accesses atomically"));
  r = launch<plain_then_atomic<8>>(grid(2), {.failure = on_failure::collect, .sequential = true}, ptr<int>(x, "x"));
  CHECK(r.race_count == 8);
  REQUIRE(!r.races.empty());
  CHECK(r.races[0].kind == race_kind::atomic_after_plain);
  CHECK_THAT(r.str(), Catch::Contains("race: program (1, 0, 0) accesses element 0 of buffer 'x' atomically"));
}

// ---- waits that cannot end ----

namespace {

// A spin lock taken and never given back: every program after the first spins forever.
constexpr int never_released_line = __LINE__ + 2;
TL_KERNEL void never_released(ptr<int> lock, ptr<int> entered) {
  while (int(atomic_cas(lock, 0, 1)) == 1) {
  }
  atomic_add(entered, 1);
}

// A look-back scan: program i waits for program i - 1's prefix (its flag), then publishes its
// own; the prefixes are inclusive sums of x.
TL_KERNEL void look_back_scan(ptr<const int> x, ptr<int> prefix, ptr<int> flags) {
  const int pid = program_id(0);
  int before = 0;
  if (pid > 0) {
    while (int(atomic_load(flags + (pid - 1))) == 0) {
    }
    before = int(atomic_load(prefix + (pid - 1), relaxed));
  }
  atomic_store(prefix + pid, before + int(load(x + pid)), relaxed);
  atomic_store(flags + pid, 1);
}

// The same waiting on the next program instead: program i waits for program i + 1.
constexpr int waits_on_successor_line = __LINE__ + 4;
TL_KERNEL void waits_on_successor(ptr<int> flags) {
  const int pid = program_id(0);
  if (pid + 1 < num_programs(0)) {
    while (int(atomic_load(flags + (pid + 1))) == 0) {
    }
  }
  atomic_store(flags + pid, 1);
}

// And with atomic_poll without a time budget.
constexpr int polls_successor_line = __LINE__ + 3;
TL_KERNEL void polls_successor(ptr<int> flags) {
  const int pid = program_id(0);
  if (pid + 1 < num_programs(0)) (void)atomic_poll(flags + (pid + 1), 1);
  atomic_store(flags + pid, 1);
}

}  // namespace

TEST_CASE("a spin lock never given back is reported with the program, op, line and buffer, not spun forever", "[atomic][hang]") {
  for (bool sequential : {true, false}) {
    INFO("sequential " << sequential);
    std::vector<int> lock{0}, entered{0};
    const launch_report rep =
        launch<never_released>(grid(6), {.failure = on_failure::collect, .sequential = sequential, .threads = 3, .hang_timeout_ms = 200},
                               ptr<int>(lock, "lock"), ptr<int>(entered, "entered"));
    INFO(rep.str());
    REQUIRE(!rep.ok());
    REQUIRE(entered[0] == 1);
    REQUIRE(rep.hang_count == (sequential ? 1 : 3));
    REQUIRE(rep.hangs.size() == std::size_t(rep.hang_count));
    for (const stuck_wait& h : rep.hangs) {
      CHECK(h.op == "tl::atomic_cas");
      CHECK(h.where.line == never_released_line);
      CHECK(h.buffer == "lock");
      CHECK(h.offset == 0);
      CHECK(h.program[0] >= 1);
    }
    CHECK(rep.hang_threads == (sequential ? 1 : 3));
    // One thread: program 1 spins, 2 to 5 never start. Three: program 0 and two waiters ran
    // first (0 finished, its thread took a third waiter), and two had not started.
    CHECK(rep.unstarted_count == (sequential ? 4 : 2));
    CHECK_THAT(rep.str(), Catch::Contains("hang: program (1, 0, 0) waits in tl::atomic_cas at") &&
                              Catch::Contains("on element 0 of buffer 'lock'") && Catch::Contains("had not started"));
  }
  // A raising launch throws the report.
  std::vector<int> lock{0}, entered{0};
  REQUIRE_THROWS_WITH((launch<never_released>(grid(2), {.sequential = true}, ptr<int>(lock, "lock"), ptr<int>(entered, "entered"))),
                      Catch::Contains("wait(s) that could not end"));
}

TEST_CASE("a look-back scan ends with any number of host threads; a wait for a later program is reported", "[atomic][hang]") {
  std::mt19937 rng(21);
  const int n = 40;
  std::vector<int> x(n);
  for (int& v : x) v = int(rng() % 201) - 100;
  std::vector<int> expect(n);
  for (int i = 0, s = 0; i < n; ++i) expect[std::size_t(i)] = s += x[std::size_t(i)];
  for (int threads : {0, 1, 2, 64}) {
    std::vector<int> prefix(n, -12345), flags(n, 0);
    const launch_report rep = launch<look_back_scan>(grid(n), {.failure = on_failure::collect, .threads = threads, .hang_timeout_ms = 2000},
                                                     ptr<const int>(x, "x"), ptr<int>(prefix, "prefix"), ptr<int>(flags, "flags"));
    INFO(rep.str());
    REQUIRE(rep.ok());
    REQUIRE(prefix == expect);
  }
  // Waiting on the next program: sequential, the first program waits for one that cannot start.
  for (int kernel = 0; kernel < 2; ++kernel) {
    std::vector<int> flags(8, 0);
    const launch_options seq{.failure = on_failure::collect, .sequential = true};
    const launch_report rep = kernel == 0 ? launch<waits_on_successor>(grid(8), seq, ptr<int>(flags, "flags"))
                                          : launch<polls_successor>(grid(8), seq, ptr<int>(flags, "flags"));
    INFO(rep.str());
    REQUIRE(rep.hang_count == 1);
    REQUIRE(rep.hangs.size() == 1);
    const stuck_wait& h = rep.hangs[0];
    CHECK(h.program[0] == 0);
    CHECK(h.op == (kernel == 0 ? "tl::atomic_load" : "tl::atomic_poll"));
    CHECK(h.where.line == (kernel == 0 ? waits_on_successor_line : polls_successor_line));
    CHECK(h.buffer == "flags");
    CHECK(h.offset == 1);
    CHECK(rep.unstarted_count == 7);
    CHECK(rep.unstarted.size() == 7);
    CHECK_THAT(rep.str(), Catch::Contains("7 program(s) had not started: (1, 0, 0), (2, 0, 0)") &&
                              Catch::Contains("one at a time") && Catch::Contains("runs at the same time"));
    CHECK(flags == std::vector<int>(8, 0));
  }
  // More programs than threads: the first threads' programs wait for programs no thread is
  // free to run. Enough threads: the wait ends.
  {
    std::vector<int> flags(12, 0);
    const launch_report rep = launch<waits_on_successor>(grid(12), {.failure = on_failure::collect, .threads = 4, .hang_timeout_ms = 200},
                                                         ptr<int>(flags, "flags"));
    INFO(rep.str());
    REQUIRE(rep.hang_count == 4);
    CHECK(rep.unstarted_count == 8);
    CHECK(rep.hang_threads == 4);
    CHECK_THAT(rep.str(), Catch::Contains("all of them busy waiting"));
  }
  {
    std::vector<int> flags(12, 0);
    const launch_report rep = launch<waits_on_successor>(grid(12), {.failure = on_failure::collect, .threads = 12, .hang_timeout_ms = 2000},
                                                         ptr<int>(flags, "flags"));
    INFO(rep.str());
    REQUIRE(rep.ok());
    REQUIRE(flags == std::vector<int>(12, 1));
  }
  // The environment sets the bound too.
  setenv("TL_HANG_TIMEOUT_MS", "100", 1);
  std::vector<int> flags(6, 0);
  const launch_report rep = launch<waits_on_successor>(grid(6), {.failure = on_failure::collect, .threads = 2}, ptr<int>(flags, "flags"));
  unsetenv("TL_HANG_TIMEOUT_MS");
  REQUIRE(rep.hang_count == 2);
  REQUIRE(rep.hangs[0].seconds >= 0.05);
  REQUIRE(rep.hangs[0].seconds < 2.0);
}

namespace {

// A lock given back with a plain store instead of an atomic.
constexpr int plain_unlock_line = __LINE__ + 5;
TL_KERNEL void released_by_plain_store(ptr<int> lock, ptr<int> count) {
  while (int(atomic_cas(lock, 0, 1, acquire)) == 1) {
  }
  store(count, load(count) + 1);
  store(lock, 0);
}

}  // namespace

TEST_CASE("a lock given back with a plain store is reported, naming the lock and the line", "[atomic][race]") {
  for (bool sequential : {true, false}) {
    INFO("sequential " << sequential);
    std::vector<int> lock{0}, count{0};
    const launch_report rep = launch<released_by_plain_store>(grid(8), {.failure = on_failure::collect, .sequential = sequential},
                                                              ptr<int>(lock, "lock"), ptr<int>(count, "count"));
    INFO(rep.str());
    REQUIRE(rep.race_count >= 1);
    bool named = false;
    for (const store_race& r : rep.races)
      if (r.kind == race_kind::lock_released_by_store) {
        named = true;
        CHECK(r.buffer == "lock");
        CHECK(r.offset == 0);
        CHECK(r.where.line == plain_unlock_line);
      }
    REQUIRE(named);
    CHECK_THAT(rep.str(), Catch::Contains("releases the lock at element 0 of buffer 'lock' with a plain store") &&
                              Catch::Contains("tl::atomic_xchg(lock, 0)"));
    REQUIRE(count[0] == 8);
  }
}
