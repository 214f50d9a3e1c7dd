// tl/backend/cpu/debug.hpp: device_print, print_if, breakpoint_if and device_assert on the CPU
// backend (ops/debug.hpp). A print is one line, written whole (programs on other host threads
// never interleave with it), numpy-style; a failed assertion is recorded in the launch's report
// with the program and the line; a breakpoint calls tl_breakpoint, which a debugger stops in.
#pragma once

#include <cstdio>
#include <string>

#include "../../core/pid_condition.hpp"
#include "../../core/ptr.hpp"
#include "../../expr/block.hpp"
#include "program.hpp"

namespace tl {

// What a breakpoint_if that fired passes to the hook (CPU backend).
struct breakpoint_info {
  int program[3] = {0, 0, 0};
  const char* condition = "";
  source_location where;
};

namespace detail::cpu {
inline long& breakpoint_counter() {
  static long n = 0;
  return n;
}
}  // namespace detail::cpu

// How many times a breakpoint_if fired in this process (CPU backend).
inline long breakpoint_stops() { return detail::cpu::atomic_load(detail::cpu::breakpoint_counter()); }

}  // namespace tl

// The hook a debugger stops in (CPU backend): `gdb -ex 'break tl_breakpoint' --args ./program`;
// `print *info` says which program and line, and `frame 2` is the kernel, with its blocks in
// scope (`print x`; frame 1 is breakpoint_if). Not inlined, and kept: its asm tells the compiler it has an effect.
extern "C" [[gnu::noinline]] inline void tl_breakpoint(const tl::breakpoint_info* info) {
  tl::detail::cpu::atomic_fetch_add(tl::detail::cpu::breakpoint_counter(), 1L);
  asm volatile("" ::"r"(info) : "memory");
}

namespace tl::detail::cpu {

template <class T>
void print_value(text& o, const T& v) {
  if constexpr (is_bool_v<T>) o << (v ? "true" : "false");
  else if constexpr (is_ptr_v<T>) o << (v.name ? v.name : "ptr") << '+' << v.offset;
  else if constexpr (is_small_float_v<T>) o << static_cast<float>(v);
  else if constexpr (sizeof(T) == 1) o << static_cast<int>(v);
  else o << v;
}

// numpy-style nested brackets, row-major.
template <class E>
void print_block(text& o, const E& e) {
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
void print_arg(text& o, const A& a) {
  if constexpr (is_expr_v<A>) print_block(o, a);
  else if constexpr (std::is_convertible_v<const A&, const char*> || std::is_same_v<A, std::string>) o << a;
  else print_value(o, canonical_t<A>(a));
}

// "pid (0, 1, 0) x [0.5, 0.25]": the program id, then each argument (blocks whole).
template <class... A>
void print(const A&... args) {
  text o;
  o << "pid (" << program_id(0) << ", " << program_id(1) << ", " << program_id(2) << ")";
  ((o << ' ', print_arg(o, args)), ...);
  o << '\n';
  host_lock lock(print_mutex());
  std::fwrite(o.str().data(), 1, o.str().size(), stdout);
  std::fflush(stdout);
}

// Does program `pid` satisfy `conds` (core/pid_condition.hpp)? A malformed condition is a
// tl::usage_error.
TL_RUNTIME_FN bool pid_condition_holds(const char* conds, const int pid[3], const char* who = "tl::print_if");

// Does the running program satisfy `conds`?
inline bool program_selected(const char* conds, const char* who) {
  const int pid[3] = {program_id(0), program_id(1), program_id(2)};
  return pid_condition_holds(conds, pid, who);
}

// tl::breakpoint_if (ops/debug.hpp) is this function: the kernel is the frame above it.
inline void breakpoint_if(const char* conds, source_location where = source_location::current()) {
  if (!program_selected(conds, "tl::breakpoint_if")) return;
  const breakpoint_info info{{program_id(0), program_id(1), program_id(2)}, conds, where};
  tl_breakpoint(&info);
}

// The compiler hints Triton takes on trust (ops/elementwise.hpp), checked against the data
// along one axis (the last unless told), as Triton's axis information reads them:
// multiple_of(x, n), each run of consecutive (or equal) values starts at a multiple of n;
// max_contiguous(x, n), each group of n values is consecutive; max_constancy(x, n), each group
// of n is one value. A contradicted hint is a note in the launch's report, naming the first
// element.
enum class hint_kind { multiple_of, max_contiguous, max_constancy };

template <hint_kind K, class E>
void check_hint(const E& e, int n, int axis, source_location where) {
  using S = shape_of_t<E>;
  using T = value_of_t<E>;
  if (n <= 0) return;
  if (axis < 0) axis += S::rank;
  const std::int64_t dim = S::rank > 0 ? S::dim(axis) : 1;
  std::int64_t inner = 1;  // the flat index's step along the axis
  for (int d = axis + 1; d < S::rank; ++d) inner *= S::dim(d);
  std::int64_t step = 1;
  if constexpr (is_ptr_v<T>) step = std::int64_t(sizeof(typename pointee<T>::type));
  auto value = [&](std::int64_t i) -> std::int64_t {
    const T v = e.at(unravel<S>(i));
    if constexpr (is_ptr_v<T>) return std::int64_t(reinterpret_cast<std::uintptr_t>(v.get()));
    else return static_cast<std::int64_t>(v);
  };
  for (std::int64_t i = 0; i < S::size; ++i) {
    const std::int64_t k = (i / inner) % dim;  // the position along the axis
    const std::int64_t v = value(i), before = k > 0 ? value(i - inner) : 0;
    bool ok = true;
    if constexpr (K == hint_kind::multiple_of) ok = v % n == 0 || (k > 0 && (v == before + step || v == before));
    else if constexpr (K == hint_kind::max_contiguous) ok = k % n == 0 || v == before + step;
    else ok = k % n == 0 || v == before;
    if (ok) continue;
    text msg;
    msg << (K == hint_kind::multiple_of ? "tl::multiple_of" : K == hint_kind::max_contiguous ? "tl::max_contiguous" : "tl::max_constancy")
        << "(x, " << n << ")";
    if (S::rank > 1) msg << " along axis " << axis;
    msg << " is contradicted by the data: element " << i << " is " << v;
    if constexpr (K == hint_kind::multiple_of) msg << ", which starts a run and is not a multiple of " << n;
    else msg << " after " << before << (K == hint_kind::max_contiguous ? " (not the next value)" : " (not the same value)");
    assert_failure f;
    f.where = where;
    f.message = msg.str();
    f.failing_lanes = 1;
    report_contradicted_hint(std::move(f));
    return;
  }
}

// device_assert: the launch fails, naming the program and the line, if any lane is false.
template <class E>
void device_assert(const E& e, const char* message, source_location where) {
  using S = shape_of_t<E>;
  std::int64_t failing = 0;
  for (std::int64_t i = 0; i < S::size; ++i)
    if (!convert<bool>(e.at(unravel<S>(i)))) ++failing;
  if (failing) {
    assert_failure f;
    f.where = where;
    f.message = message;
    f.failing_lanes = failing;
    report_assert_failure(std::move(f));
  }
}

// A program is one host thread: its threads have nothing to wait for.
inline void debug_barrier() {}

#if TL_RUNTIME_DEFINITIONS
TL_RUNTIME_FN bool pid_condition_holds(const char* conds, const int pid[3], const char* who) {
  const int r = pid_condition(conds, pid);
  if (r == -1)
    throw usage_error(std::string(who) + ": bad condition '" + conds +
                      "': each part is an operator (= != < <= > >=) and a number, e.g. \"=0,>1\"");
  if (r == -2) throw usage_error(std::string(who) + ": bad condition '" + conds + "': number expected");
  if (r == -3) throw usage_error(std::string(who) + ": bad operator in '" + conds + "'");
  return r == 1;
}
#endif  // TL_RUNTIME_DEFINITIONS

}  // namespace tl::detail::cpu
