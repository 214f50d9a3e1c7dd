#!/usr/bin/env bash
# Runs the whole test suite: installs missing Debian packages, builds everything (warnings
# are errors) and runs CTest: the op tests, the launch and access checks, the puzzles at
# puzzle and random sizes, the compile-fail tests and the install/consumer test.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTL_WERROR=ON
cmake --build build
echo "tl: no GPU tests yet: the CUDA backend is not part of this build (skipped)"
ctest --test-dir build --output-on-failure -j "$(nproc)"
