#!/usr/bin/env bash
# tools/bench/compare.sh - wick against libtorch, each side in its own process, as one table of ratios.
#
# Usage: tools/bench/compare.sh [REGEX...]
#   REGEX  a benchmark name without its side's prefix (default: every pair),
#          e.g. 'conv2d/' 'train_(mlp|dcgan)' 'sum/10000000'; several are or-ed.
# Environment:
#   BUILD=build/release  the build whose bin/wick_bench runs
#   REPS=3               processes per side; the ratio's spread is over these
#   THREADS=$(nproc)     OMP_NUM_THREADS for both sides (libtorch's twins call
#                        at::set_num_threads(omp_get_max_threads()))
#   MIN_TIME=0.5         --benchmark_min_time per benchmark, seconds
#   PIN=""               a command prefix for both sides, e.g. 'taskset -c 0,1'
#   OUT=""               a folder to keep the JSON and the log of every run in
#   SIDES="wick torch"   the sides to run (SIDES=wick: wick's times alone)
#
# For each repetition the two sides run one after the other (wick first in
# odd repetitions, libtorch first in even ones, so that a drift of the
# machine loads both alike), each as `wick_bench --benchmark_filter=^wick_(...)`
# or `^torch_(...)` in a fresh process with the same thread count and
# OMP_WAIT_POLICY=passive: no side's idle OpenMP threads spin on the cores
# the other needs (tools/bench/README.md, "A fair comparison").
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${BUILD:-$root/build/release}"
bench="$build/bin/wick_bench"
reps="${REPS:-3}"
threads="${THREADS:-$(nproc)}"
min_time="${MIN_TIME:-0.5}"
pin="${PIN:-}"
sides="${SIDES:-wick torch}"
[[ -x "$bench" ]] || { echo "compare.sh: $bench not found; build with -DWICK_BUILD_BENCH=ON" >&2; exit 2; }

pattern=".*"
if (($# > 0)); then
  pattern="$(IFS='|'; echo "$*")"
fi

out="${OUT:-}"
cleanup=""
if [[ -z "$out" ]]; then
  out="$(mktemp -d)"
  cleanup="$out"
fi
mkdir -p "$out"
trap '[[ -n "$cleanup" ]] && rm -rf "$cleanup"' EXIT

run_side() {  # side repetition
  local side="$1" rep="$2"
  # shellcheck disable=SC2086
  env OMP_NUM_THREADS="$threads" OMP_WAIT_POLICY=passive $pin "$bench" \
    --benchmark_filter="^${side}_(${pattern})" --benchmark_min_time="$min_time" \
    --benchmark_out="$out/${side}_${rep}.json" --benchmark_out_format=json >"$out/${side}_${rep}.log" 2>&1 || {
    echo "compare.sh: the $side side failed; its output:" >&2
    cat "$out/${side}_${rep}.log" >&2
    exit 1
  }
}

for ((rep = 1; rep <= reps; ++rep)); do
  order="$sides"
  ((rep % 2 == 1)) || order="$(echo "$sides" | tr ' ' '\n' | tac | tr '\n' ' ')"
  for side in $order; do run_side "$side" "$rep"; done
  echo "compare.sh: repetition $rep of $reps done" >&2
done

echo "threads $threads, OMP_WAIT_POLICY=passive, $reps processes per side, min time ${min_time} s${pin:+, pinned: $pin}"
python3 "$here/compare_table.py" "$out" "$reps"
