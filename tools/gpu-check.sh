#!/usr/bin/env bash
# The GPU check, on a machine with an NVIDIA GPU (sm_80 or newer) and nvcc: builds
# everything with the CUDA backend and runs
#   1. the 12 puzzles on the GPU (puzzle sizes, then random sizes and block configurations),
#   2. the whole test suite: the CPU part and the GPU part (every op and every puzzle against
#      the CPU backend on random inputs and sizes, the device checks, the launch errors),
#   3. tl-bench --check: the puzzle kernels at the scaled sizes, checked, then timed against
#      copy bandwidth and cuBLAS (table in the log; CSV and SVG in TL_OUT, default the build dir),
#      and torch's equivalents of puzzles 8, 10 and 12 (tools/bench/puzzles_vs_torch.py, where
#      python3 has torch and triton),
#   4. the practitioner's guide's examples on the GPU (tl-guide), and its matmul benchmark
#      (tl-guide-bench: perf_report sweep against cuBLAS, the autotuner against each config),
#   4b. race detection on the GPU (tl-race-survey): planted races, and its cost on the puzzles
#      (tools/dev/race-check-gpu.sh builds the tutorials checked too),
#   5. differential testing: tl-difftest, seeded random cases of its 42 block programs on both
#      backends against the references (TL_DIFFTEST_CASES, default 6800),
#   6. compute-sanitizer memcheck, racecheck, initcheck and synccheck over every GPU example:
#      the 12 puzzles, the guide's examples and a share of the differential cases (2 per
#      program). (tl-intro and the exercises run on the CPU backend only.)
# Ends with a summary; exits non-zero if anything failed.
#   tools/gpu-check.sh [build-dir]      (CUDA architectures: TL_CUDA_ARCHS, default "native",
#                                        "90a" on Hopper;
#                                        TL_BENCH=0 skips the benchmark, TL_BENCH=only runs
#                                        the build and the benchmarks alone; TL_SANITIZERS=0
#                                        skips step 6, TL_SANITIZERS=only runs the build and
#                                        step 6 alone)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
# Hopper gets its arch-specific target (sm_90a): wgmma and the other sm_90a instructions exist
# only there; "native" would give plain sm_90 and the mma.sync dot.
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -1 | tr -d .)
default_archs=native
[ "$cap" = 90 ] && default_archs=90a
archs=${TL_CUDA_ARCHS:-$default_archs}
prefix=()
[ -d .deps/prefix ] && prefix=(-DCMAKE_PREFIX_PATH="$PWD/.deps/prefix")
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
declare -a summary
status=0
step() {  # step NAME COMMAND...: runs it, records pass/fail and the time
  local name=$1; shift
  local t0=$SECONDS
  echo; echo "==== $name: $*"
  if "$@"; then summary+=("PASS  $name ($((SECONDS - t0)) s)")
  else summary+=("FAIL  $name ($((SECONDS - t0)) s)"); status=1; fi
}

step configure cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTL_CUDA=ON -DTL_CUDA_CHECK_ONLY=OFF -DTL_WERROR=ON \
  -DCMAKE_CUDA_ARCHITECTURES="$archs" "${prefix[@]}"
out=${TL_OUT:-$build}
mkdir -p "$out"
step build bash -c 'cmake --build "$1" -j "$(nproc)" --target all tl_tutorial_kernels 2>&1 | tee "$2"; exit "${PIPESTATUS[0]}"' \
  _ "$build" "$out/build.log"
if [ $status -ne 0 ]; then printf '%s\n' "${summary[@]}"; exit 1; fi
# ptxas' C7510 family: a kernel whose wgmma run one after another (docs/04-cuda-backend.md,
# TL_INLINE_KERNELS). Not a failure; the summary lists what this build compiled with it.
serialized=$(grep -o "(C75[0-9][0-9]) Potential Performance Loss: wgmma[^']*'[^']*'" "$out/build.log" | sort -u)
[ -n "$serialized" ] && summary+=("NOTE  ptxas serialized the wgmma of $(wc -l <<< "$serialized") kernel(s) (C75xx): $out/build.log")
puzzles=$build/tools/tl-puzzles
bench() {
  step "tl-bench --check (scaled sizes)" "$build/tools/bench/tl-bench" --check --out "$out"
  command -v cuobjdump > /dev/null && cuobjdump --dump-resource-usage "$build/tools/bench/tl-bench" > "$out/tl-bench-resources.txt" 2>&1
  # torch's equivalents of puzzles 8, 10 and 12, timed in the same session (where torch is installed).
  if python3 -c "import torch, triton" 2> /dev/null; then
    step "puzzles_vs_torch.py (torch's softmax, convolution, dequantized matmul)" python3 tools/bench/puzzles_vs_torch.py --out "$out"
  else
    summary+=("SKIP  puzzles_vs_torch.py: python3 cannot import torch and triton here")
  fi
  step "tl-guide-bench (guide's matmul sweep, autotuner against hand-picked)" "$build/examples/guide/tl-guide-bench" --out "$out"
}
sanitizers() {
  local tool
  for tool in memcheck racecheck initcheck synccheck; do
    step "compute-sanitizer $tool, 12 puzzles" compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$puzzles" check all --backend cuda
    step "compute-sanitizer $tool, tutorials" compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$build/tools/tl-tutorials" check all --backend cuda
    step "compute-sanitizer $tool, guide examples" compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$build/examples/guide/tl-guide" all --backend cuda --size 128 -o "$out/chelsea-grey-sanitized.png"
    step "compute-sanitizer $tool, differential cases (2 per program)" compute-sanitizer --tool "$tool" \
      --error-exitcode 1 "$build/tests/drivers/tl-difftest" --backend cuda --seed 5 --cases 68
  done
}
if [ "${TL_BENCH:-1}" = only ]; then
  bench
  echo; echo "==== summary"; printf '%s\n' "${summary[@]}"; exit $status
fi
if [ "${TL_SANITIZERS:-1}" = only ]; then
  sanitizers
  echo; echo "==== summary"; printf '%s\n' "${summary[@]}"; exit $status
fi
step "puzzles on the GPU (puzzle sizes)" "$puzzles" check all --backend cuda
step "puzzles on the GPU (+8 random sizes each)" "$puzzles" check all --backend cuda --random 8 --seed 7
step "tutorials on the GPU (+8 random sizes each)" "$build/tools/tl-tutorials" check all --backend cuda --random 8 --seed 7
step "guide examples on the GPU" "$build/examples/guide/tl-guide" all --backend cuda -o "$out/chelsea-grey.png"
step "GPU tests" "$build/tests/gpu/tl_gpu_tests" --order rand --rng-seed 11
step "whole test suite (ctest)" ctest --test-dir "$build" --output-on-failure --no-tests=error -j "$(nproc)"
step "race detection on the GPU: planted races" "$build/tests/drivers/tl-race-survey" planted --backend cuda
step "race detection on the GPU: its cost on the puzzles (checked) and tutorials" "$build/tests/drivers/tl-race-survey" cost \
  --backend cuda --reps 5
step "differential testing (tl-difftest, both backends)" "$build/tests/drivers/tl-difftest" --backend cuda --seed 7 \
  --cases "${TL_DIFFTEST_CASES:-6800}"
[ "${TL_BENCH:-1}" != 0 ] && bench
[ "${TL_SANITIZERS:-1}" != 0 ] && sanitizers

echo; echo "==== summary"
printf '%s\n' "${summary[@]}"
exit $status
