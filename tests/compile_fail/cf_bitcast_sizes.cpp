// cause: bitcast_needs_equal_sizes; (tl::fp16|short|int16); float
// expect: reinterprets bits, so both element types must have the same size
// Reinterpreting float32 bits as float16.
#include <tl/kernel.hpp>
int main() {
  auto x = tl::zeros<8>(tl::float32);
#ifdef TL_COMPILE_FAIL
  auto b = x.to(tl::float16, tl::bitcast);
#else
  auto b = x.to(tl::int32, tl::bitcast);
#endif
  (void)b;
}
