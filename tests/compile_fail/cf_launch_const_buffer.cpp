// cause: launch_argument_does_not_convert_to_parameter; double_it; (<double_it<128>, 0,|Index=0); const std::vector<float; tl::ptr<float>
// expect: an argument does not convert to the kernel's parameter
// A const vector passed where the kernel takes a tl::ptr<float> it may store through.
#include <tl/kernel.hpp>
#include <vector>
template <int B>
#ifdef TL_COMPILE_FAIL
void double_it(tl::ptr<float> x, tl::ptr<float> z, int n) {
#else
void double_it(tl::ptr<const float> x, tl::ptr<float> z, int n) {
#endif
  auto offs = tl::program_id(0) * B + tl::arange<0, B>();
  tl::store(z + offs, tl::load(x + offs, offs < n) * 2.0f, offs < n);
}
int main() {
  const std::vector<float> x(100, 1.0f);
  std::vector<float> z(100);
  tl::launch<double_it<128>>(tl::grid(1), x, z, 100);
}
