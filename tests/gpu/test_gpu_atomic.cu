// The atomics on the GPU against the CPU backend: contended sums, the old values a counter
// hands out, max and min on floats' bits, bitwise ops, a spin lock, small (replicated) blocks,
// and every memory semantics and scope.
#include <tl/tl.hpp>

#include <algorithm>
#include <cstring>

#include "gpu_testing.hpp"

using namespace gpu_testing;

namespace {

// Every lane adds its value into bins[idx % nbins]; the old values are stored too.
template <int B, class T>
TL_KERNEL void scatter_add_kernel(tl::ptr<const int> idx, tl::ptr<const T> val, tl::ptr<T> bins, tl::ptr<T> old, int n, int nbins) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  auto mask = offs < n;
  tl::store(old + offs, tl::atomic_add(bins + tl::load(idx + offs, mask) % nbins, tl::load(val + offs, mask), mask), mask);
}

template <class T, int B>
void check_scatter_add() {
  constexpr bool narrow = std::is_same_v<T, tl::fp16> || std::is_same_v<T, tl::bf16>;
  for (int rep = 0; rep < 3; ++rep) {
    const int n = random_int(1, narrow ? 200 : 20000), nbins = random_int(1, 9);
    std::vector<int> idx(static_cast<std::size_t>(n));
    std::vector<T> val(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      idx[std::size_t(i)] = random_int(0, 999);
      val[std::size_t(i)] = narrow ? T(float(random_int(-1, 1))) : T(random_int(std::is_unsigned_v<T> ? 0 : -2, 6));
    }
    auto run = [&](const tl::launch_options& o) {
      std::vector<T> bins(static_cast<std::size_t>(nbins), T(3)), old(static_cast<std::size_t>(n), T(0));
      tl::launch<scatter_add_kernel<B, T>>(tl::grid(tl::cdiv(n, B)), o, idx, val, bins, old, n, nbins);
      return bins;  // the old values depend on the order; the sums do not (exact in every type here)
    };
    require_agree(run(cpu), run(cuda), 0, 0, "scatter add, n " + std::to_string(n));
  }
}

template <int B>
TL_KERNEL void count_up_kernel(tl::ptr<unsigned> counter, tl::ptr<unsigned> old, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(old + offs, tl::atomic_add(counter, 1u, offs < n, tl::relaxed), offs < n);
}

template <int B, class T>
TL_KERNEL void extremes_kernel(tl::ptr<const T> val, tl::ptr<T> hi, tl::ptr<T> lo, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  auto mask = offs < n;
  auto v = tl::load(val + offs, mask);
  tl::atomic_max(hi + offs % 5, v, mask);
  tl::atomic_min(lo + offs % 5, v, mask, tl::cta, tl::release);
}

template <class T, int B>
void check_extremes() {
  for (int rep = 0; rep < 3; ++rep) {
    const int n = random_int(1, 5000);
    std::vector<T> val(static_cast<std::size_t>(n));
    for (auto& v : val) {
      const int k = random_int(0, 9);
      if constexpr (std::is_floating_point_v<T>) v = k == 0 ? T(0.0) : k == 1 ? T(-0.0) : T(random_int(-100000, 100000)) / T(64);
      else v = T(random_int(std::is_unsigned_v<T> ? 0 : -1000000, 1000000)) * T(k == 2 ? 4096 : 1);
    }
    auto run = [&](const tl::launch_options& o) {
      std::vector<T> hi(5, T(-1000)), lo(5, T(1000));
      if constexpr (std::is_unsigned_v<T>) hi.assign(5, T(0));
      tl::launch<extremes_kernel<B, T>>(tl::grid(tl::cdiv(n, B)), o, val, hi, lo, n);
      hi.insert(hi.end(), lo.begin(), lo.end());
      return hi;
    };
    const auto a = run(cpu), b = run(cuda);
    REQUIRE(std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);  // bit for bit: -0.0 too
  }
}

template <int B, class T>
TL_KERNEL void bit_ops_kernel(tl::ptr<const T> val, tl::ptr<T> acc, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  auto mask = offs < n;
  auto v = tl::load(val + offs, mask);
  tl::atomic_and(acc + 0, v, mask, tl::acquire, tl::sys);
  tl::atomic_or(acc + 1, v, mask, tl::acq_rel);
  tl::atomic_xor(acc + 2, v, mask, tl::relaxed, tl::gpu);
}

template <class T>
void check_bit_ops() {
  const int n = random_int(1, 3000);
  std::vector<T> val(static_cast<std::size_t>(n));
  for (auto& v : val) v = T(rng()()) | T(rng()()) | (T(rng()()) << 16);
  auto run = [&](const tl::launch_options& o) {
    std::vector<T> acc{T(~T(0)), T(0), T(0)};
    tl::launch<bit_ops_kernel<256, T>>(tl::grid(tl::cdiv(n, 256)), o, val, acc, n);
    return acc;
  };
  require_agree(run(cpu), run(cuda), 0, 0, "bitwise atomics");
}

template <int B>
TL_KERNEL void exchange_chain_kernel(tl::ptr<int> slot, tl::ptr<int> old, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(old + offs, tl::atomic_xchg(slot + offs * 0, offs + 1, offs < n), offs < n);
}

// One lane per program takes the lock; the count and the order of owners are plain accesses.
TL_KERNEL void locked_increment_kernel(tl::ptr<int> lock, tl::ptr<int> count, tl::ptr<int> owners) {
  while (int(tl::atomic_cas(lock, 0, 1, tl::acquire)) == 1) {
  }
  const int c = tl::load(count);
  tl::store(owners + c, tl::program_id(0));
  tl::store(count, c + 1);
  tl::atomic_xchg(lock, 0, tl::release);
}

// A block of 4 lanes (held whole by every thread): thread 0 performs it, every thread gets the olds.
TL_KERNEL void small_block_kernel(tl::ptr<float> x, tl::ptr<float> old) {
  auto offs = tl::arange<0, 4>();
  auto o = tl::atomic_add(x + offs, 1.0f * (offs + 1), offs != 2);
  tl::store(old + tl::program_id(0) * 4 + offs, o);
}

// atomic_load of a masked row and atomic_store of every third element, in each semantics.
template <int B, class T>
TL_KERNEL void load_store_kernel(tl::ptr<const T> x, tl::ptr<T> y, tl::ptr<T> got, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  auto mask = offs < n;
  tl::store(got + offs, tl::atomic_load(x + offs, mask), mask);
  auto keep = mask & (offs % 3 == 0);
  tl::atomic_store(y + offs, tl::atomic_load(x + offs, keep, tl::relaxed, tl::cta), keep, tl::relaxed, tl::sys);
  tl::atomic_store(y + offs, T(1) + tl::load(x + offs, mask), mask & (offs % 3 == 1));
}

// A lock given back by a release atomic_store.
TL_KERNEL void locked_increment_store_unlock_kernel(tl::ptr<int> lock, tl::ptr<int> count) {
  while (int(tl::atomic_cas(lock, 0, 1, tl::acquire)) == 1) {
  }
  tl::store(count, tl::load(count) + 1);
  tl::debug_barrier();
  tl::atomic_store(lock, 0);
}

// Each program but the first waits for the one before it to publish (a chain through the
// flags), then publishes its own; polls whose value never comes time out.
template <int B>
TL_KERNEL void poll_chain_kernel(tl::ptr<int> flags, tl::ptr<int> came, tl::ptr<int> never, tl::ptr<int> timed_out) {
  const int pid = tl::program_id(0);
  if (pid > 0) tl::store(came + pid, tl::atomic_poll(flags + (pid - 1), 1).to(tl::int32));
  tl::debug_barrier();
  tl::atomic_store(flags + pid, 1);
  auto offs = tl::arange<0, B>();
  tl::store(timed_out + pid * B + offs, tl::atomic_poll(never + offs, offs % 2, tl::relaxed, tl::timeout_ns{20000}).to(tl::int32));
}

}  // namespace

TEST_CASE("atomic_load and atomic_store agree with the CPU backend, every width", "[gpu][atomic]") {
  auto check = [&]<class T>(T) {
    const int n = random_int(1, 3000);
    std::vector<T> x(static_cast<std::size_t>(n));
    for (auto& v : x) v = T(random_int(-100, 100));
    auto run = [&](const tl::launch_options& o) {
      std::vector<T> y(static_cast<std::size_t>(n), T(5)), got(static_cast<std::size_t>(n), T(7));
      tl::launch<load_store_kernel<256, T>>(tl::grid(tl::cdiv(n, 256)), o, x, y, got, n);
      REQUIRE(got == x);
      return y;
    };
    require_agree(run(cpu), run(cuda), 0, 0, "atomic_load / atomic_store");
  };
  check(std::int8_t{});
  check(std::uint16_t{});
  check(std::int32_t{});
  check(std::uint64_t{});
  check(tl::fp16{});
  check(tl::bf16{});
  check(float{});
  check(double{});
}

TEST_CASE("atomic_store releases a lock between thread blocks; atomic_poll waits and times out", "[gpu][atomic]") {
  const int programs = 300;
  std::vector<int> lock{0}, count{0};
  tl::launch<locked_increment_store_unlock_kernel>(tl::grid(programs), cuda, lock, count);
  REQUIRE(count[0] == programs);
  REQUIRE(lock[0] == 0);
  // The chain: fewer programs than fit on the device at once, so each waits only on running ones.
  const int chain = 64;
  constexpr int B = 32;
  std::vector<int> flags(chain, 0), came(chain, -1), never(B, 7), timed_out(chain * B, -1);
  tl::launch<poll_chain_kernel<B>>(tl::grid(chain), cuda, flags, came, never, timed_out);
  for (int p = 1; p < chain; ++p) REQUIRE(came[std::size_t(p)] == 1);
  REQUIRE(flags == std::vector<int>(chain, 1));
  for (int v : timed_out) REQUIRE(v == 0);
}

TEST_CASE("atomic_add under contention agrees with the CPU backend, every type", "[gpu][atomic]") {
  check_scatter_add<int, 256>();
  check_scatter_add<unsigned, 128>();
  check_scatter_add<std::int64_t, 256>();
  check_scatter_add<std::uint64_t, 64>();
  check_scatter_add<float, 1024>();
  check_scatter_add<double, 256>();
  check_scatter_add<tl::fp16, 256>();
  check_scatter_add<tl::bf16, 128>();
}

TEST_CASE("atomic_add hands out every old value of a counter once", "[gpu][atomic]") {
  for (int n : {1, 100, 65536}) {
    std::vector<unsigned> counter{0}, old(static_cast<std::size_t>(n), 7u);
    tl::launch<count_up_kernel<256>>(tl::grid(tl::cdiv(n, 256)), cuda, counter, old, n);
    REQUIRE(counter[0] == unsigned(n));
    std::sort(old.begin(), old.end());
    for (int i = 0; i < n; ++i) REQUIRE(old[std::size_t(i)] == unsigned(i));
  }
}

TEST_CASE("atomic_max and atomic_min agree bit for bit, floats' -0.0 included", "[gpu][atomic]") {
  check_extremes<int, 256>();
  check_extremes<unsigned, 128>();
  check_extremes<std::int64_t, 512>();
  check_extremes<std::uint64_t, 256>();
  check_extremes<float, 1024>();
  check_extremes<double, 256>();
}

TEST_CASE("atomic_and, atomic_or and atomic_xor agree with the CPU backend", "[gpu][atomic]") {
  check_bit_ops<unsigned>();
  check_bit_ops<std::int64_t>();
}

TEST_CASE("atomic_xchg chains and an atomic_cas spin lock work between thread blocks", "[gpu][atomic]") {
  const int n = 20000;
  std::vector<int> slot{0}, old(static_cast<std::size_t>(n), -1);
  tl::launch<exchange_chain_kernel<512>>(tl::grid(tl::cdiv(n, 512)), cuda, slot, old, n);
  old.push_back(slot[0]);
  std::sort(old.begin(), old.end());
  for (int i = 0; i <= n; ++i) REQUIRE(old[std::size_t(i)] == i);
  const int programs = 500;
  std::vector<int> lock{0}, count{0}, owners(programs, -1);
  tl::launch<locked_increment_kernel>(tl::grid(programs), cuda, lock, count, owners);
  REQUIRE(count[0] == programs);
  REQUIRE(lock[0] == 0);
  std::sort(owners.begin(), owners.end());
  for (int i = 0; i < programs; ++i) REQUIRE(owners[std::size_t(i)] == i);
}

TEST_CASE("a small block's atomics run once, and every thread gets the old values", "[gpu][atomic]") {
  const int programs = 40;
  auto run = [&](const tl::launch_options& o) {
    std::vector<float> x{0.0f, 0.0f, 0.0f, 0.0f}, old(programs * 4, -1.0f);
    tl::launch<small_block_kernel>(tl::grid(programs), o, x, old);
    REQUIRE(x == std::vector<float>{float(programs), 2.0f * programs, 0.0f, 4.0f * programs});
    std::vector<float> lane0;
    for (int p = 0; p < programs; ++p) {
      lane0.push_back(old[std::size_t(p * 4)]);
      REQUIRE(old[std::size_t(p * 4 + 2)] == 0.0f);  // masked off
    }
    std::sort(lane0.begin(), lane0.end());
    for (int p = 0; p < programs; ++p) REQUIRE(lane0[std::size_t(p)] == float(p));
  };
  run(cpu);
  run(cuda);
}

namespace {
// Every program adds its row of vals into one shared row of acc starting at `shift` (0: every
// chunk aligned, the vector instructions; 1: none aligned, one instruction a lane), masked to
// the first n columns; it stores the old values it gets back in its row of olds.
template <int B, class T>
TL_KERNEL void row_add_kernel(tl::ptr<const T> vals, tl::ptr<T> acc, tl::ptr<T> olds, int n, int shift) {
  auto cols = tl::arange<0, B>();
  auto m = cols < n;
  auto row = tl::program_id(0) * B + cols;
  auto v = tl::load(vals + row, m);
  tl::store(olds + row, tl::atomic_add(acc + shift + cols, v, m), m);
}

template <class T, int B>
void check_row_add(bool ones) {
  for (int shift : {0, 1}) {
    // Sums of small integers, exact in every type (bfloat16's: up to 256).
    constexpr bool narrow = std::is_same_v<T, tl::bf16>;
    const int programs = random_int(2, narrow ? 120 : 300), n = random_int(1, 3) == 1 ? random_int(1, B) : B;
    std::vector<T> vals(static_cast<std::size_t>(programs) * B);
    for (auto& v : vals) v = T(ones ? 1.0f : float(narrow ? random_int(-1, 1) : random_int(-2, 3)));
    const std::string what = "rows " + std::to_string(programs) + ", n " + std::to_string(n) + ", shift " + std::to_string(shift);
    auto run = [&](const tl::launch_options& o) {
      std::vector<T> acc(B + 1, T(1.0f)), olds(vals.size(), T(-99.0f));
      tl::launch<row_add_kernel<B, T>>(tl::grid(programs), o, vals, acc, olds, n, shift);
      return std::pair{acc, olds};
    };
    const auto [c_acc, c_olds] = run(cpu);
    const auto [g_acc, g_olds] = run(cuda);
    require_agree(c_acc, g_acc, 0, 0, what);  // exact: small integers in every type
    // The old values depend on the order the programs ran in; added to their own values they
    // give each element's successive sums. With every value 1 they are 1, 2, ..., programs.
    if (ones) {
      for (int j = 0; j < n; ++j) {
        std::vector<float> seen;
        for (int p = 0; p < programs; ++p) seen.push_back(float(g_olds[std::size_t(p) * B + j]));
        std::sort(seen.begin(), seen.end());
        for (int p = 0; p < programs; ++p) {
          INFO(what << ", column " << j);
          REQUIRE(seen[std::size_t(p)] == float(p + 1));
        }
      }
    }
  }
}
}  // namespace

TEST_CASE("atomic_add of whole rows (vector instructions on sm_90) agrees with the CPU backend", "[gpu][atomic]") {
  for (bool ones : {false, true}) {
    check_row_add<float, 1024>(ones);  // chunks of 4
    check_row_add<float, 256>(ones);   // chunks of 2
    check_row_add<tl::fp16, 1024>(ones);
    check_row_add<tl::fp16, 256>(ones);
    check_row_add<tl::bf16, 512>(ones);
  }
}
