#!/usr/bin/env bash
# The headers of include/tl form layers, and a header includes only its own layer or lower ones:
#
#   0 config.hpp                    host/device macros
#   1 core/                         dtypes, shapes, diagnostics, tl::ptr, reports
#   2 expr/                         expression nodes and blocks (no backend detail)
#   3 backend/cpu/, backend/cuda/   each backend's lowerings; backend/lowering.hpp picks one
#   4 ops/                          the language: checks, then the pass's lowering
#   5 launch/                       tl::launch: the options, the checks, each backend's launch
#   6 kernel.hpp                    the language and tl::launch
#   7 runtime/, bench/              the host side of a kernel
#   8 tl.hpp                        everything
#
# and neither backend includes the other.
#   tests/headers/include_layers.sh [INCLUDE_DIR]
set -uo pipefail
cd "${1:-$(dirname "$0")/../../include}/tl" || exit 2

layer() {
  case $1 in
    config.hpp) echo 0 ;;
    core/*) echo 1 ;;
    expr/*) echo 2 ;;
    backend/*) echo 3 ;;
    launch/*) echo 5 ;;
    ops/*) echo 4 ;;
    kernel.hpp) echo 6 ;;
    runtime/* | bench/*) echo 7 ;;
    tl.hpp) echo 8 ;;
    *) echo "?" ;;
  esac
}

bad=0
count=0
while IFS= read -r header; do
  header=${header#./}
  from=$(layer "$header")
  if [ "$from" = "?" ]; then
    echo "$header: in no layer (add its folder to tests/headers/include_layers.sh)"; bad=$((bad + 1)); continue
  fi
  while IFS= read -r included; do
    target=$(realpath -m --relative-to=. "$(dirname "$header")/$included")
    to=$(layer "$target")
    count=$((count + 1))
    if [ "$to" = "?" ] || [ "$to" -gt "$from" ]; then
      echo "$header (layer $from) includes $target (layer $to)"; bad=$((bad + 1))
    elif [[ $header == backend/cpu/* && $target == backend/cuda/* ]] ||
         [[ $header == backend/cuda/* && $target == backend/cpu/* ]]; then
      echo "$header includes the other backend's $target"; bad=$((bad + 1))
    fi
  done < <(grep -oP '^\s*#\s*include\s+"\K[^"]+' "$header")
done < <(find . -name '*.hpp' | sort)

if [ "$bad" -gt 0 ]; then
  echo "$bad of $count includes break the layers"
  exit 1
fi
echo "all $count includes between tl's headers respect the layers"
