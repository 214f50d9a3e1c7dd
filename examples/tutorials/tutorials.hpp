// Triton's tutorials written in tl, as checked kernels: each tNN_*.hpp holds a kernel written
// line for line as its Triton tutorial writes it, each tNN_*.cpp its spec (plain loops in double
// precision) and how the checker runs it, through the puzzles' harness (examples/puzzles/
// harness.hpp): the same inputs, poisoned outputs, reports and exit codes as tl-puzzles.
#pragma once

#include <algorithm>
#include <vector>

#include "harness.hpp"

namespace tutorials {

const std::vector<puzzles::puzzle>& all();

// The sizes and constexprs of a tutorial live in the harness' fields under the tutorial's own
// names (puzzle::size_labels, constexpr_labels).
using puzzles::constexprs;
using puzzles::outcome;
using puzzles::puzzle;
using puzzles::request;
using puzzles::rng;
using puzzles::sizes;

// Counts a kernel's second output (attention's M, the backward's Delta) in its outcome: its
// mismatches and error add up, and when only the second output is wrong the map shows it.
inline void add_second_output(outcome& out, const outcome& second) {
  if (out.mismatches == 0 && second.mismatches > 0) {
    out.shape = second.shape;
    out.yours = second.yours;
    out.spec = second.spec;
  }
  out.mismatches += second.mismatches;
  out.max_abs_error = std::max(out.max_abs_error, second.max_abs_error);
}

}  // namespace tutorials
