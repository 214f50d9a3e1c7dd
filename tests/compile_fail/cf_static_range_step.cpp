// cause: static_range_step_is_zero; (0, false|Step=0)
// expect: the step is 0
// A static_range whose step is 0 would never end.
#include <tl/kernel.hpp>
int main() {
  int n = 0;
#ifdef TL_COMPILE_FAIL
  tl::static_range<0, 4, 0>([&](auto i) { n += i; });
#else
  tl::static_range<0, 4, 1>([&](auto i) { n += i; });
#endif
  return n == 6 ? 0 : 1;
}
