#!/usr/bin/env bash
# The layer norm forward lab, on a machine with a GPU, torch and Triton:
#   tools/dev/kernel-lab/run.sh            time tl's kernel, the hand-written variants, Triton's
#   tools/dev/kernel-lab/run.sh ncu 0,1    executed instructions a warp (Nsight Compute) of
#                                          variants 0 and 1 and Triton's kernel
# WARPS="4 2 8" builds tl's kernel at each warp count too (the first is the one Triton's runs at);
# EXTRA passes nvcc flags (a -D that a header experiment reads). Builds go to /tmp/kernel-lab.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=/tmp/kernel-lab
mkdir -p "$out"
if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
libs=()
for w in ${WARPS:-4}; do
  nvcc -Iinclude -isystem=/usr/local/cuda/include -O3 -DNDEBUG --generate-code=arch=compute_90a,code=sm_90a \
    -Xcompiler=-fPIC --expt-relaxed-constexpr -std=c++20 -shared -DTL_NUM_WARPS="$w" ${EXTRA:-} \
    tools/dev/kernel-lab/layer_norm_fwd.cu -o "$out/tl_${w}warps.so" &
  libs+=("$w:$out/tl_${w}warps.so")
done
wait
if [ "${1:-}" = ncu ]; then
  ncu --kernel-name regex:"entry|lnf_hand|_layer_norm" --section SourceCounters -o "$out/rep" -f \
    python3 tools/dev/kernel-lab/layer_norm_fwd.py "${libs[0]}" --profile "${2:-0,1}" > "$out/ncu.log" 2>&1 || { tail -20 "$out/ncu.log"; exit 1; }
  ncu --import "$out/rep.ncu-rep" --page source --csv --print-source sass > "$out/src.csv"
  python3 tools/dev/ncu-executed.py "$out/src.csv" --listing "${OUT:-$out}/listing"
else
  python3 tools/dev/kernel-lab/layer_norm_fwd.py "${libs[@]}"
fi
