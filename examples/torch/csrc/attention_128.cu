// Tutorial 06's attention forward, HEAD_DIM 128, 4 warps a program, 64 x 64 blocks; STAGE 3
// (the diagonal block masked) when causal, 1 otherwise, as the tutorial launches it.
#define TL_NUM_WARPS 4
#include <tl/tl.hpp>

#include "launchers.hpp"
#include "t06_fused_attention.hpp"

void tl_torch::attention_fwd_128(tl::ptr<const tl::fp16> q, tl::ptr<const tl::fp16> k, tl::ptr<const tl::fp16> v,
                                 tl::ptr<tl::fp16> out, tl::ptr<float> m, int Z, int H, int n_ctx, bool causal,
                                 float sm_scale, tl::launch_options o) {
  const tl::grid g(n_ctx / 64, Z * H);
  if (causal) tl::launch<attn_fwd<128, 64, 64, 3>>(g, o, sm_scale, m, Z, H, q, k, v, out, n_ctx);
  else tl::launch<attn_fwd<128, 64, 64, 1>>(g, o, sm_scale, m, Z, H, q, k, v, out, n_ctx);
}
