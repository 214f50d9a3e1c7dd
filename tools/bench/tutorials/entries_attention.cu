// Tutorial 06, the attention forward and backward (4 warps a program, as the tutorial's backward).
#include <stdexcept>

#include "../../../examples/tutorials/t06_attention_backward.hpp"
#include "../../../examples/tutorials/t06_fused_attention.hpp"
#include "entry.hpp"
#include "tl_tutorial_kernels.hpp"

using namespace tutorial_entries;

namespace {
template <int HD, int BM, int BN, int Stage>
void attention(float sm_scale, void* m, int Z, int H, const void* q, const void* k, const void* v, void* o, int n_ctx,
               void* stream) {
  using T = tl::fp16;
  const std::int64_t n = std::int64_t(Z) * H * n_ctx * HD;
  tl::launch<attn_fwd<HD, BM, BN, Stage>>(tl::grid(n_ctx / BM, Z * H), on(stream), sm_scale,
                                          buffer<float>(m, std::int64_t(Z) * H * n_ctx, "M"), Z, H, buffer<const T>(q, n, "q"),
                                          buffer<const T>(k, n, "k"), buffer<const T>(v, n, "v"), buffer<T>(o, n, "o"), n_ctx);
}
}  // namespace

extern "C" int tl_tutorials_attention_fwd(float sm_scale, void* m, int Z, int H, const void* q, const void* k, const void* v,
                                          void* o, int n_ctx, int head_dim, int causal, void* stream) {
  return guarded([&] {
    if (n_ctx % 64 != 0) throw std::invalid_argument("attention: N_CTX must be a multiple of 64");
    if (head_dim == 64 && causal) attention<64, 64, 64, 3>(sm_scale, m, Z, H, q, k, v, o, n_ctx, stream);
    else if (head_dim == 64) attention<64, 64, 64, 1>(sm_scale, m, Z, H, q, k, v, o, n_ctx, stream);
    else if (head_dim == 128 && causal) attention<128, 64, 64, 3>(sm_scale, m, Z, H, q, k, v, o, n_ctx, stream);
    else if (head_dim == 128) attention<128, 64, 64, 1>(sm_scale, m, Z, H, q, k, v, o, n_ctx, stream);
    else throw std::invalid_argument("attention: HEAD_DIM 64 or 128");
  });
}

namespace {
template <int HD>
void attention_bwd(const void* q, const void* arg_k, const void* v, float sm_scale, const void* o, const void* dout,
                   void* dq, void* dk, void* dv, const void* m, void* delta, int Z, int H, int n_ctx, void* stream) {
  using T = tl::fp16;
  constexpr int PRE_BLOCK = 128, BLOCK_M1 = 32, BLOCK_N1 = 128, BLOCK_M2 = 128, BLOCK_N2 = 32, BLK_SLICE_FACTOR = 2;
  const std::int64_t n = std::int64_t(Z) * H * n_ctx * HD, rows = std::int64_t(Z) * H * n_ctx;
  tl::launch<attn_bwd_preprocess<PRE_BLOCK, HD>>(tl::grid(n_ctx / PRE_BLOCK, Z * H), on(stream), buffer<const T>(o, n, "o"),
                                                 buffer<const T>(dout, n, "do"), buffer<float>(delta, rows, "Delta"), Z, H,
                                                 n_ctx);
  tl::launch<attn_bwd<BLOCK_M1, BLOCK_N1, BLOCK_M2, BLOCK_N2, BLK_SLICE_FACTOR, HD>>(
      tl::grid(n_ctx / BLOCK_N1, 1, Z * H), on(stream), buffer<const T>(q, n, "q"), buffer<const T>(arg_k, n, "k"),
      buffer<const T>(v, n, "v"), sm_scale, buffer<const T>(dout, n, "do"), buffer<T>(dq, n, "dq"), buffer<T>(dk, n, "dk"),
      buffer<T>(dv, n, "dv"), buffer<const float>(m, rows, "M"), buffer<const float>(delta, rows, "Delta"),
      H * n_ctx * HD, n_ctx * HD, HD, 1, H, n_ctx);
}
}  // namespace

extern "C" int tl_tutorials_attention_bwd(const void* q, const void* arg_k, const void* v, float sm_scale, const void* o,
                                          const void* dout, void* dq, void* dk, void* dv, const void* m, void* delta, int Z,
                                          int H, int n_ctx, int head_dim, void* stream) {
  return guarded([&] {
    if (n_ctx % 128 != 0) throw std::invalid_argument("attention backward: N_CTX must be a multiple of 128");
    if (head_dim == 64) attention_bwd<64>(q, arg_k, v, sm_scale, o, dout, dq, dk, dv, m, delta, Z, H, n_ctx, stream);
    else if (head_dim == 128) attention_bwd<128>(q, arg_k, v, sm_scale, o, dout, dq, dk, dv, m, delta, Z, H, n_ctx, stream);
    else throw std::invalid_argument("attention backward: HEAD_DIM 64 or 128");
  });
}
