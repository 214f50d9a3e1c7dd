// tl-fuzz: random launches on the CPU backend, and random command lines of a checker program,
// for a bounded time; every outcome must be one tl allows.
//
//   tl-fuzz [--seed S] [--seconds T | --cases N]           launches
//   tl-fuzz --cli build/tools/tl-puzzles [--cases N]       command lines of that program
//
// Launches: a few kernels (a masked copy with a shifted read, a strided 2-D scale, an in-place
// update, row sums, a kernel of narrow integer parameters) get random grids (valid and not),
// buffers of random sizes with random extents (too small, unknown, negative), null and
// misaligned pointers, aliased and overlapping arguments, random strides and sizes, and random
// options. Each buffer sits between guard zones of a known pattern. A launch must either run
// (its report may list invalid accesses and races: they were caught, not performed) or be
// refused with a tl::usage_error, or throw tl::launch_error when the report has findings; a
// refusal names its cause ("tl::..."), and leaves the outputs as they were. Every guard must be
// intact afterwards: nothing was written outside a buffer. Anything else (another exception,
// a crash under the sanitizers, a guard changed) is a finding: printed with the seed and case
// to rerun it (--seed S --case K), and the exit code is 1. --self-check plants a write outside a
// buffer (an unchecked pointer and too large a size) and checks that it is found.
//
// Command lines: random subcommands, options and values (negative, huge, fractional, not
// numbers, empty) for a checker program, run as a child process with a time limit; each must
// end with exit code 0, 1 (checks failed), 2 (refused) or one of CLI11's usage codes (100 and
// up), not by a signal, and a refusal must say something on stderr.
#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <tl/tl.hpp>

#include "cli_numbers.hpp"

using tl::_;
using tl::None;

namespace {

// ---- the kernels ----

template <int B>
TL_KERNEL void copy_shifted(tl::ptr<const float> x, tl::ptr<float> z, int n, int shift) {
  auto o = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(z + o, tl::load(x + o + shift, o < n, 0.0f), o < n);
}

template <int B0, int B1>
TL_KERNEL void scale_2d(tl::ptr<const float> x, tl::ptr<float> z, int m, int n, int sxm, int sxn, int szm) {
  auto r = tl::program_id(0) * B0 + tl::arange<0, B0>();
  auto c = tl::program_id(1) * B1 + tl::arange<0, B1>();
  auto mask = (r(_, None) < m) & (c(None, _) < n);
  auto v = tl::load(x + r(_, None) * sxm + c(None, _) * sxn, mask, 0.0f);
  tl::store(z + r(_, None) * szm + c(None, _), v * 2.0f, mask);
}

template <int B>
TL_KERNEL void add_one_in_place(tl::ptr<float> x, int n) {
  auto o = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(x + o, tl::load(x + o, o < n) + 1.0f, o < n);
}

template <int R, int B>
TL_KERNEL void row_sums(tl::ptr<const float> x, tl::ptr<float> out, int m, int n, std::int64_t stride) {
  auto rows = tl::program_id(0) * R + tl::arange<0, R>();
  auto acc = tl::zeros<R, B>(tl::float32);
  for (int c0 : tl::range(0, n, B)) {
    auto c = c0 + tl::arange<0, B>();
    acc += tl::load(x + rows(_, None) * stride + c(None, _), (rows(_, None) < m) & (c(None, _) < n), 0.0f);
  }
  tl::store(out + rows, tl::sum<1>(acc), rows < m);
}

template <int B>
TL_KERNEL void narrow_parameters(tl::ptr<int> out, short a, unsigned char b, unsigned c) {
  auto o = tl::arange<0, B>();
  tl::store(out + o, int(a) + int(b) + int(c & 0xffu) + o * 0);
}

// ---- buffers between guards ----

constexpr int guard = 64;  // elements of each guard zone
constexpr float guard_value = -7.25f;
constexpr float poison = 1e30f;

// A buffer of n floats with a guard zone on each side; `data()` is the first element.
struct guarded {
  std::vector<float> all;
  int n = 0;
  explicit guarded(int size) : all(std::size_t(size + 2 * guard), guard_value), n(size) {
    for (int i = 0; i < n; ++i) all[std::size_t(guard + i)] = poison;
  }
  float* data() { return all.data() + guard; }
  bool guards_intact() const {
    for (int i = 0; i < guard; ++i)
      if (all[std::size_t(i)] != guard_value || all[std::size_t(guard + n + i)] != guard_value) return false;
    return true;
  }
};

struct fuzzer {
  std::mt19937_64 rng;
  std::uint64_t seed = 0;
  long long case_index = 0;
  int findings = 0;
  long long launched = 0, refused = 0, reported = 0;

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

  // A grid axis: mostly small and valid, sometimes out of range.
  long long grid_axis(int axis) {
    const int k = pick(0, 19);
    if (k == 0) return pick(-3, 0);
    if (k == 1) return axis == 0 ? (1LL << 31) : 65536 + pick(0, 10);
    return pick(1, axis == 0 ? 40 : 6);
  }
  // An extent for a ptr over a buffer of n elements: right, too small, unknown, zero, negative.
  std::int64_t extent_for(int n) {
    const int k = pick(0, 9);
    if (k == 0) return -1;             // unchecked (unknown size)
    if (k == 1) return pick(-5, -2);   // negative: refused
    if (k == 2) return n > 0 ? pick(0, n - 1) : 0;  // too small: accesses past it are caught
    return n;
  }
  tl::ptr<float> pointer_into(guarded& b, const char* name) {
    const int k = pick(0, 24);
    if (k == 0) return tl::ptr<float>(nullptr, pick(0, 2) == 0 ? 0 : pick(1, 8), name);  // null
    if (k == 1) {  // misaligned: refused before anything runs
      auto* bytes = reinterpret_cast<unsigned char*>(b.data()) + pick(1, 3);
      return tl::ptr<float>(reinterpret_cast<float*>(bytes), b.n - 1, name);
    }
    const std::int64_t e = extent_for(b.n);
    if (e < 0 && e != -1) return tl::ptr<float>(b.data(), e, name);
    if (e == -1) return tl::ptr<float>(b.data());  // unchecked: only where the kernel stays inside
    return tl::ptr<float>(b.data(), e, name);
  }
  tl::launch_options options() {
    tl::launch_options o;
    o.failure = chance(0.5) ? tl::on_failure::collect : tl::on_failure::raise;
    o.sequential = chance(0.3);
    o.threads = pick(0, 3) == 0 ? pick(-1, 5) : 0;
    o.detect_races = !chance(0.2);
    if (chance(0.05)) o.num_stages = pick(-1, 10);
    if (chance(0.05)) o.num_warps = pick(0, 9);
    return o;
  }

  void finding(const std::string& what) {
    ++findings;
    std::printf("FINDING: seed %llu, case %lld: %s\n  rerun: tl-fuzz --seed %llu --case %lld\n",
                (unsigned long long)seed, case_index, what.c_str(), (unsigned long long)seed, case_index);
  }

  // Runs a launch; checks its outcome and that the outputs are untouched when it was refused.
  template <class Launch>
  void run(Launch&& launch, std::vector<guarded*> buffers, std::vector<guarded*> outputs) {
    std::vector<std::vector<float>> before;
    for (guarded* b : outputs) before.push_back(b->all);
    try {
      const tl::launch_report r = launch();
      ++launched;
      if (!r.ok()) ++reported;
      (void)r.str();
    } catch (const tl::usage_error& e) {
      ++refused;
      const std::string what = e.what();
      if (what.rfind("tl::", 0) != 0) finding("a refusal that does not say where it comes from: " + what);
      const bool in_kernel = what.find(", program (") != std::string::npos;  // a kernel's own mistake
      for (std::size_t i = 0; i < outputs.size() && !in_kernel; ++i)
        if (outputs[i]->all != before[i]) finding("a refused launch changed an output: " + what);
    } catch (const tl::launch_error& e) {
      ++reported;
      if (std::string(e.what()).empty()) finding("a launch error without a report");
    } catch (const std::exception& e) {
      finding(std::string("an unexpected exception: ") + e.what());
    }
    for (guarded* b : buffers)
      if (!b->guards_intact()) finding("a guard zone changed: something was written outside a buffer");
  }

  void one_case() {
    const int kernel = pick(0, 4);
    const tl::launch_options o = options();
    if (kernel == 0) {
      guarded x(pick(0, 300)), z(pick(0, 300));
      const bool alias = chance(0.15);
      guarded& out = alias ? x : z;
      auto px = pointer_into(x, "x");
      auto pz = pointer_into(out, "z");
      const bool unchecked = px.extent == -1 || pz.extent == -1;
      // Through unchecked pointers the kernel must stay inside by itself (nothing can check it).
      const int n = unchecked ? std::min(x.n, out.n) : pick(-4, 320);
      const int shift = unchecked ? 0 : pick(-20, 20);
      const long long g = unchecked ? std::max(1, (n + 31) / 32) : grid_axis(0);
      run([&] { return tl::launch<copy_shifted<32>>(tl::grid(g), o, tl::ptr<const float>(px), pz, n, shift); },
          {&x, &z}, {&out});
    } else if (kernel == 1) {
      const int m = pick(0, 40), n = pick(0, 40);
      guarded x(pick(0, 1700)), z(pick(0, 1700));
      auto px = pointer_into(x, "x");
      auto pz = pointer_into(z, "z");
      if (px.extent == -1 || pz.extent == -1) return;  // strides make the span unknown
      const int sxm = pick(-3, 45), sxn = pick(-2, 3), szm = pick(0, 45);
      const tl::grid g(grid_axis(0) % 8 + 1, grid_axis(1) % 5 + 1);
      run([&] {
        return tl::launch<scale_2d<16, 16>>(g, o, tl::ptr<const float>(px), pz, m, n, sxm, sxn, szm);
      }, {&x, &z}, {&z});
    } else if (kernel == 2) {
      guarded x(pick(0, 200));
      auto px = pointer_into(x, "x");
      if (px.extent == -1) return;
      // An overlapping second view of the same buffer (a race, found, not a crash) or the buffer once.
      const int n = pick(-2, 220);
      run([&] { return tl::launch<add_one_in_place<16>>(tl::grid(grid_axis(0)), o, px, n); }, {&x}, {&x});
    } else if (kernel == 3) {
      const int m = pick(0, 12), n = pick(0, 100);
      guarded x(pick(0, 1300)), out(pick(0, 16));
      auto px = pointer_into(x, "x");
      auto po = pointer_into(out, "out");
      if (px.extent == -1 || po.extent == -1) return;
      const std::int64_t stride = pick(0, 3) == 0 ? std::int64_t(pick(-100, 200)) : n;
      run([&] {
        return tl::launch<row_sums<4, 32>>(tl::grid(std::max(1, (m + 3) / 4 + pick(-1, 1))), o, tl::ptr<const float>(px),
                                           po, m, n, stride);
      }, {&x, &out}, {&out});
    } else {
      std::vector<int> out(8, -1);
      const std::int64_t values[] = {0, 1, -1, 127, 255, 256, 32767, 32768, -32769, 65535, 4294967295LL,
                                     4294967296LL, std::numeric_limits<std::int64_t>::min()};
      auto v = [&] { return values[pick(0, int(std::size(values)) - 1)]; };
      const std::int64_t a = v(), b = v(), c = v();
      const std::vector<int> was = out;
      try {
        tl::launch<narrow_parameters<8>>(tl::grid(1), o, out, a, b, c);
        ++launched;
        const bool fits = a >= -32768 && a <= 32767 && b >= 0 && b <= 255 && c >= 0 && c <= 4294967295LL;
        if (!fits) finding("an argument its parameter cannot hold was accepted: " + std::to_string(a) + ", " +
                           std::to_string(b) + ", " + std::to_string(c));
      } catch (const tl::usage_error& e) {
        ++refused;
        if (std::string(e.what()).find("cannot hold") == std::string::npos &&
            std::string(e.what()).find("tl::launch:") != 0)
          finding(std::string("an unclear refusal: ") + e.what());
        if (out != was) finding("a refused launch changed its output");
      }
    }
  }
};

// ---- command lines ----

struct cli_fuzzer {
  std::mt19937_64 rng;
  int findings = 0;
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

  std::string value() {
    static const char* values[] = {"0", "1", "2", "-1", "-5", "3", "2147483648", "18446744073709551615",
                                   "18446744073709551616", "99999999999999999999999", "1.5", "-0", "abc", "",
                                   "1e9", " 4", "0x10", "N0=40", "N0=2147483648", "N0=-3", "B0=16,B1=16", "T=3",
                                   "all", "13", "8/3loop", "cpu", "cuda", "gpu"};
    return values[pick(0, int(std::size(values)) - 1)];
  }
  std::vector<std::string> command_line(const std::string& out_dir) {
    static const char* subcommands[] = {"check", "run", "draw", "list", "bogus", "--help"};
    static const char* options[] = {"--seed", "--random", "--backend", "--sizes", "--blocks", "-o", "--verbose",
                                    "--sequential", "--bogus"};
    std::vector<std::string> args{subcommands[pick(0, 5)]};
    if (pick(0, 3) > 0) args.push_back(pick(0, 2) == 0 ? value() : std::to_string(pick(1, 12)));
    for (int i = pick(0, 3); i > 0; --i) {
      std::string o = options[pick(0, 8)];
      args.push_back(o);
      if (o == "-o") args.push_back(out_dir + "/page.html");
      else if (o == "--random") args.push_back(pick(0, 1) ? value() : std::to_string(pick(0, 2)));
      else if (o != "--verbose" && o != "--sequential") args.push_back(value());
    }
    return args;
  }
  // Runs program with args; returns its exit status as waitpid gives it, and its stderr.
  static int run(const std::string& program, const std::vector<std::string>& args, std::string& err) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    const pid_t child = fork();
    if (child == 0) {
      dup2(fds[1], 2);
      const int null = open("/dev/null", O_WRONLY);
      if (null >= 0) dup2(null, 1);
      close(fds[0]);
      alarm(20);  // a case that hangs ends as a finding (SIGALRM)
      std::vector<char*> argv{const_cast<char*>(program.c_str())};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(program.c_str(), argv.data());
      _exit(127);
    }
    close(fds[1]);
    char buf[1024];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) err.append(buf, std::size_t(n));
    close(fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    return status;
  }
  void one_case(const std::string& program, const std::string& out_dir, long long k) {
    const auto args = command_line(out_dir);
    std::string err;
    const int status = run(program, args, err);
    std::string line = program;
    for (const auto& a : args) line += " '" + a + "'";
    if (WIFSIGNALED(status)) {
      ++findings;
      std::printf("FINDING: case %lld: ended by signal %d: %s\n", k, WTERMSIG(status), line.c_str());
      return;
    }
    const int code = WEXITSTATUS(status);
    if (code == 127) {
      ++findings;
      std::printf("FINDING: could not run %s\n", program.c_str());
    } else if (!(code == 0 || code == 1 || code == 2 || code >= 100)) {
      ++findings;
      std::printf("FINDING: case %lld: exit code %d: %s\n", k, code, line.c_str());
    } else if (code != 0 && err.empty()) {
      ++findings;
      std::printf("FINDING: case %lld: exit code %d with nothing on stderr: %s\n", k, code, line.c_str());
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tl-fuzz: random launches on the CPU backend (or random command lines of a checker program); every "
               "outcome must be one tl allows"};
  std::uint64_t seed = 1;
  double seconds = 10;
  long long cases = 0, only_case = -1;
  std::string cli;
  tl_cli::add_number(app, "--seed", seed, "seed of the cases", std::uint64_t(0), std::numeric_limits<std::uint64_t>::max());
  tl_cli::add_number(app, "--seconds", seconds, "run for this long (unless --cases is given)", 0.0, 86400.0);
  tl_cli::add_number(app, "--cases", cases, "run this many cases", 0LL, 1000000000LL);
  tl_cli::add_number(app, "--case", only_case, "rerun only this case of the seed", 0LL, 1000000000LL);
  app.add_option("--cli", cli, "fuzz this program's command line instead (tl-puzzles, tl-tutorials)");
  bool self_check = false;
  app.add_flag("--self-check", self_check, "plant a write outside a buffer and check that it is found");
  CLI11_PARSE(app, argc, argv);

  const auto start = std::chrono::steady_clock::now();
  auto more = [&](long long k) {
    if (cases > 0) return k < cases;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds;
  };

  if (!cli.empty()) {
    char dir[] = "/tmp/tl-fuzz-XXXXXX";
    if (!mkdtemp(dir)) {
      std::perror("tl-fuzz: mkdtemp");
      return 2;
    }
    cli_fuzzer f{std::mt19937_64(seed)};
    long long k = 0;
    for (; more(k); ++k) f.one_case(cli, dir, k);
    std::printf("tl-fuzz: %lld command lines of %s, %d finding(s)\n", k, cli.c_str(), f.findings);
    return f.findings ? 1 : 0;
  }

  if (self_check) {
    // A kernel given an unchecked pointer and a size past its buffer writes into the guard zone:
    // the harness must report it (the test that this tool can fail).
    fuzzer f;
    guarded x(64), z(64);
    f.run([&] {
      return tl::launch<copy_shifted<32>>(tl::grid(3), tl::ptr<const float>(x.data(), 64, "x"), tl::ptr<float>(z.data()),
                                          70, 0);
    }, {&x, &z}, {&z});
    std::printf("tl-fuzz --self-check: %d finding(s), expected 1\n", f.findings);
    return f.findings == 1 ? 0 : 1;
  }

  fuzzer f;
  f.seed = seed;
  long long k = 0;
  for (; only_case >= 0 ? k <= only_case : more(k); ++k) {
    f.case_index = k;
    f.rng.seed(seed * 0x9e3779b97f4a7c15ULL + std::uint64_t(k));  // each case reruns alone
    if (only_case >= 0 && k != only_case) continue;
    f.one_case();
  }
  std::printf("tl-fuzz: %lld cases (seed %llu): %lld launches ran (%lld with findings reported), %lld refused; %d "
              "finding(s)\n",
              k, (unsigned long long)seed, f.launched, f.reported, f.refused, f.findings);
  return f.findings ? 1 : 0;
}
