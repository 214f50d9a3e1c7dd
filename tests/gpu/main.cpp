// The GPU tests' main: without a CUDA device every test is skipped (exit code 77, which CTest
// shows as "Skipped"), with the reason printed.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  bool listing = false;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--list", 6) == 0) listing = true;
  if (!listing) {
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
      std::printf("SKIPPED: no CUDA device here (%s); the GPU tests run where there is one: tools/gpu-check.sh\n",
                  e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
      return 77;
    }
  }
  return Catch::Session().run(argc, argv);
}
