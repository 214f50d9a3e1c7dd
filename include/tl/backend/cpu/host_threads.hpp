// tl/backend/cpu/host_threads.hpp: what the CPU backend needs from the host to run programs in
// parallel: threads, a mutex, atomic integers and a clock, on POSIX threads and the compiler's
// atomic builtins. (The standard library's <thread>, <mutex>, <atomic> and <chrono> would do
// the same, and would be parsed by every kernel's translation unit: docs/performance.md.)
#pragma once

#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../config.hpp"

namespace tl::detail::cpu {

class host_mutex {
 public:
  host_mutex() { pthread_mutex_init(&m_, nullptr); }
  host_mutex(const host_mutex&) = delete;
  host_mutex& operator=(const host_mutex&) = delete;
  ~host_mutex() { pthread_mutex_destroy(&m_); }
  void lock() { pthread_mutex_lock(&m_); }
  void unlock() { pthread_mutex_unlock(&m_); }

 private:
  pthread_mutex_t m_;
};

// Holds a mutex for its scope.
class host_lock {
 public:
  explicit host_lock(host_mutex& m) : m_(m) { m_.lock(); }
  host_lock(const host_lock&) = delete;
  host_lock& operator=(const host_lock&) = delete;
  ~host_lock() { m_.unlock(); }

 private:
  host_mutex& m_;
};

// Sequentially consistent atomic operations on plain integers.
template <class T>
inline T atomic_load(const T& x) {
  return __atomic_load_n(&x, __ATOMIC_SEQ_CST);
}
template <class T>
inline void atomic_store(T& x, T v) {
  __atomic_store_n(&x, v, __ATOMIC_SEQ_CST);
}
template <class T>
inline T atomic_fetch_add(T& x, T v) {
  return __atomic_fetch_add(&x, v, __ATOMIC_SEQ_CST);
}
// Relaxed: a counter one thread writes and others read now and then.
template <class T>
inline T relaxed_load(const T& x) {
  return __atomic_load_n(&x, __ATOMIC_RELAXED);
}
template <class T>
inline void relaxed_store(T& x, T v) {
  __atomic_store_n(&x, v, __ATOMIC_RELAXED);
}
// If x == expected, x = desired and true; else expected = x and false.
template <class T>
inline bool atomic_compare_exchange(T& x, T& expected, T desired) {
  return __atomic_compare_exchange_n(&x, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

TL_RUNTIME_FN int hardware_threads();

// Nanoseconds of the monotonic clock.
inline std::uint64_t monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return std::uint64_t(t.tv_sec) * 1000000000ull + std::uint64_t(t.tv_nsec);
}

// Lets another host thread run (a spinning program: atomic_poll).
inline void yield_thread() { sched_yield(); }

inline double monotonic_seconds() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// Runs body(context) on n threads (the calling thread among them) and waits for all.
TL_RUNTIME_FN void run_on_threads(int n, void (*body)(void*), void* context);

#if TL_RUNTIME_DEFINITIONS
TL_RUNTIME_FN int hardware_threads() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? int(n) : 1;
}

TL_RUNTIME_FN void run_on_threads(int n, void (*body)(void*), void* context) {
  struct start {
    void (*body)(void*);
    void* context;
    static void* run(void* s) {
      auto* st = static_cast<start*>(s);
      st->body(st->context);
      return nullptr;
    }
  } s{body, context};
  std::vector<pthread_t> threads;
  threads.reserve(std::size_t(n > 1 ? n - 1 : 0));
  for (int t = 1; t < n; ++t) {
    pthread_t id;
    const int err = pthread_create(&id, nullptr, &start::run, &s);
    if (err != 0) {
      for (pthread_t& started : threads) pthread_join(started, nullptr);
      throw std::runtime_error("tl::launch: could not start a host thread (pthread_create error " +
                               std::to_string(err) + ")");
    }
    threads.push_back(id);
  }
  body(context);
  for (pthread_t& id : threads) pthread_join(id, nullptr);
}
#endif  // TL_RUNTIME_DEFINITIONS

}  // namespace tl::detail::cpu
