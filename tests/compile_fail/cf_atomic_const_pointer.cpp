// cause: atomic_through_pointer_to_const; const float
// expect: the pointer block points to const elements
// An atomic_add through a tl::ptr<const float> (an input buffer).
#include <tl/kernel.hpp>
#include <vector>
int main() {
  std::vector<float> v(4);
#ifdef TL_COMPILE_FAIL
  tl::ptr<const float> p(v, "v");
#else
  tl::ptr<float> p(v, "v");
#endif
  auto old = tl::atomic_add(p + tl::arange<0, 4>(), 1.0f);
  (void)old;
}
