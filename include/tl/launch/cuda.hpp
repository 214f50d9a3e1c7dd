// tl/launch/cuda.hpp: running a grid of programs as a CUDA kernel.
//
// One program is one thread block of 32 * TL_NUM_WARPS threads; grid axis a is blockIdx's
// axis a. The kernel is a template trampoline, entry<Kernel, ...>, that calls the tl kernel:
// the same function the CPU backend calls. Its shared memory is static, so the compiler
// sizes it from the ops the kernel uses. Arguments in host memory with a known size (a
// std::vector, a checked tl::ptr) are copied to the GPU and back around the kernel; device
// memory (tl::cuda::buffer, cudaMalloc) is used in place.
#pragma once

#if defined(__CUDACC__)
#include <algorithm>
#include <array>
#include <cstdio>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "../backend/cpu/host_threads.hpp"
#include "options.hpp"
#include "../backend/cuda/arch/sm80.hpp"
#include "../backend/cuda/device_report.hpp"
#include "../backend/cuda/error.hpp"
#include "../backend/cuda/pipeline.hpp"
#include "../backend/cuda/tensor_maps.hpp"

namespace tl::detail::cuda {

// A minimum of 1 is not passed on: with an explicit one ptxas gave puzzle 11's 8-warp kernel
// more registers than with the thread count alone, and one program per SM instead of two
// (docs/performance-history.md).
#if TL_MIN_PROGRAMS_PER_SM > 1
#define TL_ENTRY_BOUNDS(warps) __launch_bounds__((warps) * 32, TL_MIN_PROGRAMS_PER_SM)
#else
#define TL_ENTRY_BOUNDS(warps) __launch_bounds__((warps) * 32)
#endif
// MinPrograms (= TL_MIN_PROGRAMS_PER_SM) names the bound in the symbol: translation units
// compiled with different minimums get different kernels. In a kernel with a tensor-core dot,
// the dynamic shared memory's header (pipeline.hpp: the dots' arena and the operand ring) is
// written here by thread 0 before the program starts; tiles copied ahead that no call used are
// waited for at the end, and the program's tensor maps given back (tensor_maps.hpp).
template <auto Kernel, int Warps, int MinPrograms, bool Checks, class... P>
__global__ void TL_ENTRY_BOUNDS(Warps) entry(device_report* report, dynamic_layout layout, P... params) {
  if constexpr (Checks) {
    if (threadIdx.x == 0) {
      report_slots& s = program_report_slots();
      s.report = report;
      s.stop = s.flags = 0;
      s.key_sum = s.key = s.spins = s.since = s.writes_seen = 0;
      s.site_base = nullptr;
      s.site_offset = 0;
    }
  }
  if (layout.arena != 0 && threadIdx.x == 0) ring_reset(layout);
  if (Checks || layout.arena != 0) __syncthreads();
  Kernel(params...);
  cp_async_wait_all();
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  if (layout.arena != 0 && threadIdx.x == 0) tma_finish();
#endif
}

// A stable copy of a string (file names from device reports live as long as the process).
TL_CUDA_RUNTIME_FN const char* intern(const std::string& s);
// The report buffer of the current device, allocated once.
TL_CUDA_RUNTIME_FN device_report* report_buffer();
// The race table (device_report.hpp) of the current device, with room for at least `slots`
// entries (a power of two), grown as launches need: one per device, reused by every launch.
TL_CUDA_RUNTIME_FN race_entry* race_table(unsigned long long slots);

// A launch's buffer argument, as the part of the launch that does not depend on the kernel
// sees it.
struct buffer_argument {
  const void* base = nullptr;
  std::int64_t extent = -1;
  std::size_t element_size = 0;
  bool writes = false;  // its elements are not const
  const char* name = nullptr;
};

// Entries for a launch: twice the elements its buffers of non-const elements hold (the most it
// can store or load through them), 2^20 for one of unknown size, from 2^16 to 2^26 in all.
TL_CUDA_RUNTIME_FN unsigned long long race_slots_for(const std::vector<buffer_argument>& buffers);

// Host memory the launch mirrors in device memory: one region per run of overlapping host
// buffers, so that arguments that are the same memory (an in-place kernel given one vector for
// two parameters, overlapping spans of one vector) share one device copy, as they share the
// memory on the CPU backend. The device copy sits at the host address's offset modulo 256, so
// every pointer into it keeps its alignment.
struct host_region {
  char* host = nullptr;
  std::size_t bytes = 0;
  bool copy_back = false;  // some argument into it is not const
  std::string names;       // for error messages
  void* allocation = nullptr;
  char* device = nullptr;
};

struct host_regions {
  std::vector<host_region> list;
  host_regions() = default;
  host_regions(const host_regions&) = delete;
  host_regions& operator=(const host_regions&) = delete;
  ~host_regions() {
    for (auto& r : list) cudaFree(r.allocation);  // not checked: a destructor must not throw
  }
  // Adds host buffer [host, host + bytes), merging it with the regions it overlaps.
  void add(char* host, std::size_t bytes, bool writes, const char* name);
  // The region holding host buffer [host, host + bytes).
  const host_region* find(const void* host, std::size_t bytes) const;
};

TL_CUDA_RUNTIME_FN bool is_host_memory(const void* p);

// What a launch's CUDA errors are reported with: "kernel add_kernel<32>, grid (4, 1, 1), 4 warps
// (128 threads), stream 0 (the default stream), 0 bytes of dynamic shared memory". The text is
// made only when a call fails: a launch that succeeds builds no string for it.
// (Its warp count is a field: TL_NUM_WARPS differs between translation units, and this struct is
// outside the ABI namespace.)
struct launch_context {
  const std::string& kernel;
  grid g;
  cudaStream_t stream = nullptr;
  int warps = 0;
  int dynamic_shared = -1;  // -1: not decided yet
  std::string str() const;
};
TL_CUDA_RUNTIME_FN void check_call(cudaError_t e, const char* call, const char* file, int line, const launch_context& c,
                                   const char* note = "");

// A host buffer argument's memory, added to the regions the launch mirrors.
TL_CUDA_RUNTIME_FN void note_host_buffer(const buffer_argument& b, host_regions& regions);
// Allocates and fills the device copy of every region.
TL_CUDA_RUNTIME_FN void copy_regions_in(host_regions& regions, const launch_context& context);

// Points a host buffer argument at its place in its region's device copy.
template <class T>
void place_argument(T&, const host_regions&) {}
template <class T>
void place_argument(ptr<T>& p, const host_regions& regions) {
  if (p.extent < 0) return;  // not host memory (note_host_buffer refused host memory of unknown size)
  if (const host_region* r = p.base ? regions.find(p.base, std::size_t(p.extent) * sizeof(T)) : nullptr) {
    const auto offset = reinterpret_cast<const char*>(p.base) - r->host;
    p.base = reinterpret_cast<T*>(r->device + offset);
  }
}

// The launch's records of invalid accesses, races and failed asserts, read from the device's
// report (buffers: the arguments as the kernel saw them, in device memory, to name them).
TL_CUDA_RUNTIME_FN void read_report(const device_report& d, const std::vector<buffer_argument>& buffers,
                                    launch_report& r);

// Events and a stream, released on every path out.
struct timing {
  cudaEvent_t start = nullptr, stop = nullptr;
  timing() {
    TL_CUDA_CHECK(cudaEventCreate(&start));
    TL_CUDA_CHECK(cudaEventCreate(&stop));
  }
  timing(const timing&) = delete;
  timing& operator=(const timing&) = delete;
  ~timing() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
};

// The shared memory the launch may hand a program (a multiprocessor's, the opt-in limit of one
// program, and what the runtime keeps of each program's), and a program's static share as the
// hardware counts it: whole units of 128 bytes on sm_80/90, rounded here to 256 so that the
// programs counted fit after the rounding up.
struct shared_memory_limits {
  int per_sm = 0, per_block = 0, reserved = 0, own = 0;
};
TL_CUDA_RUNTIME_FN shared_memory_limits shared_memory_of(const cudaFuncAttributes& fa);

// Lets `kernel` take `bytes` of dynamic shared memory with all of the multiprocessor's memory as
// shared memory (so that programs count as computed), and returns bytes.
TL_CUDA_RUNTIME_FN int allow_dynamic_shared_memory(const void* kernel, int own, int bytes, const launch_context& context,
                                                   bool all_shared = true);

// The dynamic shared memory of a kernel (pipeline.hpp), worked out once per kernel and launch
// choice:
//   the dots' arena   for a kernel with a tensor-core dot: the class its static shared
//                     memory's markers name (dot_operands.hpp)
//   the ring          launch_options::num_stages >= 2 and a dot that can use it: buffers of the
//                     arena's size, num_stages of them (2 to max_ring_buffers), or fewer down to
//                     2, as many as fit without fewer programs on a multiprocessor than
//                     registers, the rest of the shared memory, and the grid allow (a grid of at
//                     most one program per multiprocessor, a persistent kernel's, leaves each
//                     program the multiprocessor's memory)
// With a ring or a reservation the multiprocessor's memory is all shared (so that programs count
// as computed); the arena alone leaves the split to the driver (the L1 a kernel's other loads
// use).
//   programs_per_sm   all the memory that leaves room for at most that many programs on a
//                     multiprocessor (the ring's buffers when they fit in it)
struct dynamic_plan {
  dynamic_layout layout;
  int bytes = 0;
};
// ring_wanted: buffers asked for (0: none); programs_per_sm: the most programs a multiprocessor
// may hold (0: as resources allow); reserve: keep the rest of the multiprocessor's memory too.
inline namespace TL_LAUNCH_ABI {
inline dynamic_plan plan_dynamic_shared_memory(const void* kernel, const cudaFuncAttributes& fa, int programs_per_sm,
                                               bool reserve, int ring_wanted, const launch_context& context) {
  dynamic_plan p;
  const arena_need need = arena_of_static_bytes(fa.sharedSizeBytes);
  p.layout.arena = need.arena;
  const shared_memory_limits l = shared_memory_of(fa);
  const int base = int(dynamic_bytes(p.layout)), most = l.per_block - l.own;
  if (base > most)
    throw usage_error("tl::launch: kernel " + context.kernel + " needs " + std::to_string(base) +
                      " bytes of dynamic shared memory for its dots, beyond the device's " + std::to_string(most));
  // What one program may take without fewer programs on a multiprocessor.
  int room = most;
  if (programs_per_sm > 0) {
    room = std::min(l.per_sm / programs_per_sm / 256 * 256 - l.reserved - l.own, most);
  } else if (need.ring && ring_wanted >= 2) {
    int programs = 0;
    TL_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&programs, kernel, int(fa.maxThreadsPerBlock), std::size_t(base)));
    room = programs > 0 ? l.per_sm / programs / 256 * 256 - l.reserved - l.own : 0;
  }
  p.bytes = reserve ? std::max(base, room) : base;
  if (need.ring)
    for (int count = std::min(ring_wanted, max_ring_buffers); count >= 2; --count) {
      dynamic_layout with_ring = p.layout;
      with_ring.ring_buffer = p.layout.arena;
      with_ring.ring_count = unsigned(count);
      const int ring = int(dynamic_bytes(with_ring));
      if (ring <= room) {
        p.layout = with_ring;
        p.bytes = std::max(p.bytes, ring);
        break;
      }
    }
  if (p.bytes > 0)
    allow_dynamic_shared_memory(kernel, l.own, p.bytes, context, reserve || p.layout.ring_count > 0);
  return p;
}
}  // namespace TL_LAUNCH_ABI

// Makes `device` current for a launch and the previous device current again after it (-1: no
// change), as a tensor's device decides where a framework runs its kernels.
class device_guard {
 public:
  explicit device_guard(int device);
  device_guard(const device_guard&) = delete;
  device_guard& operator=(const device_guard&) = delete;
  ~device_guard() {
    if (switched_) cudaSetDevice(previous_);  // not checked: a destructor must not throw
  }

 private:
  int previous_ = 0;
  bool switched_ = false;
};

// The multiprocessors of the current device.
TL_CUDA_RUNTIME_FN int multiprocessors();

// What one kernel keeps between its launches: its attributes and the multiprocessors of each
// device it ran on, and its dynamic shared memory plans (by programs_per_sm, persistent grid,
// ring buffers and device). One per kernel entry point; one lock a launch for both.
struct kernel_cache {
  struct device_facts {
    int device;
    cudaFuncAttributes attributes;
    int sms;
  };
  cpu::host_mutex mutex;
  std::vector<device_facts> facts;
  std::vector<std::pair<std::array<int, 4>, dynamic_plan>> plans;
};

// A launch as the part that does not depend on the kernel sees it: made by run<Kernel>, run by
// launch_on_gpu. The kernel's own steps are functions of its instantiation: describing the
// buffer arguments, pointing them at the device copies, and the <<<...>>> itself.
struct gpu_launch {
  const void* entry = nullptr;  // the kernel's entry point
  kernel_cache* cache = nullptr;
  void* params = nullptr;       // the launch's copy of the parameters
  std::vector<buffer_argument> (*buffers)(const void* params) = nullptr;
  void (*place)(void* params, const host_regions& regions) = nullptr;
  cudaError_t (*start)(const void* params, dim3 blocks, int threads, int dynamic_shared, cudaStream_t stream,
                       device_report* report, dynamic_layout layout) = nullptr;
  // The launching unit's settings (config.hpp) and its plan of dynamic shared memory.
  int warps = 0;
  bool checks = false;
  dynamic_plan (*plan)(const void* kernel, const cudaFuncAttributes& fa, int programs_per_sm, bool reserve,
                       int ring_wanted, const launch_context& context) = nullptr;
};

// Checks the options, copies host buffers in, sets up the device report and race table, plans
// dynamic shared memory, launches, waits, copies back and reads the report.
TL_CUDA_RUNTIME_FN launch_report launch_on_gpu(const grid& g, const launch_options& options, std::string_view kernel,
                                               const gpu_launch& l);

inline namespace TL_LAUNCH_ABI {  // config.hpp: one set of symbols per warp count and bounds
template <auto Kernel, class Params>
launch_report run(const grid& g, const launch_options& options, const Params& bound_in) {
  constexpr bool checks = TL_DEVICE_CHECKS != 0;
  auto kernel = std::apply([](const auto&... p) { return &entry<Kernel, TL_NUM_WARPS, TL_MIN_PROGRAMS_PER_SM, checks, std::remove_cvref_t<decltype(p)>...>; },
                           bound_in);
  static kernel_cache cache;
  Params bound = bound_in;
  gpu_launch l;
  l.entry = reinterpret_cast<const void*>(kernel);
  l.cache = &cache;
  l.params = &bound;
  l.buffers = [](const void* params) {
    std::vector<buffer_argument> list;
    std::apply([&](const auto&... p) {
      auto one = [&](const auto& x) {
        using X = std::remove_cvref_t<decltype(x)>;
        if constexpr (is_ptr_v<X>) {
          using T = typename pointee<X>::type;
          list.push_back({x.base, x.extent, sizeof(T), !std::is_const_v<T>, x.name});
        }
      };
      (one(p), ...);
    }, *static_cast<const Params*>(params));
    return list;
  };
  l.place = [](void* params, const host_regions& regions) {
    std::apply([&](auto&... p) { (place_argument(p, regions), ...); }, *static_cast<Params*>(params));
  };
  l.start = [](const void* params, dim3 blocks, int threads, int dynamic_shared, cudaStream_t stream,
               device_report* report, dynamic_layout layout) {
    std::apply([&](const auto&... p) {
      entry<Kernel, TL_NUM_WARPS, TL_MIN_PROGRAMS_PER_SM, checks, std::remove_cvref_t<decltype(p)>...>
          <<<blocks, threads, dynamic_shared, stream>>>(report, layout, p...);
    }, *static_cast<const Params*>(params));
    return cudaGetLastError();
  };
  l.warps = TL_NUM_WARPS;
  l.checks = checks;
  l.plan = &plan_dynamic_shared_memory;
  return launch_on_gpu(g, options, kernel_name<Kernel>(), l);
}
}  // namespace TL_LAUNCH_ABI

#if TL_CUDA_RUNTIME_DEFINITIONS
TL_CUDA_RUNTIME_FN const char* intern(const std::string& s) {
  static cpu::host_mutex m;
  static std::vector<const std::string*> strings;  // never freed: the names outlive every report
  cpu::host_lock lock(m);
  for (const std::string* k : strings)
    if (*k == s) return k->c_str();
  strings.push_back(new std::string(s));
  return strings.back()->c_str();
}

TL_CUDA_RUNTIME_FN device_report* report_buffer() {
  static cpu::host_mutex m;
  static std::vector<device_report*> buffers;  // by device
  int dev = 0;
  TL_CUDA_CHECK(cudaGetDevice(&dev));
  cpu::host_lock lock(m);
  if (buffers.size() <= std::size_t(dev)) buffers.resize(std::size_t(dev) + 1, nullptr);
  device_report*& b = buffers[std::size_t(dev)];
  if (!b) TL_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&b), sizeof(device_report)));
  return b;
}

TL_CUDA_RUNTIME_FN race_entry* race_table(unsigned long long slots) {
  static cpu::host_mutex m;
  static std::vector<std::pair<race_entry*, unsigned long long>> tables;  // by device
  int dev = 0;
  TL_CUDA_CHECK(cudaGetDevice(&dev));
  cpu::host_lock lock(m);
  if (tables.size() <= std::size_t(dev)) tables.resize(std::size_t(dev) + 1, {nullptr, 0});
  auto& [table, have] = tables[std::size_t(dev)];
  if (have < slots) {
    if (table) TL_CUDA_CHECK(cudaFree(table));
    table = nullptr;
    TL_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&table), slots * sizeof(race_entry)));
    have = slots;
  }
  return table;
}

TL_CUDA_RUNTIME_FN unsigned long long race_slots_for(const std::vector<buffer_argument>& buffers) {
  unsigned long long elements = 0;
  for (const buffer_argument& b : buffers)
    if (b.writes) elements += b.extent >= 0 ? (unsigned long long)b.extent : 1ULL << 20;
  unsigned long long slots = 1ULL << 16;
  while (slots < 2 * elements && slots < (1ULL << 26)) slots *= 2;
  return slots;
}

TL_CUDA_RUNTIME_FN void host_regions::add(char* host, std::size_t bytes, bool writes, const char* name) {
  host_region r{host, bytes, writes, name};
  for (std::size_t k = 0; k < list.size();) {
    host_region& o = list[k];
    const bool overlap = o.host == r.host || (r.host < o.host + o.bytes && o.host < r.host + r.bytes);
    if (!overlap) {
      ++k;
      continue;
    }
    char* lo = o.host < r.host ? o.host : r.host;
    char* hi = o.host + o.bytes > r.host + r.bytes ? o.host + o.bytes : r.host + r.bytes;
    r = host_region{lo, std::size_t(hi - lo), r.copy_back || o.copy_back, o.names + "', '" + r.names};
    list.erase(list.begin() + std::ptrdiff_t(k));
    k = 0;  // the grown region may now overlap one seen before
  }
  list.push_back(std::move(r));
}

TL_CUDA_RUNTIME_FN const host_region* host_regions::find(const void* host, std::size_t bytes) const {
  const char* h = static_cast<const char*>(host);
  for (const auto& r : list)
    if (h >= r.host && h + bytes <= r.host + r.bytes) return &r;
  return nullptr;
}

TL_CUDA_RUNTIME_FN void probe_memory(argument_memory& m) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, m.pointer) != cudaSuccess) {
    (void)cudaGetLastError();  // no device, no driver: not GPU memory
    m.kind = argument_memory::host;
    return;
  }
  if (a.type == cudaMemoryTypeDevice) {
    m.kind = argument_memory::gpu;
    m.device = a.device;
  } else {
    m.kind = argument_memory::host;  // host, registered host and managed memory: host threads read them
  }
}

TL_CUDA_RUNTIME_FN bool is_host_memory(const void* p) {
  cudaPointerAttributes a{};
  TL_CUDA_CHECK(cudaPointerGetAttributes(&a, p));
  return a.type == cudaMemoryTypeUnregistered;
}

TL_CUDA_RUNTIME_FN std::string launch_context::str() const {
  char where[32];
  std::snprintf(where, sizeof where, "%p", static_cast<void*>(stream));
  std::string s = "kernel " + kernel + ", grid (" + std::to_string(g.x);
  s += ", " + std::to_string(g.y);
  s += ", " + std::to_string(g.z);
  s += "), " + std::to_string(warps);
  s += " warps (" + std::to_string(32 * warps);
  s += " threads), stream ";
  s += stream ? where : "0 (the default stream)";
  if (dynamic_shared >= 0) s += ", " + std::to_string(dynamic_shared) + " bytes of dynamic shared memory";
  return s;
}

TL_CUDA_RUNTIME_FN void check_call(cudaError_t e, const char* call, const char* file, int line, const launch_context& c,
                                   const char* note) {
  if (e != cudaSuccess) check_call(e, call, file, line, c.str() + note);
}

TL_CUDA_RUNTIME_FN void note_host_buffer(const buffer_argument& b, host_regions& regions) {
  if (!b.base || !is_host_memory(b.base)) return;
  if (b.extent < 0)
    throw usage_error("tl::launch: buffer '" + std::string(b.name) +
                      "' is host memory of unknown size; the CUDA backend copies host buffers to the GPU only when "
                      "their size is known (pass a std::vector, a tl::ptr with a size, or device memory)");
  regions.add(static_cast<char*>(const_cast<void*>(b.base)), std::size_t(b.extent) * b.element_size, b.writes, b.name);
}

TL_CUDA_RUNTIME_FN void copy_regions_in(host_regions& regions, const launch_context& context) {
  for (auto& r : regions.list) {
    auto check = [&](cudaError_t e, const char* call, int line) {
      if (e != cudaSuccess)
        check_call(e, call, __FILE__, line,
                   context.str() + ", copying host buffer '" + r.names + "' (" + std::to_string(r.bytes) + " bytes)");
    };
    check(cudaMalloc(&r.allocation, r.bytes + 256), "cudaMalloc", __LINE__);
    r.device = static_cast<char*>(r.allocation) + reinterpret_cast<std::uintptr_t>(r.host) % 256;
    check(cudaMemcpyAsync(r.device, r.host, r.bytes, cudaMemcpyHostToDevice, context.stream), "cudaMemcpyAsync",
          __LINE__);
  }
}

// The name of the argument whose buffer starts at base (device address), for reports.
TL_CUDA_RUNTIME_FN std::string buffer_name(const std::vector<buffer_argument>& buffers, const void* base) {
  std::string name = "(a buffer not passed to the launch)";
  for (const buffer_argument& b : buffers)
    if (b.base == base && b.name) name = b.name;
  if (!base) name = "(null)";
  return name;
}

TL_CUDA_RUNTIME_FN void read_report(const device_report& d, const std::vector<buffer_argument>& buffers,
                                    launch_report& r) {
  r.invalid_ops = std::int64_t(d.invalid_ops);
  r.invalid_lanes = std::int64_t(d.invalid_lanes);
  constexpr auto max_records = static_cast<unsigned long long>(device_report::max_records);
  const int n_access = int(d.invalid_ops < max_records ? d.invalid_ops : max_records);
  for (int k = 0; k < n_access && r.invalid.size() < launch_report::max_records; ++k) {
    const access_record& a = d.access[k];
    invalid_access x;
    for (int i = 0; i < 3; ++i) x.program[i] = a.program[i];
    x.op = access_kind(a.op);
    x.where = source_location{intern(a.file), a.line};
    x.buffer = buffer_name(buffers, a.base);
    x.buffer_size = a.extent;
    x.lanes = std::int64_t(a.lanes);
    x.invalid_lanes = std::int64_t(a.invalid_lanes);
    x.reason = a.null_pointer ? "through a null pointer" : "out of bounds";
    constexpr auto max_lanes = static_cast<unsigned>(device_report::max_lanes);
    std::vector<lane_record> lanes(a.first, a.first + (a.candidates < max_lanes ? a.candidates : max_lanes));
    sort_short(lanes, [](const lane_record& u, const lane_record& v) { return u.flat < v.flat; });
    for (const auto& l : lanes) {
      if (x.first.size() >= launch_report::lanes_per_record) break;
      invalid_lane il;
      il.rank = a.rank < 4 ? a.rank : 4;
      long long f = l.flat;
      for (int i = a.rank - 1; i >= 0; --i) {
        if (i < 4) il.index[i] = int(f % a.dims[i]);
        f /= a.dims[i];
      }
      il.offset = l.offset;
      x.first.push_back(il);
    }
    r.invalid.push_back(std::move(x));
  }
  r.race_count = std::int64_t(d.races);
  const int n_race = int(d.races < max_records ? d.races : max_records);
  for (int k = 0; k < n_race; ++k) {
    const race_record& a = d.race[k];
    store_race x;
    x.kind = race_kind(a.kind);
    if (a.first > 0) {
      const long long f = a.first - 1;
      x.first_program[0] = int(f % r.grid[0]);
      x.first_program[1] = int((f / r.grid[0]) % r.grid[1]);
      x.first_program[2] = int(f / (std::int64_t(r.grid[0]) * r.grid[1]));
    } else {
      x.several = true;
    }
    for (int i = 0; i < 3; ++i) x.program[i] = a.program[i];
    x.where = source_location{intern(a.file), a.line};
    x.buffer = buffer_name(buffers, a.base);
    x.offset = a.offset;
    r.races.push_back(std::move(x));
  }
  r.race_unchecked = std::int64_t(d.race_unchecked);
  r.hang_count = std::int64_t(d.hangs);
  const int n_hang = int(d.hangs < max_records ? d.hangs : max_records);
  for (int k = 0; k < n_hang; ++k) {
    const hang_record& a = d.hang[k];
    stuck_wait h;
    for (int i = 0; i < 3; ++i) h.program[i] = a.program[i];
    h.op = atomic_name(a.op);
    h.where = source_location{intern(a.file), a.line};
    h.buffer = buffer_name(buffers, a.base);
    h.offset = a.offset;
    h.spins = std::int64_t(a.spins);
    h.seconds = double(a.ns) * 1e-9;
    r.hangs.push_back(std::move(h));
  }
  const int n_assert = int(d.asserts < max_records ? d.asserts : max_records);
  for (int k = 0; k < n_assert; ++k) {
    const assert_record& a = d.failed[k];
    assert_failure f;
    for (int i = 0; i < 3; ++i) f.program[i] = a.program[i];
    f.where = source_location{intern(a.file), a.line};
    f.message = a.message;
    f.failing_lanes = std::int64_t(a.failing_lanes);
    r.asserts.push_back(std::move(f));
  }
}

TL_CUDA_RUNTIME_FN shared_memory_limits shared_memory_of(const cudaFuncAttributes& fa) {
  shared_memory_limits l;
  int dev = 0;
  TL_CUDA_CHECK(cudaGetDevice(&dev));
  TL_CUDA_CHECK(cudaDeviceGetAttribute(&l.per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
  TL_CUDA_CHECK(cudaDeviceGetAttribute(&l.per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  TL_CUDA_CHECK(cudaDeviceGetAttribute(&l.reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev));
  l.own = (int(fa.sharedSizeBytes) + 255) / 256 * 256;
  return l;
}

TL_CUDA_RUNTIME_FN int allow_dynamic_shared_memory(const void* kernel, int own, int bytes, const launch_context& context,
                                                   bool all_shared) {
  if (all_shared)
    check_call(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 100),
               "cudaFuncSetAttribute(PreferredSharedMemoryCarveout)", __FILE__, __LINE__, context);
  if (own + bytes > 48 * 1024) {  // static and dynamic together beyond the default limit: asked for
    // Never lowered: the kernel's launches with its other plans (with or without the ring, other
    // reservations), worked out once, keep theirs.
    cudaFuncAttributes now{};
    check_call(cudaFuncGetAttributes(&now, kernel), "cudaFuncGetAttributes", __FILE__, __LINE__, context);
    if (now.maxDynamicSharedSizeBytes < bytes)
      check_call(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes),
                 "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)", __FILE__, __LINE__, context);
  }
  return bytes;
}

TL_CUDA_RUNTIME_FN device_guard::device_guard(int device) {
  if (device < 0) return;
  TL_CUDA_CHECK(cudaGetDevice(&previous_));
  if (previous_ == device) return;
  int count = 0;
  TL_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (device >= count)
    throw usage_error("tl::launch: device " + std::to_string(device) + " asked for; this machine has " +
                      std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s"));
  TL_CUDA_CHECK(cudaSetDevice(device));
  switched_ = true;
}

TL_CUDA_RUNTIME_FN int multiprocessors() {
  int dev = 0, n = 0;
  TL_CUDA_CHECK(cudaGetDevice(&dev));
  TL_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
  return n;
}

TL_CUDA_RUNTIME_FN launch_report launch_on_gpu(const grid& g, const launch_options& options, std::string_view kernel,
                                               const gpu_launch& l) {
  launch_report r;
  r.kernel = std::string(kernel);
  r.grid[0] = int(g.x);
  r.grid[1] = int(g.y);
  r.grid[2] = int(g.z);
  if (options.num_warps != 0 && options.num_warps != l.warps)
    throw usage_error("tl::launch: num_warps " + std::to_string(options.num_warps) + " asked for kernel " + r.kernel +
                      ", but its translation unit was compiled with TL_NUM_WARPS=" + std::to_string(l.warps) +
                      " (block tensors are sized for that many threads); define TL_NUM_WARPS=" +
                      std::to_string(options.num_warps) + " before including tl in that file");

  if (options.trace)
    throw usage_error("tl::launch: a trace of every access is recorded by the CPU backend only; launch with "
                      "tl::backend::cpu to draw the accesses");
  const device_guard on_device(options.device);
  auto stream = static_cast<cudaStream_t>(options.stream);
  const std::vector<buffer_argument> on_host = l.buffers(l.params);
  if (!options.wait) {  // refused before anything is copied or run
    bool host_args = false;
    for (const buffer_argument& b : on_host) host_args = host_args || (b.base && is_host_memory(b.base));
    if (l.checks || host_args)
      throw usage_error("tl::launch: wait = false needs device memory arguments and TL_DEVICE_CHECKS=0 (host buffers "
                        "must be copied back and a report read after the kernel)");
  }
  // Every CUDA error of this launch names the kernel and its configuration.
  launch_context context{r.kernel, g, stream, l.warps};
  host_regions regions;
  for (const buffer_argument& b : on_host) note_host_buffer(b, regions);
  copy_regions_in(regions, context);
  l.place(l.params, regions);

  device_report* rep = nullptr;
  if (l.checks) {
    rep = report_buffer();
    check_call(cudaMemsetAsync(rep, 0, sizeof(device_report), stream), "cudaMemsetAsync (the device report)", __FILE__,
               __LINE__, context);
    {  // the bound on a spin (note_spin), copied before the kernel starts
      const unsigned long long wait_ns = hang_timeout_ns(options);
      check_call(cudaMemcpyAsync(reinterpret_cast<char*>(rep) + offsetof(device_report, wait_ns), &wait_ns, sizeof wait_ns,
                                 cudaMemcpyHostToDevice, stream),
                 "cudaMemcpyAsync (the hang bound)", __FILE__, __LINE__, context);
      check_call(cudaStreamSynchronize(stream), "cudaStreamSynchronize", __FILE__, __LINE__, context);
    }
    if (options.detect_races) {  // the race table, cleared, and where the report finds it
      struct {
        race_entry* table;
        unsigned long long slots;
      } where_races{nullptr, race_slots_for(on_host)};
      where_races.table = race_table(where_races.slots);
      check_call(cudaMemsetAsync(where_races.table, 0, where_races.slots * sizeof(race_entry), stream),
                 "cudaMemsetAsync (the race table)", __FILE__, __LINE__, context);
      static_assert(offsetof(device_report, race_slots) == offsetof(device_report, race_table) + sizeof(race_entry*));
      check_call(cudaMemcpyAsync(reinterpret_cast<char*>(rep) + offsetof(device_report, race_table), &where_races,
                                 sizeof where_races, cudaMemcpyHostToDevice, stream),
                 "cudaMemcpyAsync (the race table's place)", __FILE__, __LINE__, context);
      check_call(cudaStreamSynchronize(stream), "cudaStreamSynchronize", __FILE__, __LINE__, context);
      r.race_check_bytes = std::int64_t(where_races.slots * sizeof(race_entry));
    }
  }
  (void)cudaGetLastError();  // an earlier call's error, not checked by its caller, is not this kernel's
  const dim3 blocks(unsigned(g.x), unsigned(g.y), unsigned(g.z));
  // The kernel's attributes, the multiprocessors and the dynamic shared memory plans are a
  // device's own: kept per device (a launch's `device` option, or the caller's cudaSetDevice,
  // picks it). Dynamic shared memory: the dots' arena, and a programs_per_sm reservation or a
  // dot's operand ring, worked out once per kernel for each choice (reservation, persistent
  // grid, buffers) and device.
  int device = 0;
  check_call(cudaGetDevice(&device), "cudaGetDevice", __FILE__, __LINE__, context);
  // num_stages - 1 buffers beside the dots' arena (at least 2): a pipelined loop's stages
  // (backend/cuda/loop.hpp), or the cp.async ring of a dot called from a plain loop.
  const int ring = std::max(2, options.num_stages - 1);
  const int wanted = options.programs_per_sm > 0 || options.num_stages >= 2 ? ring : 0;
  cudaFuncAttributes attributes{};
  dynamic_plan dyn;
  {
    kernel_cache& c = *l.cache;
    cpu::host_lock lock(c.mutex);
    auto f = std::find_if(c.facts.begin(), c.facts.end(), [&](const auto& e) { return e.device == device; });
    if (f == c.facts.end()) {
      kernel_cache::device_facts fresh{device, {}, multiprocessors()};
      check_call(cudaFuncGetAttributes(&fresh.attributes, l.entry), "cudaFuncGetAttributes", __FILE__, __LINE__,
                 context);
      c.facts.push_back(fresh);
      f = c.facts.end() - 1;
    }
    attributes = f->attributes;
    const bool persistent = options.programs_per_sm == 0 && std::int64_t(g.x) * g.y * g.z <= f->sms;
    const std::array<int, 4> key{options.programs_per_sm, persistent ? 1 : 0, std::min(wanted, max_ring_buffers), device};
    auto found = std::find_if(c.plans.begin(), c.plans.end(), [&](const auto& e) { return e.first == key; });
    if (found == c.plans.end()) {
      const int programs = options.programs_per_sm > 0 ? options.programs_per_sm : persistent ? 1 : 0;
      c.plans.emplace_back(key, l.plan(l.entry, attributes, programs, options.programs_per_sm > 0, key[2], context));
      found = c.plans.end() - 1;
    }
    dyn = found->second;
  }
  dyn.layout.stages = unsigned(std::max(1, options.num_stages));
  r.registers = attributes.numRegs;
  r.local_bytes = std::int64_t(attributes.localSizeBytes);
  const int dynamic = dyn.bytes;
  r.dynamic_shared_bytes = dynamic;
  context.dynamic_shared = dynamic;
  const int threads = 32 * l.warps;
  if (!options.wait) {
    check_call(l.start(l.params, blocks, threads, dynamic, stream, rep, dyn.layout), "launching the kernel", __FILE__,
               __LINE__, context);
    note_async_gpu_launch();
    return r;
  }
  timing t;
  check_call(cudaEventRecord(t.start, stream), "cudaEventRecord", __FILE__, __LINE__, context);
  check_call(l.start(l.params, blocks, threads, dynamic, stream, rep, dyn.layout), "launching the kernel", __FILE__,
             __LINE__, context);
  check_call(cudaEventRecord(t.stop, stream), "cudaEventRecord", __FILE__, __LINE__, context);
  check_call(cudaEventSynchronize(t.stop), "running the kernel", __FILE__, __LINE__, context,
             l.checks ? "" : " (TL_DEVICE_CHECKS=1 or the CPU backend names invalid accesses)");
  float ms_elapsed = 0;
  check_call(cudaEventElapsedTime(&ms_elapsed, t.start, t.stop), "cudaEventElapsedTime", __FILE__, __LINE__, context);
  r.seconds = ms_elapsed * 1e-3;

  for (const auto& region : regions.list)
    if (region.copy_back)
      check_call(cudaMemcpyAsync(region.host, region.device, region.bytes, cudaMemcpyDeviceToHost, stream),
                 "cudaMemcpyAsync (a host buffer back)", __FILE__, __LINE__, context);
  if (l.checks) {
    std::vector<device_report> d(1);  // on the heap: tens of KiB
    check_call(cudaMemcpyAsync(d.data(), rep, sizeof(device_report), cudaMemcpyDeviceToHost, stream),
               "cudaMemcpyAsync (the device report)", __FILE__, __LINE__, context);
    check_call(cudaStreamSynchronize(stream), "cudaStreamSynchronize", __FILE__, __LINE__, context);
    read_report(d[0], l.buffers(l.params), r);
  } else {
    check_call(cudaStreamSynchronize(stream), "cudaStreamSynchronize", __FILE__, __LINE__, context);
  }
  return r;
}
#endif  // TL_CUDA_RUNTIME_DEFINITIONS

}  // namespace tl::detail::cuda
#endif
