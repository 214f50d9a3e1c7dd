#!/usr/bin/env bash
# Sets up a fresh machine (installing missing Debian packages), builds tl in Release and
# runs the 12 puzzles on the CPU backend. Exits non-zero if any puzzle fails.
# With an NVIDIA GPU and nvcc, the CUDA backend is built too (for this GPU) and the puzzles
# also run on the GPU; without a GPU the CUDA build is left out (tools/test.sh builds it).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
gpu=0
if command -v nvcc > /dev/null && nvidia-smi -L > /dev/null 2>&1; then gpu=1; fi
if [ $gpu = 1 ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTL_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=native
else
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTL_CUDA=OFF
fi
cmake --build build
build/tools/tl-puzzles check all
if [ $gpu = 1 ]; then build/tools/tl-puzzles check all --backend cuda; fi
