// tl-puzzles: run and check the 12 puzzles (checker_cli.cpp has the commands).
#include "checker_cli.hpp"

int main(int argc, char** argv) {
  return checker::main(argc, argv,
                       {.name = "tl-puzzles",
                        .noun = "puzzle",
                        .description = "tl-puzzles: the 12 Triton puzzles, written in tl, checked against their specs",
                        .which_help = "A puzzle number (1-12) or a variant id such as 8/3loop",
                        .sizes_example = "N0=40,N1=30",
                        .blocks_example = "B0=16,B1=16",
                        .all = puzzles::all});
}
