// tl/backend/cuda/error.hpp: every CUDA runtime call is checked; a failure is a tl::cuda_error
// that names the call, where it was made, and CUDA's reason.
#pragma once

#include <stdexcept>
#include <string>

#include "../../config.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

namespace tl {

class cuda_error : public std::runtime_error {
 public:
  cuda_error(const std::string& what, int code) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }  // the cudaError_t

 private:
  int code_;
};

#if defined(__CUDACC__)
namespace detail::cuda {
TL_CUDA_RUNTIME_FN void check_call(cudaError_t e, const char* call, const char* file, int line,
                                   const std::string& context = {});
#if TL_CUDA_RUNTIME_DEFINITIONS
TL_CUDA_RUNTIME_FN void check_call(cudaError_t e, const char* call, const char* file, int line,
                                   const std::string& context) {
  if (e == cudaSuccess) return;
  (void)cudaGetLastError();  // taken: a later, unrelated check must not see it again
  std::string msg = std::string(call) + " failed at " + file + ':' + std::to_string(line) + ": " +
                    cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")";
  if (!context.empty()) msg += "; " + context;
  throw cuda_error(msg, int(e));
}
#endif
}  // namespace detail::cuda

// TL_CUDA_CHECK(cudaMalloc(&p, n)): throws tl::cuda_error naming the call if it fails.
#define TL_CUDA_CHECK(call) ::tl::detail::cuda::check_call((call), #call, __FILE__, __LINE__)
#endif

}  // namespace tl
