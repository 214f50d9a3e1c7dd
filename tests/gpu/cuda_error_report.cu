// A kernel that faults on the GPU (a store far outside its buffer, through a pointer of
// unknown size, with device checks off): the tl::cuda_error must name the failing call, CUDA's
// reason, the kernel and its launch configuration. The fault ends the process's CUDA context,
// so this is its own program (a CTest test), not a case of tl_gpu_tests. Exit 77: no GPU.
#include <tl/tl.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

template <int B>
TL_KERNEL void store_far_away(tl::ptr<float> z) {
  const std::int64_t far = std::int64_t(1) << 40;  // elements: far outside any allocation
  tl::store(z + far + tl::program_id(0) * B + tl::arange<0, B>(), 1.0f);
}

int main() {
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device here (%s); tools/gpu-check.sh runs this where there is one\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return 77;
  }
  float* z = nullptr;
  TL_CUDA_CHECK(cudaMalloc(&z, 1024 * sizeof(float)));
  try {
    tl::launch<store_far_away<128>>(tl::grid(3, 2), {.backend = tl::backend::cuda}, tl::ptr<float>(z));
    std::printf("FAILED: the launch should have raised tl::cuda_error\n");
    return 1;
  } catch (const tl::cuda_error& error) {
    const std::string what = error.what();
    std::printf("tl::cuda_error: %s\n", what.c_str());
    const char* expected[] = {"running the kernel failed",
                              "an illegal memory access was encountered (cudaErrorIllegalAddress)",
                              "kernel store_far_away<128>",
                              "grid (3, 2, 1)",
                              "4 warps (128 threads)",
                              "stream 0 (the default stream)",
                              "0 bytes of dynamic shared memory",
                              "TL_DEVICE_CHECKS=1 or the CPU backend names invalid accesses"};
    int missing = 0;
    for (const char* text : expected)
      if (what.find(text) == std::string::npos) {
        std::printf("FAILED: the message does not say \"%s\"\n", text);
        ++missing;
      }
    if (error.code() != int(cudaErrorIllegalAddress)) {
      std::printf("FAILED: code %d, not cudaErrorIllegalAddress\n", error.code());
      ++missing;
    }
    if (missing) return 1;
    std::printf("PASSED: the CUDA error names the call, the reason, the kernel and its launch configuration\n");
    return 0;
  }
}
