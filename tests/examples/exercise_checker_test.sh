#!/usr/bin/env bash
# tools/exercise.sh end to end, in scratch folders (MY_PUZZLES, MY_BUILD): a puzzle not started
# is refused; start copies the skeleton once and never over the learner's file; the skeleton
# fails with the map of unwritten outputs; the solution passes and is drawn; a wrong mask fails
# with its invalid accesses, drawn in red; the solutions in examples/puzzles/ are untouched.
#   tests/examples/exercise_checker_test.sh SCRATCH_DIR
set -uo pipefail
cd "$(dirname "$0")/../.."
scratch=$1
rm -rf "$scratch"
export MY_PUZZLES=$scratch/my MY_BUILD=$scratch/build
solution=examples/puzzles/p04_outer_vector_add_block.hpp
before=$(cksum < "$solution")
failures=0
expect() {  # expect DESCRIPTION WANTED_STATUS REGEX COMMAND...
  local what=$1 want=$2 regex=$3
  shift 3
  local out status=0
  out=$("$@" 2>&1) || status=$?
  if [ "$status" = "$want" ] && grep -Eq -- "$regex" <<< "$out"; then
    echo "ok:     $what"
  else
    echo "FAILED: $what (exit $status, wanted $want and /$regex/); output:"
    echo "$out" | tail -30
    failures=$((failures + 1))
  fi
}
mine=$MY_PUZZLES/p04_outer_vector_add_block.hpp
expect "a puzzle not started is refused" 2 "is not started: tools/exercise.sh start 4" tools/exercise.sh check 4
expect "no puzzle 13" 2 "no puzzle '13'" tools/exercise.sh start 13
expect "start copies the skeleton" 0 "copied examples/exercises/p04" tools/exercise.sh start 4
echo "// mine" >> "$mine"
expect "start again keeps the learner's file" 0 "already started" tools/exercise.sh start 4
tail -1 "$mine" | grep -q "// mine" && echo "ok:     the learner's file is unchanged" ||
  { echo "FAILED: start overwrote the learner's file"; failures=$((failures + 1)); }
expect "the skeleton fails, with the map of unwritten outputs" 1 "FAIL +puzzle 4.*|\\? never written" tools/exercise.sh check 4
cp "$solution" "$mine"
expect "the solution passes and is drawn" 0 "PASS +puzzle 4" tools/exercise.sh check 4
grep -q "<svg" "$MY_PUZZLES/puzzle-4.html" && echo "ok:     the picture was written" ||
  { echo "FAILED: no picture"; failures=$((failures + 1)); }
sed -i 's/auto mask_x = off_x < N0;/auto mask_x = off_x < N0 + 1;/' "$mine"
expect "a wrong mask fails with its invalid accesses" 1 "invalid (load|store)" tools/exercise.sh check 4
grep -q 'class="bad"' "$MY_PUZZLES/puzzle-4.html" && echo "ok:     the invalid accesses are red in the picture" ||
  { echo "FAILED: no red cell in the picture"; failures=$((failures + 1)); }
[ "$(cksum < "$solution")" = "$before" ] && echo "ok:     the solution in examples/puzzles is untouched" ||
  { echo "FAILED: the solution changed"; failures=$((failures + 1)); }
rm -rf "$scratch"
[ $failures = 0 ] && echo "passed" || echo "$failures FAILED"
exit $((failures > 0))
