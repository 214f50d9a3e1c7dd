// cause: cannot_broadcast_to_shape; tl::shape<4>; tl::shape<4, 8>
// expect: cannot be broadcast to the requested shape
// A 4-vector broadcast to 4 x 8: it aligns with the last axis (8), not the first.
#include <tl/kernel.hpp>
int main() {
  auto x = tl::zeros<4>(tl::float32);
#ifdef TL_COMPILE_FAIL
  auto b = tl::broadcast_to<4, 8>(x);
#else
  auto b = tl::broadcast_to<4, 8>(x(tl::_, tl::None));
#endif
  (void)b;
}
