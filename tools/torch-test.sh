#!/usr/bin/env bash
# examples/torch's pytest (tl kernels as PyTorch operators), where torch and the built package
# are importable; elsewhere it says why it is skipped and exits 77 (CTest reports it skipped).
#   tools/torch-test.sh [pytest args...]
# Build the package first where torch is (one command, from the repository's root):
#   python3 -m pip install --no-build-isolation examples/torch
set -uo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
if ! "$python" -c "import torch" > /dev/null 2>&1; then
  echo "skipped: torch is not installed for $python (examples/torch's tests run where it is)"
  exit 77
fi
if ! "$python" -c "import pytest" > /dev/null 2>&1; then
  echo "skipped: pytest is not installed for $python"
  exit 77
fi
if ! "$python" -c "import tl_torch" > /dev/null 2>&1; then
  echo "skipped: tl_torch is not installed for $python (python3 -m pip install --no-build-isolation examples/torch)"
  exit 77
fi
exec "$python" -m pytest -q examples/torch/tests "$@"
