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

// For race detection: per stored buffer, which program (linear id + 1) stored each element
// first; 0 where none has.
struct store_owners {
  std::int64_t size = 0;
  std::unique_ptr<std::atomic<std::int32_t>[]> owner;
};

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

// Called by a store for each element it writes (checked pointers only): records the first
// program to store it, and reports a second one.
inline void note_store(const void* base, std::int64_t extent, std::int64_t offset, const char* name,
                       source_location where) {
  program_state* p = current_program;
  if (!p || !p->launch || !p->launch->detect_races || extent < 0) return;
  if (p->owners_of != base) {
    std::lock_guard<std::mutex> lock(p->launch->mutex);
    store_owners& o = p->launch->owners[base];
    if (!o.owner) {
      o.size = extent;
      o.owner = std::make_unique<std::atomic<std::int32_t>[]>(std::size_t(extent));
    }
    p->owners_of = base;
    p->owners = &o;
  }
  if (offset >= p->owners->size) return;
  const std::int32_t me = p->linear_id + 1;
  std::int32_t first = 0;
  if (p->owners->owner[std::size_t(offset)].compare_exchange_strong(first, me) || first == me) return;
  store_race r;
  const std::int32_t f = first - 1;
  r.first_program[0] = int(f % p->grid[0]);
  r.first_program[1] = int((f / p->grid[0]) % p->grid[1]);
  r.first_program[2] = int(f / (p->grid[0] * p->grid[1]));
  for (int i = 0; i < 3; ++i) r.program[i] = p->pid[i];
  r.where = where;
  r.buffer = name ? name : "(unnamed)";
  r.offset = offset;
  std::lock_guard<std::mutex> lock(p->launch->mutex);
  launch_report& rep = p->launch->report;
  ++rep.race_count;
  if (rep.races.size() < launch_report::max_records) rep.races.push_back(std::move(r));
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
