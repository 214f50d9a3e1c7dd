// tl/core/pid_condition.hpp: the program-id conditions of print_if and breakpoint_if.
#pragma once

#include "../config.hpp"

namespace tl::detail {

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

}  // namespace tl::detail
