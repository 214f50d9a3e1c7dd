// tl/ops/debug.hpp: device_print, print_if (program-id conditions), device_assert.
//
//   tl::device_print("x", x);          "pid (0, 1, 0) x [0.5, 0.25]" (the whole block)
//   tl::print_if("=0,>1", "x", x);     only in programs with pid0 == 0 and pid1 > 1
//   tl::device_assert(x >= 0, "x must be non-negative");
#pragma once

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include "../backend/cpu/program.hpp"
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
// part means any. Operators: = == != < <= > >=.
inline bool pid_condition_holds(const char* conds, const int pid[3]) {
  int axis = 0;
  const char* s = conds;
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
    if (n == 0) throw usage_error(std::string("tl::print_if: bad condition '") + conds +
                                  "': each part is an operator (= != < <= > >=) and a number, e.g. \"=0,>1\"");
    char* end = nullptr;
    const long v = std::strtol(s, &end, 10);
    if (end == s) throw usage_error(std::string("tl::print_if: bad condition '") + conds + "': number expected");
    s = end;
    const int p = pid[axis];
    const std::string o(op);
    bool ok;
    if (o == "=" || o == "==") ok = p == v;
    else if (o == "!=") ok = p != v;
    else if (o == "<") ok = p < v;
    else if (o == "<=") ok = p <= v;
    else if (o == ">") ok = p > v;
    else if (o == ">=") ok = p >= v;
    else throw usage_error(std::string("tl::print_if: bad operator in '") + conds + "'");
    if (!ok) return false;
    while (*s == ' ') ++s;
  }
  return true;
}

}  // namespace detail

// Prints its arguments with the program id in front (Triton: tl.device_print). Output of
// one call is never interleaved with another's.
template <class... A>
void device_print(const A&... args) {
  std::ostringstream o;
  o << "pid (" << program_id(0) << ", " << program_id(1) << ", " << program_id(2) << ")";
  ((o << ' ', detail::print_arg(o, args)), ...);
  o << '\n';
  std::lock_guard<std::mutex> lock(detail::cpu::print_mutex());
  std::cout << o.str() << std::flush;
}

// device_print only in the programs whose ids satisfy `conds` (see pid_condition_holds).
template <class... A>
void print_if(const char* conds, const A&... args) {
  const int pid[3] = {program_id(0), program_id(1), program_id(2)};
  if (detail::pid_condition_holds(conds, pid)) device_print(args...);
}

// Fails the launch, naming the program and line, if any lane of `cond` is false.
template <class C>
  requires detail::is_operand_v<C>
void device_assert(const C& cond, const char* message = "", source_location where = source_location::current()) {
  const auto e = detail::as_expr(cond);
  using S = detail::shape_of_t<decltype(e)>;
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
}

}  // namespace tl
