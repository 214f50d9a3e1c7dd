// cause: kernel_parameter_cannot_be_passed; sum_into; (, 0,|Index=0); std::vector<float
// expect: a kernel parameter a program cannot receive
// A kernel taking a std::vector: the GPU receives arguments as bytes, so it takes a tl::ptr.
#include <tl/kernel.hpp>
#include <vector>
#ifdef TL_COMPILE_FAIL
void sum_into(std::vector<float> x, tl::ptr<float> z) {
  tl::store(z, x.empty() ? 0.0f : x[0]);
}
#else
void sum_into(tl::ptr<const float> x, tl::ptr<float> z) {
  tl::store(z, tl::load(x));
}
#endif
int main() {
  std::vector<float> x(4, 1.0f), z(1);
  tl::launch<sum_into>(tl::grid(1), x, z);
}
