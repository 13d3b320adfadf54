#!/usr/bin/env bash
# tools/gpu/pack.sh [BUILD] [OUT] - packs a Release build for the GPU machine.
#
# The GPU machine has no Boost, spdlog or OpenBLAS, and only 64 MiB travel
# to it. This packs BUILD (default build/release) without its object files,
# with the Debian runtime libraries its programs and plugins link (not glibc,
# not cuBLAS, cuDNN or cuSOLVER: the machine's python3 carries those in its nvidia
# packages), into OUT (default build/gpu/pack.tar.xz). On the machine,
# `source tools/gpu/setup.sh` unpacks it where the build's baked-in paths
# point and sets LD_LIBRARY_PATH.
set -euo pipefail
build=${1:-build/release}
out=${2:-build/gpu/pack.tar.xz}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/deblib" "$(dirname "$out")"
objects=$(find "$build/bin" "$build/lib" "$build/tests/plugins" -type f \( -name '*.so*' -o -perm -u+x \) \
  ! -name wick_bench ! -path '*/CMakeFiles/*')
# shellcheck disable=SC2086
ldd $objects 2>/dev/null | awk '/=> \// {print $3}' | sort -u |
  grep -Ev '/(libc|libm|libdl|libpthread|librt|libmvec|ld-linux[^/]*)\.so|libcublas|libcudnn|libcusolver|libcusparse|libnvJitLink|/work/|'"$(realpath "$build")" |
  while read -r lib; do cp -L "$lib" "$stage/deblib/"; done
tar -C "$build" --exclude=CMakeFiles --exclude='*.o' --exclude='*.a' --exclude=bin/wick_bench \
  --exclude=gpu -cf "$stage/build.tar" .
# ctest's test lists call this CMake module by its path on this machine.
gtest_module=$(grep -rhoE '/[^"]*GoogleTestAddTests.cmake' "$build/tests" 2>/dev/null | head -1 || true)
mkdir -p "$stage/cmake"
if [ -n "$gtest_module" ]; then cp "$gtest_module" "$stage/cmake/"; echo "$gtest_module" > "$stage/cmake/path"; fi
tar -C "$stage" -cf - build.tar deblib cmake | xz -T2 -6 > "$out"
echo "$out: $(du -h "$out" | cut -f1) (build $(realpath "$build"))"
