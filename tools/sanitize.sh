#!/usr/bin/env bash
# The CPU test suite under AddressSanitizer and UndefinedBehaviorSanitizer: a CPU-only build
# (TL_SANITIZE=address,undefined, any finding fatal) of the test binary, the puzzle runner,
# the differential tester, the fuzz harness (for 5 s) and the guide's examples, each run in
# full. Exits non-zero on any finding, with the sanitizer's report.
#   tools/sanitize.sh [build-dir]      (default build-sanitize)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-sanitize}
# Warnings are not errors here: with -fsanitize, g++ 12 raises false -Wmaybe-uninitialized in
# the standard library (std::regex); the main build (tools/test.sh) keeps -Werror.
# -O0 (assertions on): the quickest to build, and the sanitizers find at least as much in
# unoptimized code; the runs take longer, far less than the build saves (docs/performance.md).
mkdir -p "$build"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O0 -DTL_CUDA=OFF -DTL_WERROR=OFF \
  -DTL_SANITIZE=address,undefined > "$build/configure.log" || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" --target tl_tests tl-puzzles tl-difftest tl-guide tl-intro tl-fuzz
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# The runs are independent: they run side by side (one machine's cores), each into its own log,
# printed in order once all are done; any failure is fatal.
logs=$build/sanitized-runs
rm -rf "$logs" && mkdir -p "$logs"
runs=()
run() {
  local log=$logs/${#runs[@]}.log
  runs+=("$*")
  { echo "==== sanitized: $*"; "$@"; } > "$log" 2>&1 &
}
run "$build/tests/tl_tests"
run "$build/tools/tl-puzzles" check all --random 4
run "$build/tests/drivers/tl-difftest" --seed 3 --cases 3400
run "$build/tests/drivers/tl-fuzz" --seed 3 --seconds 5
run "$build/examples/guide/tl-guide" all -o "$build/chelsea-grey.png"
run bash -c "for demo in 1 2 3 4; do '$build/examples/intro/tl-intro' \$demo > /dev/null || exit 1; done"
failed=0
for i in "${!runs[@]}"; do
  wait -n || failed=1
done
for i in "${!runs[@]}"; do cat "$logs/$i.log"; done
if [ "$failed" != 0 ]; then
  echo "tl: a run failed under AddressSanitizer or UndefinedBehaviorSanitizer (its log above)"
  exit 1
fi
echo "tl: the CPU suite passed under AddressSanitizer and UndefinedBehaviorSanitizer"
