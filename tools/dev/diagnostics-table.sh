#!/usr/bin/env bash
# The compile-fail catalogue measured: for each tests/compile_fail/cf_*.cpp, the line of
# compiler output by which its cause (the tl::error check, the op, the shapes) is complete
# and the lines of output in all, under g++ and under nvcc. Prints the Markdown table that
# docs/11-reliability.md keeps.
#   tools/dev/diagnostics-table.sh [CXX] [NVCC]     (defaults: g++, nvcc; nvcc is skipped if absent)
set -uo pipefail
cd "$(dirname "$0")/../.."
cxx=${1:-g++}
nvcc=${2:-nvcc}
command -v "$nvcc" > /dev/null || [ -x "$nvcc" ] || nvcc=
check=tests/compile_fail/check_diagnostic.sh
measure() {  # prints "L of N" or the failure
  local out
  out=$(bash "$check" "$@" 2>&1 | tail -1)
  case "$out" in
    *"cause complete by line"*) echo "$out" | sed 's/.*line \([0-9]*\) of \([0-9]*\)/\1 of \2/' ;;
    *) echo "FAILED" ;;
  esac
}
echo "| mistake (tests/compile_fail/) | check (tl::error::) | $($cxx -dumpfullversion | sed 's/^/g++ /'): cause by line, of | ${nvcc:+nvcc $($nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'): cause by line, of} |"
echo "|---|---|---|---|"
for f in tests/compile_fail/cf_*.cpp; do
  name=$(basename "$f" .cpp)
  error=$(sed -n 's|^// cause: \([a-z_0-9]*\).*|\1|p' "$f")
  g=$(measure "$f" "$cxx" -std=c++20 -fsyntax-only -Iinclude)
  n=
  [ -n "$nvcc" ] && n=$(measure "$f" "$nvcc" -std=c++20 --expt-relaxed-constexpr -x cu -c -o /dev/null -Iinclude)
  echo "| \`${name#cf_}\` | \`$error\` | $g | $n |"
done
