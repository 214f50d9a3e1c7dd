// cause: map_function_does_not_fit
// expect: tl::map_elementwise: the function must take one value of each operand's element type
// A function that captures (Triton's scalar_fn is a jit function; a tl one is a lambda without captures).
#include <tl/kernel.hpp>
int main() {
  auto x = tl::zeros<4, 8>(tl::float32);
  float scale = 2;
#ifdef TL_COMPILE_FAIL
  auto y = tl::map_elementwise([scale](float a) { return a * scale; }, x);
#else
  auto y = tl::map_elementwise([](float a, float s) { return a * s; }, x, scale);
#endif
  (void)y;
}
