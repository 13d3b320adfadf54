#!/usr/bin/env bash
# tools/gpu/bench.sh [OUTDIR] - wick_cuda_bench beside its PyTorch twins, on the GPU machine.
#
# Run in the repository root after `source tools/gpu/setup.sh`. Writes
# wick.json (Google Benchmark), torch.json (tools/gpu/torch_twin.py) and
# table.md (both tables of the README's GPU section, with ratios) to OUTDIR
# (default ./gpu-bench), and prints the table.
set -euo pipefail
out=${1:-gpu-bench}
mkdir -p "$out"
# The console lines show progress as each benchmark ends (line-buffered); the JSON is written at the end.
# shellcheck disable=SC2086  # WICK_GPU_BENCH_ARGS: extra flags, split on purpose
stdbuf -oL "$WICK_GPU_BUILD/bin/wick_cuda_bench" --benchmark_out="$out/wick.json" --benchmark_out_format=json \
  --benchmark_repetitions="${WICK_GPU_BENCH_REPS:-3}" --benchmark_report_aggregates_only=true ${WICK_GPU_BENCH_ARGS:-}
# PyTorch brings its own CUDA libraries: none of the packed Debian ones.
env -u LD_LIBRARY_PATH python3 "$(dirname "$0")/torch_twin.py" > "$out/torch.json"
python3 "$(dirname "$0")/table.py" "$out/wick.json" "$out/torch.json" | tee "$out/table.md"
