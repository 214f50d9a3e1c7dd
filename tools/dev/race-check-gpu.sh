#!/usr/bin/env bash
# GPU race detection measured, on a machine with a GPU (docs/11-reliability.md):
#   two builds of tl-race-survey, tl-puzzles and tl-tutorials for one architecture:
#     checked  the puzzles and tutorials with TL_DEVICE_CHECKS=1 (TL_TUTORIALS_DEVICE_CHECKS)
#     plain    no kernel checked (TL_PUZZLES_DEVICE_CHECKS=OFF): the baseline time
#   then: the planted races on the GPU, the puzzles and tutorials checked with random sizes
#   (no false report), and the cost table of each build.
#     tools/dev/race-check-gpu.sh build [root]   configures and builds (in the background when
#                                                TL_BACKGROUND=1; `wait` waits for it)
#     tools/dev/race-check-gpu.sh wait [root]    waits for a background build
#     tools/dev/race-check-gpu.sh run [root]     runs the checks and the tables
set -uo pipefail
self=$(realpath "$0")
stage=${1:-all}
root=$(realpath -m "${2:-/tmp/race-check}")
cd "$(dirname "$self")/../.."
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -1 | tr -d .)
arch=${TL_CUDA_ARCHS:-native}
[ "$cap" = 90 ] && arch=${TL_CUDA_ARCHS:-90a}
targets=(tl-race-survey tl-puzzles tl-tutorials)
prefix=()
[ -d .deps/prefix ] && prefix=(-DCMAKE_PREFIX_PATH="$PWD/.deps/prefix")  # tools/dev/bundle-deps.sh
build_all() {
  mkdir -p "$root"
  cmake -S . -B "$root/checked" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTL_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" \
    -DTL_TUTORIALS_DEVICE_CHECKS=ON "${prefix[@]}" > "$root/configure-checked.log" 2>&1 &&
    cmake -S . -B "$root/plain" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTL_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" \
      -DTL_PUZZLES_DEVICE_CHECKS=OFF "${prefix[@]}" > "$root/configure-plain.log" 2>&1 || { echo configure failed; echo 1 > "$root/built"; return 1; }
  local t0=$SECONDS
  cmake --build "$root/checked" -j "$(nproc)" --target "${targets[@]}" > "$root/build-checked.log" 2>&1 &
  local a=$!
  cmake --build "$root/plain" -j "$(nproc)" --target "${targets[@]}" > "$root/build-plain.log" 2>&1
  local b=$?
  wait $a
  local rc=$(($? | b))
  echo "builds: rc $rc, $((SECONDS - t0)) s"
  echo "$rc" > "$root/built"
  return $rc
}
wait_build() {
  for _ in $(seq 580); do [ -f "$root/built" ] && break; sleep 1; done
  [ -f "$root/built" ] || { echo "still building"; tail -2 "$root"/build-*.log; return 1; }
  [ "$(cat "$root/built")" = 0 ] || { tail -30 "$root"/build-*.log; return 1; }
}
run_all() {
  local c=$root/checked/tools p=$root/plain/tools status=0
  echo "==== planted races, GPU"; "$root/checked/tests/drivers/tl-race-survey" planted --backend cuda || status=1
  echo "==== planted races, CPU"; "$root/checked/tests/drivers/tl-race-survey" planted || status=1
  echo "==== puzzles, checked, GPU, +8 random sizes"; "$c/tl-puzzles" check all --backend cuda --random 8 --seed 3 | tail -3 || status=1
  echo "==== tutorials, checked, GPU, +8 random sizes"; "$c/tl-tutorials" check all --backend cuda --random 8 --seed 3 | tail -3 || status=1
  echo "==== cost: checked build"; "$root/checked/tests/drivers/tl-race-survey" cost --backend cuda --reps 7 || status=1
  echo "==== cost: plain build (no checks)"; "$root/plain/tests/drivers/tl-race-survey" cost --backend cuda --reps 7 || status=1
  return $status
}
case $stage in
  build)
    if [ "${TL_BACKGROUND:-0}" = 1 ]; then
      rm -f "$root/built"; mkdir -p "$root"
      setsid nohup bash "$self" build-now "$root" > "$root/build.out" 2>&1 < /dev/null &
      echo "building in the background ($root/build.out)"
    else build_all; fi ;;
  build-now) build_all ;;
  wait) wait_build ;;
  run) run_all ;;
  all) build_all && run_all ;;
esac
