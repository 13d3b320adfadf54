#!/usr/bin/env bash
# tests/distributed/ddp_example.sh WICK EXAMPLE - the data-parallel MLP reaches one process's loss on 2 and 4 processes.
# Runs the example alone, then through `wick run` with 2 and 4 processes (each run bounded in time), and
# compares the final losses to within 1e-4 (the ranks add their gradients in another order).
set -euo pipefail
wick=$1
example=$2
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
loss() { sed -n 's/.*final loss: //p'; }
one=$(timeout 300 "$example" | loss)
echo "1 process: $one"
for n in 2 4; do
  got=$(timeout 300 "$wick" run --nproc-per-node "$n" --master-port "$(port)" "$example" | loss)
  echo "$n processes: $got"
  python3 - "$one" "$got" <<'PY'
import sys
a, b = float(sys.argv[1]), float(sys.argv[2])
if abs(a - b) > 1e-4 * max(1.0, abs(a)):
    sys.exit(f"the losses differ: {a} alone, {b} data-parallel")
PY
done
