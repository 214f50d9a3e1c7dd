// tl-guide: the examples of the practitioner's guide to Triton, in tl, each run and checked.
//
//   tl-guide copy                      example 1: the guide's two mistakes, the reports that
//                                      name them (CPU backend), and the right kernel
//   tl-guide grey [--image F] [-o F]   example 2: a PNG photo to greyscale
//   tl-guide matmul [--size N]         examples 3 and 4: naive, swizzle2d, grouped, autotuned
//   tl-guide all                       all three
//   ... --backend cuda                 on the GPU (a CUDA build)
// Exit status 0 when every check passed.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "cli_numbers.hpp"
#include "tl_guide_examples.hpp"

namespace guide {
namespace {
int failures = 0;
}  // namespace

void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "  [ok]  " : "  [FAIL]", what.c_str());
  if (!ok) ++failures;
}

std::string join(const std::vector<int>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

}  // namespace guide

int main(int argc, char** argv) {
  using namespace guide;
  CLI::App app{"tl-guide: the practitioner's guide to Triton's examples, in tl"};
  std::string which = "all", backend = "cpu", image = TL_GUIDE_IMAGE, out = "chelsea-grey.png";
  int size = 0;
  app.add_option("example", which, "copy, grey, matmul or all")->check(CLI::IsMember({"copy", "grey", "matmul", "all"}));
  app.add_option("--backend", backend, "cpu or cuda")->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_option("--image", image, "the colour PNG of example 2");
  app.add_option("-o,--output", out, "where example 2 writes the grey PNG");
  tl_cli::add_number(app, "--size", size, "the random matmul's m = n = k (default 512 on the GPU, 128 on the CPU)", 1,
                     16384);
  CLI11_PARSE(app, argc, argv);
  const tl::backend on = backend == "cuda" ? tl::backend::cuda : tl::backend::cpu;
  if (size <= 0) size = on == tl::backend::cuda ? 512 : 128;
  try {
    if (which == "copy" || which == "all") copy_example(on);
    if (which == "grey" || which == "all") grey_example(on, image, out);
    if (which == "matmul" || which == "all") matmul_example(on, size);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tl-guide: %s\n", e.what());
    return 2;
  }
  std::printf("%s\n", failures ? (std::to_string(failures) + " check(s) failed").c_str() : "all checks passed");
  return failures ? 1 : 0;
}
