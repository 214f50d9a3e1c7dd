// tl/backend/cuda/program.hpp: which program is running on the CUDA backend: one program is
// one thread block, grid axis a is blockIdx's axis a (ops/program.hpp).
#pragma once

#include "../../config.hpp"

namespace tl::detail::cuda {

#if TL_DEVICE_PASS
__device__ __forceinline__ int program_id(int axis) {
  return axis == 0 ? int(blockIdx.x) : axis == 1 ? int(blockIdx.y) : int(blockIdx.z);
}
__device__ __forceinline__ int num_programs(int axis) {
  return axis == 0 ? int(gridDim.x) : axis == 1 ? int(gridDim.y) : int(gridDim.z);
}
#endif

}  // namespace tl::detail::cuda
