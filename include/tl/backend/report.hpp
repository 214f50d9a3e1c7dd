// tl/backend/report.hpp: what a launch (CPU or CUDA) found wrong, and how it is printed.
#pragma once

#include <cstdint>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../config.hpp"

namespace tl {

enum class access_kind { load, store };

inline const char* to_string(access_kind k) { return k == access_kind::load ? "load" : "store"; }

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

// Everything a launch reports. Invalid accesses are sorted by program id, then by line.
struct launch_report {
  std::string kernel;
  int grid[3] = {1, 1, 1};
  std::vector<invalid_access> invalid;  // at most max_records kept; counts below are complete
  std::vector<assert_failure> asserts;
  std::int64_t invalid_ops = 0;    // loads/stores with an invalid lane
  std::int64_t invalid_lanes = 0;  // lanes in all of them
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

  bool ok() const { return invalid_ops == 0 && asserts.empty(); }
  explicit operator bool() const { return ok(); }
  std::string str() const;
};

inline std::string format_lane(const invalid_lane& l) {
  std::ostringstream o;
  o << '(';
  for (int i = 0; i < l.rank; ++i) o << (i ? ", " : "") << l.index[i];
  o << ')';
  return o.str();
}

// Two lines: which program, op, line and buffer; then the first offending lanes.
inline std::string format_access(const invalid_access& a) {
  std::ostringstream o;
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

inline std::string launch_report::str() const {
  std::ostringstream o;
  if (ok()) {
    o << kernel << ": ok";
    return o.str();
  }
  o << kernel << " on grid (" << grid[0] << ", " << grid[1] << ", " << grid[2] << "): ";
  if (invalid_ops) o << invalid_ops << " invalid load/store op(s), " << invalid_lanes << " invalid lane(s)";
  if (invalid_ops && !asserts.empty()) o << "; ";
  if (!asserts.empty()) o << asserts.size() << " failed device_assert(s)";
  o << '\n';
  for (const auto& a : invalid) o << "  " << format_access(a) << '\n';
  if (invalid_ops > static_cast<std::int64_t>(invalid.size()))
    o << "  ... " << (invalid_ops - static_cast<std::int64_t>(invalid.size())) << " more\n";
  for (const auto& f : asserts)
    o << "  program (" << f.program[0] << ", " << f.program[1] << ", " << f.program[2]
      << "): device_assert failed at " << f.where.file << ':' << f.where.line << ": " << f.message << " ("
      << f.failing_lanes << " lane(s))\n";
  return o.str();
}

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
