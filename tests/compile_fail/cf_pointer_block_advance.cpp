// cause: pointer_block_advances_by_an_integer
// expect: a block of pointers advances by an integer
// `ptrs += offsets` with a block of offsets: a block of pointers moves by one integer at a time.
#include <tl/kernel.hpp>
int main() {
  float data[64] = {};
  tl::ptr<float> base(data);
  auto offsets = tl::arange<0, 32>();
  auto ptrs = base + offsets;
#ifdef TL_COMPILE_FAIL
  ptrs += offsets;
#else
  ptrs += 32;
#endif
  (void)ptrs;
}
