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

struct device_report {
  static constexpr int max_records = 64;
  static constexpr int max_lanes = 32;
  unsigned long long invalid_ops;
  unsigned long long invalid_lanes;
  unsigned int asserts;
  access_record access[max_records];
  assert_record failed[max_records];
};

#if defined(__CUDACC__)
// The launch's report (set by the kernel entry, thread 0, before the program starts) and the
// index of the record a program's threads fill together (chosen by thread 0). One static array
// of 256 bytes: every static shared array of tl is a whole number of 256 bytes but the dots'
// arena markers (pipeline.hpp: arena_of_static_bytes).
struct report_slots {
  device_report* report;
  int record;
  char pad[256 - sizeof(device_report*) - sizeof(int)];
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
    if (!__syncthreads_or(invalid > 0)) return;
    device_report* rep = report_slot();
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
