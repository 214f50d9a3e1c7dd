// Tutorial 06, the attention backward at head dim 64: 4 warps a program, as the tutorial launches
// it (faster here than 8), its kernel inlined into the entry point (TL_INLINE_KERNELS=1,
// CMakeLists.txt: otherwise ptxas serializes its wgmma, warning C7510). The C entry and head
// dim 128: entries_attention_bwd.cu.
#include "attention_bwd.hpp"

void attention_bwd_d64_4warps(const void* q, const void* arg_k, const void* v, float sm_scale, const void* o,
                              const void* dout, void* dq, void* dk, void* dv, const void* m, void* delta, int Z, int H,
                              int n_ctx, void* stream) {
  attention_bwd<64>(q, arg_k, v, sm_scale, o, dout, dq, dk, dv, m, delta, Z, H, n_ctx, stream);
}
