// cause: mask_must_be_boolean; (<int, false>|Type=int)
// expect: the mask must be a boolean block
// The offsets passed as the mask: a mask is a comparison such as offs < n.
#include <tl/kernel.hpp>
int main() {
  float data[8] = {};
  tl::ptr<float> p(data, 8);
  auto offs = tl::arange<0, 8>();
#ifdef TL_COMPILE_FAIL
  auto x = tl::load(p + offs, offs);
#else
  auto x = tl::load(p + offs, offs < 8);
#endif
  (void)x;
}
