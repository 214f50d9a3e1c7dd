// compile-time.sh: puzzle 11's kernel in fp16 at its bench blocks (128 x 128 x 64; the wgmma dot
// on sm_90a) alone, as tl-bench launches it.
#include "p11_matmul.hpp"

tl::launch_report matmul(tl::ptr<tl::fp16> x, tl::ptr<tl::fp16> y, tl::ptr<float> z, int n, const tl::launch_options& o) {
  return tl::launch<dot_kernel<128, 128, 1, 64, tl::fp16, tl::ieee>>(tl::grid(tl::cdiv(n, 128), tl::cdiv(n, 128), 1), o,
                                                                    x, y, z, n, n, 1, n);
}
