#!/usr/bin/env bash
# The conformance suite: tl against Triton, bit for bit, on edge-case inputs (cases.py).
# On a machine with an NVIDIA GPU, nvcc, and python3 with torch and triton:
#   tools/conformance/run.sh [DIR]
# builds tl_conformance (the tl side, for the CPU and the CUDA backend) with nvcc, writes every
# case's inputs and Triton's outputs into DIR (default /tmp/tl-conformance), runs the tl side on
# both backends, and prints the table (markdown) of tl-CPU vs Triton, tl-GPU vs Triton and
# tl-CPU vs tl-GPU. TL_CONFORMANCE_ARCH sets nvcc's -arch (default sm_90a).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/tl-conformance}
mkdir -p "$out"
nvcc -std=c++20 -O2 -x cu -arch="${TL_CONFORMANCE_ARCH:-sm_90a}" --expt-relaxed-constexpr -I"$here/../../include" \
  "$here/tl_conformance.cu" -o "$out/tl_conformance"
cd "$here"
python3 conformance.py triton "$out"
"$out/tl_conformance" "$out"
python3 conformance.py table "$out"
