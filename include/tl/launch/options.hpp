// tl/launch/options.hpp: what every backend's launch shares: the grid, the options,
// the kernel's name and parameters, and the checks made before anything runs.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/diagnostics.hpp"
#include "../core/ptr.hpp"
#include "../core/report.hpp"
#include "../core/trace.hpp"

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

// What a CPU launch does with an output buffer (stored into, never loaded) whose programs
// stored most of its elements but not all: a tail or head, or holes that are not a regular
// pattern such as rows' padding (docs/11-reliability.md).
enum class unwritten {
  warn,    // a note in the report, and printed to stderr (the default)
  note,    // a note in the report only
  fail,    // the launch fails (an error in the report)
  ignore,  // not looked for
};

// Where the programs run.
enum class backend {
  cpu,        // host threads; every access checked
  cuda,       // one CUDA thread block per program (translation units compiled by nvcc)
  automatic,  // where the arguments' memory is (the default): the CUDA backend, on their device,
              // for GPU memory; the CPU backend for host memory, or where no argument says
};

struct launch_options {
  tl::backend backend = tl::backend::automatic;
  on_failure failure = on_failure::raise;
  // CPU
  bool sequential = false;  // run programs one by one in grid order (deterministic prints); also TL_SEQUENTIAL=1
  int threads = 0;          // host threads for the programs; 0: one per hardware thread
  tl::trace* trace = nullptr;  // record every load and store, lane by lane (tl/core/trace.hpp)
  bool detect_races = true; // report an element two programs store, or one stores and another
                            // loads (an error: the result depends on their order); costs 8 bytes
                            // per element of each buffer stored or loaded through a non-const ptr
  tl::unwritten unwritten = tl::unwritten::warn;  // outputs left partly unwritten (needs detect_races)
  // Both backends (the GPU with TL_DEVICE_CHECKS=1): a program whose atomics keep returning the
  // same values while no program writes to memory for this long (on the GPU: while it spins
  // for this long) is stopped and reported as a wait that cannot end. 0: the environment's
  // TL_HANG_TIMEOUT_MS (where it is 0: never), else the default bound (docs/11); negative: never.
  // On one host thread (sequential), a spin no other program can end is stopped sooner.
  int hang_timeout_ms = 0;
  // CUDA
  int num_warps = 0;        // 0: TL_NUM_WARPS of the launching translation unit; else it must equal it
  void* stream = nullptr;   // a cudaStream_t; null: the default stream
  int device = -1;          // the CUDA device the programs run on, for this launch (the current
                            // one is restored after it); -1: the current device
  bool wait = true;         // wait for the kernel (and report its time); false: return at once,
                            // allowed only without device checks and without host buffers
  int programs_per_sm = 0;  // at most this many programs resident on one multiprocessor (0: as
                            // many as fit). For programs that stream more data than the L2
                            // holds: fewer in flight keep what they read again in the cache.
                            // Reserves unused shared memory per program to get there.
  int num_stages = 3;       // Triton's num_stages, 1 to 8: the stages of a pipelined loop
                            // (range::fold) without its own, as many as fit (at most 5: the
                            // dots' arena and num_stages - 1 buffers of dynamic shared memory,
                            // where they cost no occupancy); from 2 on, a dot in a plain loop
                            // whose tiles cp.async copies (wgmma, sm_90a) also copies the next
                            // step's while it multiplies (1: no copies ahead).
                            // Tiles copied ahead do not see the loop's own stores to them.
};

inline const char* to_string(tl::backend b) {
  return b == tl::backend::cpu ? "cpu" : b == tl::backend::cuda ? "cuda" : "automatic";
}

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

// A kernel's parameters: `tuple` holds what each program gets (by value), `declared` the types
// as written. Anything but a function returning void fails launch's kernel_must_return_void.
template <class F>
struct kernel_params {
  static constexpr bool returns_void = false;
  using tuple = std::tuple<>;
  using declared = std::tuple<>;
};
template <class R, class... P>
struct kernel_params<R (*)(P...)> {
  static constexpr bool returns_void = std::is_void_v<R>;
  using tuple = std::tuple<std::remove_cvref_t<P>...>;
  using declared = std::tuple<P...>;  // a type list only: references are never stored in it
};

// What a program can receive: a trivially copyable value (the GPU gets kernel arguments as
// bytes), taken by value or by const reference.
template <class P>
inline constexpr bool passable_parameter =
    std::is_trivially_copyable_v<std::remove_cvref_t<P>> && !std::is_rvalue_reference_v<P> &&
    (!std::is_lvalue_reference_v<P> || std::is_const_v<std::remove_reference_t<P>>);

// Does an argument of type A own the elements a tl::ptr made from it points at (a std::vector,
// a std::array, a tl::buffer: what dies with a temporary), rather than view them (a std::span,
// a tl::view, a tl::ptr, a raw pointer)? A container that copies its elements is not trivially
// copyable, or is an array (it has a tuple_size); views are neither. Owning types without
// iterators say so with a member `owns_elements` (tl::buffer).
template <class A>
inline constexpr bool owns_elements =
    requires { A::owns_elements; } ||
    (requires(A& a) {
      a.begin();
      a.end();
      a.data();
    } && (!std::is_trivially_copyable_v<A> || requires { std::tuple_size<A>::value; }));

// Would the kernel's stores through parameter P be lost, given argument A (a temporary that
// owns its elements, for a pointer to non-const elements)?
template <class P>
inline constexpr bool stores_through = false;
template <class T>
inline constexpr bool stores_through<ptr<T>> = !std::is_const_v<T>;
template <class A, class P>
inline constexpr bool output_lost =
    !std::is_lvalue_reference_v<A> && stores_through<P> && owns_elements<std::remove_cvref_t<A>>;

// The compile-time checks of a launch's kernel and arguments, one tl::error per mistake; true
// when the launch may be instantiated (so a mistake gives its message and nothing else).
template <auto Kernel, class... Args>
constexpr bool launch_is_well_formed() {
  using kp = kernel_params<decltype(Kernel)>;
  if constexpr (!check<error::kernel_must_return_void<decltype(Kernel), kp::returns_void>> || !kp::returns_void) {
    return false;
  } else {
    constexpr int n_params = int(std::tuple_size_v<typename kp::tuple>), n_args = int(sizeof...(Args));
    if constexpr (!check<error::launch_argument_count_differs<Kernel, n_params, n_args, n_params == n_args>> ||
                  n_params != n_args) {
      return false;
    } else {
      return []<std::size_t... I>(std::index_sequence<I...>) {
        using declared = typename kp::declared;
        using params = typename kp::tuple;
        constexpr bool passable = (passable_parameter<std::tuple_element_t<I, declared>> && ...);
        constexpr bool converts = (std::is_constructible_v<std::tuple_element_t<I, params>, Args> && ...);
        constexpr bool kept = (!output_lost<Args, std::tuple_element_t<I, params>> && ...);
        (void)(check<error::kernel_parameter_cannot_be_passed<Kernel, int(I), std::tuple_element_t<I, declared>,
                                                             passable_parameter<std::tuple_element_t<I, declared>>>> &&
               ...);
        (void)(check<error::launch_argument_does_not_convert_to_parameter<
                   Kernel, int(I), Args, std::tuple_element_t<I, params>,
                   std::is_constructible_v<std::tuple_element_t<I, params>, Args>>> &&
               ...);
        (void)(check<error::launch_output_is_a_temporary<Kernel, int(I), Args,
                                                          !output_lost<Args, std::tuple_element_t<I, params>>>> &&
               ...);
        return passable && converts && kept;
      }(std::index_sequence_for<Args...>{});
    }
  }
}

// Kernels launched on the GPU without waiting for them (launch_options::wait = false), counted
// so that tl::do_bench can tell that a function it times on the host's clock left GPU work behind.
inline unsigned long long& async_gpu_launches() {
  static unsigned long long n = 0;
  return n;
}
inline void note_async_gpu_launch() { __atomic_fetch_add(&async_gpu_launches(), 1ULL, __ATOMIC_RELAXED); }
inline unsigned long long async_gpu_launch_count() { return __atomic_load_n(&async_gpu_launches(), __ATOMIC_RELAXED); }

// ---- argument values a parameter cannot hold ----
// A launch converts each argument to its parameter's type as a call would, so an integer that
// does not fit would arrive changed (3e9 given to an int arrives as -1294967296), and a
// fraction given to an integer would arrive cut. These are refused before anything runs.
template <class T>
std::string arithmetic_type_name() {
  if constexpr (std::is_floating_point_v<T>) return sizeof(T) == 4 ? "float" : sizeof(T) == 8 ? "double" : "long double";
  else
    return std::string(std::is_signed_v<T> ? "std::int" : "std::uint") + std::to_string(8 * sizeof(T)) + "_t";
}
template <class T>
std::string value_text(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    char text[64];
    for (int digits = 1; digits <= 17; ++digits) {  // the shortest text that reads back as v
      std::snprintf(text, sizeof text, "%.*g", digits, double(v));
      if (std::strtod(text, nullptr) == double(v)) break;
    }
    return text;
  } else if constexpr (std::is_signed_v<T>) {
    return std::to_string(static_cast<long long>(v));
  } else {
    return std::to_string(static_cast<unsigned long long>(v));
  }
}
// Does integer a fit integer type P? (std::in_range without its exclusion of character types.)
template <class P, class V>
constexpr bool fits_integer(V a) {
  using lim = std::numeric_limits<P>;
  if constexpr (std::is_signed_v<V>)
    if (a < 0) return lim::is_signed && static_cast<std::intmax_t>(a) >= static_cast<std::intmax_t>(lim::min());
  return static_cast<std::uintmax_t>(a) <= static_cast<std::uintmax_t>(lim::max());
}
template <class P, class A>
void check_argument_value(const A& a, int index, std::string_view kernel) {
  using V = std::remove_cvref_t<A>;
  if constexpr (std::is_arithmetic_v<V> && std::is_arithmetic_v<P> && !std::is_same_v<P, bool> &&
                !std::is_same_v<V, bool>) {
    auto refuse = [&](const std::string& why) {
      throw usage_error("tl::launch: argument #" + std::to_string(index) + " of kernel " + std::string(kernel) +
                        " is " + value_text(a) + ", " + why);
    };
    using lim = std::numeric_limits<P>;
    if constexpr (std::is_integral_v<P> && std::is_integral_v<V>) {
      if (!fits_integer<P>(a))
        refuse("which its parameter's type, " + arithmetic_type_name<P>() + ", cannot hold (it would arrive as " +
               value_text(static_cast<P>(a)) + "); pass a value from " + value_text(lim::min()) + " to " +
               value_text(lim::max()) + ", or declare the parameter a wider integer (std::int64_t)");
    } else if constexpr (std::is_integral_v<P>) {  // a floating-point value for an integer parameter
      const V end = std::ldexp(V(1), lim::digits);  // lim::max() + 1, exactly
      if (!std::isfinite(a) || a != std::trunc(a) || a >= end || a < (lim::is_signed ? -end : V(0)))
        refuse("which its parameter's type, " + arithmetic_type_name<P>() +
               ", would cut to another integer; pass a whole number in its range, or declare the parameter float");
    } else if constexpr (std::is_floating_point_v<V> && sizeof(P) < sizeof(V)) {  // double to float
      if (std::isfinite(a) && (a > static_cast<V>(lim::max()) || a < static_cast<V>(lim::lowest())))
        refuse("beyond the largest " + arithmetic_type_name<P>() + " (it would arrive as infinity)");
    }
  }
}
template <class Params, class... A>
void check_argument_values(std::string_view kernel, const A&... args) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (check_argument_value<std::tuple_element_t<I, Params>>(args, int(I), kernel), ...);
  }(std::index_sequence_for<A...>{});
}

// ---- where the arguments' memory is ----
// What a launch can tell of an argument's elements before it runs: tl::view and tl::buffer (and
// the DLPack and torch tensors' views) say where they are; std::vector and std::array are host
// memory; a tl::ptr or std::span of unknown memory is asked of the CUDA runtime where the
// launching unit has it (nvcc), and says nothing elsewhere.
struct argument_memory {
  enum kind_t : unsigned char { says_nothing, host, gpu, to_probe } kind = says_nothing;
  int device = -1;  // the CUDA device of GPU memory; -1: the current one
  const void* pointer = nullptr;
  const char* name = nullptr;
};
template <class A>
argument_memory memory_of(const A& a) {
  using V = std::remove_cvref_t<A>;
  if constexpr (requires { { a.memory_place() } -> std::same_as<argument_memory>; }) {
    return a.memory_place();
  } else if constexpr (is_ptr_v<V>) {
    return {a.base ? argument_memory::to_probe : argument_memory::says_nothing, -1, a.base, a.name};
  } else if constexpr (std::is_pointer_v<V>) {
    return {a ? argument_memory::to_probe : argument_memory::says_nothing, -1, a, nullptr};
  } else if constexpr (requires { a.data(); a.size(); }) {
    if constexpr (owns_elements<V>) return {argument_memory::host, -1, a.data(), nullptr};
    else return {a.data() ? argument_memory::to_probe : argument_memory::says_nothing, -1, a.data(), nullptr};
  } else {
    return {};
  }
}
// The backend and device a launch runs on: options.backend where it is given (refusing an
// argument in GPU memory for the CPU backend, and one on another device than options.device),
// else where the arguments are (refusing a mix of host and GPU memory, or of two devices).
TL_RUNTIME_FN launch_options settle_backend(const launch_options& options, argument_memory* args, int n,
                                            std::string_view kernel);
#if defined(__CUDACC__)
namespace cuda {
// Asks the CUDA runtime where an argument of unknown memory is (GPU memory for device and
// managed-elsewhere allocations; host for the rest and wherever the runtime cannot tell).
TL_CUDA_RUNTIME_FN void probe_memory(argument_memory& a);
}  // namespace cuda
#endif
// Where the launch runs, from options and the arguments themselves (before they become kernel
// parameters, which no longer know).
template <class... Args>
launch_options launch_place(const launch_options& options, std::string_view kernel, const Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    argument_memory none;
    return settle_backend(options, &none, 0, kernel);
  } else {
    argument_memory memory[] = {memory_of(args)...};
#if defined(__CUDACC__)
    if (options.backend != backend::cuda)
      for (argument_memory& m : memory)
        if (m.kind == argument_memory::to_probe) cuda::probe_memory(m);
#endif
    return settle_backend(options, memory, int(sizeof...(Args)), kernel);
  }
}

// Give each unnamed buffer argument the name "argument #i" for reports, and refuse a
// pointer that is not aligned for its element type, a null pointer said to have elements,
// and a negative size. (A null pointer of unknown or zero size is an optional buffer, as
// None is in Triton: any access through it is reported.)
template <class T>
void prepare_argument(T&, int, std::vector<std::string>&) {}
TL_RUNTIME_FN void prepare_buffer_argument(const void* base, std::int64_t extent, std::size_t alignment,
                                          const char*& name, int index, std::vector<std::string>& names);
template <class T>
void prepare_argument(ptr<T>& p, int index, std::vector<std::string>& names) {
  prepare_buffer_argument(p.base, p.extent, alignof(T), p.name, index, names);
}

TL_RUNTIME_FN void check_grid(const grid& g);

TL_RUNTIME_FN void check_options(const launch_options& o);

TL_RUNTIME_FN bool sequential_from_env();

// launch_options::hang_timeout_ms resolved: nanoseconds, 0 for never.
TL_RUNTIME_FN std::uint64_t hang_timeout_ns(const launch_options& o);

// The report in program order; thrown as a tl::launch_error if it is not ok and the launch
// raises (on_failure::raise).
TL_RUNTIME_FN void finish_report(launch_report& r, const launch_options& options);

#if TL_RUNTIME_DEFINITIONS
TL_RUNTIME_FN void prepare_buffer_argument(const void* base, std::int64_t extent, std::size_t alignment,
                                          const char*& name, int index, std::vector<std::string>& names) {
  if (!name) {
    names[index] = "argument #" + std::to_string(index);
    name = names[index].c_str();
  }
  if (!base && extent > 0)
    throw usage_error("tl::launch: buffer '" + std::string(name) + "' is a null pointer with " + std::to_string(extent) +
                      " elements");
  if (extent < -1)
    throw usage_error("tl::launch: buffer '" + std::string(name) + "' has a negative size (" + std::to_string(extent) +
                      " elements)");
  if (reinterpret_cast<std::uintptr_t>(base) % alignment != 0)
    throw usage_error("tl::launch: buffer '" + std::string(name) + "' starts at an address that is not a multiple of " +
                      std::to_string(alignment) + " bytes, the alignment of its element type");
}

TL_RUNTIME_FN launch_options settle_backend(const launch_options& options, argument_memory* args, int n,
                                            std::string_view kernel) {
  auto label = [&](int i) {
    std::string s = "argument #" + std::to_string(i);
    if (args[i].name && *args[i].name) s += " ('" + std::string(args[i].name) + "')";
    return s;
  };
  auto memory = [&](int i) {
    return args[i].kind == argument_memory::gpu
               ? "GPU memory" + (args[i].device >= 0 ? " (device " + std::to_string(args[i].device) + ")" : std::string())
               : std::string("host memory");
  };
  const std::string head = "tl::launch: kernel " + std::string(kernel) + ": ";
  launch_options o = options;
  int gpu = -1, host = -1, device_arg = -1;
  for (int i = 0; i < n; ++i) {
    if (args[i].kind == argument_memory::gpu) {
      if (gpu < 0) gpu = i;
      if (args[i].device >= 0) {
        if (device_arg >= 0 && args[device_arg].device != args[i].device)
          throw usage_error(head + label(i) + " is on CUDA device " + std::to_string(args[i].device) + " and " +
                            label(device_arg) + " on device " + std::to_string(args[device_arg].device) +
                            ": one launch runs on one device");
        if (device_arg < 0) device_arg = i;
      }
    } else if (args[i].kind == argument_memory::host && host < 0) {
      host = i;
    }
  }
  if (o.backend == backend::automatic) {
    if (gpu >= 0 && host >= 0)
      throw usage_error(head + label(gpu) + " is in " + memory(gpu) + " and " + label(host) + " in " + memory(host) +
                        ": one launch runs on one backend. Move one of them, or give .backend = tl::backend::cuda "
                        "to copy host buffers in and out around the kernel");
    o.backend = gpu >= 0 ? backend::cuda : backend::cpu;
  } else if (o.backend == backend::cpu && gpu >= 0) {
    throw usage_error(head + "the launch runs on the CPU backend, and " + label(gpu) + " is in " + memory(gpu) +
                      ", which host threads cannot read. Give .backend = tl::backend::cuda, or leave .backend unset "
                      "(a launch runs where its arguments are)");
  }
  if (o.backend == backend::cuda && device_arg >= 0) {
    if (o.device < 0) {
      o.device = args[device_arg].device;
    } else if (o.device != args[device_arg].device) {
      throw usage_error(head + "the launch runs on CUDA device " + std::to_string(o.device) + ", and " +
                        label(device_arg) + " is on device " + std::to_string(args[device_arg].device));
    }
  }
  return o;
}

TL_RUNTIME_FN void check_grid(const grid& g) {
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

TL_RUNTIME_FN void check_options(const launch_options& o) {
  if (o.num_warps != 0 && o.num_warps != 1 && o.num_warps != 2 && o.num_warps != 4 && o.num_warps != 8 &&
      o.num_warps != 16)
    throw usage_error("tl::launch: num_warps is " + std::to_string(o.num_warps) + "; it must be 1, 2, 4, 8 or 16");
  if (o.num_stages < 1 || o.num_stages > 8)
    throw usage_error("tl::launch: num_stages is " + std::to_string(o.num_stages) + "; it must be 1 to 8");
  if (o.threads < 0) throw usage_error("tl::launch: threads is " + std::to_string(o.threads) + "; it must be >= 0");
  if (o.device < -1) throw usage_error("tl::launch: device is " + std::to_string(o.device) + "; it must be >= 0, or -1 for the current device");
  if (o.device >= 0 && o.backend != backend::cuda)
    throw usage_error("tl::launch: device " + std::to_string(o.device) +
                      " is a CUDA device, and the launch runs on the CPU backend; set .backend = tl::backend::cuda too");
}

TL_RUNTIME_FN bool sequential_from_env() {
  const char* v = std::getenv("TL_SEQUENTIAL");
  return v && *v && std::string_view(v) != "0";
}

TL_RUNTIME_FN std::uint64_t hang_timeout_ns(const launch_options& o) {
  long long ms = o.hang_timeout_ms;
  if (ms == 0) {
    const char* v = std::getenv("TL_HANG_TIMEOUT_MS");  // 0 or negative: never
    ms = v && *v ? std::strtoll(v, nullptr, 10) : 3000;
    if (ms == 0) ms = -1;
  }
  return ms < 0 ? 0 : std::uint64_t(ms) * 1000000ull;
}

TL_RUNTIME_FN void finish_report(launch_report& r, const launch_options& options) {
  r.sort_records();
  if (!r.ok() && options.failure == on_failure::raise) throw launch_error(std::move(r));
}
#endif  // TL_RUNTIME_DEFINITIONS

}  // namespace detail

}  // namespace tl
