// tl/backend/cpu/program.hpp: which program a host thread is running, and where its
// findings go. A launch owns one launch_state; each host thread running a program points
// its thread-local program_state at it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "../report.hpp"
#include "trace.hpp"

namespace tl::detail::cpu {

// For race detection, per buffer a kernel stores or loads through a non-const pointer: which
// program (linear id + 1) stored each element first (0: none), and which loaded it (0: none,
// -1: more than one program).
struct store_owners {
  std::int64_t size = 0;
  std::unique_ptr<std::atomic<std::int32_t>[]> owner;
  std::unique_ptr<std::atomic<std::int32_t>[]> reader;
};
inline constexpr std::int32_t several_readers = -1;

struct launch_state {
  launch_report report;
  std::mutex mutex;  // guards report, owners and the print stream
  bool detect_races = false;
  std::map<const void*, store_owners> owners;  // by buffer start
};

struct program_state {
  int pid[3] = {0, 0, 0};
  int grid[3] = {1, 1, 1};
  launch_state* launch = nullptr;
  std::vector<traced_access>* trace = nullptr;  // this host thread's accesses, when the launch is traced
  std::int32_t linear_id = 0;
  bool made_store = false, stored_any = false;  // a store op ran; one of its lanes was masked in
  const void* owners_of = nullptr;              // the last buffer looked up, and its table
  store_owners* owners = nullptr;
};

inline thread_local program_state* current_program = nullptr;

inline std::mutex& print_mutex() {
  static std::mutex m;
  return m;
}

// Called by a load/store with at least one invalid lane. Outside a launch (an op called
// directly, as in unit tests), it throws at once.
inline void report_invalid_access(invalid_access a) {
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
  std::lock_guard<std::mutex> lock(p->launch->mutex);
  launch_report& r = p->launch->report;
  ++r.invalid_ops;
  r.invalid_lanes += a.invalid_lanes;
  if (r.invalid.size() < launch_report::max_records) r.invalid.push_back(std::move(a));
}

// The race table of a buffer, made on first use (the last one looked up is cached).
inline store_owners* owners_of(program_state* p, const void* base, std::int64_t extent) {
  if (p->owners_of != base) {
    std::lock_guard<std::mutex> lock(p->launch->mutex);
    store_owners& o = p->launch->owners[base];
    if (!o.owner) {
      o.size = extent;
      o.owner = std::make_unique<std::atomic<std::int32_t>[]>(std::size_t(extent));
      o.reader = std::make_unique<std::atomic<std::int32_t>[]>(std::size_t(extent));
    }
    p->owners_of = base;
    p->owners = &o;
  }
  return p->owners;
}

// The table of an element the running program accesses, or null where races are not tracked
// (outside a launch, detection off, a pointer of unknown size, an offset past the buffer).
inline store_owners* race_table(program_state* p, const void* base, std::int64_t extent, std::int64_t offset) {
  if (!p || !p->launch || !p->launch->detect_races || extent < 0) return nullptr;
  store_owners* o = owners_of(p, base, extent);
  return offset < o->size ? o : nullptr;
}

inline void record_race(program_state* p, race_kind kind, std::int32_t other_id, std::int64_t offset,
                        const char* name, source_location where) {
  store_race r;
  r.kind = kind;
  if (other_id > 0) {
    const std::int32_t f = other_id - 1;
    r.first_program[0] = int(f % p->grid[0]);
    r.first_program[1] = int((f / p->grid[0]) % p->grid[1]);
    r.first_program[2] = int(f / (p->grid[0] * p->grid[1]));
  } else {
    r.several = true;  // loaded by more than one program: which ones is not kept
  }
  for (int i = 0; i < 3; ++i) r.program[i] = p->pid[i];
  r.where = where;
  r.buffer = name ? name : "(unnamed)";
  r.offset = offset;
  std::lock_guard<std::mutex> lock(p->launch->mutex);
  launch_report& rep = p->launch->report;
  ++rep.race_count;
  if (rep.races.size() < launch_report::max_records) rep.races.push_back(std::move(r));
}

// Called by a store for each element it writes (checked pointers only): records the first
// program to store it, and reports a second one, or another program that loaded it.
inline void note_store(const void* base, std::int64_t extent, std::int64_t offset, const char* name,
                       source_location where) {
  program_state* p = current_program;
  store_owners* o = race_table(p, base, extent, offset);
  if (!o) return;
  const std::int32_t me = p->linear_id + 1;
  std::int32_t first = 0;
  if (!o->owner[std::size_t(offset)].compare_exchange_strong(first, me) && first != me) {
    record_race(p, race_kind::store_store, first, offset, name, where);
    return;
  }
  const std::int32_t reader = o->reader[std::size_t(offset)].load();
  if (reader != 0 && reader != me) record_race(p, race_kind::store_after_load, reader, offset, name, where);
}

// Called by a load for each element it reads through a checked non-const pointer (the
// buffers a launch may also store): records the program, and reports the element if
// another program stores it.
inline void note_load(const void* base, std::int64_t extent, std::int64_t offset, const char* name,
                      source_location where) {
  program_state* p = current_program;
  store_owners* o = race_table(p, base, extent, offset);
  if (!o) return;
  const std::int32_t me = p->linear_id + 1;
  std::atomic<std::int32_t>& reader = o->reader[std::size_t(offset)];
  // A plain read first: most loads find themselves (or "several") recorded and write nothing.
  std::int32_t seen = reader.load();
  if (seen == 0) reader.compare_exchange_strong(seen, me);  // on failure, seen is the other program
  if (seen != 0 && seen != me && seen != several_readers) reader.store(several_readers);
  const std::int32_t owner = o->owner[std::size_t(offset)].load();
  if (owner != 0 && owner != me) record_race(p, race_kind::load_after_store, owner, offset, name, where);
}

inline void report_assert_failure(assert_failure f) {
  program_state* p = current_program;
  if (!p || !p->launch) {
    launch_report r;
    r.kernel = "(no launch)";
    r.asserts.push_back(std::move(f));
    throw launch_error(std::move(r));
  }
  for (int i = 0; i < 3; ++i) f.program[i] = p->pid[i];
  std::lock_guard<std::mutex> lock(p->launch->mutex);
  if (p->launch->report.asserts.size() < launch_report::max_records) p->launch->report.asserts.push_back(std::move(f));
}

}  // namespace tl::detail::cpu
