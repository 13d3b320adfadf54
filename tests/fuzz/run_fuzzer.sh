#!/usr/bin/env bash
# tests/fuzz/run_fuzzer.sh - the bounded fuzz run behind each `fuzz` ctest.
#   run_fuzzer.sh FUZZER SEED_DIR WORK_DIR SECONDS [LIBFUZZER_FLAG...]
# Copies the committed seeds to WORK_DIR/corpus (the source tree is never
# written), runs FUZZER on that copy for SECONDS with a per-input timeout and
# an RSS limit, and keeps any crashing input in WORK_DIR/artifacts.
# libFuzzer exits non-zero on a crash, a leak, a timeout or an OOM.
# The seed is fixed (WICK_FUZZ_SEED, default 1) so that CI's bounded run is a
# reproducible gate: the same inputs in the same order on every machine, a
# faster one only going further. Long exploratory runs (tests/README.md, "Fuzzing")
# use random seeds.
set -euo pipefail
fuzzer=$1 seeds=$2 work=$3 seconds=$4
shift 4
# An allocation the machine cannot satisfy is a clean wick RuntimeError, as
# without ASan; one input's worth of OpenMP threads; no user plugins.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}:allocator_may_return_null=1
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export OMP_NUM_THREADS=1 WICK_PLUGIN_PATH=
rm -rf "$work/corpus"
mkdir -p "$work/corpus" "$work/artifacts"
cp "$seeds"/* "$work/corpus/"
exec "$fuzzer" -seed="${WICK_FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$@" "$work/corpus"
