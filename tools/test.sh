#!/usr/bin/env bash
# Runs the whole test suite: installs missing Debian packages, builds everything (warnings
# are errors) and runs CTest: the op tests, the launch and access checks, the puzzles at
# puzzle and random sizes, the compile-fail catalogue, the differential tests, the
# install/consumer test, and the GPU part; then the CPU suite again under AddressSanitizer and
# UndefinedBehaviorSanitizer (tools/sanitize.sh). The CUDA targets are always built (for sm_80,
# the mma.sync dot, and sm_90a, the wgmma dot), with nvcc from the CUDA Toolkit, so nothing that
# breaks the GPU build passes; on a machine without a GPU they are compiled as a check (PTX, and
# one unit in full) and the GPU tests are reported as skipped. TL_CUDA=OFF tools/test.sh
# runs without nvcc (CPU only).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh --tests
if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
cuda=${TL_CUDA:-ON}
has_gpu=1
nvidia-smi -L > /dev/null 2>&1 || has_gpu=0
# With a GPU here: the project's architectures in full, so that the GPU tests run on it.
# Without one, device code cannot run, only be checked: PTX, the device optimizer off
# (TL_CUDA_CHECK_ONLY; one unit still in full, so that ptxas assembles the lowerings), the GPU
# tests for sm_90a alone.
gpu_tests_archs=
check_only=OFF
[ "$has_gpu" = 1 ] || { gpu_tests_archs=90a-virtual; check_only=ON; }
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTL_WERROR=ON -DTL_CUDA="$cuda" \
  -DCMAKE_CUDA_ARCHITECTURES="80;90a" -DTL_GPU_TESTS_ARCHITECTURES="$gpu_tests_archs" -DTL_CUDA_CHECK_ONLY="$check_only"
cmake --build build
if [ "$cuda" = "OFF" ]; then
  echo "tl: TL_CUDA=OFF: the CUDA backend was not built and the GPU tests do not exist in this build (skipped)"
elif [ "$has_gpu" = 0 ]; then
  echo "tl: no GPU on this machine: the CUDA code was compiled as a check (PTX; one unit in full), the GPU"
  echo "tl: tests for sm_90a, and they are reported as skipped;"
  echo "tl: tools/gpu-check.sh runs them (and compute-sanitizer) on a machine with a GPU"
fi
ctest --test-dir build --output-on-failure -j "$(nproc)"
# The CPU suite once more under AddressSanitizer and UndefinedBehaviorSanitizer.
tools/sanitize.sh build-sanitize
