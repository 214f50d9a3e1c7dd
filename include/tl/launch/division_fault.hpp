// tl/launch/division_fault.hpp: a kernel's plain C++ integer division by zero, on the CPU backend.
//
// tl's block expressions define x / 0 and x % 0 (functors.hpp), but a kernel's scalar C++
// arithmetic (`pid / num_pid_in_group` with a group of 0) is the host processor's division,
// which traps (SIGFPE) and ends the process with nothing said. A program cannot be resumed after
// the trap (its C++ frames are in the middle of an expression), so while programs run, a handler
// says which kernel and program divided, and which line of the kernel it cannot know; then the
// process ends as it would have. The handler is installed only where SIGFPE has none (the
// default action), by the first of the launches running at a time, and removed after the last.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <cstring>

#include "../backend/cpu/host_threads.hpp"
#include "../backend/cpu/program.hpp"

namespace tl::detail::cpu {

struct division_fault_guard {
  static host_mutex& mutex() {
    static host_mutex m;
    return m;
  }
  static int& users() {
    static int n = 0;
    return n;
  }
  static bool& installed() {
    static bool b = false;
    return b;
  }
  static struct sigaction& previous() {
    static struct sigaction a {};
    return a;
  }

  // Async-signal-safe: write(2) of text made without allocation.
  static void put(const char* s) { (void)!write(2, s, std::strlen(s)); }
  static void put_int(long long v) {
    char buf[24];
    int i = 23;
    buf[i] = 0;
    const bool negative = v < 0;
    unsigned long long u = negative ? 0ULL - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
    do {
      buf[--i] = char('0' + u % 10);
      u /= 10;
    } while (u && i > 1);
    if (negative) buf[--i] = '-';
    put(buf + i);
  }
  static void handler(int sig, siginfo_t* info, void*) {
    const program_state* p = current_program;
    const bool division = info && (info->si_code == FPE_INTDIV || info->si_code == FPE_INTOVF);
    if (p && p->launch && division) {
      put("tl: integer ");
      put(info->si_code == FPE_INTDIV ? "division by zero" : "division overflow (the least integer divided by -1)");
      put(" in kernel ");
      put(p->launch->report.kernel.c_str());
      put(", program (");
      put_int(p->pid[0]);
      put(", ");
      put_int(p->pid[1]);
      put(", ");
      put_int(p->pid[2]);
      put("): a division of plain C++ integers in the kernel's code, which the processor traps (tl's block "
          "expressions define x / 0 as 0; a scalar division is the host's). The process ends here; "
          "TL_SEQUENTIAL=1 under a debugger stops at the line.\n");
    }
    signal(sig, SIG_DFL);  // returning re-runs the division, which now ends the process as before
  }

  division_fault_guard() {
    host_lock lock(mutex());
    if (users()++ > 0) return;
    struct sigaction current {};
    if (sigaction(SIGFPE, nullptr, &current) != 0 || current.sa_handler != SIG_DFL ||
        (current.sa_flags & SA_SIGINFO) != 0)
      return;  // the program handles SIGFPE itself
    struct sigaction a {};
    a.sa_sigaction = &handler;
    sigemptyset(&a.sa_mask);
    a.sa_flags = SA_SIGINFO;
    installed() = sigaction(SIGFPE, &a, &previous()) == 0;
  }
  ~division_fault_guard() {
    host_lock lock(mutex());
    if (--users() > 0 || !installed()) return;
    sigaction(SIGFPE, &previous(), nullptr);
    installed() = false;
  }
  division_fault_guard(const division_fault_guard&) = delete;
  division_fault_guard& operator=(const division_fault_guard&) = delete;
};

}  // namespace tl::detail::cpu
