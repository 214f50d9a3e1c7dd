// cause: histogram_bins_not_power_of_two; 10
// expect: the number of bins must be a positive power of two
// Ten bins (Triton's blocks, and so its histograms, have power-of-two sizes).
#include <tl/kernel.hpp>
TL_KERNEL void k(tl::ptr<int> y) {
  auto x = tl::zeros<64>(tl::int32);
#ifdef TL_COMPILE_FAIL
  auto h = tl::histogram<10>(x);
#else
  auto h = tl::histogram<16>(x);
#endif
  tl::store(y + tl::arange<0, 16>(), h);
}
int main() {}
