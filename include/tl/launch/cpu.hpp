// tl/launch/cpu.hpp: running every program of a grid on host threads.
#pragma once

#include <cstdio>
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
#include "../backend/cpu/memory.hpp"
#include "division_fault.hpp"
#endif

namespace tl::detail::cpu {

// Runs run_program(bound) once per program of the grid on host threads (each program gets its
// own copy of the parameters); the programs' invalid accesses, failed asserts and races are
// gathered in the report, and the outputs' unwritten elements noted. The part of a CPU launch
// that does not depend on the kernel. `buffers` are the kernel's pointer arguments (for the
// aliases of race detection, and the outputs looked at after the launch).
struct buffer_range {
  std::uintptr_t begin, end;  // end: the address space's end where the size is unknown
  bool read_only;             // a tl::ptr<const T>
  const char* name;
  int size;                   // of an element, in bytes
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
  out.push_back({b, p.extent >= 0 ? b + std::uintptr_t(p.extent) * sizeof(T) : ~std::uintptr_t(0), std::is_const_v<T>,
                 p.name, int(sizeof(T))});
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

// The elements of an output that no program stored, from the race tables' records (which
// exist for every element a launch stored or loaded through a non-const pointer). A note when
// the programs stored most of the output (more elements than they left) but left a tail, a head,
// or holes that are not a regular pattern (runs of one length at one period, as rows' padding
// or an interleaved layout leave); nothing for an output a program also loaded or updated
// atomically (an update, an accumulator), one no program stored, or one left mostly unwritten
// (a deliberate partial update).
TL_RUNTIME_FN std::string unwritten_note(race_tables& t, const buffer_range& b) {
  constexpr int page_bits = race_region::page_bits;
  const std::uintptr_t base = b.begin;
  const std::int64_t extent = std::int64_t((b.end - b.begin) / std::uintptr_t(b.size));
  std::int64_t written = 0, first = -1, runs = 0, unwritten = 0;
  std::int64_t run_start = -1, period = 0, run_length = 0;
  bool regular = true, loaded = false;  // loaded: loaded or accessed atomically
  std::vector<std::pair<std::int64_t, std::int64_t>> shown;  // the first runs: [start, end)
  std::int64_t head = 0, first_start = -1;
  auto close_run = [&](std::int64_t start, std::int64_t end) {
    const std::int64_t length = end - start;
    unwritten += length;
    if (shown.size() < 3) shown.push_back({start, end});
    if (start == 0) {
      head = length;  // elements before any stored one
    } else if (runs++ == 0) {
      run_length = length;
      first_start = start;
      period = start + length;  // with one run: the first stored stretch and this run
    } else {
      if (runs == 2) period = start - first_start;
      if (length != run_length || start != first_start + (runs - 1) * period) regular = false;
    }
  };
  race_region* region = nullptr;
  std::uintptr_t region_key = 0;
  for (std::int64_t i = 0; i < extent && !loaded;) {
    const std::uintptr_t a = base + std::uintptr_t(i) * std::uintptr_t(b.size);
    const std::uintptr_t key = race_key<race_region::region_bits>(a, b.size);
    if (key != region_key || !region) {
      region = nullptr;
      region_key = key;
      for (race_region* r : t.regions)
        if (r->key == key) region = r;
    }
    const race_page* page = region ? region->page[(a >> page_bits) & (race_region::pages - 1)] : nullptr;
    const std::uintptr_t page_end = ((a >> page_bits) + 1) << page_bits;
    const std::int64_t in_page = std::int64_t((page_end - a + std::uintptr_t(b.size) - 1) / std::uintptr_t(b.size));
    const std::int64_t stop = i + in_page < extent ? i + in_page : extent;
    if (!page) {  // no element of this page was accessed
      if (run_start < 0) run_start = i;
      i = stop;
      continue;
    }
    for (; i < stop; ++i) {
      const std::size_t k = std::size_t(((base + std::uintptr_t(i) * std::uintptr_t(b.size)) &
                                         ((std::uintptr_t(1) << page_bits) - 1)) /
                                        std::uintptr_t(b.size));
      const bool stored = page->owner[k] != 0;
      if (page->reader[k] != 0 || is_atomic_owner(page->owner[k])) loaded = true;
      if (stored) {
        if (run_start >= 0) close_run(run_start, i);
        run_start = -1;
        if (first < 0) first = i;
        ++written;
      } else if (run_start < 0) {
        run_start = i;
      }
    }
  }
  if (loaded || written == 0 || written == extent) return {};
  const std::int64_t tail_start = run_start;  // the run still open: the tail
  const std::int64_t tail = tail_start >= 0 ? extent - tail_start : 0;
  if (tail_start >= 0) {
    unwritten += tail;
    if (shown.size() < 3) shown.push_back({tail_start, extent});
    ++runs;
  }
  // A pattern: holes of one length at one period, with a head and a tail of at most a period
  // (a layout's offset, the last row's padding).
  const bool interior = runs - (tail_start >= 0 ? 1 : 0) > 0;
  const bool pattern = interior && regular && head <= period && tail <= period;
  if (unwritten >= written || pattern) return {};
  std::string o = std::string(b.name ? b.name : "(unnamed)") + ": ";
  auto span = [](const std::pair<std::int64_t, std::int64_t>& r) {
    return r.second - r.first == 1 ? std::to_string(r.first)
                                   : std::to_string(r.first) + ".." + std::to_string(r.second - 1);
  };
  const std::string of = " of " + std::to_string(extent);
  if (shown.size() == 1) {
    o += (unwritten == 1 ? "element " : "elements ") + span(shown[0]) + of + (unwritten == 1 ? " was" : " were") + " never stored";
    o += tail_start >= 0 ? "; is the grid cdiv(n, BLOCK), and does the last program's mask reach n?"
                         : "; do the offsets start at the output's first element?";
  } else {
    o += std::to_string(unwritten) + of + " elements were never stored, in " + std::to_string(runs + (first > 0 ? 1 : 0)) +
         " runs: ";
    for (std::size_t k = 0; k < shown.size(); ++k) o += (k ? ", " : "") + span(shown[k]);
    if (std::int64_t(shown.size()) < runs + (first > 0 ? 1 : 0)) o += ", ...";
    o += "; do the grid and the masks cover the output?";
  }
  return o;
}

TL_RUNTIME_FN void note_unwritten_outputs(launch_state& state, const launch_options& options,
                                          const std::vector<buffer_range>& buffers) {
  const int n = int(buffers.size());
  for (int k = 0; k < n; ++k) {
    const buffer_range& out = buffers[std::size_t(k)];
    if (out.read_only || out.end == ~std::uintptr_t(0) || out.end == out.begin) continue;  // an input; a size not known
    bool seen = false;  // the same memory given twice is looked at once
    for (int j = 0; j < k; ++j)
      seen = seen || (!buffers[std::size_t(j)].read_only && buffers[std::size_t(j)].begin == out.begin &&
                      buffers[std::size_t(j)].size == out.size);
    if (seen) continue;
    std::string note = unwritten_note(state.races, out);
    if (note.empty()) continue;
    if (options.unwritten == unwritten::warn) {
      host_lock lock(print_mutex());
      std::fprintf(stderr, "tl: note: kernel %s: %s\n", state.report.kernel.c_str(), note.c_str());
    }
    state.report.unwritten.push_back(std::move(note));
  }
  state.report.unwritten_fails = options.unwritten == unwritten::fail;
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
  // (After a failure, a note would say nothing new.)
  if (options.unwritten != unwritten::ignore && state.detect_races && state.report.ok())
    note_unwritten_outputs(state, options, buffers);
  if (options.trace) {
    options.trace->kernel = state.report.kernel;
    for (int i = 0; i < 3; ++i) options.trace->grid[i] = state.report.grid[i];
    options.trace->accesses = merge_by_program(runner.traced);
  }
  return std::move(state.report);
}
#endif  // TL_RUNTIME_DEFINITIONS

}  // namespace tl::detail::cpu
