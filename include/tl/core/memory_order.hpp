// tl/core/memory_order.hpp: the memory semantics and scopes of the atomics (ops/atomic.hpp).
//
//   tl::atomic_add(p, x, mask, tl::relaxed);          Triton: tl.atomic_add(p, x, mask, sem="relaxed")
//   tl::atomic_xchg(lock, 0, tl::release, tl::cta);   Triton: tl.atomic_xchg(lock, 0, sem="release", scope="cta")
//
// As in Triton, an atomic is acq_rel at gpu scope unless told otherwise. The semantics order
// the program's other accesses around the atomic (acquire: the accesses after it happen after
// it; release: those before it happen before it); the scope says which other threads the
// ordering is for (cta: the program's own threads, gpu: every program of the device, sys: the
// host and other devices too). The CPU backend runs programs on host threads and gives every
// atomic at least the ordering asked for.
#pragma once

namespace tl {

enum class memory_sem { relaxed, acquire, release, acq_rel };
template <memory_sem S>
struct sem_t {
  static constexpr memory_sem value = S;
};
inline constexpr sem_t<memory_sem::relaxed> relaxed{};
inline constexpr sem_t<memory_sem::acquire> acquire{};
inline constexpr sem_t<memory_sem::release> release{};
inline constexpr sem_t<memory_sem::acq_rel> acq_rel{};

enum class memory_scope { gpu, cta, sys };
template <memory_scope S>
struct scope_t {
  static constexpr memory_scope value = S;
};
inline constexpr scope_t<memory_scope::gpu> gpu{};
inline constexpr scope_t<memory_scope::cta> cta{};
inline constexpr scope_t<memory_scope::sys> sys{};

// atomic_poll's time budget (Triton's timeout_ns=...): tl::atomic_poll(p, 1, tl::timeout_ns{1000}).
struct timeout_ns {
  unsigned long long ns;
};

namespace detail {
// The atomic read-modify-write operations (ops/atomic.hpp; each backend's atomic.hpp).
// load and store: atomic_load and atomic_store (one indivisible read or write, ordered).
enum class atomic_op { add, max, min, bit_and, bit_or, bit_xor, xchg, cas, load, store };
// The op's name in reports ("tl::atomic_cas"); atomic_poll is number 10.
inline constexpr int atomic_poll_number = 10;
constexpr const char* atomic_name(int a) {
  constexpr const char* names[] = {"tl::atomic_add",  "tl::atomic_max",  "tl::atomic_min",   "tl::atomic_and",
                                   "tl::atomic_or",   "tl::atomic_xor",  "tl::atomic_xchg",  "tl::atomic_cas",
                                   "tl::atomic_load", "tl::atomic_store", "tl::atomic_poll"};
  return a >= 0 && a <= atomic_poll_number ? names[a] : "an atomic";
}
constexpr const char* atomic_name(atomic_op a) { return atomic_name(int(a)); }
}  // namespace detail

}  // namespace tl
