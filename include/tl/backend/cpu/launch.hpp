// tl/backend/cpu/launch.hpp: running every program of a grid on host threads.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include "../../ops/memory.hpp"
#include "program.hpp"

namespace tl {

// The grid: how many programs along each axis (Triton's grid tuple). Missing axes are 1.
struct grid {
  long long x = 1, y = 1, z = 1;
  grid() = default;
  grid(long long gx, long long gy = 1, long long gz = 1) : x(gx), y(gy), z(gz) {}  // NOLINT: grid{n} and n both read well
};

enum class on_failure {
  raise,    // throw tl::launch_error after the launch (default)
  collect,  // return the report; the caller inspects it
};

struct launch_options {
  bool sequential = false;  // run programs one by one in grid order (deterministic prints); also TL_SEQUENTIAL=1
  int threads = 0;          // host threads for the programs; 0: one per hardware thread
  on_failure failure = on_failure::raise;
};

namespace detail {

// The kernel's name as the compiler spells the template argument, e.g. "add_kernel<32>".
template <auto Kernel>
constexpr std::string_view kernel_name() {
  std::string_view s = __PRETTY_FUNCTION__;
  const auto start = s.find("Kernel = ");
  if (start == std::string_view::npos) return s;
  s.remove_prefix(start + 9);
  std::size_t depth = 0, end = 0;
  for (; end < s.size(); ++end) {
    const char ch = s[end];
    if (ch == '<' || ch == '(') ++depth;
    else if (ch == '>' || ch == ')') {
      if (depth == 0) break;
      --depth;
    } else if ((ch == ';' || ch == ']') && depth == 0) break;
  }
  s = s.substr(0, end);
  if (!s.empty() && s.front() == '&') s.remove_prefix(1);
  return s;
}

template <class F>
struct kernel_params;
template <class... P>
struct kernel_params<void (*)(P...)> {
  using tuple = std::tuple<std::remove_cvref_t<P>...>;
};

// Give each unnamed buffer argument the name "argument #i" for reports.
template <class T>
void name_argument(T&, int, std::vector<std::string>&) {}
template <class T>
void name_argument(ptr<T>& p, int index, std::vector<std::string>& names) {
  if (!p.name) {
    names[index] = "argument #" + std::to_string(index);
    p.name = names[index].c_str();
  }
}

inline void check_grid(const grid& g) {
  const long long dims[3] = {g.x, g.y, g.z};
  for (int a = 0; a < 3; ++a) {
    if (dims[a] < 1)
      throw usage_error("tl::launch: grid axis " + std::to_string(a) + " is " + std::to_string(dims[a]) +
                        "; every axis needs at least one program");
    // The same limits as CUDA's grid (2^31-1, 65535, 65535), so a launch valid here is valid there.
    const long long limit = a == 0 ? 2147483647LL : 65535LL;
    if (dims[a] > limit)
      throw usage_error("tl::launch: grid axis " + std::to_string(a) + " is " + std::to_string(dims[a]) +
                        ", above the limit of " + std::to_string(limit));
  }
}

inline bool sequential_from_env() {
  const char* v = std::getenv("TL_SEQUENTIAL");
  return v && *v && std::string_view(v) != "0";
}

}  // namespace detail

// launch<kernel>(grid, args...): runs kernel(args...) once per program of the grid on the CPU.
// Arguments convert to the kernel's parameter types (a std::vector<float>& becomes a checked
// tl::ptr<float>). Returns the report; by default throws tl::launch_error if it is not ok.
template <auto Kernel, class... Args>
launch_report launch(const grid& g, const launch_options& options, Args&&... args) {
  using params = typename detail::kernel_params<decltype(Kernel)>::tuple;
  constexpr int n_params = int(std::tuple_size_v<params>), n_args = int(sizeof...(Args));
  static_assert(detail::check<error::launch_argument_count_differs<decltype(Kernel), n_params, n_args, n_params == n_args>>);
  detail::check_grid(g);
  params bound{std::forward<Args>(args)...};
  std::vector<std::string> names(sizeof...(Args));
  std::apply([&](auto&... p) {
    int i = 0;
    (detail::name_argument(p, i++, names), ...);
  }, bound);

  detail::cpu::launch_state state;
  state.report.kernel = std::string(detail::kernel_name<Kernel>());
  state.report.grid[0] = int(g.x);
  state.report.grid[1] = int(g.y);
  state.report.grid[2] = int(g.z);

  const long long total = g.x * g.y * g.z;
  std::atomic<long long> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&] {
    detail::cpu::program_state ps;
    ps.grid[0] = int(g.x);
    ps.grid[1] = int(g.y);
    ps.grid[2] = int(g.z);
    ps.launch = &state;
    detail::cpu::current_program = &ps;
    for (long long id = next++; id < total; id = next++) {
      ps.pid[0] = int(id % g.x);
      ps.pid[1] = int((id / g.x) % g.y);
      ps.pid[2] = int(id / (g.x * g.y));
      try {
        std::apply(Kernel, bound);  // each program gets its own copy of the arguments
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = total;
      }
    }
    detail::cpu::current_program = nullptr;
  };

  const auto t0 = std::chrono::steady_clock::now();
  const bool sequential = options.sequential || detail::sequential_from_env();
  long long n_threads = options.threads > 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  if (sequential) n_threads = 1;
  n_threads = std::min(n_threads, total);
  if (n_threads <= 1) {
    detail::cpu::program_state* outer = detail::cpu::current_program;
    worker();
    detail::cpu::current_program = outer;
  } else {
    std::vector<std::thread> pool;
    pool.reserve(size_t(n_threads));
    for (long long t = 0; t < n_threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  state.report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (failure) std::rethrow_exception(failure);

  launch_report& r = state.report;
  auto by_program = [](const auto& a, const auto& b) {
    if (a.program[2] != b.program[2]) return a.program[2] < b.program[2];
    if (a.program[1] != b.program[1]) return a.program[1] < b.program[1];
    if (a.program[0] != b.program[0]) return a.program[0] < b.program[0];
    return a.where.line < b.where.line;
  };
  std::stable_sort(r.invalid.begin(), r.invalid.end(), by_program);
  std::stable_sort(r.asserts.begin(), r.asserts.end(), by_program);
  if (!r.ok() && options.failure == on_failure::raise) throw launch_error(r);
  return r;
}

template <auto Kernel, class... Args>
  requires(!(std::is_same_v<std::remove_cvref_t<Args>, launch_options> || ...))
launch_report launch(const grid& g, Args&&... args) {
  return launch<Kernel>(g, launch_options{}, std::forward<Args>(args)...);
}

}  // namespace tl
