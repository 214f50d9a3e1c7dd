// tl/backend/cuda/device_report.hpp: what the GPU's debug checks found, in global memory.
//
// With TL_DEVICE_CHECKS=1, every load and store checks its masked-in lanes against the
// buffer their pointer was made from. An invalid lane is not accessed (a load gives `other`
// there, as on the CPU); the op is written here: one record per op of a program, filled by
// all its threads together. device_assert records the same way. After the kernel the
// launch copies this back and turns it into the CPU backend's launch_report.
#pragma once

#include <cstdint>

#include "../../config.hpp"
#include "../../core/memory_order.hpp"
#include "../../core/report.hpp"
#include "layout.hpp"

namespace tl::detail::cuda {

struct lane_record {
  long long flat;    // position in the block, row-major (for ordering)
  long long offset;  // element offset from the buffer's start
};

struct access_record {
  int program[3];
  int op;  // access_kind
  int line;
  char file[120];
  const void* base;  // the buffer (the launch maps it back to the argument's name)
  long long extent;  // its size in elements, -1 unknown
  int null_pointer;
  int rank;
  int dims[4];
  unsigned long long lanes;          // masked-in lanes of the op
  unsigned long long invalid_lanes;  // of which invalid
  unsigned int candidates;           // lanes offered to `first` (kept: up to max_lanes)
  lane_record first[32];
};

struct assert_record {
  int program[3];
  int line;
  char file[120];
  char message[120];
  unsigned long long failing_lanes;
};

// Race detection on the GPU (with TL_DEVICE_CHECKS=1 and launch_options::detect_races): a hash
// table in device memory, keyed by the element's address and size, as the CPU backend keys its
// records (backend/cpu/program.hpp); an entry holds the program (linear id + 1) that stored
// the element first and the one that loaded it (-1: several). The launch sizes it from the
// buffers the kernel may write and clears it; an access that finds no room in 64 probes is
// counted as not checked.
struct race_entry {
  unsigned long long key;  // (address << 3 | log2 of the element size) + 1; 0: free
  int owner, reader;
};
struct race_record {
  int kind;  // race_kind
  int program[3];
  long long first;  // the other program's linear id + 1; -1: several programs loaded it
  int line;
  char file[120];
  const void* base;  // the buffer (the launch maps it back to the argument's name)
  long long offset;  // the element, from the buffer's start
};

// A program stopped in a wait that could not end (note_spin).
struct hang_record {
  int program[3];
  int op;  // atomic_op, or atomic_poll_number
  int line;
  char file[120];
  const void* base;  // the buffer of a lane it spun on
  long long offset;
  unsigned long long spins;  // atomics in a row with the same results
  unsigned long long ns;     // how long, by the global timer
};

struct device_report {
  static constexpr int max_records = 64;
  static constexpr int max_lanes = 32;
  unsigned long long invalid_ops;
  unsigned long long invalid_lanes;
  unsigned int asserts;
  access_record access[max_records];
  assert_record failed[max_records];
  race_entry* race_table;              // set by the launch; null: races are not tracked
  unsigned long long race_slots;       // entries, a power of two
  unsigned long long races;            // conflicts found
  unsigned long long race_unchecked;   // element notes the table had no room for
  race_record race[max_records];
  unsigned long long wait_ns;  // set by the launch: launch_options::hang_timeout_ms (0: never)
  unsigned long long writes;   // stores and atomics that wrote, by all programs (note_spin)
  unsigned int hangs;          // programs stopped in a wait
  hang_record hang[max_records];
};

#if defined(__CUDACC__)
// The launch's report (set by the kernel entry, thread 0, before the program starts) and the
// index of the record a program's threads fill together (chosen by thread 0). One static array
// of 256 bytes: every static shared array of tl is a whole number of 256 bytes but the dots'
// arena markers (pipeline.hpp: arena_of_static_bytes).
struct report_slots {
  device_report* report;
  int record;
  int stop, flags;  // note_spin: the program is stopped; a thread stored (1), a poll gave up (2)
  // note_spin: the threads' hashes of their last atomic summed, the last sum, the atomics in a
  // row with the same sum, since when (the global timer), and a lane's buffer and element.
  unsigned long long key_sum, key, spins, since, writes_seen;
  const void* site_base;
  long long site_offset;
  char pad[256 - 2 * sizeof(void*) - 4 * sizeof(int) - 6 * sizeof(long long)];
};
template <int = 0>
__device__ __forceinline__ report_slots& program_report_slots() {
  __shared__ alignas(16) report_slots slots;
  return slots;
}
__device__ __forceinline__ device_report*& report_slot() { return program_report_slots().report; }
__device__ __forceinline__ int& record_slot() { return program_report_slots().record; }

__device__ __forceinline__ void copy_text(char* dst, const char* src, int cap) {
  int i = 0;
  if (src)
    for (; i < cap - 1 && src[i]; ++i) dst[i] = src[i];
  dst[i] = 0;
}

// One load or store, as seen by one thread: which of its slots were masked in and invalid.
// finish() is called by all threads of the program (it has barriers).
template <class S, order O>
struct access_tracker {
  using L = layout<S, O>;
  bool bad[L::slots] = {};
  long long offset[L::slots] = {};
  unsigned long long masked = 0, invalid = 0;
  const void* base = nullptr;
  long long extent = -1;

  template <class P>
  __device__ __forceinline__ bool admit(int i, const P& p) {  // p is masked in: may it be accessed?
    ++masked;
    if (p.in_bounds()) return true;
    bad[i] = true;
    offset[i] = p.offset;
    if (!invalid) {
      base = p.base;
      extent = p.extent;
    }
    ++invalid;
    return false;
  }

  __device__ void finish(access_kind kind, const source_location& where) {
    const int t = thread_id();
    if constexpr (L::replicated) {  // every thread did the same: count thread 0's lanes only
      if (t != 0) masked = invalid = 0;
    }
    device_report* rep = report_slot();
    if (kind == access_kind::store && t == 0) atomicAdd(&rep->writes, 1ULL);  // progress, for note_spin
    if (!__syncthreads_or(invalid > 0)) return;
    if (t == 0) {
      const unsigned long long k = atomicAdd(&rep->invalid_ops, 1ULL);
      record_slot() = int(k);
      if (k < device_report::max_records) {
        access_record& r = rep->access[k];
        r.program[0] = int(blockIdx.x);
        r.program[1] = int(blockIdx.y);
        r.program[2] = int(blockIdx.z);
        r.op = int(kind);
        r.line = where.line;
        copy_text(r.file, where.file, sizeof(r.file));
        r.rank = S::rank;
        for (int a = 0; a < 4; ++a) r.dims[a] = a < S::rank ? S::dim(a) : 1;
        r.base = nullptr;
        r.extent = -1;
        r.null_pointer = 0;
        r.lanes = r.invalid_lanes = 0;
        r.candidates = 0;
      }
    }
    __syncthreads();
    const int k = record_slot();
    if (invalid) atomicAdd(&rep->invalid_lanes, invalid);
    if (k >= device_report::max_records) return;
    access_record& r = rep->access[k];
    atomicAdd(&r.lanes, masked);
    if (!invalid) return;
    atomicAdd(&r.invalid_lanes, invalid);
    r.base = base;  // every invalid thread writes the same buffer, in practice
    r.extent = extent;
    r.null_pointer = base == nullptr;
    TL_UNROLL
    for (int i = 0; i < L::slots; ++i) {
      if (!bad[i]) continue;
      const unsigned c = atomicAdd(&r.candidates, 1u);
      if (c < device_report::max_lanes) r.first[c] = lane_record{L::flat(t, i), offset[i]};
    }
  }
};

// ---- races between programs ----

__device__ __forceinline__ long long program_linear_id() {
  return (long long)blockIdx.x + (long long)gridDim.x * ((long long)blockIdx.y + (long long)gridDim.y * blockIdx.z);
}

// The entry of the element at `address` (`size` bytes), taken if free; null where races are
// not tracked or the table has no room.
__device__ inline race_entry* race_entry_of(device_report* rep, const void* address, int size) {
  race_entry* table = rep->race_table;
  if (!table) return nullptr;
  const unsigned long long key =
      ((reinterpret_cast<unsigned long long>(address) << 3) | unsigned(size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3)) + 1;
  const unsigned long long mask = rep->race_slots - 1;
  unsigned long long h = (key * 0x9E3779B97F4A7C15ULL) >> 20;
  for (int probe = 0; probe < 64; ++probe, ++h) {
    race_entry& e = table[h & mask];
    const unsigned long long k = atomicCAS(&e.key, 0ULL, key);
    if (k == 0 || k == key) return &e;
  }
  atomicAdd(&rep->race_unchecked, 1ULL);
  return nullptr;
}

__device__ inline void record_race(device_report* rep, race_kind kind, long long first, const void* base,
                                   long long offset, const source_location& where) {
  const unsigned long long k = atomicAdd(&rep->races, 1ULL);
  if (k >= device_report::max_records) return;
  race_record& r = rep->race[k];
  r.kind = int(kind);
  r.program[0] = int(blockIdx.x);
  r.program[1] = int(blockIdx.y);
  r.program[2] = int(blockIdx.z);
  r.first = first;
  r.line = where.line;
  copy_text(r.file, where.file, sizeof(r.file));
  r.base = base;
  r.offset = offset;
}

// A store of the element at `element` (offset `offset` of the buffer at `base`): records the
// first program to store it, and reports a second one, or another program that loaded it.
// (Each program's thread updates its own field, then reads the other after a fence, so of two
// conflicting accesses at least one sees the other, whichever comes first.)
__device__ __forceinline__ void note_store(const void* element, int size, const void* base, long long offset,
                                           const source_location& where) {
  device_report* rep = report_slot();
  race_entry* e = race_entry_of(rep, element, size);
  if (!e) return;
  const int me = int(program_linear_id() + 1);
  const int first = atomicCAS(&e->owner, 0, me);
  if (first != 0 && first != me) {
    record_race(rep, race_kind::store_store, first, base, offset, where);
    return;
  }
  __threadfence();
  const int reader = atomicAdd(&e->reader, 0);
  if (reader != 0 && reader != me) record_race(rep, race_kind::store_after_load, reader, base, offset, where);
}
// A load through a non-const pointer (a buffer the launch may store): records the program, and
// reports the element if another program stores it.
__device__ __forceinline__ void note_load(const void* element, int size, const void* base, long long offset,
                                          const source_location& where) {
  device_report* rep = report_slot();
  race_entry* e = race_entry_of(rep, element, size);
  if (!e) return;
  const int me = int(program_linear_id() + 1);
  const int seen = atomicCAS(&e->reader, 0, me);
  if (seen != 0 && seen != me && seen != -1) atomicExch(&e->reader, -1);
  __threadfence();
  const int owner = atomicAdd(&e->owner, 0);
  if (owner != 0 && owner != me) record_race(rep, race_kind::load_after_store, owner, base, offset, where);
}
// The elements of one access noted, `n` slots, each null or at `base[i]` + `offset[i]` elements
// of `Size` bytes: one call out of line per access (a call per element, inlined or not,
// multiplied a checked kernel's code and its compile time).
template <int Size>
__device__ __noinline__ void note_accesses(access_kind kind, const void* const* base, const long long* offset, int n,
                                           const source_location& where) {
  if (!report_slot()->race_table) return;
  for (int i = 0; i < n; ++i) {
    if (!base[i]) continue;
    const void* element = static_cast<const char*>(base[i]) + offset[i] * Size;
    if (kind == access_kind::store) note_store(element, Size, base[i], offset[i], where);
    else note_load(element, Size, base[i], offset[i], where);
  }
}
// What one thread of an access noted for race detection, by register slot, flushed at the
// access's end.
template <int N>
struct race_notes {
  const void* base[N];
  long long offset[N];
  __device__ __forceinline__ race_notes() {
    TL_UNROLL
    for (int i = 0; i < N; ++i) base[i] = nullptr;
  }
  template <class P>
  __device__ __forceinline__ void add(int slot, const P& p) {
    base[slot] = p.base;
    offset[slot] = p.offset;
  }
  template <class T>
  __device__ __forceinline__ void flush(access_kind kind, const source_location& where) {
    note_accesses<int(sizeof(T))>(kind, base, offset, N, where);
  }
};

// ---- waits that cannot end ----

__device__ __forceinline__ unsigned long long mix_key(unsigned long long h, unsigned long long x) {
  return (h ^ x) * 0x100000001B3ull + (h >> 29);
}
__device__ __forceinline__ unsigned long long global_timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Called by every thread of the program after each atomic of a checked build: `key` hashes the
// thread's lanes (their addresses and old values), `wrote` says it stored (atomic_store), `site`
// a lane's buffer and element (base null: none), `timed_out` that an atomic_poll without a time
// budget gave up after wait_ns. An atomic whose summed keys equal the previous one's, and that
// stored nothing, is a spin; another is a write (device_report::writes, with the stores). After
// spins in a row for wait_ns with no write by any program (1024 in a row once another program
// was stopped: the launch fails anyway), or a poll that gave up, thread 0 records the wait and
// the program ends here.
template <int = 0>  // a template: one definition in every translation unit, kept out of line
__device__ __noinline__ void note_spin(int op, unsigned long long key, bool wrote, const void* base, long long offset,
                                       bool timed_out, const source_location& where) {
  report_slots& s = program_report_slots();
  const int t = thread_id();
  if (key) atomicAdd(&s.key_sum, key);
  if (wrote || timed_out) atomicOr(&s.flags, int(wrote) | int(timed_out) << 1);
  if (base) {
    s.site_base = base;
    s.site_offset = offset;
  }
  __syncthreads();
  if (t == 0) {
    const unsigned long long sum = mix_key(s.key_sum, (unsigned long long)op << 32 | unsigned(where.line));
    const int flags = s.flags;
    s.key_sum = 0;
    s.flags = 0;
    device_report* rep = s.report;
    bool stop = (flags & 2) != 0;
    if ((flags & 1) || sum != s.key) {
      if (op != atomic_poll_number && op != int(atomic_op::load)) atomicAdd(&rep->writes, 1ULL);
      s.key = sum;
      s.spins = 0;
    } else if (++s.spins % 1024 == 0) {
      const unsigned long long now = global_timer_ns();
      const unsigned long long writes = *static_cast<volatile unsigned long long*>(&rep->writes);
      if (s.spins == 1024 || writes != s.writes_seen) {
        s.since = now;
        s.writes_seen = writes;
      }
      const unsigned long long limit = rep->wait_ns;
      const bool others = *static_cast<volatile unsigned*>(&rep->hangs) != 0;
      stop = limit != 0 && (now - s.since >= limit || others);
    }
    if (stop) {
      const unsigned k = atomicAdd(&rep->hangs, 1u);
      if (k < device_report::max_records) {
        hang_record& h = rep->hang[k];
        h.program[0] = int(blockIdx.x);
        h.program[1] = int(blockIdx.y);
        h.program[2] = int(blockIdx.z);
        h.op = op;
        h.line = where.line;
        copy_text(h.file, where.file, sizeof(h.file));
        h.base = s.site_base;
        h.offset = s.site_offset;
        h.spins = s.spins;
        h.ns = s.spins >= 1024 ? global_timer_ns() - s.since : rep->wait_ns;  // a poll: it waited wait_ns
      }
      __threadfence();
    }
    s.stop = stop;
  }
  __syncthreads();
  if (s.stop) asm volatile("exit;");  // every thread of the program: it ends here
}

// device_assert: called by all threads; `failing` is this thread's count of false lanes.
__device__ inline void report_assert(unsigned long long failing, const char* message, const source_location& where) {
  const int t = thread_id();
  if (!__syncthreads_or(failing > 0)) return;
  device_report* rep = report_slot();
  if (t == 0) {
    const unsigned k = atomicAdd(&rep->asserts, 1u);
    record_slot() = int(k);
    if (k < device_report::max_records) {
      assert_record& r = rep->failed[k];
      r.program[0] = int(blockIdx.x);
      r.program[1] = int(blockIdx.y);
      r.program[2] = int(blockIdx.z);
      r.line = where.line;
      copy_text(r.file, where.file, sizeof(r.file));
      copy_text(r.message, message, sizeof(r.message));
      r.failing_lanes = 0;
    }
  }
  __syncthreads();
  const int k = record_slot();
  if (failing && k < device_report::max_records) atomicAdd(&rep->failed[k].failing_lanes, failing);
}
#endif

}  // namespace tl::detail::cuda
