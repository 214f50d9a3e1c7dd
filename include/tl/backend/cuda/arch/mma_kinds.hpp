// tl/backend/cuda/arch/mma_kinds.hpp: the tensor-core input kinds a dot can run on, with the k of
// one instruction (mma.sync's m16n8k and wgmma's m64nNk alike) and whether mma.sync has them
// (the 8-bit floats run on wgmma only: elsewhere their dots take the FMA lowering).
#pragma once

namespace tl::detail::cuda {

struct mma_f16 {
  static constexpr int k = 16;
  static constexpr bool sync = true;
};
struct mma_bf16 {
  static constexpr int k = 16;
  static constexpr bool sync = true;
};
struct mma_tf32 {
  static constexpr int k = 8;
  static constexpr bool sync = true;
};
struct mma_e4m3 {  // float8e4nv
  static constexpr int k = 32;
  static constexpr bool sync = false;
};
struct mma_e5m2 {  // float8e5
  static constexpr int k = 32;
  static constexpr bool sync = false;
};

}  // namespace tl::detail::cuda
