#!/usr/bin/env bash
# tools/gpu/check.sh [OUTDIR] - everything a GPU session checks, in one call.
#
# Run on the GPU machine in the repository root, with build/gpu/pack.tar.xz
# (tools/gpu/pack.sh) beside it. Writes to OUTDIR (default ./gpu-check):
# device.txt (nvidia-smi), suite.log (the whole suite in one process),
# ctest.log (the suite through ctest), and bench/ (tools/gpu/bench.sh), each
# step under its own time limit so that one hang cannot take the others.
# WICK_GPU_STEPS (default "suite ctest bench") picks the steps.
set -uo pipefail
out=${1:-gpu-check}
mkdir -p "$out"
out=$(realpath "$out")
# shellcheck source=tools/gpu/setup.sh
source "$(dirname "$0")/setup.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt" 2>&1
nproc >> "$out/device.txt"
# The CUDA libraries the packed build finds (python3's nvidia packages).
for d in ${LD_LIBRARY_PATH//:/ }; do
  for f in "$d"/libcublas.so* "$d"/libcudnn.so* "$d"/libcusolver.so*; do [ -e "$f" ] && echo "$f"; done
done >> "$out/device.txt"
for step in ${WICK_GPU_STEPS:-suite ctest bench}; do
  start=$(date +%s)
  case $step in
    suite) (cd "$WICK_GPU_BUILD" && timeout "${WICK_GPU_SUITE_S:-240}" bin/wick_tests --gtest_brief=1 > "$out/suite.log" 2>&1) ;;
    ctest) (cd "$WICK_GPU_BUILD" && timeout "${WICK_GPU_CTEST_S:-240}" ctest -j "$(nproc)" --timeout 200 --output-on-failure > "$out/ctest.log" 2>&1) ;;
    bench) timeout "${WICK_GPU_BENCH_S:-300}" bash "$(dirname "$0")/bench.sh" "$out/bench" > "$out/bench.log" 2>&1 ;;
    *) echo "unknown step $step"; continue ;;
  esac
  echo "$step: rc=$? in $(( $(date +%s) - start )) s"
done | tee "$out/steps.txt"
tail -5 "$out/suite.log" "$out/ctest.log" 2>/dev/null
grep -E '^\[  FAILED  \]|Failed|\*\*\*' "$out/suite.log" "$out/ctest.log" 2>/dev/null | head -40
cat "$out/bench/table.md" 2>/dev/null
