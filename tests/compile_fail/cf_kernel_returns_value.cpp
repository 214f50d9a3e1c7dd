// cause: kernel_must_return_void; float ?\(\*\)\(tl::ptr<const float>\)
// expect: a kernel is a function returning void
// A kernel that returns its result instead of storing it.
#include <tl/kernel.hpp>
#include <vector>
#ifdef TL_COMPILE_FAIL
float first(tl::ptr<const float> x) { return tl::load(x); }
#else
void first(tl::ptr<const float> x) { (void)tl::load(x); }
#endif
int main() {
  std::vector<float> x(4, 1.0f);
  tl::launch<first>(tl::grid(1), x);
}
