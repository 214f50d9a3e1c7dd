// tl/ops/debug.hpp: device_print, print_if and breakpoint_if (program-id conditions),
// device_assert.
//
//   tl::device_print("x", x);          "pid (0, 1, 0) x [0.5, 0.25]" (the whole block)
//   tl::print_if("=0,>1", "x", x);     only in programs with pid0 == 0 and pid1 > 1
//   tl::breakpoint_if("=2");           CPU: stops in gdb (`break tl_breakpoint`) in program 2
//   tl::device_assert(x >= 0, "x must be non-negative");
#pragma once

#include <atomic>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include "../backend/cpu/program.hpp"
#include "../backend/cuda/device_report.hpp"
#include "../expr/block.hpp"
#include "program.hpp"

namespace tl {
namespace detail {

template <class T>
void print_value(std::ostream& o, const T& v) {
  if constexpr (is_bool_v<T>) o << (v ? "true" : "false");
  else if constexpr (is_ptr_v<T>) o << (v.name ? v.name : "ptr") << '+' << v.offset;
  else if constexpr (std::is_same_v<T, fp16> || std::is_same_v<T, bf16>) o << static_cast<float>(v);
  else if constexpr (sizeof(T) == 1) o << static_cast<int>(v);
  else o << v;
}

// numpy-style nested brackets, row-major.
template <class E>
void print_block(std::ostream& o, const E& e) {
  using S = shape_of_t<E>;
  if constexpr (S::rank == 0) {
    print_value(o, e.at(coord<0>{}));
  } else {
    for (std::int64_t i = 0; i < S::size; ++i) {
      const coord<S::rank> c = unravel<S>(i);
      int opened = 0;
      for (int a = S::rank - 1; a >= 0 && c[a] == 0; --a) ++opened;
      if (i > 0) o << (opened ? "" : ", ");
      if (i > 0 && opened) o << ",\n" << std::string(S::rank - opened, ' ');
      for (int k = 0; k < opened; ++k) o << '[';
      print_value(o, e.at(c));
      int closed = 0;
      for (int a = S::rank - 1; a >= 0 && c[a] == S::dim(a) - 1; --a) ++closed;
      for (int k = 0; k < closed; ++k) o << ']';
    }
  }
}

template <class A>
void print_arg(std::ostream& o, const A& a) {
  if constexpr (is_expr_v<A>) print_block(o, a);
  else if constexpr (std::is_convertible_v<const A&, const char*> || std::is_same_v<A, std::string>) o << a;
  else print_value(o, a);
}

// A program-id condition such as "=0,>1" (axis 0 equals 0 and axis 1 above 1); an empty
// part means any. Operators: = == != < <= > >=. Returns 1 (holds), 0 (does not), or a
// negative parse error: -1 no operator, -2 no number, -3 unknown operator.
TL_HD inline int pid_condition(const char* conds, const int pid[3]) {
  int axis = 0;
  const char* s = conds;
  bool all = true;
  while (*s && axis < 3) {
    while (*s == ' ') ++s;
    if (*s == ',') {
      ++axis;
      ++s;
      continue;
    }
    char op[3] = {0, 0, 0};
    int n = 0;
    while ((*s == '<' || *s == '>' || *s == '=' || *s == '!') && n < 2) op[n++] = *s++;
    if (n == 0) return -1;
    while (*s == ' ') ++s;
    const bool negative = *s == '-';
    if (negative || *s == '+') ++s;
    if (*s < '0' || *s > '9') return -2;
    long v = 0;
    while (*s >= '0' && *s <= '9') v = v * 10 + (*s++ - '0');
    if (negative) v = -v;
    const int p = pid[axis];
    bool ok;
    if (op[0] == '=' && (op[1] == 0 || op[1] == '=')) ok = p == v;
    else if (op[0] == '!' && op[1] == '=') ok = p != v;
    else if (op[0] == '<' && op[1] == 0) ok = p < v;
    else if (op[0] == '<' && op[1] == '=') ok = p <= v;
    else if (op[0] == '>' && op[1] == 0) ok = p > v;
    else if (op[0] == '>' && op[1] == '=') ok = p >= v;
    else return -3;
    all = all && ok;
    while (*s == ' ') ++s;
  }
  return all ? 1 : 0;
}

// Host: the same, with a parse error thrown as tl::usage_error.
inline bool pid_condition_holds(const char* conds, const int pid[3], const char* who = "tl::print_if") {
  const int r = pid_condition(conds, pid);
  if (r == -1)
    throw usage_error(std::string(who) + ": bad condition '" + conds +
                      "': each part is an operator (= != < <= > >=) and a number, e.g. \"=0,>1\"");
  if (r == -2) throw usage_error(std::string(who) + ": bad condition '" + conds + "': number expected");
  if (r == -3) throw usage_error(std::string(who) + ": bad operator in '" + conds + "'");
  return r == 1;
}

#if TL_DEVICE_PASS
// Device printing: one thread prints a block it reads from shared memory.
template <class T>
__device__ void device_print_value(const T& v) {
  if constexpr (is_bool_v<T>) printf("%s", v ? "true" : "false");
  else if constexpr (is_ptr_v<T>) printf("ptr+%lld", (long long)v.offset);
  else if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, fp16> || std::is_same_v<T, bf16>)
    printf("%g", double(static_cast<compute_t<T>>(v)));
  else if constexpr (std::is_signed_v<T>) printf("%lld", (long long)v);
  else printf("%llu", (unsigned long long)v);
}

template <class A>
__device__ void device_print_arg(const A& a) {
  if constexpr (is_expr_v<A>) {
    using S = shape_of_t<A>;
    using T = value_of_t<A>;
    const block_t<T, S> x(a);
    T* rows = reinterpret_cast<T*>(cuda::scratch<cuda::scratch_size(cuda::smem_bytes<T>(S::size))>());
    cuda::barrier();
    cuda::write_rows(x, rows);
    cuda::barrier();
    if (cuda::thread_id() == 0) {
      printf(" ");
      if constexpr (S::rank == 0) {
        device_print_value(rows[0]);
      } else {
        for (std::int64_t i = 0; i < S::size; ++i) {
          const coord<S::rank> c = unravel<S>(i);
          int opened = 0, closed = 0;
          for (int ax = S::rank - 1; ax >= 0 && c[ax] == 0; --ax) ++opened;
          for (int ax = S::rank - 1; ax >= 0 && c[ax] == S::dim(ax) - 1; --ax) ++closed;
          if (i > 0) printf(opened ? ",\n%*s" : ", ", opened ? S::rank - opened : 0, "");
          for (int k = 0; k < opened; ++k) printf("[");
          device_print_value(rows[i]);
          for (int k = 0; k < closed; ++k) printf("]");
        }
      }
    }
  } else if constexpr (std::is_convertible_v<const A&, const char*>) {
    if (cuda::thread_id() == 0) printf(" %s", static_cast<const char*>(a));
  } else {
    if (cuda::thread_id() == 0) {
      printf(" ");
      device_print_value(canonical_t<A>(a));
    }
  }
}
#endif

}  // namespace detail

// Prints its arguments with the program id in front (Triton: tl.device_print). Output of
// one call is never interleaved with another's.
template <class... A>
TL_HD void device_print(const A&... args) {
#if TL_DEVICE_PASS
  if (detail::cuda::thread_id() == 0) printf("pid (%d, %d, %d)", program_id(0), program_id(1), program_id(2));
  (detail::device_print_arg(args), ...);
  if (detail::cuda::thread_id() == 0) printf("\n");
#else
  std::ostringstream o;
  o << "pid (" << program_id(0) << ", " << program_id(1) << ", " << program_id(2) << ")";
  ((o << ' ', detail::print_arg(o, args)), ...);
  o << '\n';
  std::lock_guard<std::mutex> lock(detail::cpu::print_mutex());
  std::cout << o.str() << std::flush;
#endif
}

// device_print only in the programs whose ids satisfy `conds` (see pid_condition).
template <class... A>
TL_HD void print_if(const char* conds, const A&... args) {
  const int pid[3] = {program_id(0), program_id(1), program_id(2)};
#if TL_DEVICE_PASS
  const int r = detail::pid_condition(conds, pid);
  if (r < 0 && pid[0] == 0 && pid[1] == 0 && pid[2] == 0 && detail::cuda::thread_id() == 0)
    printf("tl::print_if: bad condition '%s' (parts are an operator = != < <= > >= and a number)\n", conds);
  if (r == 1) device_print(args...);
#else
  if (detail::pid_condition_holds(conds, pid)) device_print(args...);
#endif
}

// What a breakpoint_if that fired passes to the hook (CPU backend).
struct breakpoint_info {
  int program[3] = {0, 0, 0};
  const char* condition = "";
  source_location where;
};

namespace detail {
inline std::atomic<long>& breakpoint_counter() {
  static std::atomic<long> n{0};
  return n;
}
}  // namespace detail

// How many times a breakpoint_if fired in this process (CPU backend).
inline long breakpoint_stops() { return detail::breakpoint_counter().load(); }

}  // namespace tl

// The hook a debugger stops in (CPU backend): `gdb -ex 'break tl_breakpoint' --args ./program`;
// `print *info` says which program and line, and `frame 2` is the kernel, with its blocks in
// scope (`print x`; frame 1 is breakpoint_if). Not inlined, and kept: its asm tells the compiler it has an effect.
extern "C" [[gnu::noinline]] inline void tl_breakpoint(const tl::breakpoint_info* info) {
  tl::detail::breakpoint_counter().fetch_add(1, std::memory_order_relaxed);
  asm volatile("" ::"r"(info) : "memory");
}

namespace tl {

// Calls tl_breakpoint in the programs whose ids satisfy `conds` (as print_if's: "=2", "=0,>1"),
// so that a debugger stops there and only there (Triton users put `breakpoint()` under an `if`
// on tl.program_id in the interpreter). On the CUDA backend it does nothing: cuda-gdb breaks on
// the kernel's source lines itself (`break file.hpp:LINE if blockIdx.x == 2`).
TL_HD inline void breakpoint_if(const char* conds, source_location where = source_location::current()) {
#if TL_DEVICE_PASS
  (void)conds;
  (void)where;
#else
  const int pid[3] = {program_id(0), program_id(1), program_id(2)};
  if (!detail::pid_condition_holds(conds, pid, "tl::breakpoint_if")) return;
  const breakpoint_info info{{pid[0], pid[1], pid[2]}, conds, where};
  tl_breakpoint(&info);
#endif
}

// Fails the launch, naming the program and line, if any lane of `cond` is false. On the
// CUDA backend only with TL_DEVICE_CHECKS=1 (as Triton checks only in debug mode).
template <class C>
  requires detail::is_operand_v<C>
TL_HD void device_assert(C cond, const char* message = "", source_location where = source_location::current()) {
  const auto e = detail::as_expr(cond);
  using S = detail::shape_of_t<decltype(e)>;
#if TL_DEVICE_PASS
  if constexpr (TL_DEVICE_CHECKS) {
    using L = detail::cuda::layout<S>;
    const detail::block_t<bool, S> ok(detail::cast<bool, std::remove_const_t<decltype(e)>>{{}, e});
    unsigned long long failing = 0;
    const int t = detail::cuda::thread_id();
    if (!L::replicated || t == 0) {
      TL_UNROLL
      for (int i = 0; i < L::slots; ++i)
        if (L::valid(t, i) && !ok.v[i]) ++failing;
    }
    detail::cuda::report_assert(failing, message, where);
  } else {
    (void)e;
    (void)message;
    (void)where;
  }
#else
  std::int64_t failing = 0;
  for (std::int64_t i = 0; i < S::size; ++i)
    if (!detail::convert<bool>(e.at(detail::unravel<S>(i)))) ++failing;
  if (failing) {
    assert_failure f;
    f.where = where;
    f.message = message;
    f.failing_lanes = failing;
    detail::cpu::report_assert_failure(std::move(f));
  }
#endif
}

}  // namespace tl
