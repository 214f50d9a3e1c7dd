// tl/backend/cpu/memory.hpp: load and store on the CPU backend.
//
// Every lane of the pointer block is visited. A masked-in lane whose pointer lies outside its
// buffer (or is null) is never read or written: a load gives it `other`, a store skips it;
// the op records the lane, and the launch reports it with the program, the op, the source
// line, the buffer and the offsets. With race detection on (launch_options::detect_races),
// each element a program stores, or loads through a non-const pointer, is recorded by its
// address (program.hpp: race_tables), and an element that another program of the launch
// stores is reported with both programs.
#pragma once

#include <cstring>
#include <utility>

#include "../../core/eviction.hpp"
#include "../../core/ptr.hpp"
#include "../../expr/block.hpp"
#include "../../expr/loaded.hpp"
#include "program.hpp"

namespace tl::detail::cpu {

template <class S>
invalid_lane make_lane(const coord<S::rank>& c, std::int64_t offset) {
  invalid_lane l;
  l.rank = S::rank < 4 ? S::rank : 4;
  for (int i = 0; i < l.rank; ++i) l.index[i] = c[i];
  l.offset = offset;
  return l;
}

// Gathers the invalid lanes of one load/store, then reports them once.
template <class T>
struct access_checker {
  access_kind kind;
  source_location where;
  invalid_access record{};
  std::int64_t masked_in = 0;
  bool any = false;
  traced_access* traced = nullptr;  // set by start() when the launch is traced

  // Called once before the lanes: when the launch records a trace, opens this op's record
  // (the buffer is the one the first lane points into).
  template <class S, class EP>
  void start(const EP& ptrs) {
    program_state* ps = current_program;
    if (!ps || !ps->trace) return;
    const ptr<T> first = ptrs.at(coord<S::rank>{});
    traced_access a;
    for (int i = 0; i < 3; ++i) a.program[i] = ps->pid[i];
    a.op = kind;
    a.where = where;
    a.buffer = first.name ? first.name : "(unnamed)";
    a.buffer_size = first.extent;
    a.buffer_start = first.base;
    a.element_size = int(sizeof(T));
    for (int i = 0; i < S::rank; ++i) a.shape.push_back(S::dim(i));
    a.lanes.reserve(std::size_t(S::size));
    ps->trace->push_back(std::move(a));
    traced = &ps->trace->back();
  }
  bool tracing() const { return traced != nullptr; }
  void observe(const ptr<T>& p, bool masked, bool valid) {
    if (traced) traced->lanes.push_back(traced_lane{p.offset, masked, valid});
  }

  // Called for each masked-in lane: true if it may be accessed.
  template <class S>
  bool check(const ptr<T>& p, const coord<S::rank>& c) {
    ++masked_in;
    if (p.in_bounds()) return true;
    if (!any) {
      any = true;
      record.op = kind;
      record.where = where;
      record.buffer = p.name ? p.name : "(unnamed)";
      record.buffer_size = p.extent;
      record.reason = p.base ? "out of bounds" : "through a null pointer";
    }
    ++record.invalid_lanes;
    if (record.first.size() < launch_report::lanes_per_record) record.first.push_back(make_lane<S>(c, p.offset));
    return false;
  }
  void finish() {
    record.lanes = masked_in;
    if (any) report_invalid_access(std::move(record));
  }
};

// ---- race detection ----

// A most-recent-first cache of N entries: find moves a hit to the front; put adds at the front,
// dropping the last.
template <int N, class K, class V>
void cache_put(K (&keys)[N], V* (&values)[N], int from, K k, V* v) {
  for (int i = from; i > 0; --i) {
    keys[i] = keys[i - 1];
    values[i] = values[i - 1];
  }
  keys[0] = k;
  values[0] = v;
}
template <int N, class K, class V>
V* cache_find(K (&keys)[N], V* (&values)[N], K k) {
  for (int i = 0; i < N; ++i)
    if (keys[i] == k && values[i]) {
      V* v = values[i];
      if (i > 0) cache_put(keys, values, i, k, v);
      return v;
    }
  return nullptr;
}

// The key of the region (Bits = region_bits) or page (page_bits) that holds `address`, for
// elements of `size` bytes: each element size has its own records.
template <int Bits>
std::uintptr_t race_key(std::uintptr_t address, int size) {
  return ((address >> Bits) << 5) | std::uintptr_t(size);
}

// The region of the race tables (program.hpp) that holds `address` for elements of `size`
// bytes, made on first use.
TL_RUNTIME_FN race_region* race_region_of(program_state* p, std::uintptr_t address, int size);

// The page of records of the 4 KiB of memory at `address`, for elements of `size` bytes, made on
// first use (by whichever program gets there first). The accesses' loops test only the page used
// last (race_records) and call this for any other.
TL_RUNTIME_FN race_page* race_page_of(program_state* p, std::uintptr_t address, int size);

// The owner, reader and guard records of the element at `address` (`size` bytes) of a launch
// that detects races: the page used last, or race_page_of.
struct element_records {
  std::int32_t *owner, *reader, *guard;
};
inline element_records race_records(program_state* p, const void* address, int size) {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  const std::uintptr_t key = race_key<race_region::page_bits>(a, size);
  race_page* page = p->races.page_key[0] == key && p->races.page[0] ? p->races.page[0] : race_page_of(p, a, size);
  const std::size_t i = std::size_t((a & ((std::uintptr_t(1) << race_region::page_bits) - 1)) / std::uintptr_t(size));
  return {&page->owner[i], &page->reader[i], &page->guard[i]};
}

// An access made under a lock this program holds (backend/cpu/atomic.hpp follows the locks),
// to an element whose earlier accesses all held that lock, or that no other program accessed
// yet: the lock orders it after them. It becomes the element's last access (reader or owner)
// and is no race; returns false where the ordinary checks apply (no lock held, another lock,
// or accesses without the lock before). A plain access without a lock marks the element
// (guard `unguarded`), so that no later access under a lock is taken as ordered after it,
// whichever program ran first.
enum class access_role { load, store, atomic };
inline constexpr std::int32_t unguarded = -1;
inline bool access_under_lock(program_state* p, const element_records& r, access_role role) {
  if (p->held_count == 0) {
    if (role != access_role::atomic && atomic_load(*r.guard) != unguarded) atomic_store(*r.guard, unguarded);
    return false;
  }
  const std::int32_t me = p->linear_id + 1;
  std::int32_t guard = atomic_load(*r.guard);
  if (guard == 0) {
    const std::int32_t owner = atomic_load(*r.owner), reader = atomic_load(*r.reader);
    const bool only_mine = (owner == 0 || owner == me || owner == atomic_owner(me)) && (reader == 0 || reader == me);
    if (!only_mine) return false;
    std::int32_t expected = 0;
    guard = atomic_compare_exchange(*r.guard, expected, p->held[0]) ? p->held[0] : expected;
  }
  if (!p->holds(guard)) return false;
  if (role == access_role::load) atomic_store(*r.reader, me);
  else atomic_store(*r.owner, role == access_role::atomic ? atomic_owner(me) : me);
  return true;
}

TL_RUNTIME_FN void record_race(program_state* p, race_kind kind, std::int32_t other_id, std::int64_t offset,
                        const char* name, source_location where);

// Called by a store for each element it writes (inside its buffer): records the first program
// to store it, and reports a second one, or another program that loaded it.
TL_RUNTIME_FN void note_store_at(program_state* p, const void* element, int size, std::int64_t offset, const char* name,
                          const source_location& where);
template <class T>
void note_store(const T* element, std::int64_t offset, const char* name, const source_location& where) {
  program_state* p = current_program;
  if (p && p->launch && p->launch->detect_races) note_store_at(p, element, int(sizeof(T)), offset, name, where);
}

// Called by a load for each element it reads through a non-const pointer (the buffers a launch
// may also store): records the program, and reports the element if another program stores it.
TL_RUNTIME_FN void note_load_at(program_state* p, const void* element, int size, std::int64_t offset, const char* name,
                         const source_location& where);
// A load through a pointer to const of an element that another argument of the launch can
// write (launch_state::aliased): noted as note_load_at does.
TL_RUNTIME_FN void note_aliased_load_at(program_state* p, const void* element, int size, std::int64_t offset,
                                        const char* name, const source_location& where);
template <class T>
void note_load(const T* element, std::int64_t offset, const char* name, const source_location& where) {
  program_state* p = current_program;
  if (p && p->launch && p->launch->detect_races) note_load_at(p, element, int(sizeof(T)), offset, name, where);
}

#if TL_RUNTIME_DEFINITIONS
TL_RUNTIME_FN race_region* race_region_of(program_state* p, std::uintptr_t address, int size) {
  const std::uintptr_t key = race_key<race_region::region_bits>(address, size);
  race_cache& c = p->races;
  if (race_region* r = cache_find(c.key, c.region, key)) return r;
  race_tables& t = p->launch->races;
  race_region* found = nullptr;
  {
    host_lock lock(t.mutex);
    for (race_region* r : t.regions)
      if (r->key == key) found = r;
    if (!found) {
      found = new race_region;
      found->key = key;
      t.regions.push_back(found);
      t.bytes += std::int64_t(sizeof(race_region));
    }
  }
  cache_put(c.key, c.region, race_cache::size - 1, key, found);
  return found;
}

TL_RUNTIME_FN race_page* race_page_of(program_state* p, std::uintptr_t address, int size) {
  const std::uintptr_t key = race_key<race_region::page_bits>(address, size);
  race_cache& c = p->races;
  if (race_page* page = cache_find(c.page_key, c.page, key)) return page;
  race_region* r = race_region_of(p, address, size);
  race_page*& slot = r->page[(address >> race_region::page_bits) & (race_region::pages - 1)];
  race_page* page = atomic_load(slot);
  if (!page) {
    const int n = (1 << race_region::page_bits) / size;
    race_page* made = new race_page;
    made->owner = new std::int32_t[std::size_t(3 * n)]();
    made->reader = made->owner + n;
    made->guard = made->owner + 2 * n;
    race_page* expected = nullptr;
    if (atomic_compare_exchange(slot, expected, made)) {
      page = made;
      host_lock lock(p->launch->races.mutex);
      p->launch->races.bytes += std::int64_t(sizeof(race_page)) + 3 * n * std::int64_t(sizeof(std::int32_t));
    } else {  // another program made it first
      delete[] made->owner;
      delete made;
      page = expected;
    }
  }
  cache_put(c.page_key, c.page, race_cache::size - 1, key, page);
  return page;
}

TL_RUNTIME_FN void record_race(program_state* p, race_kind kind, std::int32_t other_id, std::int64_t offset,
                        const char* name, source_location where) {
  store_race r;
  r.kind = kind;
  if (other_id > 0) {
    const std::int32_t f = other_id - 1;
    r.first_program[0] = int(f % p->grid[0]);
    r.first_program[1] = int((f / p->grid[0]) % p->grid[1]);
    r.first_program[2] = int(f / (p->grid[0] * p->grid[1]));
  } else {
    r.several = true;  // loaded by more than one program: which ones is not kept
  }
  for (int i = 0; i < 3; ++i) r.program[i] = p->pid[i];
  r.where = where;
  r.buffer = name ? name : "(unnamed)";
  r.offset = offset;
  host_lock lock(p->launch->mutex);
  launch_report& rep = p->launch->report;
  ++rep.race_count;
  if (rep.races.size() < launch_report::max_records) rep.races.push_back(std::move(r));
}

TL_RUNTIME_FN void note_store_at(program_state* p, const void* element, int size, std::int64_t offset, const char* name,
                          const source_location& where) {
  // A plain store to a lock this program holds gives it back without ordering: reported, and
  // the lock counted as given back.
  for (int i = 0; i < p->held_count; ++i)
    if (p->held_address[i] == reinterpret_cast<std::uintptr_t>(element)) {
      record_race(p, race_kind::lock_released_by_store, p->linear_id + 1, offset, name, where);
      for (int k = i; k + 1 < p->held_count; ++k) {
        p->held[k] = p->held[k + 1];
        p->held_address[k] = p->held_address[k + 1];
      }
      --p->held_count;
      return;
    }
  const element_records r = race_records(p, element, size);
  if (access_under_lock(p, r, access_role::store)) return;
  std::int32_t* const owner = r.owner;
  std::int32_t* const reader = r.reader;
  const std::int32_t me = p->linear_id + 1;
  std::int32_t first = 0;
  if (!atomic_compare_exchange(*owner, first, me) && first != me) {
    if (!is_atomic_owner(first)) record_race(p, race_kind::store_store, first, offset, name, where);
    else if (atomic_program(first) != me) record_race(p, race_kind::plain_after_atomic, atomic_program(first), offset, name, where);
    return;
  }
  const std::int32_t seen = atomic_load(*reader);
  if (seen != 0 && seen != me) record_race(p, race_kind::store_after_load, seen, offset, name, where);
}

TL_RUNTIME_FN void note_aliased_load_at(program_state* p, const void* element, int size, std::int64_t offset,
                                        const char* name, const source_location& where) {
  const auto a = reinterpret_cast<std::uintptr_t>(element);
  for (const aliased_input& r : p->launch->aliased)
    if (a >= r.begin && a < r.end) return note_load_at(p, element, size, offset, name, where);
}

TL_RUNTIME_FN void note_load_at(program_state* p, const void* element, int size, std::int64_t offset, const char* name,
                         const source_location& where) {
  const element_records r = race_records(p, element, size);
  if (access_under_lock(p, r, access_role::load)) return;
  std::int32_t* const owner = r.owner;
  std::int32_t* const reader = r.reader;
  const std::int32_t me = p->linear_id + 1;
  // A plain read first: most loads find themselves (or "several") recorded and write nothing.
  std::int32_t seen = atomic_load(*reader);
  if (seen == 0) atomic_compare_exchange(*reader, seen, me);  // on failure, seen is the other program
  if (seen != 0 && seen != me && seen != several_readers) atomic_store(*reader, several_readers);
  const std::int32_t stored_by = atomic_load(*owner);
  if (is_atomic_owner(stored_by)) {
    if (atomic_program(stored_by) != me) record_race(p, race_kind::plain_after_atomic, atomic_program(stored_by), offset, name, where);
  } else if (stored_by != 0 && stored_by != me) {
    record_race(p, race_kind::load_after_store, stored_by, offset, name, where);
  }
}
#endif  // TL_RUNTIME_DEFINITIONS

// ---- the lowerings (ops/memory.hpp) ----

// out = the elements at ptrs where mask holds, `other` elsewhere.
template <class T, class S, eviction Ev, class EP, class EM, class EO, class Out>
void load(const EP& ptrs, const EM& mask, const EO& other, const source_location& where, Out& out) {
  using Q = typename pointee<value_of_t<EP>>::type;  // T, or const T
  access_checker<Q> checker{access_kind::load, where};
  checker.template start<S>(ptrs);
  // Through a pointer to const: noted only where another argument can write the memory.
  [[maybe_unused]] program_state* const ps = std::is_const_v<Q> ? current_program : nullptr;
  [[maybe_unused]] const bool aliased = ps && ps->launch && ps->launch->detect_races && !ps->launch->aliased.empty();
  for (std::int64_t i = 0; i < S::size; ++i) {
    const coord<S::rank> c = unravel<S>(i);
    const auto p = ptrs.at(c);
    const bool masked = mask.at(broadcast_coord<shape_of_t<EM>>(c));
    const bool valid = masked && checker.template check<S>(p, c);
    checker.observe(p, masked, valid);
    if (valid) {
      out.v[i] = *p.get();
      // A non-const pointer's buffer may be stored by the launch too: a load/store race.
      if constexpr (!std::is_const_v<Q>) note_load(p.get(), p.offset, p.name, where);
      else if (aliased) note_aliased_load_at(ps, p.get(), int(sizeof(Q)), p.offset, p.name, where);
    } else {
      out.v[i] = convert<T>(other.at(broadcast_coord<shape_of_t<EO>>(c)));
    }
  }
  checker.finish();
}

// value written at ptrs where mask holds.
template <class Q, class S, eviction Ev, class EP, class EV, class EM>
void store(const EP& ptrs, const EV& value, const EM& mask, const source_location& where) {
  access_checker<Q> checker{access_kind::store, where};
  checker.template start<S>(ptrs);
  for (std::int64_t i = 0; i < S::size; ++i) {
    const coord<S::rank> c = unravel<S>(i);
    const bool masked = mask.at(broadcast_coord<shape_of_t<EM>>(c));
    if (!masked && !checker.tracing()) continue;
    const auto p = ptrs.at(c);
    const bool valid = masked && checker.template check<S>(p, c);
    checker.observe(p, masked, valid);
    if (valid) {
      *p.get() = convert<Q>(value.at(broadcast_coord<shape_of_t<EV>>(c)));
      note_store(p.get(), p.offset, p.name, where);
    }
  }
  if (program_state* ps = current_program) {
    ps->note_store_op(checker.masked_in);
    if (checker.masked_in) ps->note_write();
  }
  checker.finish();
}

// The CUDA backend may read a loaded block again from memory where it is used (a dot's
// operand; an update that the load is written in, load_in_order below); a store between the
// load and that use would make the two backends differ. Here the elements of the load are
// compared with what memory holds now, and a difference fails the launch with `message`.
template <class X>
void check_load_unchanged(const X& x, const char* message) {
  if constexpr (is_loaded_v<X>) {
    if (!x.fresh) return;
    using S = shape_of_t<X>;
    using T = value_of_t<X>;
    std::int64_t changed = 0;
    for (std::int64_t i = 0; i < S::size; ++i) {
      const coord<S::rank> c = unravel<S>(i);
      if (!convert<bool>(x.mask.at(broadcast_coord<shape_of_t<typename X::mask_type>>(c)))) continue;
      const auto p = x.ptrs.at(c);
      if (!p.in_bounds()) continue;  // reported by the load
      if (std::memcmp(p.get(), &x.v[i], sizeof(T)) != 0) ++changed;
    }
    if (changed > 0) {
      assert_failure f;
      f.where = x.where;
      f.message = message;
      f.failing_lanes = changed;
      report_assert_failure(std::move(f));
    }
  }
}

// An update of block B by a load written in it (acc += tl::load(...), expr/block.hpp): every
// block is row-major here, so the load's elements are used as they are. A load passed with
// std::move after a store to its memory is reported, as the CUDA backend would read the store.
template <class B, class X>
struct load_in_order {
  static constexpr bool value = false;
  static void consumed(const X& x) {
    if constexpr (shape_of_t<X>::rank >= 2)
      check_load_unchanged(x, "memory this load read was stored to before the update it was moved into "
                              "(the CUDA backend may read the load again there: keep stores after it)");
  }
  static X load(const X& x) { return x; }
};

}  // namespace tl::detail::cpu
