// Tutorial 06, the attention forward (4 warps a program; the backward: entries_attention_bwd*.cu).
#include <stdexcept>

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
