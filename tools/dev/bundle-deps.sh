#!/usr/bin/env bash
# Copies the build dependencies (Catch2, CLI11, Eigen, with their CMake package files; DLPack's
# header; libpng and zlib as static libraries with their headers) from this machine's Debian packages into
# .deps/prefix, for a GPU machine that has nvcc and CMake but cannot install packages.
# tools/gpu-check.sh uses .deps/prefix if present.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/install-deps.sh
p=.deps/prefix
rm -rf .deps
mkdir -p "$p/include" "$p/lib/cmake" "$p/share/cmake" "$p/share/eigen3"
cp -r /usr/include/catch2 /usr/include/CLI /usr/include/eigen3 /usr/include/dlpack "$p/include/"
cp -r /usr/lib/cmake/Catch2 "$p/lib/cmake/"
cp "$(dpkg -L catch2 | grep 'libCatch2WithMain.a$' | head -1)" "$p/lib/"
cp -r /usr/share/cmake/CLI11 "$p/share/cmake/"
cp -r /usr/share/eigen3/cmake "$p/share/eigen3/"
# libpng (examples/guide's images) and zlib, static: found by CMake's FindPNG and FindZLIB
cp /usr/include/png.h /usr/include/pngconf.h /usr/include/pnglibconf.h /usr/include/zlib.h /usr/include/zconf.h "$p/include/"
lib=/usr/lib/$(gcc -print-multiarch)
cp "$lib/libpng16.a" "$p/lib/libpng.a"
cp "$lib/libz.a" "$p/lib/libz.a"
du -sh .deps
