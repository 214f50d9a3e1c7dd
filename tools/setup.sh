#!/usr/bin/env bash
# Sets up a fresh machine (installing missing Debian packages), builds tl in Release and
# runs the 12 puzzles on the CPU backend. Exits non-zero if any puzzle fails.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
build/tools/tl-puzzles check all
