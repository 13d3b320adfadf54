#!/usr/bin/env bash
# tools/fuzz_long.sh - long fork-mode runs of every fuzzer with random seeds (tests/README.md, "Fuzzing").
#   tools/fuzz_long.sh [-b BUILD_DIR] [-j JOBS] [SECONDS_PER_FUZZER] [TARGET...]
# Runs each libFuzzer target of tests/fuzz (TARGET_fuzz.cpp; all of them by
# default) through tests/fuzz/run_fuzzer.sh for SECONDS_PER_FUZZER (default
# 1800, 30 minutes) with a random seed (WICK_FUZZ_SEED=0), in fork mode with
# JOBS worker processes (default 2) that go on after a crash
# (-fork=JOBS -ignore_crashes=1, and likewise for OOMs and timeouts). The
# fuzzers come from BUILD_DIR (default build/fuzz, the fuzz preset's:
# `cmake --preset fuzz && cmake --build --preset fuzz`). Work directories,
# logs and crashing inputs land in BUILD_DIR/tests/fuzz/long/TARGET/.
# Prints, per fuzzer: the seed, executions, coverage (cov: edges, ft:
# features) and the distinct inputs it saved as crashes, leaks, timeouts and
# OOMs (libFuzzer names each file by the hash of its contents). Exit status 1
# when any fuzzer saved one. CI keeps its fixed-seed gate (ctest -L fuzz);
# this is for exploration, not for CI.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/fuzz
jobs=2
usage() {
  sed -n '2,3p' "$0" >&2
  exit 2
}
while getopts b:j:h opt; do
  case $opt in
    b) build=$OPTARG ;;
    j) jobs=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
seconds=1800
if [[ $# -gt 0 ]]; then
  seconds=$1
  shift
fi
[[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] || usage
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  for f in tests/fuzz/*_fuzz.cpp; do
    f=${f##*/}
    targets+=("${f%_fuzz.cpp}")
  done
fi
for t in "${targets[@]}"; do
  [[ -x $build/bin/${t}_fuzz ]] || { echo "fuzz_long: no $build/bin/${t}_fuzz (build the fuzz preset first)" >&2; exit 2; }
done

count() { find "$1" -maxdepth 1 -name "$2-*" -type f 2>/dev/null | wc -l; }
summary=()
found=0
for t in "${targets[@]}"; do
  work=$build/tests/fuzz/long/$t
  rm -rf "$work"
  mkdir -p "$work"
  log=$work/fuzz.log
  echo "fuzz_long: $t for ${seconds}s with $jobs jobs (log: $log)"
  WICK_FUZZ_SEED=0 bash tests/fuzz/run_fuzzer.sh "$build/bin/${t}_fuzz" "tests/fuzz/corpus/$t" "$work" "$seconds" \
    -fork="$jobs" -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 > "$log" 2>&1 || true
  seed=$(grep -m1 -o 'Seed: [0-9]*' "$log" | cut -d' ' -f2 || true)
  # Fork mode reports "#EXECS: cov: N ft: N corp: ... oom/timeout/crash: a/b/c time: ..." as it goes.
  last=$(grep -E '^#[0-9]+: cov: ' "$log" | tail -1 || true)
  execs=$(sed -nE 's/^#([0-9]+): .*/\1/p' <<< "$last")
  cov=$(sed -nE 's/.* cov: ([0-9]+) .*/\1/p' <<< "$last")
  ft=$(sed -nE 's/.* ft: ([0-9]+) .*/\1/p' <<< "$last")
  crashes=$(count "$work/artifacts" crash)
  leaks=$(count "$work/artifacts" leak)
  timeouts=$(count "$work/artifacts" timeout)
  ooms=$(count "$work/artifacts" oom)
  found=$((found + crashes + leaks + timeouts + ooms))
  summary+=("$(printf '%-24s %12s %12s %8s %8s %8s %6s %8s %6s' "$t" "${seed:-?}" "${execs:-0}" "${cov:-?}" "${ft:-?}" \
    "$crashes" "$leaks" "$timeouts" "$ooms")")
  [[ -n $last ]] || echo "fuzz_long: $t printed no progress line; see $log" >&2
done
echo
printf '%-24s %12s %12s %8s %8s %8s %6s %8s %6s\n' fuzzer seed executions cov ft crashes leaks timeouts ooms
printf '%s\n' "${summary[@]}"
if [[ $found -gt 0 ]]; then
  echo "fuzz_long: $found input(s) saved under $build/tests/fuzz/long/*/artifacts/ (replay one with" \
    "WICK_FUZZ_VERBOSE=1 $build/bin/TARGET_fuzz FILE)"
  exit 1
fi
echo "fuzz_long: ${#targets[@]} fuzzers clean, ${seconds}s each"
