// tl/backend/cpu/atomic.hpp: the atomics on the CPU backend (ops/atomic.hpp).
//
// Programs run on host threads at once, so an atomic is a real one: each masked-in lane's
// read-modify-write is one compare-and-swap loop on the element (the compiler's __atomic
// builtins), ordered as the op's memory semantics ask (the scope is always the whole process
// here: at least what was asked). A lane outside its buffer is reported like a store's, and not
// performed. With race detection on, atomics do not race with each other; a plain load or store
// of an element that another program accesses atomically is reported (and the other way round).
#pragma once

#include <cstdint>

#include "../../core/memory_order.hpp"
#include "host_threads.hpp"
#include "memory.hpp"

namespace tl::detail::cpu {

template <class T>
using atomic_bits_t = std::conditional_t<
    sizeof(T) == 1, std::uint8_t,
    std::conditional_t<sizeof(T) == 2, std::uint16_t, std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;

constexpr int host_order(memory_sem s) {
  return s == memory_sem::relaxed ? __ATOMIC_RELAXED
         : s == memory_sem::acquire ? __ATOMIC_ACQUIRE
         : s == memory_sem::release ? __ATOMIC_RELEASE
                                    : __ATOMIC_ACQ_REL;
}
// A failed compare-and-swap only reads: it keeps the acquire part.
constexpr int host_failure_order(memory_sem s) {
  return s == memory_sem::acquire || s == memory_sem::acq_rel ? __ATOMIC_ACQUIRE : __ATOMIC_RELAXED;
}

// The value an element takes when `A` combines it (old) with v. Floats' max and min compare
// their bits as the GPU's integer atomics do (a value with the sign bit clear by signed max,
// one with it set by unsigned min): IEEE order, with -0.0 below +0.0.
template <atomic_op A, class T>
T atomic_combine(T old, T v) {
  using U = atomic_bits_t<T>;
  using I = std::make_signed_t<U>;
  if constexpr (A == atomic_op::add) {
    if constexpr (std::is_integral_v<T>) return T(U(old) + U(v));  // wraps, as the hardware's
    else if constexpr (std::is_floating_point_v<T>) return old + v;
    else return T(float(old) + float(v));  // float16, bfloat16: the sum rounded once to T
  } else if constexpr (A == atomic_op::max || A == atomic_op::min) {
    if constexpr (std::is_integral_v<T>) {
      return A == atomic_op::max ? (old < v ? v : old) : (v < old ? v : old);
    } else {
      const U o = bit_cast<U>(old), x = bit_cast<U>(v);
      const bool negative = I(x) < 0;
      U r;
      if constexpr (A == atomic_op::max) r = negative ? (x < o ? x : o) : (I(o) < I(x) ? x : o);
      else r = negative ? (o < x ? x : o) : (I(x) < I(o) ? x : o);
      return bit_cast<T>(r);
    }
  } else if constexpr (A == atomic_op::bit_and) {
    return T(old & v);
  } else if constexpr (A == atomic_op::bit_or) {
    return T(old | v);
  } else if constexpr (A == atomic_op::bit_xor) {
    return T(old ^ v);
  } else {
    return v;  // xchg
  }
}

// One lane: the element's old value.
template <atomic_op A, memory_sem Sem, class T>
T atomic_at(T* element, T cmp, T v) {
  using U = atomic_bits_t<T>;
  U* const q = reinterpret_cast<U*>(element);
  U expected;
  if constexpr (A == atomic_op::load) {
    return bit_cast<T>(__atomic_load_n(q, host_order(Sem)));  // acquire or relaxed (ops/atomic.hpp checks)
  } else if constexpr (A == atomic_op::store) {
    __atomic_store_n(q, bit_cast<U>(v), host_order(Sem));  // release or relaxed
    return T{};
  } else if constexpr (A == atomic_op::cas) {
    expected = bit_cast<U>(cmp);
    __atomic_compare_exchange_n(q, &expected, bit_cast<U>(v), false, host_order(Sem), host_failure_order(Sem));
  } else {
    expected = __atomic_load_n(q, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(q, &expected, bit_cast<U>(atomic_combine<A>(bit_cast<T>(expected), v)), false,
                                        host_order(Sem), host_failure_order(Sem))) {
    }
  }
  return bit_cast<T>(expected);
}

// Race detection: the element's owner record says "accessed atomically, first by program p"
// as atomic_owner(p); plain loads and stores of it by another program are reported.
TL_RUNTIME_FN void note_atomic_at(program_state* p, const void* element, int size, std::int64_t offset, const char* name,
                           const source_location& where);

// Locks, as the race detector sees them: a successful atomic_cas with acquire semantics
// (acquire or acq_rel, Triton's default) takes a lock at its address; an atomic_xchg, an
// atomic_store, or a successful atomic_cas, with release semantics there gives it back. Plain accesses between
// the two are ordered with other programs' accesses under the same lock (memory.hpp:
// access_under_lock), as a spin lock (tutorial 05's) orders them.
template <atomic_op A, memory_sem Sem, class T>
void follow_lock(program_state* p, const void* element, const T& old, const T& cmp) {
  if constexpr (A == atomic_op::cas || A == atomic_op::xchg || A == atomic_op::store) {
    constexpr bool acquires = Sem == memory_sem::acquire || Sem == memory_sem::acq_rel;
    constexpr bool releases = Sem == memory_sem::release || Sem == memory_sem::acq_rel;
    const bool swapped = A != atomic_op::cas || old == cmp;
    const auto address = reinterpret_cast<std::uintptr_t>(element);
    race_tables& t = p->launch->races;
    host_lock lock(t.mutex);
    std::int32_t id = 0;
    for (std::size_t i = 0; i < t.locks.size(); ++i)
      if (t.locks[i] == address) id = std::int32_t(i + 1);
    if (id != 0 && p->holds(id)) {
      if (releases && swapped) {
        int k = 0;
        for (int i = 0; i < p->held_count; ++i)
          if (p->held[i] != id) {
            p->held_address[k] = p->held_address[i];
            p->held[k++] = p->held[i];
          }
        p->held_count = k;
      }
    } else if (A == atomic_op::cas && acquires && swapped && p->held_count < program_state::max_held) {
      if (id == 0) {
        t.locks.push_back(address);
        id = std::int32_t(t.locks.size());
      }
      p->held_address[p->held_count] = address;
      p->held[p->held_count++] = id;
    }
  }
}

// Does the element change when `A` combines old with v (cas: when k equals it)?
template <atomic_op A, class T>
bool atomic_changes(const T& old, const T& k, const T& v) {
  using U = atomic_bits_t<T>;
  if constexpr (A == atomic_op::load) return false;
  else if constexpr (A == atomic_op::store) return true;  // a publish, whatever it held
  else if constexpr (A == atomic_op::cas) return bit_cast<U>(old) == bit_cast<U>(k) && bit_cast<U>(k) != bit_cast<U>(v);
  else return bit_cast<U>(atomic_combine<A>(old, v)) != bit_cast<U>(old);
}

// A step of a hash of an atomic's op, line, first address and old values (program_state::key).
inline std::uint64_t mix(std::uint64_t h, std::uint64_t x) { return (h ^ x) * 0x100000001B3ull + (h >> 29); }

// The old values at ptrs where mask holds (0 elsewhere), each lane one atomic step. An atomic
// that changes no element and returns what the program's previous one did is a spin
// (program_state::note_unchanged; check_wait stops a wait that cannot end).
template <atomic_op A, memory_sem Sem, memory_scope Scope, class T, class S, class EP, class EC, class EV, class EM, class Out>
void atomic(const EP& ptrs, const EC& cmp, const EV& value, const EM& mask, const source_location& where, Out& out) {
  // Through a pointer to const for a load (atomic_load, atomic_poll), which does not write.
  access_checker<typename pointee<value_of_t<EP>>::type> checker{access_kind::atomic, where};
  checker.template start<S>(ptrs);
  program_state* const ps = current_program;
  const bool races = ps && ps->launch && ps->launch->detect_races;
  using U = atomic_bits_t<T>;
  bool changed = false;
  std::uint64_t key = mix(std::uint64_t(A) << 32 | std::uint32_t(where.line), reinterpret_cast<std::uintptr_t>(where.file));
  const char* site = nullptr;
  std::int64_t site_offset = 0;
  for (std::int64_t i = 0; i < S::size; ++i) {
    const coord<S::rank> c = unravel<S>(i);
    const bool masked = mask.at(broadcast_coord<shape_of_t<EM>>(c));
    out.v[i] = T{};
    if (!masked && !checker.tracing()) continue;
    const auto p = ptrs.at(c);
    const bool valid = masked && checker.template check<S>(p, c);
    checker.observe(p, masked, valid);
    if (!valid) continue;
    const T x = convert<T>(value.at(broadcast_coord<shape_of_t<EV>>(c)));
    const T k = convert<T>(cmp.at(broadcast_coord<shape_of_t<EC>>(c)));
    T* const element = const_cast<T*>(p.get());  // const only for a load, which does not write
    out.v[i] = atomic_at<A, Sem>(element, k, x);
    changed = changed || atomic_changes<A>(out.v[i], k, x);
    if (!site) {
      site = p.name ? p.name : "(unnamed)";
      site_offset = p.offset;
      key = mix(key, reinterpret_cast<std::uintptr_t>(element));
    }
    key = mix(key, std::uint64_t(bit_cast<U>(out.v[i])) + std::uint64_t(i));
    if (races) {
      note_atomic_at(ps, element, int(sizeof(T)), p.offset, p.name, where);
      follow_lock<A, Sem>(ps, element, out.v[i], k);
    }
  }
  checker.finish();
  if (!ps) return;
  if (A != atomic_op::load) ps->note_store_op(checker.masked_in);  // an atomic_load writes nothing
  if (changed) ps->note_write();
  else if (ps->note_unchanged(key)) check_wait(ps, atomic_name(A), where, site, site_offset);
}

// atomic_poll: each masked lane read atomically until it equals expected, or until the time
// budget (nanoseconds from the op's start, shared by the lanes) is spent; every lane is read at
// least once (the monotonic clock times it). Other programs run on their own threads meanwhile:
// the one that stores the value does not wait for this one.
template <memory_sem Sem, memory_scope Scope, class T, class S, class EP, class EE, class Out>
void atomic_poll(const EP& ptrs, const EE& expected, unsigned long long budget_ns, const source_location& where, Out& out) {
  // Through a pointer to const for a load (atomic_load, atomic_poll), which does not write.
  access_checker<typename pointee<value_of_t<EP>>::type> checker{access_kind::atomic, where};
  checker.template start<S>(ptrs);
  program_state* const ps = current_program;
  const bool races = ps && ps->launch && ps->launch->detect_races;
  const std::uint64_t start = monotonic_ns();
  auto spent = [&] { return budget_ns != ~0ull && monotonic_ns() - start >= budget_ns; };
  const char* site = nullptr;  // the first lane's buffer and element, for a report
  std::int64_t site_offset = 0;
  std::uint64_t polls = mix(std::uint64_t(where.line), 2);  // the poll's line, first address and results
  for (std::int64_t i = 0; i < S::size; ++i) {
    const coord<S::rank> c = unravel<S>(i);
    out.v[i] = false;
    const auto p = ptrs.at(c);
    const bool valid = checker.template check<S>(p, c);
    checker.observe(p, true, valid);
    if (!valid) continue;
    const T want = convert<T>(expected.at(broadcast_coord<shape_of_t<EE>>(c)));
    // Without a time budget each read that misses is a spin; with one, the poll is one.
    const std::uint64_t key = mix(mix(std::uint64_t(where.line), reinterpret_cast<std::uintptr_t>(p.get())), 1);
    for (;;) {
      if (atomic_at<atomic_op::load, Sem>(const_cast<T*>(p.get()), T{}, T{}) == want) {
        out.v[i] = true;
        break;
      }
      if (spent()) break;
      if (budget_ns == ~0ull && ps && ps->note_unchanged(key))
        check_wait(ps, "tl::atomic_poll", where, p.name ? p.name : "(unnamed)", p.offset);
      yield_thread();
    }
    if (races) note_atomic_at(ps, p.get(), int(sizeof(T)), p.offset, p.name, where);
    if (!site) {
      site = p.name ? p.name : "(unnamed)";
      site_offset = p.offset;
      polls = mix(polls, reinterpret_cast<std::uintptr_t>(p.get()));
    }
    polls = mix(polls, std::uint64_t(out.v[i]) + std::uint64_t(i));
  }
  checker.finish();
  if (ps && budget_ns != ~0ull && ps->note_unchanged(polls)) check_wait(ps, "tl::atomic_poll", where, site, site_offset);
}

#if TL_RUNTIME_DEFINITIONS
TL_RUNTIME_FN void note_atomic_at(program_state* p, const void* element, int size, std::int64_t offset, const char* name,
                           const source_location& where) {
  const element_records r = race_records(p, element, size);
  if (access_under_lock(p, r, access_role::atomic)) return;
  std::int32_t* const owner = r.owner;
  std::int32_t* const reader = r.reader;
  const std::int32_t me = p->linear_id + 1;
  std::int32_t first = 0;
  if (!atomic_compare_exchange(*owner, first, atomic_owner(me)) && first != me && !is_atomic_owner(first)) {
    record_race(p, race_kind::atomic_after_plain, first, offset, name, where);
    return;
  }
  const std::int32_t seen = atomic_load(*reader);
  if (seen != 0 && seen != me) record_race(p, race_kind::atomic_after_plain, seen, offset, name, where);
}
#endif  // TL_RUNTIME_DEFINITIONS

}  // namespace tl::detail::cpu
