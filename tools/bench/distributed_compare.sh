#!/usr/bin/env bash
# tools/bench/distributed_compare.sh [BUILD] - wick::distributed beside torch.distributed (PyTorch 1.13, Gloo), 2 and 4 processes.
# Each side runs alone, REPS times (default 3), with OMP_NUM_THREADS=1 per process (the launchers' default)
# and OMP_WAIT_POLICY=passive. Prints, per process count and size: wick's and PyTorch's median time, the
# ratio (wick / PyTorch: below 1, wick is faster) and the spread of the ratio over the repetitions.
set -euo pipefail
build=${1:-build/release}
reps=${REPS:-3}
max_bytes=${MAX_BYTES:-268435456}
here=$(cd "$(dirname "$0")" && pwd)
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
for n in 2 4; do
  for r in $(seq "$reps"); do
    # Each run is bounded: a rank that hangs (PyTorch 1.13's at exit, now and then) loses that run only.
    timeout 600 "$build/bin/wick" run --nproc-per-node "$n" --master-port "$(port)" "$build/bin/wick_bench_distributed" \
      --max-bytes "$max_bytes" > "$out/wick_${n}_$r" || echo "wick, $n processes, run $r failed" >&2
    # Both sides start through wick run, which sets torchrun's environment (Debian's torchrun fails
    # on Python 3.11 before starting any worker).
    timeout 600 "$build/bin/wick" run --nproc-per-node "$n" --master-port "$(port)" /usr/bin/python3 \
      "$here/bench_distributed_torch.py" --max-bytes "$max_bytes" > "$out/torch_${n}_$r" || echo "PyTorch, $n processes, run $r failed" >&2
  done
done
python3 - "$out" "$reps" <<'PY'
import statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])
def read(path):
    d = {}
    for line in open(path):
        k = line.split()
        if k and k[0] == "allreduce":
            d[("all_reduce", int(k[1]))] = float(k[2])
        elif k and k[0] == "ddp_mlp":
            d[("DDP step, MLP", 0)] = float(k[1]) * 1e3
    return d
def size(b):
    for unit, f in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= f:
            return f"{b // f} {unit}"
    return f"{b} B"
print("| processes | work | wick µs | PyTorch µs | ratio | spread |")
print("|---:|---|---:|---:|---:|---|")
for n in (2, 4):
    runs_w = [read(f"{out}/wick_{n}_{r}") for r in range(1, reps + 1)]
    runs_t = [read(f"{out}/torch_{n}_{r}") for r in range(1, reps + 1)]
    for key in sorted(runs_w[0], key=lambda k: (k[0] != "all_reduce", k[1])):
        w = [x[key] for x in runs_w if key in x]
        t = [x[key] for x in runs_t if key in x]
        if not t:
            continue
        ratios = [a / b for a, b in zip(w, t)]
        name = f"all_reduce {size(key[1])}" if key[0] == "all_reduce" else key[0]
        print(f"| {n} | {name} | {statistics.median(w):.1f} | {statistics.median(t):.1f} | "
              f"{statistics.median(ratios):.2f} | {min(ratios):.2f}–{max(ratios):.2f} |")
PY
