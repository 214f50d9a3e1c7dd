#!/usr/bin/env bash
# Compile time of a fixed set of translation units, each alone, under g++ (-O2: the CPU backend)
# and nvcc (-O2, sm_90a: both backends, the wgmma dot), with the compiler's peak memory, beside
# the yardsticks: the same add kernel in plain C++ threads (g++) and in plain CUDA (nvcc).
# Seconds differ 2x between machines; the ratios to the yardsticks do not. Header-only (what a
# user who only includes tl gets) and with tl's runtime compiled once (TL_COMPILED_RUNTIME=1,
# what tl_add_compiled_runtime gives; the runtime's own unit is compiled once per program and is
# not counted). The table goes in docs/performance.md.
#   tools/compile-time.sh [runs]      (the minimum of `runs` compiles each, default 3)
#   TL_NVCC_ARCH=sm_80 tools/compile-time.sh
#   TL_COMPILE_TIME_MANY=1 tools/compile-time.sh   also the many-kernel unit (all the tutorials'
#                                                  4-warp kernels, once: minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
arch=${TL_NVCC_ARCH:-sm_90a}
if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
src=tools/dev/compile_time
common=(-std=c++20 -O2 -Iinclude -Iexamples/puzzles -Iexamples/common -Itests/drivers)
nvcc_flags=(-x cu --expt-relaxed-constexpr -gencode=arch=compute_${arch#sm_},code=$arch)
# seconds and peak MiB of the fastest of $runs runs of a command
measure() {
  local n=$1 best_s="" best_kb=""
  shift
  for _ in $(seq "$n"); do
    /usr/bin/time -f "%e %M" -o "$out/time" "$@" > "$out/log" 2>&1 || { cat "$out/log"; return 1; }
    read -r s kb < "$out/time"
    if [ -z "$best_s" ] || awk "BEGIN{exit !($s < $best_s)}"; then best_s=$s; best_kb=$kb; fi
  done
  echo "$best_s $(awk "BEGIN{print int($best_kb / 1024)}")"
}
have_nvcc=0
command -v nvcc > /dev/null && have_nvcc=1
read -r gpp_base _ < <(measure "$runs" g++ -std=c++20 -O2 -c $src/plain_add.cpp -o "$out/a.o")
nvcc_base=0
[ $have_nvcc = 1 ] && read -r nvcc_base _ < <(measure "$runs" nvcc -std=c++20 -O2 "${nvcc_flags[@]}" -c $src/plain_add.cu -o "$out/b.o")
printf "yardsticks: plain C++ threads under g++ %s: %.2f s; plain CUDA under nvcc, %s: %.2f s\n\n" \
  "$(g++ -dumpversion)" "$gpp_base" "$arch" "$nvcc_base"
printf "%-22s | %-24s | %-24s | %-24s | %-24s\n" "translation unit" "g++ header-only" "g++ compiled runtime" \
  "nvcc header-only" "nvcc compiled runtime"
printf -- "-----------------------|--------------------------|--------------------------|--------------------------|-------------------------\n"
cell() {  # seconds, MiB, and the ratio to the yardstick
  printf "%5.1f s %5d MiB %5.1fx" "$1" "$2" "$(awk "BEGIN{print $1 / $3}")"
}
row() {
  local name=$1 file=$2 n=$3 line
  line=$(printf "%-22s" "$name")
  for mode in 0 1; do
    read -r s mb < <(measure "$n" g++ "${common[@]}" -DTL_COMPILED_RUNTIME=$mode -c "$file" -o "$out/a.o")
    line+=" | $(cell "$s" "$mb" "$gpp_base")"
  done
  for mode in 0 1; do
    if [ $have_nvcc = 1 ]; then
      read -r s mb < <(measure "$n" nvcc "${common[@]}" "${nvcc_flags[@]}" -DTL_COMPILED_RUNTIME=$mode -c "$file" -o "$out/b.o")
      line+=" | $(cell "$s" "$mb" "$nvcc_base")"
    else
      line+=" | (no nvcc)"
    fi
  done
  echo "$line"
}
row "add kernel" $src/add.cpp "$runs"
row "puzzle 8" $src/p08.cpp "$runs"
row "puzzle 11 fp16" $src/p11_fp16.cpp "$runs"
row "difftest (dots)" tests/drivers/difftest/dots.cpp "$runs"
if [ "${TL_COMPILE_TIME_MANY:-0}" = 1 ] && [ $have_nvcc = 1 ]; then
  for mode in 0 1; do
    read -r s mb < <(measure 1 nvcc "${common[@]}" "${nvcc_flags[@]}" -DTL_COMPILED_RUNTIME=$mode -c $src/tutorials_all.cu -o "$out/c.o")
    printf "the tutorials' 4-warp kernels in one unit, nvcc %s, TL_COMPILED_RUNTIME=%d: %.0f s, %d MiB\n" "$arch" "$mode" "$s" "$mb"
  done
fi
