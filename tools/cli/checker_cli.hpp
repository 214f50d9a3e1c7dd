// The command line that tl-puzzles and tl-tutorials share (checker_cli.cpp): list, check, run
// and draw over a registry of checked kernels (examples/puzzles/harness.hpp's puzzle).
#pragma once

#include <string>
#include <vector>

#include "harness.hpp"

namespace checker {

struct program {
  std::string name;         // "tl-puzzles"
  std::string noun;         // "puzzle": what one entry is called
  std::string description;  // the --help headline
  std::string which_help;   // how to name one entry: "A puzzle number (1-12) or a variant id such as 8/3loop"
  std::string sizes_example, blocks_example;  // "N0=40,N1=30", "B0=16,B1=16"
  const std::vector<puzzles::puzzle>& (*all)();
};

// Parses the command line and runs it; returns the exit code (0 passed, 1 failed, 2 usage).
int main(int argc, char** argv, const program& prog);

}  // namespace checker
