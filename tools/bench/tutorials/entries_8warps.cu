// Tutorial 02, tutorial 03 with 8 warps, tutorial 05 beyond 1024 columns, and an RMSNorm (8 warps a program, as tutorial 02
// launches it and as Triton's rule of thumb gives rows of 2048 elements and more: a wide row
// spreads over twice the threads of a 4-warp program).
#include <stdexcept>

#include "../../../examples/tutorials/t02_fused_softmax.hpp"
#include "../../../examples/tutorials/t03_matmul.hpp"
#include "../../../examples/tutorials/t09_persistent_matmul.hpp"
#include "layer_norm.hpp"
#include "rms_norm.hpp"
#include "entry.hpp"
#include "tl_tutorial_kernels.hpp"

using namespace tutorial_entries;

namespace {
template <int BLOCK_SIZE>
void softmax(void* out, const void* in, int in_stride, int out_stride, int rows, int cols, int programs, void* stream) {
  tl::launch<softmax_kernel<BLOCK_SIZE>>(tl::grid(programs), on(stream),
                                         buffer<float>(out, span(rows, cols, out_stride, 1), "output"),
                                         buffer<const float>(in, span(rows, cols, in_stride, 1), "input"), in_stride,
                                         out_stride, rows, cols);
}
}  // namespace

void tutorial_entries::layer_norm_fwd_wide(const void* x, void* y, const void* w, const void* b, void* mean, void* rstd,
                                           int M, int N, float eps, void* stream) {
  tl::dispatch<2048, 4096, 8192, 16384>(tl::next_power_of_2(N), [&](auto BLOCK_SIZE) {
    layer_norm_fwd<BLOCK_SIZE>(x, y, w, b, mean, rstd, M, N, eps, stream);
  });
}

void tutorial_entries::layer_norm_bwd_wide(const void* dy, const void* x, const void* w, const void* mean, const void* rstd,
                                           void* dx, void* partial_dw, void* partial_db, void* locks, void* dw, void* db,
                                           int M, int N, void* stream) {
  tl::dispatch<2048, 4096, 8192, 16384>(tl::next_power_of_2(N), [&](auto BLOCK_SIZE_N) {
    layer_norm_bwd<BLOCK_SIZE_N>(dy, x, w, mean, rstd, dx, partial_dw, partial_db, locks, dw, db, M, N, stream);
  });
}

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
    if (n <= 1024) rms_norm_4warps(x, y, w, rows, n, stride, eps, stream);  // entries_4warps.cu
    else if (n <= 2048) rms_norm<2048>(x, y, w, rows, n, stride, eps, stream);
    else if (n <= 4096) rms_norm<4096>(x, y, w, rows, n, stride, eps, stream);
    else if (n <= 8192) rms_norm<8192>(x, y, w, rows, n, stride, eps, stream);
    else throw std::invalid_argument("rms_norm: n " + std::to_string(n) + " is more than 8192");
  });
}

// Tutorial 03 with Triton's Hopper tile: 128 x 256 x 64, 8 warps (the suite times both tiles,
// as Triton's autotuner tries its configurations, and keeps the faster).
extern "C" int tl_tutorials_matmul_wide(int dtype, const void* a, const void* b, void* c, int M, int N, int K, int sam,
                                        int sak, int sbk, int sbn, int scm, int scn, int act, void* stream) {
  return guarded([&] {
    constexpr int BM = 128, BN = 256, GM = 8;
    auto run = [&]<class T, activation Act, class TC = T>() {
      constexpr int BK = sizeof(T) == 1 ? 128 : 64;  // fp8: as entries_4warps.cu
      tl::launch<matmul_kernel<BM, BN, BK, GM, Act, T, TC>>(
          tl::grid(tl::cdiv(M, BM) * tl::cdiv(N, BN)), on(stream), buffer<const T>(a, span(M, K, sam, sak), "a"),
          buffer<const T>(b, span(K, N, sbk, sbn), "b"), buffer<TC>(c, span(M, N, scm, scn), "c"), M, N, K, sam, sak, sbk,
          sbn, scm, scn);
    };
    if (dtype == 0 && act == 0) run.template operator()<tl::fp16, activation::none>();
    else if (dtype == 0) run.template operator()<tl::fp16, activation::leaky_relu>();
    else if (dtype == 1 && act == 0) run.template operator()<tl::bf16, activation::none>();
    else if (dtype == 1) run.template operator()<tl::bf16, activation::leaky_relu>();
    else if (dtype == 2 && act == 0) run.template operator()<tl::fp8e4nv, activation::none, tl::fp16>();
    else if (dtype == 3 && act == 0) run.template operator()<tl::fp8e5, activation::none, tl::fp16>();
    else throw std::invalid_argument("matmul: dtype " + std::to_string(dtype) + " with activation " + std::to_string(act));
  });
}

// Tutorial 09's descriptor form with Triton's wide Hopper tile: 128 x 256 x 64, 8 warps (the suite
// times both tiles and keeps the faster, as for tutorial 03).
extern "C" int tl_tutorials_matmul_descriptor_persistent_wide(const void* a, const void* b, void* c, int M, int N, int K,
                                                              int num_sms, void* stream) {
  return guarded([&] {
    using T = tl::fp16;
    constexpr int BM = 128, BN = 256, BK = 64, GM = 8;
    const int programs = std::min(num_sms, tl::cdiv(M, BM) * tl::cdiv(N, BN));
    tl::launch<matmul_kernel_descriptor_persistent<BM, BN, BK, GM, T>>(
        tl::grid(programs), on(stream), buffer<const T>(a, std::int64_t(M) * K, "a"),
        buffer<const T>(b, std::int64_t(N) * K, "b"), buffer<T>(c, std::int64_t(M) * N, "c"), M, N, K, programs);
  });
}
