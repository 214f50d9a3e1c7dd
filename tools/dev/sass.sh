#!/usr/bin/env bash
# SASS (the GPU's machine code) and ptxas' resource report of a translation unit, without a GPU:
# nvcc compiles it to a cubin, nvdisasm disassembles it. The CUDA Toolkit on a machine without a
# driver may lack nvdisasm; then it is fetched once from PyPI (NVIDIA's nvidia-cuda-nvdisasm
# wheel) into .deps/nvdisasm.
#   tools/dev/sass.sh FILE.cu [ARCH] [nvcc flags...]      (ARCH default sm_90a)
# Writes FILE.sass next to the build's other outputs (build-sass/), prints the registers, stack
# and spills per kernel, and counts the instructions that matter for a dot or a memory-bound
# kernel (HGMMA, HMMA, LDGSTS, LDG/STG widths, BAR, local memory).
set -euo pipefail
cd "$(dirname "$0")/../.."
src=${1:?usage: tools/dev/sass.sh FILE.cu [ARCH] [nvcc flags...]}
arch=${2:-sm_90a}
shift $(( $# > 1 ? 2 : 1 ))
if ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi
disasm=$(command -v nvdisasm || true)
if [ -z "$disasm" ]; then
  disasm=$(find .deps/nvdisasm -name nvdisasm -type f 2> /dev/null | head -1 || true)
  if [ -z "$disasm" ]; then
    mkdir -p .deps/nvdisasm
    python3 -m pip download --quiet --no-deps --only-binary=:all: nvidia-cuda-nvdisasm -d .deps/nvdisasm
    (cd .deps/nvdisasm && python3 -m zipfile -e nvidia_cuda_nvdisasm-*.whl .)
    disasm=$(find .deps/nvdisasm -name nvdisasm -type f | head -1)
    chmod +x "$disasm"
  fi
fi
out=build-sass
mkdir -p "$out"
name=$(basename "$src")
name=${name%.*}
gencode="arch=compute_${arch#sm_},code=$arch"
nvcc -std=c++20 --expt-relaxed-constexpr -O1 -Iinclude -Iexamples/puzzles -Iexamples/tutorials -Itools -x cu \
  -gencode "$gencode" -cubin -Xptxas -v "$@" "$src" -o "$out/$name.cubin" 2> "$out/$name.ptxas"
"$disasm" -c "$out/$name.cubin" > "$out/$name.sass"
grep -E 'Compiling entry|Used [0-9]+ registers|stack frame' "$out/$name.ptxas" |
  sed -E 's/.*Compiling entry function .(_Z[0-9]+)?([A-Za-z_0-9]{0,60}).*/\2/' || true
echo "$out/$name.sass: $(wc -l < "$out/$name.sass") lines"
for op in HGMMA HMMA LDGSTS 'LDG.E.128' 'LDG.E ' 'STG.E.128' 'STG.E ' 'BAR.SYNC' LDS STS 'LDL' 'STL'; do
  printf '  %-10s %6d\n' "$op" "$(grep -c -- "$op" "$out/$name.sass" || true)"
done
