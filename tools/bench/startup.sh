#!/usr/bin/env bash
# tools/bench/startup.sh - start-up time and resident memory of `wick eval` beside `python3 -c 'import torch'`.
#
# Usage: tools/bench/startup.sh [RUNS]
#   RUNS (default 20) new processes per command, the commands taking turns.
# Environment:
#   BUILD=build/release   the build whose bin/wick runs (its own plugins and backends)
#   PYTHON=/usr/bin/python3  the Python with PyTorch
#
# Each run is one new process under /usr/bin/time (its peak resident set
# size, RSS), timed from the shell (wall time, microseconds). Prints, per command, the median and the fastest
# wall time and the median peak RSS. `wick eval 'torch.ones(1)'` starts the
# CLI, loads the default backends and plugins (wick::init), parses, runs and
# prints; `import torch` only imports, so the table also shows PyTorch
# creating and printing the same tensor.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-20}
build=${BUILD:-build/release}
python=${PYTHON:-/usr/bin/python3}
wick=$build/bin/wick
[[ -x $wick ]] || { echo "startup.sh: no $wick (build first)" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "startup.sh: needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }

names=("wick eval 'torch.ones(1)'" "python3 -c 'import torch'" "python3 -c 'import torch; print(torch.ones(1))'")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ((r = 0; r < runs; r++)); do
  for i in "${!names[@]}"; do
    start=$(date +%s%N)
    case $i in
      0) /usr/bin/time -f "%M" -o "$work/t" "$wick" eval 'torch.ones(1)' > /dev/null ;;
      1) /usr/bin/time -f "%M" -o "$work/t" "$python" -c 'import torch' > /dev/null 2>&1 ;;
      2) /usr/bin/time -f "%M" -o "$work/t" "$python" -c 'import torch; print(torch.ones(1))' > /dev/null 2>&1 ;;
    esac
    end=$(date +%s%N)
    echo "$(((end - start) / 1000)) $(cat "$work/t")" >> "$work/$i"
  done
done
echo "$runs new processes per command, taking turns; $(nproc) cores; $(date -u +%Y-%m-%d)"
echo "| command | median wall | fastest wall | median peak RSS |"
echo "|---|---:|---:|---:|"
for i in "${!names[@]}"; do
  python3 - "$work/$i" "${names[$i]}" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
wall = sorted(int(r[0]) / 1000 for r in rows)
rss = sorted(int(r[1]) / 1024 for r in rows)
print(f"| `{sys.argv[2]}` | {statistics.median(wall):.0f} ms | {wall[0]:.0f} ms | {statistics.median(rss):.0f} MiB |")
EOF
done
