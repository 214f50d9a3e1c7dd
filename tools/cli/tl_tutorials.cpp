// tl-tutorials: run and check Triton's tutorials written in tl (examples/tutorials;
// checker_cli.cpp has the commands).
#include "checker_cli.hpp"
#include "tutorials.hpp"

int main(int argc, char** argv) {
  return checker::main(argc, argv,
                       {.name = "tl-tutorials",
                        .noun = "tutorial",
                        .description = "tl-tutorials: Triton's tutorials, written in tl as Triton writes them, checked "
                                       "against their specs",
                        .which_help = "A tutorial number (1, 2, 3, ...) or an id such as 03/leaky_relu",
                        .sizes_example = "M=100,N=70,K=90",
                        .blocks_example = "BLOCK_SIZE_M=64,BLOCK_SIZE_N=64",
                        .all = tutorials::all});
}
