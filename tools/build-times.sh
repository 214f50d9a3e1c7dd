#!/usr/bin/env bash
# What a build's compiling cost: the compiler seconds of all its units and the slowest ones, from
# Ninja's log (the last build of each output; a unit's seconds are its wall time while the others
# of -j ran beside it).
#   tools/build-times.sh BUILD_DIR [COUNT]      (default 10)
set -euo pipefail
log=${1:?usage: tools/build-times.sh BUILD_DIR [COUNT]}/.ninja_log
count=${2:-10}
[ -f "$log" ] || { echo "tools/build-times.sh: no $log"; exit 1; }
# .ninja_log v5: start ms, end ms, mtime, output, hash; a rebuilt output appears again later.
awk -v count="$count" -v file="$log" '
  NR > 1 && $4 !~ /\.cmake$|^\// { secs[$4] = ($2 - $1) / 1000 }
  END {
    n = 0; total = 0
    for (o in secs) { total += secs[o]; n++ }
    printf "%s: %d outputs, %.0f s of compiler and linker time\n", file, n, total
    printf "the %d slowest:\n", count
    for (o in secs) printf "%8.1f s  %s\n", secs[o], o | "sort -rn | head -n " count
  }' "$log"
