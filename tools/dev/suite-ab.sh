#!/usr/bin/env bash
# A/B of a change on the GPU, in one session: the working tree against a base, each built once,
# then timed alternately, so that every ratio compares runs of the same session (the GPU's
# clocks and the neighbours' load move timings from one session to the next by several percent).
#   tools/dev/suite-ab.sh BASE_SRC [ROUNDS]
# BASE_SRC: the base's sources, made on a machine with the repository, e.g.
#   mkdir -p /tmp/base && git archive HEAD -- CMakeLists.txt cmake include examples tools | tar -x -C /tmp/base
# (a directory inside the working tree that git ignores travels with it to a device machine).
# Times tl-bench's puzzle cases (TL_AB_PUZZLES, default "2,4,5,6,7,8,9,10,11,12"; empty: none)
# and the second suite's tutorials (TL_AB_SUITE, a --only list of tutorials_vs_triton.py, default
# "matmul,attention,backward"; empty: none; TL_AB_QUICK=1 adds --quick), ROUNDS times each
# (default 2), base first. Builds go to /tmp/tl-ab-base and /tmp/tl-ab-tree.
set -uo pipefail
cd "$(dirname "$0")/../.."
base_src=${1:?usage: tools/dev/suite-ab.sh BASE_SRC [ROUNDS]}
rounds=${2:-2}
[ -f "$base_src/CMakeLists.txt" ] || { echo "suite-ab: $base_src has no CMakeLists.txt" >&2; exit 2; }
puzzles=${TL_AB_PUZZLES-2,4,5,6,7,8,9,10,11,12}
suite=${TL_AB_SUITE-matmul,attention,backward}
quick=(); [ "${TL_AB_QUICK:-0}" = 1 ] && quick=(--quick)
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -1 | tr -d .)
[ -n "$cap" ] || { echo "suite-ab: no GPU here (nvidia-smi found none)" >&2; exit 2; }
archs=native; [ "$cap" = 90 ] && archs=90a  # wgmma needs sm_90a (see gpu-check.sh)
prefix=(); [ -d .deps/prefix ] && prefix=(-DCMAKE_PREFIX_PATH="$PWD/.deps/prefix")
nvidia-smi --query-gpu=name --format=csv,noheader
targets=()
[ -n "$puzzles" ] && targets+=(tools/bench/tl-bench)
[ -n "$suite" ] && targets+=(tools/bench/libtl_tutorial_kernels.so)
[ ${#targets[@]} -gt 0 ] || { echo "suite-ab: nothing to time" >&2; exit 2; }
jobs=$(( $(nproc) / 2 > 0 ? $(nproc) / 2 : 1 ))
t0=$SECONDS
for v in base tree; do
  src=.; [ $v = base ] && src=$base_src
  ( cmake -S "$src" -B /tmp/tl-ab-$v -G Ninja -DCMAKE_BUILD_TYPE=Release -DTL_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$archs" \
      -DTL_BUILD_TESTS=OFF "${prefix[@]}" > /tmp/tl-ab-$v.log 2>&1 &&
    ninja -C /tmp/tl-ab-$v -j "$jobs" "${targets[@]}" >> /tmp/tl-ab-$v.log 2>&1 ) ||
    { echo "suite-ab: the $v build failed:"; grep -B2 -A10 "error" /tmp/tl-ab-$v.log | head -40; exit 1; } &
done
wait || true
for v in base tree; do
  for t in "${targets[@]}"; do [ -e "/tmp/tl-ab-$v/$t" ] || { echo "suite-ab: /tmp/tl-ab-$v/$t was not built" >&2; exit 1; }; done
done
echo "built in $((SECONDS - t0)) s"
for ((r = 1; r <= rounds; ++r)); do
  for v in base tree; do
    echo "=== $v, round $r"
    [ -n "$puzzles" ] && /tmp/tl-ab-$v/tools/bench/tl-bench --only "$puzzles" 2>&1 | grep -E "^[0-9]+ "
    [ -n "$suite" ] && python3 tools/bench/tutorials/tutorials_vs_triton.py --lib /tmp/tl-ab-$v/tools/bench/libtl_tutorial_kernels.so \
      --only "$suite" "${quick[@]}" --out /tmp/tl-ab-$v 2>&1 | grep -E "^\| [0-9a-zR]|rror"
  done
done
