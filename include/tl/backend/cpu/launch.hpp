// tl/backend/cpu/launch.hpp: running every program of a grid on host threads.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include "../launch_options.hpp"
#include "program.hpp"

namespace tl::detail::cpu {

// Runs Kernel once per program of the grid with (a copy of) the bound parameters; the
// programs' invalid accesses and failed asserts are gathered in the report.
template <auto Kernel, class Params>
launch_report run(const grid& g, const launch_options& options, const Params& bound) {
  launch_state state;
  state.detect_races = options.detect_races;
  state.report.kernel = std::string(detail::kernel_name<Kernel>());
  state.report.grid[0] = int(g.x);
  state.report.grid[1] = int(g.y);
  state.report.grid[2] = int(g.z);

  const long long total = g.x * g.y * g.z;
  state.report.programs = total;
  std::atomic<long long> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  std::vector<traced_access> traced;  // all threads' accesses, gathered after each finishes
  auto worker = [&] {
    program_state ps;
    ps.grid[0] = int(g.x);
    ps.grid[1] = int(g.y);
    ps.grid[2] = int(g.z);
    ps.launch = &state;
    std::vector<traced_access> mine;
    if (options.trace) ps.trace = &mine;
    current_program = &ps;
    for (long long id = next++; id < total; id = next++) {
      ps.pid[0] = int(id % g.x);
      ps.pid[1] = int((id / g.x) % g.y);
      ps.pid[2] = int(id / (g.x * g.y));
      ps.linear_id = std::int32_t(id);
      ps.made_store = ps.stored_any = false;
      try {
        std::apply(Kernel, bound);  // each program gets its own copy of the arguments
        if (ps.made_store && !ps.stored_any) {
          std::lock_guard<std::mutex> lock(state.mutex);
          if (state.report.idle_programs.size() < launch_report::max_records)
            state.report.idle_programs.push_back({ps.pid[0], ps.pid[1], ps.pid[2]});
          ++state.report.idle_count;
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = total;
      }
    }
    current_program = nullptr;
    if (options.trace) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      for (auto& a : mine) traced.push_back(std::move(a));
    }
  };

  const auto t0 = std::chrono::steady_clock::now();
  const bool sequential = options.sequential || sequential_from_env();
  long long n_threads = options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  if (sequential) n_threads = 1;
  n_threads = std::min(n_threads, total);
  if (n_threads <= 1) {
    program_state* outer = current_program;
    worker();
    current_program = outer;
  } else {
    std::vector<std::thread> pool;
    pool.reserve(size_t(n_threads));
    for (long long t = 0; t < n_threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  state.report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (failure) std::rethrow_exception(failure);
  if (options.trace) {
    // Program order (axis 0 fastest); within a program, the order its ops ran (one thread ran it).
    std::stable_sort(traced.begin(), traced.end(), [](const traced_access& a, const traced_access& b) {
      for (int axis = 2; axis >= 0; --axis)
        if (a.program[axis] != b.program[axis]) return a.program[axis] < b.program[axis];
      return false;
    });
    options.trace->kernel = state.report.kernel;
    for (int i = 0; i < 3; ++i) options.trace->grid[i] = state.report.grid[i];
    options.trace->accesses = std::move(traced);
  }
  return std::move(state.report);
}

}  // namespace tl::detail::cpu
