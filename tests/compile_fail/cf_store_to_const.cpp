// cause: store_through_pointer_to_const; const float
// expect: points to const elements
#include <tl/kernel.hpp>
int main() {
  float data[4] = {};
#ifdef TL_COMPILE_FAIL
  tl::ptr<const float> p(data, 4);
#else
  tl::ptr<float> p(data, 4);
#endif
  tl::store(p + tl::arange<0, 4>(), 1.0f);
}
