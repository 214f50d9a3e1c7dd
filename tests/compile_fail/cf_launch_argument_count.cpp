// cause: launch_argument_count_differs; add_one; (, 2, 1,|Parameters=2, Arguments=1)
// expect: the number of arguments differs from the kernel's parameters
// The size argument forgotten at the launch.
#include <tl/kernel.hpp>
#include <vector>
void add_one(tl::ptr<float> x, int n) {
  auto offs = tl::arange<0, 64>();
  tl::store(x + offs, tl::load(x + offs, offs < n) + 1.0f, offs < n);
}
int main() {
  std::vector<float> x(64);
#ifdef TL_COMPILE_FAIL
  tl::launch<add_one>(tl::grid(1), x);
#else
  tl::launch<add_one>(tl::grid(1), x, 64);
#endif
}
