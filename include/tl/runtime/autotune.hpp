// tl/runtime/autotune.hpp: tl::autotuner, Triton's @triton.autotune for tl kernels.
//
//   struct matmul_meta { int bm, bn, bk, group_sz; };          the compile-time choices
//   inline constexpr tl::config<matmul_meta> matmul_configs[] = {   Triton: configs=[triton.Config(...)]
//       {.meta = {128, 256, 64, 8}, .num_warps = 8, .num_stages = 3},
//       {.meta = {64, 256, 32, 8}, .num_warps = 4, .num_stages = 4}};
//   struct grouped_matmul_of {                                         a config's kernel
//     template <matmul_meta M>
//     static constexpr auto kernel = grouped_matmul_k<M.bm, M.bn, M.bk, M.group_sz>;
//   };
//   inline tl::autotuner<matmul_configs, grouped_matmul_of> grouped_autotuned_matmul_k{
//       {.name = "grouped_matmul", .key = {3, 4, 5}}};                  Triton: key=['m', 'n', 'k']
//   TL_AUTOTUNE_UNIT(grouped_autotuned_matmul_k)
//
//   grouped_autotuned_matmul_k([&](const matmul_meta& meta) {           Triton: kernel[grid](...)
//     return tl::grid(tl::cdiv(m, meta.bm), tl::cdiv(n, meta.bn));
//   }, {.backend = tl::backend::cuda}, a, b, c, m, n, k, ...);
//
// The first launch with a new key (the values of the key arguments, and the backend) times
// every config that compiled for the backend with tl::do_bench and keeps the
// fastest, in memory and, with a cache_dir (or TL_AUTOTUNE_CACHE_DIR), on disk; later
// launches with that key run it at once. `prune` drops configs for a key before timing
// (Triton's early_config_prune); `restore` names buffer arguments that the timing runs would
// change and that are put back before the real launch (Triton's restore_value).
//
// num_warps: on the CUDA backend a block tensor's layout is fixed per translation unit
// (TL_NUM_WARPS), so a config is compiled by the translation units whose TL_NUM_WARPS is its
// num_warps. TL_AUTOTUNE_UNIT(tuner) in a translation unit adds the configs it can compile;
// the CMake function tl_add_num_warps_variants (cmake/tlAutotune.cmake) compiles a source file
// once per warp count. A translation unit compiled by the host compiler (no CUDA) compiles
// every config for the CPU backend.
#pragma once

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../launch/launch.hpp"
#include "../core/dtype.hpp"
#include "../bench/do_bench.hpp"

namespace tl {

// One configuration: the kernel's compile-time parameters and the launch's (Triton: triton.Config).
template <class Meta>
struct config {
  Meta meta{};
  int num_warps = 4;
  int num_stages = 3;
};

// The values of a launch's key arguments.
using tune_key = std::vector<long long>;

template <class Meta>
struct autotune_options {
  std::string name = "autotuner";  // for messages, and the cache file's name
  std::vector<int> key{};          // indices of the kernel's scalar arguments that pick a tuning
  std::vector<int> restore{};      // indices of buffer arguments restored after the timing runs
  // Return false to leave a config out for this key (Triton: prune_configs_by's early_config_prune).
  std::function<bool(const config<Meta>&, const tune_key&)> prune{};
  std::string cache_dir{};         // results kept on disk here too (default: TL_AUTOTUNE_CACHE_DIR, if set)
  double warmup_ms = 25, rep_ms = 100;  // do_bench's, per config
  bool print = false;              // print each tuning's timings (also TL_PRINT_AUTOTUNING=1)
};

// What one tuning measured.
struct tuning_entry {
  int config = 0;        // index into the config list
  std::string describe;  // "bm=128 ... num_warps=8 num_stages=3"
  double ms = 0;         // median time; 0 when it did not run
  std::string error;     // why it did not run (pruned, not compiled, launch failed)
};
struct tuning {
  tune_key key;
  tl::backend backend = tl::backend::cpu;
  int best = -1;
  bool from_disk = false;
  std::vector<tuning_entry> entries;
};

namespace detail {

template <class Meta>
std::string describe_config(const config<Meta>& c) {
  std::ostringstream o;
  if constexpr (requires(std::ostream& s, const Meta& m) { s << m; }) o << c.meta << ' ';
  o << "num_warps=" << c.num_warps << " num_stages=" << c.num_stages;
  return o.str();
}

// The bytes of a config: how the disk cache tells that its list has not changed.
template <class Meta>
std::string config_fingerprint(const config<Meta>& c) {
  static const char hex[] = "0123456789abcdef";
  std::string s;
  const auto* p = reinterpret_cast<const unsigned char*>(&c.meta);
  for (std::size_t i = 0; i < sizeof(Meta); ++i) {
    s += hex[p[i] >> 4];
    s += hex[p[i] & 15];
  }
  return s + "-" + std::to_string(c.num_warps) + "-" + std::to_string(c.num_stages);
}

inline bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::string(v) != "0";
}

inline std::string device_label(tl::backend b) {
#if defined(__CUDACC__)
  if (b == tl::backend::cuda) {
    int dev = 0;
    TL_CUDA_CHECK(cudaGetDevice(&dev));
    cudaDeviceProp p{};
    TL_CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
    std::string s = p.name;
    for (char& c : s)
      if (c == ' ') c = '_';
    return s;
  }
#endif
  return to_string(b);
}

}  // namespace detail

template <const auto& Configs, class KernelOf>
class autotuner {
  using config_type = std::remove_cvref_t<decltype(Configs[0])>;
  using meta_type = decltype(config_type::meta);
  using first_kernel = std::remove_cvref_t<decltype(KernelOf::template kernel<Configs[0].meta>)>;

 public:
  using params = typename detail::kernel_params<first_kernel>::tuple;
  static constexpr int n_configs = int(std::size(Configs));
  using runner = std::function<launch_report(const grid&, const launch_options&, const params&)>;

  explicit autotuner(autotune_options<meta_type> o) : options_(std::move(o)) {
    for (int k : options_.key)
      if (k < 0 || k >= int(std::tuple_size_v<params>))
        throw usage_error("tl::autotuner '" + options_.name + "': key index " + std::to_string(k) +
                          " is not an argument of the kernel (it has " + std::to_string(std::tuple_size_v<params>) +
                          ")");
  }

  // Launches the best config for this key, tuning first if the key is new.
  template <class GridOf, class... Args>
  launch_report operator()(GridOf&& grid_of, const launch_options& given, Args&&... args) {
    static_assert(sizeof...(Args) == std::tuple_size_v<params>,
                  "tl::autotuner: the launch passes a different number of arguments than the kernel has");
    const launch_options lo = detail::launch_place(given, options_.name, args...);
    params bound{std::forward<Args>(args)...};
    const tune_key key = key_of(bound);
    const int best = best_for(key, lo, grid_of, bound);
    return find(lo.backend, best)(grid_of(Configs[best].meta), with_config(lo, best), bound);
  }

  // The tuning of a key, if it has been tuned (or read from disk) on this backend.
  const tuning* tuned(const tune_key& key, tl::backend b = tl::backend::cpu) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find({int(b), key});
    return it == cache_.end() ? nullptr : &it->second;
  }
  const config_type& config_at(int i) const { return Configs[i]; }
  static std::string describe(int i) { return detail::describe_config(Configs[i]); }
  int tunings_run() const { return tunings_run_; }  // timings made (not read from the caches)
  const autotune_options<meta_type>& options() const { return options_; }

  // Launches config i itself (what a hand-picked config is): for comparisons and tests.
  template <class GridOf, class... Args>
  launch_report launch_config(int i, GridOf&& grid_of, const launch_options& given, Args&&... args) {
    const launch_options lo = detail::launch_place(given, options_.name, args...);
    params bound{std::forward<Args>(args)...};
    return find(lo.backend, i)(grid_of(Configs[i].meta), with_config(lo, i), bound);
  }
  bool compiled(tl::backend b, int i) const {
    std::lock_guard<std::mutex> lock(registry().mutex);
    return registry().runners.count({int(b), i}) > 0;
  }

  // Called by TL_AUTOTUNE_UNIT through detail::register_unit: config i runs on backend b.
  static void add_runner(tl::backend b, int i, runner r) {
    std::lock_guard<std::mutex> lock(registry().mutex);
    registry().runners.emplace(std::pair{int(b), i}, std::move(r));
  }

 private:
  struct registry_t {
    std::mutex mutex;
    std::map<std::pair<int, int>, runner> runners;
  };
  // One per tuner type, constructed on first use: translation units register into it while
  // statics are initialized, in an order C++ does not fix.
  static registry_t& registry() {
    static registry_t r;
    return r;
  }

  runner find(tl::backend b, int i) const {
    std::lock_guard<std::mutex> lock(registry().mutex);
    auto it = registry().runners.find({int(b), i});
    if (it != registry().runners.end()) return it->second;
    throw usage_error("tl::autotuner '" + options_.name + "': config #" + std::to_string(i) + " (" + describe(i) +
                      ") was not compiled for the " + to_string(b) + " backend: " +
                      (b == tl::backend::cuda
                           ? "compile a translation unit with TL_NUM_WARPS=" + std::to_string(Configs[i].num_warps) +
                                 " that includes the tuner and has TL_AUTOTUNE_UNIT (CMake: tl_add_num_warps_variants)"
                           : std::string("add TL_AUTOTUNE_UNIT after the tuner's definition")));
  }

  static launch_options with_config(launch_options lo, int i) {
    if (lo.backend == tl::backend::cuda) lo.num_warps = Configs[i].num_warps;
    lo.num_stages = Configs[i].num_stages;
    return lo;
  }

  tune_key key_of(const params& bound) const {
    tune_key k;
    for (int index : options_.key) {
      long long v = 0;
      bool scalar = false;
      for_each_param(bound, [&](int i, const auto& p) {
        using P = std::remove_cvref_t<decltype(p)>;
        if (i != index) return;
        if constexpr (std::is_arithmetic_v<P>) {
          v = static_cast<long long>(p);
          scalar = true;
        }
      });
      if (!scalar)
        throw usage_error("tl::autotuner '" + options_.name + "': key argument #" + std::to_string(index) +
                          " is not a number (a key is made of the kernel's scalar arguments)");
      k.push_back(v);
    }
    return k;
  }

  template <class F>
  static void for_each_param(const params& bound, F&& f) {
    std::apply([&](const auto&... p) {
      int i = 0;
      (f(i++, p), ...);
    }, bound);
  }

  std::string cache_path() const {
    std::string dir = options_.cache_dir;
    if (dir.empty())
      if (const char* e = std::getenv("TL_AUTOTUNE_CACHE_DIR")) dir = e;
    if (dir.empty()) return {};
    return (std::filesystem::path(dir) / (options_.name + ".tune")).string();
  }
  static std::string key_text(tl::backend b, const tune_key& key) {
    std::string s = detail::device_label(b) + " key=";
    for (std::size_t i = 0; i < key.size(); ++i) {
      if (i) s += ',';
      s += std::to_string(key[i]);
    }
    return s;
  }

  // A line "<device> key=<values> config=<i> <fingerprint>" of the cache file, if its config
  // list still has that config at that index.
  int read_disk(tl::backend b, const tune_key& key) const {
    const std::string path = cache_path();
    if (path.empty()) return -1;
    std::ifstream f(path);
    const std::string want = key_text(b, key);
    std::string line;
    int found = -1;
    while (std::getline(f, line)) {
      std::istringstream in(line);
      std::string device, keys, cfg, fingerprint;
      in >> device >> keys >> cfg >> fingerprint;
      if (device + " " + keys != want || cfg.rfind("config=", 0) != 0) continue;
      const int i = std::atoi(cfg.c_str() + 7);
      if (i >= 0 && i < n_configs && detail::config_fingerprint(Configs[i]) == fingerprint) found = i;
    }
    return found;
  }
  void write_disk(tl::backend b, const tune_key& key, int best) const {
    const std::string path = cache_path();
    if (path.empty()) return;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream f(path, std::ios::app);
    if (!f) throw std::runtime_error("tl::autotuner '" + options_.name + "': cannot write its cache " + path);
    f << key_text(b, key) << " config=" << best << ' ' << detail::config_fingerprint(Configs[best]) << "  # "
      << describe(best) << '\n';
  }

  template <class GridOf>
  int best_for(const tune_key& key, const launch_options& lo, GridOf& grid_of, const params& bound) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = cache_.find({int(lo.backend), key});
      if (it != cache_.end()) return it->second.best;
    }
    tuning t;
    t.key = key;
    t.backend = lo.backend;
    const int on_disk = read_disk(lo.backend, key);
    if (on_disk >= 0 && compiled(lo.backend, on_disk)) {
      t.best = on_disk;
      t.from_disk = true;
    } else {
      run_tuning(t, lo, grid_of, bound);
      write_disk(lo.backend, key, t.best);
    }
    std::lock_guard<std::mutex> lock(mutex_);
    return cache_.emplace(std::pair{int(lo.backend), key}, std::move(t)).first->second.best;
  }

  // Saves the restore buffers' contents (host copies), and puts them back.
  std::vector<std::function<void()>> save(const params& bound, tl::backend b) const {
    std::vector<std::function<void()>> out;  // each puts one buffer back
    for (int index : options_.restore) {
      bool found = false;
      for_each_param(bound, [&](int i, const auto& p) {
        using P = std::remove_cvref_t<decltype(p)>;
        if (i != index) return;
        if constexpr (detail::is_ptr_v<P>) {
          using T = std::remove_const_t<typename P::element_type>;
          if (p.extent < 0)
            throw usage_error("tl::autotuner '" + options_.name + "': restore argument #" + std::to_string(index) +
                              " has no known size (pass a tl::buffer or a sized tl::ptr)");
          found = true;
          auto copy = std::make_shared<std::vector<T>>(std::size_t(p.extent));
          T* base = const_cast<T*>(p.base);
          const std::size_t bytes = std::size_t(p.extent) * sizeof(T);
          if (b == tl::backend::cpu) std::memcpy(static_cast<void*>(copy->data()), base, bytes);
#if defined(__CUDACC__)
          else TL_CUDA_CHECK(cudaMemcpy(copy->data(), base, bytes, cudaMemcpyDefault));
#endif
          out.push_back([copy, base, bytes, b] {
            if (b == tl::backend::cpu) std::memcpy(static_cast<void*>(base), copy->data(), bytes);
#if defined(__CUDACC__)
            else TL_CUDA_CHECK(cudaMemcpy(base, copy->data(), bytes, cudaMemcpyDefault));
#endif
          });
        }
      });
      if (!found)
        throw usage_error("tl::autotuner '" + options_.name + "': restore argument #" + std::to_string(index) +
                          " is not a buffer");
    }
    return out;
  }

  template <class GridOf>
  void run_tuning(tuning& t, const launch_options& lo, GridOf& grid_of, const params& bound) {
    ++tunings_run_;
    const auto saved = save(bound, lo.backend);
    double best_ms = 0;
    for (int i = 0; i < n_configs; ++i) {
      tuning_entry e{i, describe(i), 0, {}};
      if (options_.prune && !options_.prune(Configs[i], t.key)) {
        e.error = "pruned";
      } else if (!compiled(lo.backend, i)) {
        e.error = "not compiled for this backend (no translation unit with num_warps=" +
                  std::to_string(Configs[i].num_warps) + ")";
      } else {
        const runner run = find(lo.backend, i);
        launch_options timed = with_config(lo, i);
        timed.failure = on_failure::raise;
        // Queue the timed launches without waiting where the launch allows it.
        if (lo.backend == tl::backend::cuda && !TL_DEVICE_CHECKS) timed.wait = false;
        const grid g = grid_of(Configs[i].meta);
        try {
          const auto r = tl::do_bench([&] { run(g, timed, bound); },
                                           {.backend = lo.backend, .warmup_ms = options_.warmup_ms,
                                            .rep_ms = options_.rep_ms, .stream = lo.stream});
          e.ms = r.ms;
          if (t.best < 0 || e.ms < best_ms) {
            t.best = i;
            best_ms = e.ms;
          }
        } catch (const std::exception& ex) {  // e.g. more shared memory than the device has: skipped
          e.error = ex.what();
        }
      }
      t.entries.push_back(std::move(e));
    }
    for (const auto& put_back : saved) put_back();
    if (options_.print || detail::env_flag("TL_PRINT_AUTOTUNING")) {
      std::cout << "tl::autotuner '" << options_.name << "' " << key_text(lo.backend, t.key) << ":\n";
      for (const auto& e : t.entries)
        std::cout << "  #" << e.config << ' ' << e.describe << ": "
                  << (e.error.empty() ? std::to_string(e.ms) + " ms" : e.error)
                  << (e.config == t.best ? "  <- best" : "") << '\n';
    }
    if (t.best < 0) {
      std::string why;
      for (const auto& e : t.entries) why += "\n  #" + std::to_string(e.config) + " " + e.describe + ": " + e.error;
      throw usage_error("tl::autotuner '" + options_.name + "': no config ran for " + key_text(lo.backend, t.key) + why);
    }
  }

  autotune_options<meta_type> options_;
  mutable std::mutex mutex_;
  std::map<std::pair<int, tune_key>, tuning> cache_;
  int tunings_run_ = 0;
};

namespace detail {
inline namespace TL_LAUNCH_ABI {  // per TL_NUM_WARPS: this translation unit's configs

template <auto Kernel, class Params>
launch_report run_with(const grid& g, const launch_options& lo, const Params& bound) {
  return std::apply([&](const auto&... p) { return tl::launch<Kernel>(g, lo, p...); }, bound);
}

// Adds the configs this translation unit compiles: compiled by the host compiler, all of them
// for the CPU backend; compiled by nvcc, those whose num_warps is TL_NUM_WARPS, for both
// backends (a launch there compiles the GPU kernel as well).
template <class Tuner, const auto& Configs, class KernelOf, int... I>
bool register_unit(std::integer_sequence<int, I...>) {
  using params = typename Tuner::params;
  auto add = [&]<int Index> {
    constexpr auto kernel = KernelOf::template kernel<Configs[Index].meta>;
    static_assert(std::is_same_v<typename tl::detail::kernel_params<std::remove_cvref_t<decltype(kernel)>>::tuple, params>,
                  "tl::autotuner: every config's kernel must take the same parameters");
#if defined(__CUDACC__)
    // Under nvcc a launch compiles the kernel for the GPU too: only this unit's warp count.
    if constexpr (Configs[Index].num_warps == TL_NUM_WARPS) {
      Tuner::add_runner(tl::backend::cpu, Index, &run_with<kernel, params>);
      Tuner::add_runner(tl::backend::cuda, Index, &run_with<kernel, params>);
    }
#else
    Tuner::add_runner(tl::backend::cpu, Index, &run_with<kernel, params>);
#endif
  };
  (add.template operator()<I>(), ...);
  return true;
}

template <const auto& Configs, class KernelOf>
bool register_unit(const autotuner<Configs, KernelOf>&) {
  return register_unit<autotuner<Configs, KernelOf>, Configs, KernelOf>(
      std::make_integer_sequence<int, int(std::size(Configs))>{});
}

}  // namespace TL_LAUNCH_ABI
}  // namespace detail
}  // namespace tl

// TL_AUTOTUNE_UNIT(tuner): this translation unit compiles the tuner's configs it can (see the
// top of this file). At namespace scope, after the tuner's definition.
#define TL_AUTOTUNE_UNIT(tuner) \
  [[maybe_unused]] static const bool TL_CAT_(tl_autotune_unit_, __LINE__) = ::tl::detail::register_unit(tuner);
