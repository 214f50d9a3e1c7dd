// tl/launch/division_fault.hpp: a kernel's plain C++ integer division by zero, on the CPU backend.
//
// tl's block expressions define x / 0 and x % 0 (functors.hpp), but a kernel's scalar C++
// arithmetic (`pid / num_pid_in_group` with a group of 0) is the host processor's division,
// which traps (SIGFPE) and ends the process with nothing said. A program cannot be resumed after
// the trap (its C++ frames are in the middle of an expression), so while programs run, a handler
// says which kernel and program divided, and the line (addr2line reads it from the binary's line
// tables, where it was built with -g; else the handler gives the address); then the process ends
// as it would have. The handler is installed only where SIGFPE has none (the
// default action), by the first of the launches running at a time, and removed after the last.
#pragma once

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
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
  static void put_hex(char* out, std::uintptr_t v) {  // "0x..." into out (at least 19 bytes)
    char digits[17];
    int n = 0;
    do {
      digits[n++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v);
    out[0] = '0';
    out[1] = 'x';
    for (int i = 0; i < n; ++i) out[2 + i] = digits[n - 1 - i];
    out[2 + n] = 0;
  }
  // The faulting instruction's address, from the signal's context.
  static std::uintptr_t fault_address(void* context) {
#if defined(__x86_64__)
    return std::uintptr_t(static_cast<const ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
    return std::uintptr_t(static_cast<const ucontext_t*>(context)->uc_mcontext.pc);
#else
    (void)context;
    return 0;
#endif
  }
  // The source line of the instruction at pc, as addr2line reads it from the binary's line tables
  // ("file:line"), into line; false where there are none (a build without -g) or no addr2line.
  // The binary and the address addr2line takes (an offset in a position-independent one) go into
  // binary and where either way.
  static bool source_line_of(std::uintptr_t pc, char* line, std::size_t size, const char*& binary, char* where) {
    Dl_info d{};
    static char self[4096];  // the executable (the child that runs addr2line has another /proc/self)
    const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    self[length > 0 ? length : 0] = 0;
    binary = self;
    std::uintptr_t address = pc;
    if (pc && dladdr(reinterpret_cast<void*>(pc), &d) && d.dli_fbase) {
      const auto* header = static_cast<const unsigned char*>(d.dli_fbase);
      const bool position_independent = header[16] == 3;  // e_type == ET_DYN
      if (position_independent) address = pc - reinterpret_cast<std::uintptr_t>(d.dli_fbase);
      if (d.dli_fname && d.dli_fname[0] == '/') binary = d.dli_fname;
    }
    put_hex(where, address);
    line[0] = 0;
    if (!pc) return false;
    int fds[2];
    if (pipe(fds) != 0) return false;
    const pid_t child = fork();
    if (child == 0) {
      dup2(fds[1], 1);
      const int null = open("/dev/null", O_WRONLY);
      if (null >= 0) dup2(null, 2);
      close(fds[0]);
      execlp("addr2line", "addr2line", "-e", binary, where, static_cast<char*>(nullptr));
      _exit(127);
    }
    close(fds[1]);
    std::size_t n = 0;
    for (ssize_t got; child > 0 && n + 1 < size && (got = read(fds[0], line + n, size - 1 - n)) > 0;) n += std::size_t(got);
    close(fds[0]);
    if (child > 0) waitpid(child, nullptr, 0);
    line[n] = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (line[i] == '\n' || line[i] == ' ') line[i] = 0;  // the first line, without " (discriminator n)"
    const char* colon = std::strrchr(line, ':');  // "file:line"; "??:0" or "file:?" without line tables
    return line[0] != 0 && line[0] != '?' && colon && colon[1] != '?' && !(colon[1] == '0' && colon[2] == 0);
  }
  static void handler(int sig, siginfo_t* info, void* context) {
    const program_state* p = current_program;
    const bool division = info && (info->si_code == FPE_INTDIV || info->si_code == FPE_INTOVF);
    if (p && p->launch && division) {
      // One report: a second program trapping meanwhile waits for the first's to end the process.
      static int reporting = 0;
      if (__atomic_exchange_n(&reporting, 1, __ATOMIC_ACQ_REL) != 0)
        for (;;) pause();
      static char line[1024];
      static char where[24];
      const char* binary = nullptr;
      const bool known = source_line_of(fault_address(context), line, sizeof line, binary, where);
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
      put("), at ");
      if (known) {
        put(line);
      } else {
        put(binary);
        put(" + ");
        put(where);
        put(" (no line information: build with -g, or run addr2line -e on the binary with that address)");
      }
      put(": a division of plain C++ integers in the kernel's code, which the processor traps (tl's block "
          "expressions define x / 0; a scalar division is the host's). The process ends here.\n");
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
