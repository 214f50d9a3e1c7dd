// tl/backend/cuda/debug.hpp: device_print, print_if, breakpoint_if and device_assert on the
// GPU (ops/debug.hpp). A print is made by thread 0 of the program, which reads the whole block
// from shared memory; an assertion is checked only with TL_DEVICE_CHECKS=1 (as Triton checks
// only in debug mode) and recorded in the device report (device_report.hpp), which the launch
// turns into the CPU backend's report; breakpoint_if does nothing (cuda-gdb breaks on the
// kernel's source lines itself).
#pragma once

#include <cstdio>

#include "../../core/pid_condition.hpp"
#include "device_report.hpp"
#include "evaluation.hpp"
#include "program.hpp"

namespace tl::detail::cuda {

#if TL_DEVICE_PASS

template <class T>
__device__ void print_value(const T& v) {
  if constexpr (is_bool_v<T>) printf("%s", v ? "true" : "false");
  else if constexpr (is_ptr_v<T>) printf("ptr+%lld", (long long)v.offset);
  else if constexpr (std::is_floating_point_v<T> || is_small_float_v<T>)
    printf("%g", double(static_cast<compute_t<T>>(v)));
  else if constexpr (std::is_signed_v<T>) printf("%lld", (long long)v);
  else printf("%llu", (unsigned long long)v);
}

template <class A>
__device__ void print_arg(const A& a) {
  if constexpr (is_expr_v<A>) {
    using S = shape_of_t<A>;
    using T = value_of_t<A>;
    const own_block_t<A> x(a);
    T* rows = reinterpret_cast<T*>(scratch<scratch_size(smem_bytes<T>(S::size))>());
    barrier();
    write_rows(x, rows);
    barrier();
    if (thread_id() == 0) {
      printf(" ");
      if constexpr (S::rank == 0) {
        print_value(rows[0]);
      } else {
        for (std::int64_t i = 0; i < S::size; ++i) {
          const coord<S::rank> c = unravel<S>(i);
          int opened = 0, closed = 0;
          for (int ax = S::rank - 1; ax >= 0 && c[ax] == 0; --ax) ++opened;
          for (int ax = S::rank - 1; ax >= 0 && c[ax] == S::dim(ax) - 1; --ax) ++closed;
          if (i > 0) printf(opened ? ",\n%*s" : ", ", opened ? S::rank - opened : 0, "");
          for (int k = 0; k < opened; ++k) printf("[");
          print_value(rows[i]);
          for (int k = 0; k < closed; ++k) printf("]");
        }
      }
    }
  } else if constexpr (std::is_convertible_v<const A&, const char*>) {
    if (thread_id() == 0) printf(" %s", static_cast<const char*>(a));
  } else {
    if (thread_id() == 0) {
      printf(" ");
      print_value(canonical_t<A>(a));
    }
  }
}

// "pid (0, 1, 0) x [0.5, 0.25]": called by every thread of the program (blocks are gathered).
template <class... A>
__device__ void print(const A&... args) {
  settle_dots<A...>();
  if (thread_id() == 0) printf("pid (%d, %d, %d)", program_id(0), program_id(1), program_id(2));
  (print_arg(args), ...);
  if (thread_id() == 0) printf("\n");
}

// Does the running program satisfy `conds` (core/pid_condition.hpp)? A malformed condition is
// said once, by program (0, 0, 0), and selects nothing.
__device__ inline bool program_selected(const char* conds, const char* who) {
  const int pid[3] = {program_id(0), program_id(1), program_id(2)};
  const int r = pid_condition(conds, pid);
  if (r < 0 && pid[0] == 0 && pid[1] == 0 && pid[2] == 0 && thread_id() == 0)
    printf("%s: bad condition '%s' (parts are an operator = != < <= > >= and a number)\n", who, conds);
  return r == 1;
}

__device__ inline void breakpoint_if(const char*, source_location = source_location::current()) {}

__device__ inline void debug_barrier() { barrier(); }

// device_assert: with TL_DEVICE_CHECKS=1, each thread counts its false lanes and the program
// records them together.
// The compiler hints (ops/elementwise.hpp) are the CPU backend's to check; nothing here.
enum class hint_kind { multiple_of, max_contiguous, max_constancy };
template <hint_kind K, class E>
__device__ __forceinline__ void check_hint(const E&, int, int, source_location) {}

template <class E>
__device__ void device_assert(const E& e, const char* message, source_location where) {
  if constexpr (TL_DEVICE_CHECKS) {
    using S = shape_of_t<E>;
    using B = own_block_t<cast<bool, E>>;
    const B ok(cast<bool, E>{{}, e});
    using L = typename B::layout;
    unsigned long long failing = 0;
    const int t = thread_id();
    if (!L::replicated || t == 0) {
      TL_UNROLL
      for (int i = 0; i < L::slots; ++i)
        if (L::valid(t, i) && !ok.v[i]) ++failing;
    }
    report_assert(failing, message, where);
  } else {
    (void)e;
    (void)message;
    (void)where;
  }
}

#endif  // TL_DEVICE_PASS

}  // namespace tl::detail::cuda
