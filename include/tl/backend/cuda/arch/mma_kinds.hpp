// tl/backend/cuda/arch/mma_kinds.hpp: the tensor-core input kinds a dot can run on, with the k of
// one instruction (mma.sync's m16n8k and wgmma's m64nNk alike).
#pragma once

namespace tl::detail::cuda {

struct mma_f16 {
  static constexpr int k = 16;
};
struct mma_bf16 {
  static constexpr int k = 16;
};
struct mma_tf32 {
  static constexpr int k = 8;
};

}  // namespace tl::detail::cuda
