// tl/launch/cpu.hpp: running every program of a grid on host threads.
#pragma once

#include <exception>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "options.hpp"
#include "../backend/cpu/host_threads.hpp"
#include "../backend/cpu/program.hpp"
#if TL_RUNTIME_DEFINITIONS
#include "division_fault.hpp"
#endif

namespace tl::detail::cpu {

// Runs run_program(bound) once per program of the grid on host threads (each program gets its
// own copy of the parameters); the programs' invalid accesses, failed asserts and races are
// gathered in the report. The part of a CPU launch that does not depend on the kernel.
// `buffers` are the kernel's pointer arguments (for the aliases of race detection).
struct buffer_range {
  std::uintptr_t begin, end;  // end: the address space's end where the size is unknown
  bool read_only;             // a tl::ptr<const T>
  const char* name;
};
TL_RUNTIME_FN launch_report run_grid(const grid& g, const launch_options& options, std::string_view kernel,
                                     void (*run_program)(const void* bound), const void* bound,
                                     const std::vector<buffer_range>& buffers);

template <class P>
void add_buffer_range(const P&, std::vector<buffer_range>&) {}
template <class T>
void add_buffer_range(const ptr<T>& p, std::vector<buffer_range>& out) {
  if (!p.base) return;
  const auto b = reinterpret_cast<std::uintptr_t>(p.base);
  out.push_back({b, p.extent >= 0 ? b + std::uintptr_t(p.extent) * sizeof(T) : ~std::uintptr_t(0), std::is_const_v<T>, p.name});
}

// Runs Kernel once per program of the grid with (a copy of) the bound parameters.
template <auto Kernel, class Params>
launch_report run(const grid& g, const launch_options& options, const Params& bound) {
  std::vector<buffer_range> buffers;
  std::apply([&](const auto&... p) { (add_buffer_range(p, buffers), ...); }, bound);
  return run_grid(
      g, options, detail::kernel_name<Kernel>(),
      [](const void* b) {
        Params params = *static_cast<const Params*>(b);  // each program gets its own copy
        std::apply(Kernel, params);
      },
      &bound, buffers);
}

#if TL_RUNTIME_DEFINITIONS
// What the host threads of one launch share. Each thread takes the next program id from
// `next`, runs it with its own program_state, and keeps the accesses it traces in its own
// list (in the order it ran its programs, which is increasing program order).
struct program_runner {
  long long grid[3];
  long long total;
  launch_state* state;
  bool trace;
  void (*run_program)(const void* bound);  // Kernel(params...) on a copy of the parameters
  const void* bound;

  program_runner(const tl::grid& g, launch_state* s, bool traced_launch, void (*run)(const void*), const void* b)
      : grid{g.x, g.y, g.z}, total(g.x * g.y * g.z), state(s), trace(traced_launch), run_program(run), bound(b) {}
  program_runner(const program_runner&) = delete;
  program_runner& operator=(const program_runner&) = delete;

  long long next = 0;
  host_mutex mutex;  // guards failure and traced
  std::exception_ptr failure;
  std::vector<std::vector<traced_access>> traced;
  std::vector<program_state> states;  // one per host thread (launch_state::waits)
  int next_state = 0;

  static void work(void* self) { static_cast<program_runner*>(self)->work(); }
  // The first failure is kept; the programs not started yet do not run.
  void fail(std::exception_ptr e) {
    host_lock lock(mutex);
    if (!failure) failure = std::move(e);
    atomic_store(next, total);
  }
  void work() {
    program_state& ps = states[std::size_t(atomic_fetch_add(next_state, 1))];
    for (int a = 0; a < 3; ++a) ps.grid[a] = int(grid[a]);
    ps.launch = state;
    std::vector<traced_access> mine;
    if (trace) ps.trace = &mine;
    program_state* const outer = current_program;
    current_program = &ps;
    atomic_store(ps.running, 1);  // from before it takes a program id: one taken is never missed
    for (long long id = atomic_fetch_add(next, 1LL); id < total; id = atomic_fetch_add(next, 1LL)) {
      ps.pid[0] = int(id % grid[0]);
      ps.pid[1] = int((id / grid[0]) % grid[1]);
      ps.pid[2] = int(id / (grid[0] * grid[1]));
      ps.linear_id = std::int32_t(id);
      ps.made_store = ps.stored_any = false;
      ps.held_count = 0;
      ps.key = 0;
      relaxed_store(ps.spins, std::uint64_t(0));
      try {
        run_program(bound);
        if (ps.made_store && !ps.stored_any) {
          host_lock lock(state->mutex);
          if (state->report.idle_programs.size() < launch_report::max_records)
            state->report.idle_programs.push_back({ps.pid[0], ps.pid[1], ps.pid[2]});
          ++state->report.idle_count;
        }
      } catch (const program_stopped&) {  // a wait that cannot end: in the report
      } catch (const usage_error& e) {  // a mistake in the kernel: the launch names the program
        fail(std::make_exception_ptr(usage_error("tl::launch: kernel " + state->report.kernel + ", program (" +
                                                 std::to_string(ps.pid[0]) + ", " + std::to_string(ps.pid[1]) + ", " +
                                                 std::to_string(ps.pid[2]) + "): " + e.what())));
      } catch (...) {
        fail(std::current_exception());
      }
    }
    atomic_store(ps.running, 0);
    current_program = outer;
    if (trace) {
      host_lock lock(mutex);
      traced.push_back(std::move(mine));
    }
  }
};

// The threads' traced accesses in program order (axis 0 fastest): each thread's list is in
// increasing program order, so they are merged.
TL_RUNTIME_FN std::vector<traced_access> merge_by_program(std::vector<std::vector<traced_access>>& lists) {
  auto key = [](const traced_access& a) { return std::make_tuple(a.program[2], a.program[1], a.program[0]); };
  std::vector<std::size_t> at(lists.size(), 0);
  std::vector<traced_access> out;
  for (;;) {
    std::size_t best = lists.size();
    for (std::size_t l = 0; l < lists.size(); ++l)
      if (at[l] < lists[l].size() && (best == lists.size() || key(lists[l][at[l]]) < key(lists[best][at[best]])))
        best = l;
    if (best == lists.size()) return out;
    out.push_back(std::move(lists[best][at[best]++]));
  }
}

TL_RUNTIME_FN launch_report run_grid(const grid& g, const launch_options& options, std::string_view kernel,
                                     void (*run_program)(const void* bound), const void* bound,
                                     const std::vector<buffer_range>& buffers) {
  launch_state state;
  state.detect_races = options.detect_races;
  // Race detection notes the loads through a pointer to const whose memory another argument
  // can write.
  for (const buffer_range& in : buffers) {
    if (!in.read_only || !options.detect_races) continue;
    for (const buffer_range& out : buffers)
      if (!out.read_only && in.begin < out.end && out.begin < in.end) {
        state.aliased.push_back({in.begin, in.end});
        state.report.alias_notes.push_back(
            "'" + std::string(in.name ? in.name : "(unnamed)") + "' (a pointer to const) and '" +
            std::string(out.name ? out.name : "(unnamed)") + "' are " + (in.begin == out.begin && in.end == out.end ? "the same memory" : "overlapping memory") +
            ": what one program stores through '" + (out.name ? out.name : "(unnamed)") + "' another reads through '" +
            (in.name ? in.name : "(unnamed)") + "'");
        break;
      }
  }
  state.report.kernel = std::string(kernel);
  state.report.grid[0] = int(g.x);
  state.report.grid[1] = int(g.y);
  state.report.grid[2] = int(g.z);
  const long long total = g.x * g.y * g.z;
  state.report.programs = total;

  program_runner runner(g, &state, options.trace != nullptr, run_program, bound);
  const double t0 = monotonic_seconds();
  const bool sequential = options.sequential || sequential_from_env();
  long long n_threads = options.threads > 0 ? options.threads : hardware_threads();
  if (sequential) n_threads = 1;
  if (n_threads > total) n_threads = total;
  runner.states.resize(std::size_t(n_threads));
  state.waits.states = runner.states.data();
  state.waits.threads = int(n_threads);
  state.waits.next = &runner.next;
  state.waits.total = total;
  state.waits.timeout_ns = hang_timeout_ns(options);
  {
    const division_fault_guard division_faults;  // a kernel's scalar division by zero is named
    run_on_threads(int(n_threads), &program_runner::work, &runner);
  }
  state.report.seconds = monotonic_seconds() - t0;
  state.report.race_check_bytes = state.races.bytes;
  if (runner.failure) std::rethrow_exception(runner.failure);
  if (options.trace) {
    options.trace->kernel = state.report.kernel;
    for (int i = 0; i < 3; ++i) options.trace->grid[i] = state.report.grid[i];
    options.trace->accesses = merge_by_program(runner.traced);
  }
  return std::move(state.report);
}
#endif  // TL_RUNTIME_DEFINITIONS

}  // namespace tl::detail::cpu
