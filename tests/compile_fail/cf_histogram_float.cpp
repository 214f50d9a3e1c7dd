// cause: histogram_needs_integer_values; float
// expect: the values are bin indices, so they must be integers
// A histogram of float values (the bins are integer indices).
#include <tl/tl.hpp>
TL_KERNEL void k(tl::ptr<const float> x, tl::ptr<int> y) {
  auto v = tl::load(x + tl::arange<0, 64>());
#ifdef TL_COMPILE_FAIL
  auto h = tl::histogram<16>(v);
#else
  auto h = tl::histogram<16>((v * 16.0f).to(tl::int32));
#endif
  tl::store(y + tl::arange<0, 16>(), h);
}
int main() {}
