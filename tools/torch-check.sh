#!/usr/bin/env bash
# On a machine with a GPU, torch and Triton: builds and installs examples/torch, runs its pytest,
# then its benchmark against Triton's tutorial kernels and torch.
#   tools/torch-check.sh [build|test|bench|all]     (default all)
# BENCH_ARGS passes options to bench.py (e.g. "--only layernorm --quick").
set -uo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
step=${1:-all}
if [ "$step" = build ] || [ "$step" = all ]; then
  t0=$SECONDS
  "$python" -m pip install --no-build-isolation examples/torch > /tmp/tl-torch-build.log 2>&1 ||
    { grep -E "error|Error" /tmp/tl-torch-build.log | head -40; exit 1; }
  echo "tl_torch built and installed in $((SECONDS - t0)) s"
fi
if [ "$step" = test ] || [ "$step" = all ]; then
  bash tools/torch-test.sh -rs || exit 1
fi
if [ "$step" = bench ] || [ "$step" = all ]; then
  # shellcheck disable=SC2086
  "$python" examples/torch/bench.py ${BENCH_ARGS:-}
fi
