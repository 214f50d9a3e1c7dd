// cause: assigned_type_differs; float; tl::fp16
// expect: another element type than the block
// A float32 accumulator given a float16 result: the conversion must be written.
#include <tl/kernel.hpp>
int main() {
  tl::block<float, 16> acc = tl::zeros<16>(tl::float32);
  auto h = tl::zeros<16>(tl::float16);
#ifdef TL_COMPILE_FAIL
  acc = h;
#else
  acc = h.to(tl::float32);
#endif
}
