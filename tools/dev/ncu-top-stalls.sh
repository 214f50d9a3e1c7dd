#!/usr/bin/env bash
# The most stalled SASS instructions of a kernel, from an ncu source report
# (ncu --page source --print-source sass ... > report.txt):  tools/dev/ncu-top-stalls.sh report.txt [N]
# top stalled SASS instructions from an ncu --page source --print-source sass report
f=$1
grep "^0x" "$f" | sed -E 's/^(0x[0-9a-f]+) +//' | awk -F'  +' '{printf "%8d  %s\n", $2, $1}' | sort -rn | head -${2:-25}
