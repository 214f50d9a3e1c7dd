// compile-time.sh: puzzle 8's kernel (long softmax, two loops) alone, as tl-bench launches it.
#include "p08_long_softmax.hpp"

tl::launch_report softmax(tl::ptr<float> x, tl::ptr<float> z, int n0, int t, const tl::launch_options& o) {
  return tl::launch<softmax_kernel<1, 1024>>(tl::grid(n0), o, x, z, n0, t);
}
