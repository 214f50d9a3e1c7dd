// tl-bench's launches with 8 warps per program (tl_bench_8warps.hpp says which and why).
#if TL_NUM_WARPS != 8
#error "tl_bench_8warps.cu is compiled with TL_NUM_WARPS=8 (tools/CMakeLists.txt)"
#endif
#include "tl_bench_8warps.hpp"

#include "p10_conv2d.hpp"
#include "p11_matmul.hpp"

namespace bench::warps8 {
namespace {
template <class T, int B_MID, auto P>
void p11(tl::ptr<T> x, tl::ptr<T> y, tl::ptr<float> z, int N0, int N1, int N2, int MID, const tl::launch_options& o) {
  tl::launch<dot_kernel<128, 128, 1, B_MID, T, P>>(tl::grid(tl::cdiv(N0, 128), tl::cdiv(N1, 128), N2), o, x, y, z, N0,
                                                   N1, N2, MID);
}
}  // namespace

void p10(tl::ptr<float> x, tl::ptr<float> k, tl::ptr<float> z, int N0, int H, int W, const tl::launch_options& o) {
  tl::launch<conv2d_kernel<4, 4, 32>>(tl::grid(tl::cdiv(N0, 32)), o, x, k, z, N0, H, W);
}

void p11_fp16(tl::ptr<tl::fp16> x, tl::ptr<tl::fp16> y, tl::ptr<float> z, int N0, int N1, int N2, int MID,
              const tl::launch_options& o) {
  p11<tl::fp16, 64, tl::ieee>(x, y, z, N0, N1, N2, MID, o);
}
void p11_tf32(tl::ptr<float> x, tl::ptr<float> y, tl::ptr<float> z, int N0, int N1, int N2, int MID,
              const tl::launch_options& o) {
  p11<float, 32, tl::tf32>(x, y, z, N0, N1, N2, MID, o);
}
void p11_f32(tl::ptr<float> x, tl::ptr<float> y, tl::ptr<float> z, int N0, int N1, int N2, int MID,
             const tl::launch_options& o) {
  p11<float, 32, tl::ieee>(x, y, z, N0, N1, N2, MID, o);
}
}  // namespace bench::warps8
