// cause: arange_length_not_power_of_two; (<0, 6, false>|Start=0, End=6)
// expect: End - Start must be a positive power of two
#include <tl/kernel.hpp>
int main() {
#ifdef TL_COMPILE_FAIL
  auto r = tl::arange<0, 6>();
#else
  auto r = tl::arange<0, 8>();
#endif
  (void)r;
}
