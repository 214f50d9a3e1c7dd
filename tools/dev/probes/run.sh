#!/usr/bin/env bash
# Builds and runs the device probes (on a Hopper GPU): wgmma_probe.cu checks the shared-memory
# layouts and matrix descriptors the wgmma dot relies on. Exits non-zero if a probe fails.
#   tools/dev/probes/run.sh [out-dir]
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-build-probes}
mkdir -p "$out"
if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
nvcc -std=c++20 -O2 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -Iinclude \
  tools/dev/probes/wgmma_probe.cu -o "$out/wgmma_probe"
"$out/wgmma_probe"
