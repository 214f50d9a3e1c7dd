// cause: launch_output_is_a_temporary; double_it; (<double_it<128>, 1,|Index=1); std::vector<float
// expect: a temporary container is given for a parameter the kernel may store through
// A temporary vector given as the kernel's output: what the kernel stores would be lost.
#include <tl/kernel.hpp>
#include <vector>
template <int B>
void double_it(tl::ptr<const float> x, tl::ptr<float> z, int n) {
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(z + offs, tl::load(x + offs, offs < n) * 2.0f, offs < n);
}
int main() {
  std::vector<float> z(100);
#ifdef TL_COMPILE_FAIL
  tl::launch<double_it<128>>(tl::grid(1), std::vector<float>(100, 1.0f), std::vector<float>(100), 100);
#else
  tl::launch<double_it<128>>(tl::grid(1), std::vector<float>(100, 1.0f), z, 100);  // a temporary input is fine
#endif
}
