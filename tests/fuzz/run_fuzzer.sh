#!/usr/bin/env bash
# tests/fuzz/run_fuzzer.sh - the bounded fuzz run behind each `fuzz` ctest.
#   run_fuzzer.sh FUZZER SEED_DIR WORK_DIR SECONDS
# Copies the committed seeds to WORK_DIR/corpus (the source tree is never
# written), runs FUZZER on that copy for SECONDS with a per-input timeout and
# an RSS limit, and keeps any crashing input in WORK_DIR/artifacts.
# libFuzzer exits non-zero on a crash, a leak, a timeout or an OOM.
set -euo pipefail
fuzzer=$1 seeds=$2 work=$3 seconds=$4
rm -rf "$work/corpus"
mkdir -p "$work/corpus" "$work/artifacts"
cp "$seeds"/* "$work/corpus/"
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus"
