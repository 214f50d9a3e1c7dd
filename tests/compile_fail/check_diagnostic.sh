#!/usr/bin/env bash
# One compile-fail case: compiles CASE with -DTL_COMPILE_FAIL and checks that it fails, that a
# line of the output matches the case's "// expect:" regular expression (the message), and
# that the first 5 lines hold every ";"-separated regular expression of its "// cause:" line
# (the check's tl::error name, the op, the shapes or types; g++ prints tl::shape<4, 8> in the
# type's name, nvcc "ShapeA=tl::shape<4, 8>" after it, so a value may need two spellings). Prints the line that completes the cause and
# the lines of output, the numbers docs/11-reliability.md keeps.
#   check_diagnostic.sh CASE COMPILER [FLAGS...]      (nvcc: give -x cu among the flags)
set -uo pipefail
case_file=$1; shift
limit=5
expect=$(sed -n 's|^// expect: ||p' "$case_file")
cause=$(sed -n 's|^// cause: ||p' "$case_file")
if [ -z "$expect" ] || [ -z "$cause" ]; then
  echo "$case_file: needs an '// expect:' and a '// cause:' line"; exit 2
fi
out=$("$@" -DTL_COMPILE_FAIL "$case_file" 2>&1)
rc=$?
lines=$(printf '%s\n' "$out" | wc -l)
name=$(basename "$case_file" .cpp)
compiler=$(basename "$1")
if [ $rc -eq 0 ]; then echo "$name ($compiler): compiled, but must not"; exit 1; fi
# (A here-string, not a pipe: grep -q exits at the first match, and under pipefail the writer's
# SIGPIPE would then count as no match.)
if ! grep -Eq -- "$expect" <<< "$out"; then
  printf '%s\n' "$out" | head -30
  echo "$name ($compiler): no line matches the expected message: $expect"; exit 1
fi
# The line by which every text of the cause has appeared.
cause_line=0
IFS=';' read -ra parts <<< "$cause"
for part in "${parts[@]}"; do
  text=$(echo "$part" | sed 's/^ *//; s/ *$//')
  at=$(grep -nE -m1 -- "$text" <<< "$out" | cut -d: -f1)
  if [ -z "$at" ]; then
    printf '%s\n' "$out" | head -30
    echo "$name ($compiler): the output has no line matching '$text'"; exit 1
  fi
  [ "$at" -gt "$cause_line" ] && cause_line=$at
done
echo "$name ($compiler): cause complete by line $cause_line of $lines"
if [ "$cause_line" -gt $limit ]; then
  printf '%s\n' "$out" | head -$limit
  echo "$name ($compiler): the cause is not within the first $limit lines"; exit 1
fi
