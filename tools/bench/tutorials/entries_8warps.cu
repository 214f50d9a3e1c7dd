// Tutorial 02 and an RMSNorm (8 warps a program, as tutorial 02 launches it: a wide row
// spreads over twice the threads of a 4-warp program).
#include <stdexcept>

#include "../../../examples/tutorials/t02_fused_softmax.hpp"
#include "entry.hpp"
#include "tl_tutorial_kernels.hpp"

using namespace tutorial_entries;

// RMSNorm, written as tutorial 05 writes its layer norm: one row a program, BLOCK_SIZE the
// next power of two of the row.
template <int BLOCK_SIZE>
TL_KERNEL void rms_norm_fwd(tl::ptr<const tl::fp16> X, tl::ptr<tl::fp16> Y, tl::ptr<const tl::fp16> W, int stride, int N,
                            float eps) {
  auto row = tl::program_id(0);
  auto cols = tl::arange<0, BLOCK_SIZE>();
  auto mask = cols < N;
  auto x = tl::load(X + row * stride + cols, mask, 0.0f).to(tl::float32);
  auto var = tl::sum<0>(x * x) / N;
  auto rstd = 1 / tl::sqrt(var + eps);
  auto w = tl::load(W + cols, mask);
  auto y = x * rstd * w;
  tl::store(Y + row * stride + cols, y, mask);
}

namespace {
template <int BLOCK_SIZE>
void rms_norm(const void* x, void* y, const void* w, int rows, int n, int stride, float eps, void* stream) {
  using T = tl::fp16;
  tl::launch<rms_norm_fwd<BLOCK_SIZE>>(tl::grid(rows), on(stream), buffer<const T>(x, span(rows, n, stride, 1), "x"),
                                       buffer<T>(y, span(rows, n, stride, 1), "y"), buffer<const T>(w, n, "w"), stride, n,
                                       eps);
}
template <int BLOCK_SIZE>
void softmax(void* out, const void* in, int in_stride, int out_stride, int rows, int cols, int programs, void* stream) {
  tl::launch<softmax_kernel<BLOCK_SIZE>>(tl::grid(programs), on(stream),
                                         buffer<float>(out, span(rows, cols, out_stride, 1), "output"),
                                         buffer<const float>(in, span(rows, cols, in_stride, 1), "input"), in_stride,
                                         out_stride, rows, cols);
}
}  // namespace

extern "C" int tl_tutorials_softmax_f32(void* out, const void* in, int in_stride, int out_stride, int rows, int cols,
                                        int programs, void* stream) {
  return guarded([&] {
    if (cols <= 256) softmax<256>(out, in, in_stride, out_stride, rows, cols, programs, stream);
    else if (cols <= 512) softmax<512>(out, in, in_stride, out_stride, rows, cols, programs, stream);
    else if (cols <= 1024) softmax<1024>(out, in, in_stride, out_stride, rows, cols, programs, stream);
    else if (cols <= 2048) softmax<2048>(out, in, in_stride, out_stride, rows, cols, programs, stream);
    else if (cols <= 4096) softmax<4096>(out, in, in_stride, out_stride, rows, cols, programs, stream);
    else if (cols <= 8192) softmax<8192>(out, in, in_stride, out_stride, rows, cols, programs, stream);
    else if (cols <= 16384) softmax<16384>(out, in, in_stride, out_stride, rows, cols, programs, stream);
    else throw std::invalid_argument("softmax: n_cols " + std::to_string(cols) + " is more than 16384");
  });
}

extern "C" int tl_tutorials_rms_norm_f16(const void* x, void* y, const void* w, int rows, int n, int stride, float eps,
                                         void* stream) {
  return guarded([&] {
    if (n <= 1024) rms_norm<1024>(x, y, w, rows, n, stride, eps, stream);
    else if (n <= 2048) rms_norm<2048>(x, y, w, rows, n, stride, eps, stream);
    else if (n <= 4096) rms_norm<4096>(x, y, w, rows, n, stride, eps, stream);
    else if (n <= 8192) rms_norm<8192>(x, y, w, rows, n, stride, eps, stream);
    else throw std::invalid_argument("rms_norm: n " + std::to_string(n) + " is more than 8192");
  });
}
