// How tl-puzzles shows a puzzle's outcome: one result line, and on failure the invalid
// accesses, the first mismatching elements, a map of the output and yours next to the spec.
#pragma once

#include <string>

#include "harness.hpp"

namespace puzzles::report {

// "PASS  puzzle 4  outer vector add block  N0=100 N1=90  B0=32 B1=32  max|err| 3e-08  invalid 0  0.049 ms"
std::string result_line(const puzzle& p, const request& r, const outcome& o);

// Everything a learner needs to find the mistake; empty when the outcome passed.
std::string failure_details(const outcome& o);

// The output as rows x columns (the last axis is the columns): '.' matches, 'X' differs,
// '?' never written. Outputs larger than 32 x 64 are downsampled: a cell is X if any element is.
std::string mismatch_map(const outcome& o);

// The top-left corner (at most 16 x 12) of a row-major output, numbers to 4 decimals.
std::string matrix_corner(const char* name, const std::vector<double>& v, const std::vector<int>& shape);

}  // namespace puzzles::report
