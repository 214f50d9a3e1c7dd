// Built against an installed tl with its runtime compiled once (tl_add_compiled_runtime): a
// launch that succeeds, and one whose invalid store the report names.
#include <cstdio>
#include <string>
#include <vector>

#include <tl/kernel.hpp>

template <int B>
TL_KERNEL void add_one(tl::ptr<const float> x, tl::ptr<float> z, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(z + offs, tl::load(x + offs, offs < n) + 1.0f, offs < n);
}

int main() {
  const int n = 100;
  std::vector<float> x(n, 1.0f), z(n, -1.0f);
  tl::launch<add_one<32>>(tl::grid(tl::cdiv(n, 32)), tl::ptr(x, "x"), tl::ptr(z, "z"), n);
  for (float v : z)
    if (v != 2.0f) return std::puts("consumer (compiled runtime): wrong result"), 1;
  // One element too many: the store past the end is reported, not made.
  const tl::launch_report r = tl::launch<add_one<32>>(tl::grid(tl::cdiv(n, 32)), {.failure = tl::on_failure::collect},
                                                      tl::ptr(x, "x"), tl::ptr(z, "z"), n + 1);
  if (r.ok() || r.str().find("buffer 'z'") == std::string::npos)
    return std::puts("consumer (compiled runtime): the invalid access was not reported"), 1;
  std::puts("consumer (compiled runtime): ok");
}
