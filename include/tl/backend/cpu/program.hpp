// tl/backend/cpu/program.hpp: which program a host thread is running (program_id,
// num_programs), and where its findings go. A launch owns one launch_state; each host thread
// running a program points its thread-local program_state at it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../../core/report.hpp"
#include "host_threads.hpp"
#include "../../core/trace.hpp"

namespace tl::detail::cpu {

// Race detection's memory: for each element of memory a launch stores, or loads through a
// non-const pointer, which program (linear id + 1) stored it first (0: none) and which loaded it
// (0: none, -1: more than one program). Keyed by the element's address, so that every view of
// one allocation (tl::ptrs that start at different places in it) meets the same records; a
// record exists only for the 4 KiB pages of memory the launch touches, one table per element
// size (views of one memory as elements of different sizes are not compared).
//   address -> region (64 MiB: a table of page pointers, made on first use) -> page (4 KiB of
//   memory: owner and reader of each of its 4096 / size elements, made on first use)
// A program keeps the regions it used last (race_cache), so most accesses take no lock.
// (Elements are read and written with host_threads.hpp's atomic operations.)
inline constexpr std::int32_t several_readers = -1;
// An owner record of an element accessed atomically, first by program `me` (linear id + 1).
constexpr std::int32_t atomic_owner(std::int32_t me) { return -1 - me; }
constexpr bool is_atomic_owner(std::int32_t owner) { return owner <= -2; }
constexpr std::int32_t atomic_program(std::int32_t owner) { return -1 - owner; }
struct race_page {
  std::int32_t* owner;   // [4096 / size]
  std::int32_t* reader;  // [4096 / size]
  std::int32_t* guard;   // [4096 / size]: the lock (race_tables::locks' id) its accesses held, or 0
};
struct race_region {
  static constexpr int page_bits = 12, region_bits = 26, pages = 1 << (region_bits - page_bits);
  std::uintptr_t key = 0;  // the region's first address >> region_bits, and the element size
  race_page* page[pages] = {};
};
struct race_tables {
  host_mutex mutex;  // guards regions and locks
  std::vector<race_region*> regions;
  // The addresses programs have taken as locks (a successful atomic_cas with acquire semantics);
  // a lock's id is its index + 1.
  std::vector<std::uintptr_t> locks;
  std::int64_t bytes = 0;  // what the tables take (launch_report::race_check_bytes)
  race_tables() = default;
  race_tables(const race_tables&) = delete;
  race_tables& operator=(const race_tables&) = delete;
  ~race_tables() {
    for (race_region* r : regions) {
      for (race_page* p : r->page)
        if (p) {
          delete[] p->owner;
          delete p;
        }
      delete r;
    }
  }
};

struct program_state;

// Waits that cannot end: what the launch's host threads share to see that every running
// program spins on memory that no program changes (check_wait).
struct wait_watch {
  host_mutex mutex;                  // guards the fields below and each program's `site`
  program_state* states = nullptr;   // one per host thread of the launch (null outside a launch)
  int threads = 0;
  long long* next = nullptr;         // the next program id to start (launch/cpu.hpp)
  long long total = 0;
  std::uint64_t timeout_ns = 0;      // 0: never stop a wait
  std::int32_t stop = 0;             // set when a wait was found that cannot end
  std::uint64_t writes_seen = 0;     // the programs' writes summed, when `since` was set
  std::uint64_t since = 0;           // since when every running program spins and none writes
};

// An address range of an argument read through a pointer to const that another argument of
// the launch (a pointer to non-const) can write: loads through it are noted for races too.
struct aliased_input {
  std::uintptr_t begin, end;
};

struct launch_state {
  launch_report report;
  host_mutex mutex;  // guards report
  bool detect_races = false;
  race_tables races;
  wait_watch waits;
  std::vector<aliased_input> aliased;
  launch_state() = default;
  launch_state(const launch_state&) = delete;
  launch_state& operator=(const launch_state&) = delete;
};

// The regions and pages a program used last (most recent first).
struct race_cache {
  static constexpr int size = 4;
  std::uintptr_t key[size] = {};
  race_region* region[size] = {};
  std::uintptr_t page_key[size] = {};
  race_page* page[size] = {};
};

struct program_state {
  int pid[3] = {0, 0, 0};
  int grid[3] = {1, 1, 1};
  launch_state* launch = nullptr;
  std::vector<traced_access>* trace = nullptr;  // this host thread's accesses, when the launch is traced
  std::int32_t linear_id = 0;
  bool made_store = false, stored_any = false;  // a store op ran; one of its lanes was masked in
  // A store or atomic ran with `masked_in` lanes masked in.
  void note_store_op(std::int64_t masked_in) {
    made_store = true;
    stored_any = stored_any || masked_in > 0;
  }
  race_cache races;                             // the race tables' regions used last
  // The locks this program holds now (race_tables::locks' ids): its plain accesses under one
  // are ordered with other programs' accesses under the same lock.
  static constexpr int max_held = 4;
  std::int32_t held[max_held] = {};
  std::uintptr_t held_address[max_held] = {};  // the addresses of the locks held
  int held_count = 0;
  // Waits (check_wait). An atomic that changes memory, or a store, is a write; an atomic that
  // changes nothing and returns what this program's previous atomic returned (the same op,
  // address and values: `key`) is a spin. Other host threads read writes, spins and running.
  std::uint64_t writes = 0;       // the writes of this thread's programs
  std::uint64_t spins = 0;        // this program's spins in a row
  std::uint64_t key = 0;          // its last atomic's op, first address and values, hashed
  std::int32_t running = 0;       // 1 while the thread runs a program
  std::uint64_t spin_since = 0;   // when its spins reached spin_check_interval (under waits.mutex)
  struct wait_site {
    const char* op = "";
    source_location where{};
    const char* buffer = nullptr;
    std::int64_t offset = 0;
  } site;                         // where it spins (under waits.mutex)
  static constexpr std::uint64_t spin_check_interval = 1024;
  static constexpr std::uint64_t sequential_spin_limit = std::uint64_t(1) << 20;  // on one host thread
  void note_write() {
    relaxed_store(writes, writes + 1);
    if (spins) relaxed_store(spins, std::uint64_t(0));
  }
  // An atomic that changed nothing and returned values hashed as k: true when check_wait is due.
  bool note_unchanged(std::uint64_t k) {
    if (k != key) {
      key = k;
      if (spins) relaxed_store(spins, std::uint64_t(0));
      return false;
    }
    const std::uint64_t n = spins + 1;
    relaxed_store(spins, n);
    return n % spin_check_interval == 0;
  }
  bool holds(std::int32_t lock) const {
    for (int i = 0; i < held_count; ++i)
      if (held[i] == lock) return true;
    return false;
  }
};

inline thread_local program_state* current_program = nullptr;

// Thrown out of a program's spin when its launch found a wait that cannot end; the launch
// catches it (the report holds the waits).
struct program_stopped {};

// Called by a spinning program every spin_check_interval spins: stops it (program_stopped)
// when the launch already found a wait that cannot end, or when this one cannot end: on one
// host thread, after 2^20 spins; on several, when every running program has spun and no
// program wrote for the launch's timeout. `op` spun at `where` on element `offset` of `buffer`.
TL_RUNTIME_FN void check_wait(program_state* p, const char* op, const source_location& where, const char* buffer,
                              std::int64_t offset);

// One print at a time (programs on other host threads never interleave with it).
TL_RUNTIME_FN host_mutex& print_mutex();

// Called by a load/store with at least one invalid lane. Outside a launch (an op called
// directly, as in unit tests), it throws at once.
TL_RUNTIME_FN void report_invalid_access(invalid_access a);

TL_RUNTIME_FN void report_assert_failure(assert_failure f);

// Called by a compiler hint the data contradicts (debug.hpp: check_hint): a note in the
// launch's report. Outside a launch nothing is recorded.
TL_RUNTIME_FN void report_contradicted_hint(assert_failure f);

// program_id(axis) and num_programs(axis) (ops/program.hpp). Outside a launch they throw: a
// kernel called as a plain function would run program 0 alone and leave the rest of its
// outputs unwritten. A mistake in the kernel throws; the launch names the kernel and the
// program (launch.hpp).
[[noreturn]] TL_RUNTIME_FN void axis_out_of_range(const char* op, int axis, const source_location& where);
[[noreturn]] TL_RUNTIME_FN void outside_a_launch(const char* op, const source_location& where);
inline int program_id(int axis, const source_location& where = source_location{}) {
  const program_state* p = current_program;
  if (axis < 0 || axis > 2) axis_out_of_range("tl::program_id", axis, where);
  if (!p) outside_a_launch("tl::program_id", where);
  return p->pid[axis];
}
inline int num_programs(int axis, const source_location& where = source_location{}) {
  const program_state* p = current_program;
  if (axis < 0 || axis > 2) axis_out_of_range("tl::num_programs", axis, where);
  if (!p) outside_a_launch("tl::num_programs", where);
  return p->grid[axis];
}
// tl::range(start, stop, 0) (ops/program.hpp).
[[noreturn]] TL_RUNTIME_FN void range_step_is_zero(const source_location& where);

#if TL_RUNTIME_DEFINITIONS
TL_RUNTIME_FN host_mutex& print_mutex() {
  static host_mutex m;
  return m;
}

TL_RUNTIME_FN void report_invalid_access(invalid_access a) {
  program_state* p = current_program;
  if (!p || !p->launch) {
    launch_report r;
    r.kernel = "(no launch)";
    r.invalid_ops = 1;
    r.invalid_lanes = a.invalid_lanes;
    r.invalid.push_back(std::move(a));
    throw launch_error(std::move(r));
  }
  for (int i = 0; i < 3; ++i) a.program[i] = p->pid[i];
  host_lock lock(p->launch->mutex);
  launch_report& r = p->launch->report;
  ++r.invalid_ops;
  r.invalid_lanes += a.invalid_lanes;
  if (r.invalid.size() < launch_report::max_records) r.invalid.push_back(std::move(a));
}

TL_RUNTIME_FN void report_assert_failure(assert_failure f) {
  program_state* p = current_program;
  if (!p || !p->launch) {
    launch_report r;
    r.kernel = "(no launch)";
    r.asserts.push_back(std::move(f));
    throw launch_error(std::move(r));
  }
  for (int i = 0; i < 3; ++i) f.program[i] = p->pid[i];
  host_lock lock(p->launch->mutex);
  if (p->launch->report.asserts.size() < launch_report::max_records) p->launch->report.asserts.push_back(std::move(f));
}

TL_RUNTIME_FN void report_contradicted_hint(assert_failure f) {
  program_state* p = current_program;
  if (!p || !p->launch) return;
  for (int i = 0; i < 3; ++i) f.program[i] = p->pid[i];
  host_lock lock(p->launch->mutex);
  ++p->launch->report.hint_count;
  if (p->launch->report.hints.size() < launch_report::max_records) p->launch->report.hints.push_back(std::move(f));
}

// The wait is found: every spinning program's wait into the report, the programs not started,
// and the launch stopped. Called with waits.mutex held.
[[noreturn]] TL_RUNTIME_FN void stop_waits(program_state* p, std::uint64_t now) {
  launch_state& L = *p->launch;
  wait_watch& w = L.waits;
  {
    host_lock lock(L.mutex);
    launch_report& r = L.report;
    for (int t = 0; t < w.threads; ++t) {
      program_state& s = w.states[t];
      if (!atomic_load(s.running) || relaxed_load(s.spins) < program_state::spin_check_interval || !s.site.buffer) continue;
      ++r.hang_count;
      if (r.hangs.size() >= launch_report::max_records) continue;
      stuck_wait h;
      for (int i = 0; i < 3; ++i) h.program[i] = s.pid[i];
      h.op = s.site.op;
      h.where = s.site.where;
      h.buffer = s.site.buffer;
      h.offset = s.site.offset;
      h.spins = std::int64_t(relaxed_load(s.spins));
      h.seconds = double(now - s.spin_since) * 1e-9;
      r.hangs.push_back(std::move(h));
    }
    long long next = atomic_load(*w.next);
    if (next > w.total) next = w.total;
    r.unstarted_count = w.total - next;
    for (long long id = next; id < w.total && r.unstarted.size() < launch_report::lanes_per_record; ++id)
      r.unstarted.push_back({int(id % p->grid[0]), int((id / p->grid[0]) % p->grid[1]), int(id / (std::int64_t(p->grid[0]) * p->grid[1]))});
    r.hang_threads = w.threads;
  }
  atomic_store(w.stop, 1);
  atomic_store(*w.next, w.total);  // no other program starts
  throw program_stopped{};
}

TL_RUNTIME_FN void check_wait(program_state* p, const char* op, const source_location& where, const char* buffer,
                              std::int64_t offset) {
  if (!p->launch) return;
  wait_watch& w = p->launch->waits;
  if (!w.states) return;
  if (atomic_load(w.stop)) throw program_stopped{};
  if (w.timeout_ns == 0) return;
  host_lock lock(w.mutex);
  if (w.stop) throw program_stopped{};  // another program found it meanwhile
  const std::uint64_t now = monotonic_ns();  // under the lock: `since` never lies after it
  p->site = {op, where, buffer ? buffer : "(unnamed)", offset};
  if (p->spins <= program_state::spin_check_interval) p->spin_since = now;
  if (w.threads == 1) {  // nothing else runs: no write can come
    if (p->spins >= program_state::sequential_spin_limit) stop_waits(p, now);
    return;
  }
  std::uint64_t writes = 0;
  bool all_spin = true;
  for (int t = 0; t < w.threads; ++t) {
    program_state& s = w.states[t];
    writes += relaxed_load(s.writes);
    if (atomic_load(s.running) && relaxed_load(s.spins) < program_state::spin_check_interval) all_spin = false;
  }
  if (!all_spin || writes != w.writes_seen || w.since == 0) {
    w.writes_seen = writes;
    w.since = now;
    return;
  }
  if (now - w.since >= w.timeout_ns) stop_waits(p, now);
}

[[noreturn]] TL_RUNTIME_FN void axis_out_of_range(const char* op, int axis, const source_location& where) {
  throw usage_error(std::string(op) + ": the axis is " + std::to_string(axis) + " (at " + where.file + ":" +
                    std::to_string(where.line) + "); it must be 0, 1 or 2");
}

[[noreturn]] TL_RUNTIME_FN void outside_a_launch(const char* op, const source_location& where) {
  throw usage_error(std::string(op) + " outside tl::launch (at " + where.file + ":" + std::to_string(where.line) +
                    "): a kernel called as a plain function runs one program; launch it with "
                    "tl::launch<kernel>(tl::grid(...), args...)");
}

[[noreturn]] TL_RUNTIME_FN void range_step_is_zero(const source_location& where) {
  throw usage_error("tl::range: the step is 0 (at " + std::string(where.file) + ":" + std::to_string(where.line) +
                    "); a loop needs a positive or a negative step");
}
#endif  // TL_RUNTIME_DEFINITIONS

}  // namespace tl::detail::cpu
