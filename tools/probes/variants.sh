#!/usr/bin/env bash
# Builds one puzzle probe (tools/probes/pNN_probe.cu) against this tree's include/ and, when
# given, another include directory (a previous version of tl), in parallel, and runs each: a
# quick A/B of a lowering change without building the whole project.
#   tools/probes/variants.sh p11 [other-include-dir]     (output and binaries in $TL_OUT/p11)
# Extra variants: TL_PROBE_VARIANTS="name=-DFLAG;name2=-DFLAG2" (macros the change reads,
# -DTL_NUM_WARPS=N, or -Idir for a third version of include/). Warps default to 8 for p11 (as tl-bench), 4 for the others.
# Arguments for each run of every binary: TL_PROBE_RUNS="args1;args2" (p11: programs per SM).
set -u
cd "$(dirname "$0")/../.."
probe=$1
shift
warps=4
[ "$probe" = p11 ] && warps=8
flags=(-std=c++20 --expt-relaxed-constexpr -gencode arch=compute_90a,code=sm_90a -DTL_NUM_WARPS=$warps -Iexamples/puzzles -Xptxas -v)
out=${TL_OUT:-/tmp}/$probe
mkdir -p "$out"
declare -A variants=([this]="-Iinclude")
[ $# -ge 1 ] && variants[other]="-I$1"
IFS=';' read -ra extra <<< "${TL_PROBE_VARIANTS:-}"
for e in "${extra[@]}"; do  # this tree's include/ unless the variant names its own (-I...)
  f=${e#*=}
  [[ $f == *-I* ]] && variants[${e%%=*}]="$f" || variants[${e%%=*}]="-Iinclude $f"
done
for v in "${!variants[@]}"; do
  # A later -DTL_NUM_WARPS in the variant's flags overrides the default (-U first).
  vflags=${variants[$v]}
  [[ $vflags == *TL_NUM_WARPS* ]] && vflags="-UTL_NUM_WARPS $vflags"
  nvcc "${flags[@]}" $vflags "tools/probes/${probe}_probe.cu" -o "$out/$v" > "$out/$v.log" 2>&1 &
done
wait
for v in $(printf '%s\n' "${!variants[@]}" | sort); do
  [ -x "$out/$v" ] || { echo "$v: no binary"; tail -3 "$out/$v.log"; continue; }
  echo "== $v: $(grep -o 'Used [0-9]* registers' "$out/$v.log" | sort -u | tr '\n' ' ')"
  IFS=';' read -ra runs <<< "${TL_PROBE_RUNS:-}"
  [ ${#runs[@]} -eq 0 ] && runs=("")
  for args in "${runs[@]}"; do "$out/$v" $args; done
done
