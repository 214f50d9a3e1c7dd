#!/usr/bin/env bash
# tl-bench's second suite on a machine with an NVIDIA GPU, nvcc, python3, torch and triton:
# builds tl-tutorials and the tutorials' kernel library (sm_90a on Hopper), checks the tutorials
# on the GPU, then times them beside Triton's tutorial kernels and torch
# (tutorials_vs_triton.py: table on stdout, CSV and SVG in the output directory).
#   tools/bench/tutorials/run.sh [build-dir] [output-dir] [-- tutorials_vs_triton.py options]
set -euo pipefail
cd "$(dirname "$0")/../../.."
build=${1:-build-gpu}
out=${2:-$build}
shift $(( $# > 2 ? 2 : $# ))
[ "${1:-}" = -- ] && shift
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -1 | tr -d .)
archs=${TL_CUDA_ARCHS:-native}
[ "$cap" = 90 ] && archs=${TL_CUDA_ARCHS:-90a}
prefix=()
[ -d .deps/prefix ] && prefix=(-DCMAKE_PREFIX_PATH="$PWD/.deps/prefix")
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTL_CUDA=ON -DTL_CUDA_CHECK_ONLY=OFF -DCMAKE_CUDA_ARCHITECTURES="$archs" \
  "${prefix[@]}" > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target tl-tutorials tl_tutorial_kernels
"$build/tools/tl-tutorials" check all --backend cuda --random 8 --seed 7
mkdir -p "$out"
python3 tools/bench/tutorials/tutorials_vs_triton.py --lib "$build/tools/bench/libtl_tutorial_kernels.so" --out "$out" "$@"
