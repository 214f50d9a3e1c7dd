#!/usr/bin/env bash
# Installs the Debian packages tl's build needs, if any are missing. Safe to run again.
# libdlpack-dev: DLPack's header, for tl/runtime/dlpack.hpp (tensors of numpy, torch and other
# libraries as tl views) and its tests.
#   tools/install-deps.sh [--tests]
set -euo pipefail

packages=(g++ cmake ninja-build catch2 libeigen3-dev libcli11-dev libpng-dev libdlpack-dev)
# --tests: also what the test suite needs beyond the build: headless Chromium and zlib for the
# access picture's screenshot test, gdb for the breakpoint test, python3 for the check that the
# generated wgmma header is up to date.
if [ "${1:-}" = --tests ]; then
  packages+=(chromium zlib1g-dev gdb python3)
fi
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "tl: installing missing Debian packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
