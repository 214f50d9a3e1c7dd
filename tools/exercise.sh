#!/usr/bin/env bash
# The 12 puzzles as exercises, on the CPU backend (no GPU needed).
#   tools/exercise.sh start N    copies puzzle N's skeleton (examples/exercises/) to my-puzzles/;
#                                never over a file you already have
#   tools/exercise.sh check N    builds your my-puzzles/ copy (only what changed), checks it
#                                against the spec (pass/fail, the map of wrong or unwritten
#                                outputs, the invalid accesses) and draws its loads and stores
#                                to my-puzzles/puzzle-N.html (invalid ones in red)
#   tools/exercise.sh list       the puzzles, and those you have started
# MY_PUZZLES and MY_BUILD move the two folders (default: my-puzzles/, build-my-puzzles/).
# The solutions stay in examples/puzzles/; nothing here writes there.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${MY_PUZZLES:-$PWD/my-puzzles}
build=${MY_BUILD:-$PWD/build-my-puzzles}

usage() {
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}
skeleton_of() {  # the skeleton of puzzle $1, or nothing
  case $1 in ''|*[!0-9]*) return 0 ;; esac
  [ "$1" -ge 1 ] && [ "$1" -le 12 ] || return 0
  ls examples/exercises/p"$(printf %02d "$((10#$1))")"_*.hpp 2> /dev/null | head -1
}

[ $# -ge 1 ] || usage
command=$1
n=${2:-}
case $command in
  list)
    for f in examples/exercises/p[0-9][0-9]_*.hpp; do
      name=$(basename "$f")
      state="not started"
      [ -f "$work/$name" ] && state="started: $work/$name"
      printf '%-52s %s\n' "$name" "$state"
    done
    ;;
  start)
    skeleton=$(skeleton_of "$n")
    [ -n "$skeleton" ] || { echo "exercise.sh: no puzzle '$n' (1 to 12)" >&2; exit 2; }
    mine="$work/$(basename "$skeleton")"
    if [ -e "$mine" ]; then
      echo "already started: $mine (yours; not overwritten). Check it: tools/exercise.sh check $n"
      exit 0
    fi
    mkdir -p "$work"
    cp "$skeleton" "$mine"
    echo "copied $skeleton to $mine"
    echo "complete the kernel there (the comments say what it computes, with hints), then: tools/exercise.sh check $n"
    ;;
  check)
    skeleton=$(skeleton_of "$n")
    [ -n "$skeleton" ] || { echo "exercise.sh: no puzzle '$n' (1 to 12)" >&2; exit 2; }
    mine="$work/$(basename "$skeleton")"
    [ -f "$mine" ] || { echo "exercise.sh: puzzle $n is not started: tools/exercise.sh start $n" >&2; exit 2; }
    if [ ! -f "$build/CMakeCache.txt" ]; then
      echo "configuring $build (once)"
      mkdir -p "$build"
      prefix=()  # dependencies bundled by tools/dev/bundle-deps.sh, where there are
      [ -d .deps/prefix ] && prefix=(-DCMAKE_PREFIX_PATH="$PWD/.deps/prefix")
      cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTL_CUDA=OFF -DTL_BUILD_TESTS=OFF \
        -DTL_MY_PUZZLES="$work" "${prefix[@]}" > "$build/configure.log" 2>&1 || {
        cat "$build/configure.log"
        echo "exercise.sh: configuring failed; tools/setup.sh installs what the build needs"
        exit 2
      }
    fi
    echo "building (only what changed)"
    if ! cmake --build "$build" --target tl-my-puzzles > "$build/build.log" 2>&1; then
      # The compiler's messages about your file first.
      grep -A12 "$(basename "$mine")" "$build/build.log" | head -60 || true
      echo "exercise.sh: your puzzle $n does not compile (all of it: $build/build.log)"
      exit 1
    fi
    status=0
    "$build/tools/tl-my-puzzles" check "$n" || status=$?
    "$build/tools/tl-my-puzzles" draw "$n" -o "$work/puzzle-$n.html" | grep '^wrote' || true
    exit $status
    ;;
  *) usage ;;
esac
