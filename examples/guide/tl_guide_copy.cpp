// tl-guide, example 1: copying a tensor, the guide's two mistakes and the right kernel.
#include <cstdio>

#include "copy.hpp"
#include "tl_guide_examples.hpp"

namespace guide {

void copy_example(tl::backend on) {
  std::printf("== example 1: copy a tensor (backend %s)\n", tl::to_string(on));
  const std::vector<int> host{1, 2, 3, 4, 5, 6};
  const tl::buffer<int> x(host, on, "x");

  std::printf("mistake 1, the offsets do not move with the program id (offs = tl::arange<0, bs>()):\n");
  auto [z1, r1] = copy<copy_k_same_offsets<2>, 2>(x);
  std::printf("  z = %s\n  %s\n", join(z1.to_host()).c_str(), r1.str().c_str());
  if (on == tl::backend::cpu) check(r1.race_count > 0, "the CPU backend reports programs storing the same elements");
  check(z1.to_host() != host, "z is not x");

  std::printf("mistake 2, pid * n instead of pid * bs:\n");
  auto [z2, r2] = copy<copy_k_times_n<2>, 2>(x);
  std::printf("  z = %s\n  %s\n", join(z2.to_host()).c_str(), r2.str().c_str());
  if (on == tl::backend::cpu) check(r2.idle_count == 2, "the CPU backend notes the 2 programs that stored nothing");
  check(z2.to_host() != host, "z is not x");

  std::printf("right: offs = pid * bs + tl::arange<0, bs>()\n");
  auto [z3, r3] = copy<copy_k<2>, 2>(x);
  std::printf("  z = %s\n  %s\n", join(z3.to_host()).c_str(), r3.str().c_str());
  check(z3.to_host() == host && r3.ok() && r3.idle_count == 0, "z == x, and the report is clean");
}

}  // namespace guide
