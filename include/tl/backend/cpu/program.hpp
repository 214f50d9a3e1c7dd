// tl/backend/cpu/program.hpp: which program a host thread is running (program_id,
// num_programs), and where its findings go. A launch owns one launch_state; each host thread
// running a program points its thread-local program_state at it.
#pragma once

#include <cstdint>
#include <vector>

#include "../../core/report.hpp"
#include "host_threads.hpp"
#include "trace.hpp"

namespace tl::detail::cpu {

// For race detection, per buffer a kernel stores or loads through a non-const pointer: which
// program (linear id + 1) stored each element first (0: none), and which loaded it (0: none,
// -1: more than one program).
// (Elements are read and written with host_threads.hpp's atomic operations.)
struct store_owners {
  const void* base = nullptr;  // the buffer's start
  std::int64_t size = 0;
  std::vector<std::int32_t> owner, reader;
};
inline constexpr std::int32_t several_readers = -1;

struct launch_state {
  launch_report report;
  host_mutex mutex;  // guards report and owners
  bool detect_races = false;
  std::vector<store_owners*> owners;  // one table per buffer (a launch touches few)
  launch_state() = default;
  launch_state(const launch_state&) = delete;
  launch_state& operator=(const launch_state&) = delete;
  ~launch_state() {
    for (store_owners* o : owners) delete o;
  }
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

// One print at a time (programs on other host threads never interleave with it).
inline host_mutex& print_mutex() {
  static host_mutex m;
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
  host_lock lock(p->launch->mutex);
  launch_report& r = p->launch->report;
  ++r.invalid_ops;
  r.invalid_lanes += a.invalid_lanes;
  if (r.invalid.size() < launch_report::max_records) r.invalid.push_back(std::move(a));
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
  host_lock lock(p->launch->mutex);
  if (p->launch->report.asserts.size() < launch_report::max_records) p->launch->report.asserts.push_back(std::move(f));
}

// program_id(axis) and num_programs(axis) (ops/program.hpp). Outside a launch (an op called
// directly, as in unit tests) the program is 0 of a grid of 1.
inline int program_id(int axis) {
  if (axis < 0 || axis > 2) throw usage_error("tl::program_id: the axis must be 0, 1 or 2");
  const program_state* p = current_program;
  return p ? p->pid[axis] : 0;
}
inline int num_programs(int axis) {
  if (axis < 0 || axis > 2) throw usage_error("tl::num_programs: the axis must be 0, 1 or 2");
  const program_state* p = current_program;
  return p ? p->grid[axis] : 1;
}

}  // namespace tl::detail::cpu
