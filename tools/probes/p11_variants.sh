#!/usr/bin/env bash
# Builds tools/probes/p11_probe.cu against this tree's include/ and, when given, another
# include directory (a previous version of tl), in parallel, and runs each: a quick A/B of a
# change to the dot's lowering without building the whole project.
#   tools/probes/p11_variants.sh [other-include-dir]     (output and binaries in $TL_OUT/p11)
# Extra variants: TL_PROBE_VARIANTS="name=-DFLAG;name2=-DFLAG2" (macros the change reads).
set -u
cd "$(dirname "$0")/../.."
flags=(-std=c++20 --expt-relaxed-constexpr -gencode arch=compute_90a,code=sm_90a -DTL_NUM_WARPS=8 -Iexamples/puzzles -Xptxas -v)
out=${TL_OUT:-/tmp}/p11
mkdir -p "$out"
declare -A variants=([this]="-Iinclude")
[ $# -ge 1 ] && variants[other]="-I$1"
IFS=';' read -ra extra <<< "${TL_PROBE_VARIANTS:-}"
for e in "${extra[@]}"; do variants[${e%%=*}]="-Iinclude ${e#*=}"; done
for v in "${!variants[@]}"; do
  nvcc "${flags[@]}" ${variants[$v]} tools/probes/p11_probe.cu -o "$out/$v" > "$out/$v.log" 2>&1 &
done
wait
for v in "${!variants[@]}"; do
  [ -x "$out/$v" ] || { echo "$v: no binary"; tail -3 "$out/$v.log"; continue; }
  echo "== $v: $(grep -o 'Used [0-9]* registers' "$out/$v.log" | sort -u | tr '\n' ' ')"
  IFS=';' read -ra runs <<< "${TL_PROBE_RUNS:-0}"  # programs_per_sm values
  for args in "${runs[@]}"; do "$out/$v" $args; done
done
