// Tutorial 06, the attention backward at head dim 128: 8 warps a program (TL_NUM_WARPS=8,
// CMakeLists.txt), since with 4, as the tutorial launches it, dk and dv (two 128 x 128 float32
// accumulators) do not fit a thread's registers and the kernel spills; its kernel inlined into
// the entry point (TL_INLINE_KERNELS=1: otherwise ptxas serializes its wgmma, warning C7510).
// Head dim 64: entries_attention_bwd64.cu.
#include <stdexcept>

#include "attention_bwd.hpp"
#include "tl_tutorial_kernels.hpp"

using namespace tutorial_entries;

extern "C" int tl_tutorials_attention_bwd(const void* q, const void* arg_k, const void* v, float sm_scale, const void* o,
                                          const void* dout, void* dq, void* dk, void* dv, const void* m, void* delta, int Z,
                                          int H, int n_ctx, int head_dim, void* stream) {
  return guarded([&] {
    if (n_ctx % 128 != 0) throw std::invalid_argument("attention backward: N_CTX must be a multiple of 128");
    if (head_dim == 64)  // entries_attention_bwd64.cu
      attention_bwd_d64_4warps(q, arg_k, v, sm_scale, o, dout, dq, dk, dv, m, delta, Z, H, n_ctx, stream);
    else if (head_dim == 128) attention_bwd<128>(q, arg_k, v, sm_scale, o, dout, dq, dk, dv, m, delta, Z, H, n_ctx, stream);
    else throw std::invalid_argument("attention backward: HEAD_DIM 64 or 128");
  });
}
