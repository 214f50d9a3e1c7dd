#!/usr/bin/env bash
# Compile time of a fixed set of kernel translation units, each alone, under g++ (-O2, the CPU
# backend) and nvcc (-O2, sm_90a: both backends, the wgmma dot), with the peak memory of the
# compiler. The table goes in docs/performance.md.
#   tools/compile-time.sh [runs]      (the minimum of `runs` compiles each, default 3)
#   TL_NVCC_ARCH=sm_80 tools/compile-time.sh
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
arch=${TL_NVCC_ARCH:-sm_90a}
if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
src=tools/dev/compile_time
common=(-std=c++20 -O2 -Iinclude -Iexamples/puzzles -Itools)
units=("add kernel:$src/add.cpp" "puzzle 8:$src/p08.cpp" "puzzle 11 fp16:$src/p11_fp16.cpp"
       "difftest (dots):tests/drivers/difftest/dots.cpp")
# seconds and peak KiB of the fastest of $runs runs of a command
measure() {
  local best_s="" best_kb=""
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$out/time" "$@" > "$out/log" 2>&1 || { cat "$out/log"; return 1; }
    read -r s kb < "$out/time"
    if [ -z "$best_s" ] || awk "BEGIN{exit !($s < $best_s)}"; then best_s=$s; best_kb=$kb; fi
  done
  printf "%8.1f s %7.0f MiB" "$best_s" "$(awk "BEGIN{print $best_kb / 1024}")"
}
printf "%-18s | %-22s | %-22s\n" "translation unit" "g++ $(g++ -dumpversion) -O2" "nvcc -O2 $arch"
printf -- "-------------------|------------------------|-----------------------\n"
for u in "${units[@]}"; do
  name=${u%%:*} file=${u#*:}
  gcc=$(measure g++ "${common[@]}" -c "$file" -o "$out/a.o")
  if command -v nvcc > /dev/null; then
    gpu=$(measure nvcc "${common[@]}" -x cu --expt-relaxed-constexpr -gencode=arch=compute_${arch#sm_},code=$arch -c "$file" -o "$out/b.o")
  else
    gpu="(no nvcc)"
  fi
  printf "%-18s | %s | %s\n" "$name" "$gcc" "$gpu"
done
