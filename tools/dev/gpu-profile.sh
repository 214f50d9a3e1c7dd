#!/usr/bin/env bash
# Profiles tl-bench cases with Nsight Compute (ncu), on a machine with an NVIDIA GPU:
# builds tl-bench alone, then for each case one launch of its kernel with the sections that
# say where the time goes (speed of light, occupancy, warp stalls, memory, the hottest
# instructions). One report per case in TL_OUT (default: the build directory).
#   tools/dev/gpu-profile.sh [build-dir] CASE...      e.g. tools/dev/gpu-profile.sh build-gpu "11 fp16" 8
# CASE is a tl-bench case id ("11 tf32") or a puzzle number; the kernel profiled is the first
# launch whose demangled name matches TL_PROFILE_KERNEL (default: the puzzle's kernel).
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-gpu}
shift || true
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -1 | tr -d .)
default_archs=native
[ "$cap" = 90 ] && default_archs=90a  # wgmma needs sm_90a (see gpu-check.sh)
archs=${TL_CUDA_ARCHS:-$default_archs}
out=${TL_OUT:-$build}
prefix=()
[ -d .deps/prefix ] && prefix=(-DCMAKE_PREFIX_PATH="$PWD/.deps/prefix")
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTL_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$archs" \
  "${prefix[@]}" > /dev/null || exit 1
cmake --build "$build" --target tl-bench -j "$(nproc)" || exit 1
kernel_of() {  # the puzzle's kernel name, as in examples/puzzles
  case "${1%% *}" in
    2) echo add_mask2_kernel ;; 4) echo add_vec_block_kernel ;; 5) echo mul_relu_block_kernel ;;
    6) echo mul_relu_block_back_kernel ;; 7) echo sum_kernel ;; 8) echo softmax_kernel ;;
    9) echo flashatt_kernel ;; 10) echo conv2d_kernel ;; 11) echo dot_kernel ;; 12) echo quant_dot_kernel ;;
    *) echo . ;;
  esac
}
status=0
for c in "$@"; do
  name=${TL_PROFILE_KERNEL:-$(kernel_of "$c")}
  file="$out/profile-${c// /-}.txt"
  echo "==== $c (kernel matching $name) -> $file"
  ncu --clock-control none --kernel-name-base demangled -k "regex:$name" -c 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section SourceCounters \
    "$build/tools/bench/tl-bench" --only "$c" --warmup 1 --reps 20 > "$file" 2>&1 || status=1
  grep -E "Duration|Throughput|Registers|Achieved Occupancy|Theoretical Occupancy|Block Limit|Stall|Warp Cycles|Issued Ipc|Bank" "$file" | head -60
done
exit $status
