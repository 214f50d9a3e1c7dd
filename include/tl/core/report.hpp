// tl/core/report.hpp: what a launch (CPU or CUDA) found wrong, and how it is printed.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../config.hpp"
#include "source_location.hpp"
#include "text.hpp"

namespace tl {

enum class access_kind { load, store, atomic };

inline const char* to_string(access_kind k) {
  return k == access_kind::load ? "load" : k == access_kind::store ? "store" : "atomic";
}

// One masked-in lane that fell outside its buffer.
struct invalid_lane {
  int rank = 0;
  int index[4] = {0, 0, 0, 0};  // the lane's position in the block
  std::int64_t offset = 0;      // element offset from the start of the buffer
};

// One load or store of one program with at least one invalid lane.
struct invalid_access {
  int program[3] = {0, 0, 0};
  access_kind op = access_kind::load;
  source_location where;
  std::string buffer;             // the buffer's name, or "argument #i"
  std::int64_t buffer_size = -1;  // elements
  std::int64_t lanes = 0;         // masked-in lanes of the op
  std::int64_t invalid_lanes = 0;
  std::vector<invalid_lane> first;  // the first few, in block order
  std::string reason;               // "out of bounds" or "through a null pointer"
};

// A failed tl::device_assert.
struct assert_failure {
  int program[3] = {0, 0, 0};
  source_location where;
  std::string message;
  std::int64_t failing_lanes = 0;
};

// Two programs of one launch that access the same element, at least one storing it (CPU
// backend): the result depends on their order (on a GPU, on timing).
enum class race_kind {
  store_store,       // both store it
  load_after_store,  // `program` loads what `first_program` stored
  store_after_load,  // `program` stores what `first_program` (or several programs) loaded
  atomic_after_plain,  // `program` accesses atomically what `first_program` (or several) stores or loads
  plain_after_atomic,  // `program` stores or loads what `first_program` accesses atomically
  lock_released_by_store,  // `program` gives back a lock it took (atomic_cas) with a plain store
};
struct store_race {
  race_kind kind = race_kind::store_store;
  int first_program[3] = {0, 0, 0};  // the program that accessed it first
  bool several = false;              // store_after_load: several programs loaded it
  int program[3] = {0, 0, 0};        // a later one
  source_location where;             // the later program's access
  std::string buffer;
  std::int64_t offset = 0;           // the element
};

// A program that waited on memory that no program of the launch changed (CPU backend; GPU with
// TL_DEVICE_CHECKS=1): its atomics kept returning the same values, with no store or atomic
// write landing, for launch_options::hang_timeout_ms (or, on one host thread, for as many
// atomics as no bounded wait takes). The launch stopped it.
struct stuck_wait {
  int program[3] = {0, 0, 0};
  std::string op;         // "tl::atomic_cas", "tl::atomic_load", "tl::atomic_poll", ...
  source_location where;  // the atomic it spun on
  std::string buffer;     // the buffer of its first masked-in lane
  std::int64_t offset = 0;  // and that lane's element
  std::int64_t spins = 0;   // its atomics in a row that returned the same values
  double seconds = 0;       // how long it spun so
};

// Everything a launch reports. Invalid accesses are sorted by program id, then by line.
struct launch_report {
  std::string kernel;
  int grid[3] = {1, 1, 1};
  std::vector<invalid_access> invalid;  // at most max_records kept; counts below are complete
  std::vector<assert_failure> asserts;
  std::int64_t invalid_ops = 0;    // loads/stores with an invalid lane
  std::int64_t invalid_lanes = 0;  // lanes in all of them
  // CPU backend: races, elements stored by two programs or stored by one and loaded by another
  // (launch_options::detect_races), the first
  // few recorded; and programs whose stores were all masked off (a note, not an error: it is
  // often a mistake in the offsets, as in the guide's copy kernel).
  std::vector<store_race> races;
  std::int64_t race_count = 0;
  std::int64_t race_check_bytes = 0;  // the memory race detection took: CPU, 12 bytes an element of
                                      // each 4 KiB page the launch touched, and the tables above
                                      // them; GPU (TL_DEVICE_CHECKS=1), the hash table's size
  std::int64_t race_unchecked = 0;    // GPU: accesses the race table had no room for
  // CPU backend: compiler hints (multiple_of, max_contiguous, max_constancy) that the data
  // contradicts, the first few (a note, not an error: Triton trusts hints, and its tutorial 09
  // hints offsets whose masked-off tail breaks them).
  std::vector<assert_failure> hints;
  std::int64_t hint_count = 0;
  std::vector<std::array<int, 3>> idle_programs;  // the first few
  std::int64_t idle_count = 0;
  // CPU backend: output buffers (stored into, never loaded) that the programs stored most of but
  // not all, one line each ("z: elements 96..99 of 100 were never stored; ..."): a note by
  // default, an error with launch_options::unwritten = tl::unwritten::fail (docs/11).
  std::vector<std::string> unwritten;
  bool unwritten_fails = false;
  // Waits that could not end, the launch stopped (the first few), with the programs that had
  // not started then (a count and the first few) and the host threads the programs ran on
  // (CPU; 0 on the GPU).
  std::vector<stuck_wait> hangs;
  std::int64_t hang_count = 0;
  std::int64_t unstarted_count = 0;
  std::vector<std::array<int, 3>> unstarted;
  int hang_threads = 0;
  // CPU backend: pairs of arguments that are the same memory, one read through a pointer to
  // const ("'x' (a tl::ptr<const T>) and 'y' are the same memory"), noted where races were found.
  std::vector<std::string> alias_notes;
  std::int64_t programs = 0;
  double seconds = 0;
  // CUDA backend: what ptxas gave the kernel (cudaFuncGetAttributes): registers per thread,
  // and local memory per thread (spills, stack). 0 on the CPU backend.
  int registers = 0;
  std::int64_t local_bytes = 0;
  // CUDA backend: the dynamic shared memory each program was given (bytes): a dot's operand
  // ring (launch_options::num_stages >= 2) or a programs_per_sm reservation; 0 when none.
  int dynamic_shared_bytes = 0;

  static constexpr std::size_t max_records = 64;
  static constexpr std::size_t lanes_per_record = 8;

  bool ok() const {
    return invalid_ops == 0 && asserts.empty() && race_count == 0 && hang_count == 0 &&
           !(unwritten_fails && !unwritten.empty());
  }
  explicit operator bool() const { return ok(); }
  std::string str() const;
  // The records in program order (axis 2, then 1, then 0), then by line; at most
  // lanes_per_record idle programs kept (a launch does this before returning the report).
  void sort_records();
};

namespace detail {
// Stable insertion sort by less(a, b): the record lists are short (max_records).
template <class T, class Less>
void sort_short(std::vector<T>& v, Less less) {
  for (std::size_t i = 1; i < v.size(); ++i)
    for (std::size_t j = i; j > 0 && less(v[j], v[j - 1]); --j) std::swap(v[j], v[j - 1]);
}
}  // namespace detail

// The report's text, piece by piece (tl's runtime: config.hpp).
TL_RUNTIME_FN std::string format_lane(const invalid_lane& l);
// Two lines: which program, op, line and buffer; then the first offending lanes.
TL_RUNTIME_FN std::string format_access(const invalid_access& a);
TL_RUNTIME_FN std::string format_program(const int (&p)[3]);
// The programs whose stores were all masked off, as a note: "2 of 3 programs stored nothing
// (every lane of their stores masked off): (1, 0, 0), (2, 0, 0)".
TL_RUNTIME_FN std::string idle_note(const launch_report& r);

#if TL_RUNTIME_DEFINITIONS
TL_RUNTIME_FN void launch_report::sort_records() {
  auto by_program = [](const auto& a, const auto& b) {
    if (a.program[2] != b.program[2]) return a.program[2] < b.program[2];
    if (a.program[1] != b.program[1]) return a.program[1] < b.program[1];
    if (a.program[0] != b.program[0]) return a.program[0] < b.program[0];
    return a.where.line < b.where.line;
  };
  detail::sort_short(invalid, by_program);
  detail::sort_short(asserts, by_program);
  detail::sort_short(races, by_program);
  detail::sort_short(hangs, by_program);
  detail::sort_short(idle_programs, [](const std::array<int, 3>& a, const std::array<int, 3>& b) {
    if (a[2] != b[2]) return a[2] < b[2];
    if (a[1] != b[1]) return a[1] < b[1];
    return a[0] < b[0];
  });
  if (idle_programs.size() > lanes_per_record) idle_programs.resize(lanes_per_record);
}

TL_RUNTIME_FN std::string format_lane(const invalid_lane& l) {
  detail::text o;
  o << '(';
  for (int i = 0; i < l.rank; ++i) o << (i ? ", " : "") << l.index[i];
  o << ')';
  return o.str();
}

TL_RUNTIME_FN std::string format_access(const invalid_access& a) {
  detail::text o;
  o << "program (" << a.program[0] << ", " << a.program[1] << ", " << a.program[2] << "): invalid "
    << to_string(a.op) << " at " << a.where.file << ':' << a.where.line << ": " << a.invalid_lanes << " of "
    << a.lanes << " masked-in lanes " << a.reason << " of buffer '" << a.buffer << "'";
  if (a.buffer_size >= 0) o << " (" << a.buffer_size << " elements)";
  o << "\n    first:";
  for (std::size_t i = 0; i < a.first.size(); ++i)
    o << (i ? ", " : " ") << "lane " << format_lane(a.first[i]) << " -> offset " << a.first[i].offset;
  if (a.invalid_lanes > static_cast<std::int64_t>(a.first.size())) o << ", ...";
  return o.str();
}

TL_RUNTIME_FN std::string format_program(const int (&p)[3]) {
  detail::text o;
  o << '(' << p[0] << ", " << p[1] << ", " << p[2] << ')';
  return o.str();
}

TL_RUNTIME_FN std::string idle_note(const launch_report& r) {
  detail::text o;
  o << r.idle_count << " of " << r.programs << " programs stored nothing (every lane of their stores masked off): ";
  for (std::size_t i = 0; i < r.idle_programs.size(); ++i) {
    const auto& p = r.idle_programs[i];
    o << (i ? ", " : "") << '(' << p[0] << ", " << p[1] << ", " << p[2] << ')';
  }
  if (r.idle_count > static_cast<std::int64_t>(r.idle_programs.size())) o << ", ...";
  return o.str();
}

TL_RUNTIME_FN std::string launch_report::str() const {
  detail::text o;
  auto hint_notes = [&] {
    for (const auto& h : hints)
      o << "\n  note: program " << format_program(h.program) << " at " << h.where.file << ':' << h.where.line << ": " << h.message;
    if (hint_count > static_cast<std::int64_t>(hints.size()))
      o << "\n  note: ... " << (hint_count - static_cast<std::int64_t>(hints.size())) << " more contradicted hints";
  };
  auto unwritten_notes = [&](const char* head) {
    for (const auto& u : unwritten) o << head << u;
  };
  if (ok()) {
    o << kernel << ": ok";
    if (idle_count) o << "; note: " << idle_note(*this);
    unwritten_notes("\n  note: ");
    hint_notes();
    return o.str();
  }
  o << kernel << " on grid (" << grid[0] << ", " << grid[1] << ", " << grid[2] << "): ";
  std::vector<std::string> parts;
  if (invalid_ops)
    parts.push_back(std::to_string(invalid_ops) + " invalid load/store op(s), " + std::to_string(invalid_lanes) +
                    " invalid lane(s)");
  if (!asserts.empty()) parts.push_back(std::to_string(asserts.size()) + " failed device_assert(s)");
  if (race_count) parts.push_back(std::to_string(race_count) + " race(s) between programs");
  if (unwritten_fails && !unwritten.empty()) parts.push_back(std::to_string(unwritten.size()) + " output(s) not written in full");
  if (hang_count) parts.push_back(std::to_string(hang_count) + " wait(s) that could not end (the launch was stopped)");
  for (std::size_t i = 0; i < parts.size(); ++i) o << (i ? "; " : "") << parts[i];
  o << '\n';
  for (const auto& a : invalid) o << "  " << format_access(a) << '\n';
  if (invalid_ops > static_cast<std::int64_t>(invalid.size()))
    o << "  ... " << (invalid_ops - static_cast<std::int64_t>(invalid.size())) << " more\n";
  for (const auto& f : asserts)
    o << "  program " << format_program(f.program) << ": device_assert failed at " << f.where.file << ':'
      << f.where.line << ": " << f.message << " (" << f.failing_lanes << " lane(s))\n";
  for (const auto& x : races) {
    const std::string element = "element " + std::to_string(x.offset) + " of buffer '" + x.buffer + "'";
    const std::string at = std::string(x.where.file) + ':' + std::to_string(x.where.line);
    const std::string first = x.several ? "other programs" : "program " + format_program(x.first_program);
    if (x.kind == race_kind::store_store)
      o << "  race: programs " << format_program(x.first_program) << " and " << format_program(x.program)
        << " both store " << element << " (the second at " << at << ")\n";
    else if (x.kind == race_kind::load_after_store)
      o << "  race: program " << format_program(x.program) << " loads " << element << ", which " << first
        << " stores (the load at " << at << ")\n";
    else if (x.kind == race_kind::store_after_load)
      o << "  race: program " << format_program(x.program) << " stores " << element << ", which " << first
        << " load" << (x.several ? "" : "s") << " (the store at " << at << ")\n";
    else if (x.kind == race_kind::lock_released_by_store)
      o << "  race: program " << format_program(x.program) << " releases the lock at " << element
        << " with a plain store (at " << at << "): another program's atomic_cas may take the lock before the "
           "stores it guards are seen; release it with tl::atomic_xchg(lock, 0) (or tl::atomic_store)\n";
    else if (x.kind == race_kind::atomic_after_plain)
      o << "  race: program " << format_program(x.program) << " accesses " << element << " atomically, which " << first
        << " load" << (x.several ? "" : "s") << " or store" << (x.several ? "" : "s") << " without an atomic (the atomic at " << at
        << ")\n";
    else
      o << "  race: program " << format_program(x.program) << " loads or stores " << element << " without an atomic, which "
        << first << " accesses atomically (the access at " << at << ")\n";
  }
  if (race_count > static_cast<std::int64_t>(races.size()))
    o << "  ... " << (race_count - static_cast<std::int64_t>(races.size())) << " more races\n";
  for (const auto& n : alias_notes)
    if (race_count) o << "  note: " << n << '\n';
  for (const auto& h : hangs) {
    o << "  hang: program " << format_program(h.program) << " waits in " << h.op << " at " << h.where.file << ':'
      << h.where.line << " on element " << h.offset << " of buffer '" << h.buffer << "': ";
    if (h.spins == 0)  // the GPU's atomic_poll without a time budget, which gave up
      o << "it polled without a time budget for " << h.seconds << " s\n";
    else
      o << h.spins << " atomics in a row returned the same values, and no program of the launch wrote to memory, for "
        << h.seconds << " s\n";
  }
  if (hang_count > static_cast<std::int64_t>(hangs.size()))
    o << "  ... " << (hang_count - static_cast<std::int64_t>(hangs.size())) << " more waiting programs\n";
  if (hang_count) {
    o << "  note: ";
    if (hang_threads == 0) {
      o << "on the GPU (TL_DEVICE_CHECKS=1) each program spun that long (launch_options::hang_timeout_ms)";
    } else {
      if (unstarted_count) {
        o << unstarted_count << " program(s) had not started: ";
        for (std::size_t i = 0; i < unstarted.size(); ++i)
          o << (i ? ", " : "") << '(' << unstarted[i][0] << ", " << unstarted[i][1] << ", " << unstarted[i][2] << ')';
        if (unstarted_count > static_cast<std::int64_t>(unstarted.size())) o << ", ...";
        o << "; ";
      } else {
        o << "every program had started; ";
      }
      if (hang_threads == 1)
        o << "the programs ran one at a time (sequential, or one host thread), so a wait for another program's "
             "write cannot end";
      else
        o << "the programs ran on " << hang_threads << " host threads, all of them busy waiting";
    }
    o << ". A wait for another program ends only if that program runs at the same time: on a GPU, if it is "
         "resident beside the waiting one (or ran before it); on the CPU backend, if a host thread is free for it "
         "(launch_options::threads)\n";
  }
  if (race_unchecked)
    o << "  note: " << race_unchecked << " access(es) not checked for races (the GPU's race table was full)\n";
  if (idle_count) o << "  note: " << idle_note(*this) << '\n';
  for (const auto& u : unwritten) o << (unwritten_fails ? "  " : "  note: ") << u << '\n';
  if (!hints.empty()) {
    hint_notes();
    o << '\n';
  }
  return o.str();
}
#endif  // TL_RUNTIME_DEFINITIONS

// Thrown by a launch whose programs made invalid accesses or failed an assertion
// (unless the launch asked to collect the report instead). what() is the full report.
class launch_error : public std::runtime_error {
 public:
  explicit launch_error(launch_report r) : std::runtime_error(r.str()), report_(std::move(r)) {}
  const launch_report& report() const { return report_; }

 private:
  launch_report report_;
};

// Thrown before anything runs when a launch is malformed (grid, arguments, options).
class usage_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace tl
