// tl/backend/cuda/program.hpp: which program is running on the CUDA backend: one program is
// one thread block, grid axis a is blockIdx's axis a (ops/program.hpp).
#pragma once

#include "../../config.hpp"
#include "../../core/source_location.hpp"
#include "device_report.hpp"

namespace tl::detail::cuda {

#if TL_DEVICE_PASS
// A mistake of the kernel (an axis other than 0, 1, 2; a range step of 0), with
// TL_DEVICE_CHECKS=1: recorded as a failed assertion of the program, with its line. (Every
// thread calls it: the mistake is the same in all of them.)
__device__ inline void report_kernel_mistake(const char* message, const source_location& where) {
  if constexpr (TL_DEVICE_CHECKS) report_assert(thread_id() == 0 ? 1 : 0, message, where);
}
__device__ __forceinline__ int program_id(int axis, const source_location& where = source_location{}) {
  if (axis < 0 || axis > 2) report_kernel_mistake("tl::program_id: the axis must be 0, 1 or 2", where);
  return axis == 0 ? int(blockIdx.x) : axis == 1 ? int(blockIdx.y) : int(blockIdx.z);
}
__device__ __forceinline__ int num_programs(int axis, const source_location& where = source_location{}) {
  if (axis < 0 || axis > 2) report_kernel_mistake("tl::num_programs: the axis must be 0, 1 or 2", where);
  return axis == 0 ? int(gridDim.x) : axis == 1 ? int(gridDim.y) : int(gridDim.z);
}
__device__ inline void range_step_is_zero(const source_location& where) {
  report_kernel_mistake("tl::range: the step is 0; a loop needs a positive or a negative step", where);
}
#endif

}  // namespace tl::detail::cuda
