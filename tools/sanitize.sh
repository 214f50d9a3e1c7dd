#!/usr/bin/env bash
# The CPU test suite under AddressSanitizer and UndefinedBehaviorSanitizer: a CPU-only build
# (TL_SANITIZE=address,undefined, any finding fatal) of the test binary, the puzzle runner,
# the differential tester, the fuzz harness (for 5 s) and the guide's examples, each run in
# full. Exits non-zero on the first finding, with the sanitizer's report.
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
run() { echo "==== sanitized: $*"; "$@"; }
run "$build/tests/tl_tests"
run "$build/tools/tl-puzzles" check all --random 4
run "$build/tests/drivers/tl-difftest" --seed 3 --cases 3400
run "$build/tests/drivers/tl-fuzz" --seed 3 --seconds 5
run "$build/examples/guide/tl-guide" all -o "$build/chelsea-grey.png"
for demo in 1 2 3 4; do run "$build/examples/intro/tl-intro" "$demo" > /dev/null; done
echo "tl: the CPU suite passed under AddressSanitizer and UndefinedBehaviorSanitizer"
