# tools/bench/bench_distributed_torch.py - bench_distributed.cpp's twin: torch.distributed on Gloo (PyTorch 1.13).
# Run: wick run --nproc-per-node N /usr/bin/python3 bench_distributed_torch.py [--max-bytes B] (torchrun's environment).
# Prints the same lines as bench_distributed.cpp.
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


def slowest(seconds):
    t = torch.tensor([seconds], dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.item()


def iterations(nbytes):
    return max(3, min(2000, (1 << 29) // nbytes))


def main():
    max_bytes = 256 << 20
    ddp_only = "--ddp-only" in sys.argv
    if "--max-bytes" in sys.argv:
        max_bytes = int(sys.argv[sys.argv.index("--max-bytes") + 1])
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    nbytes = 4
    while nbytes <= max_bytes and not ddp_only:
        x = torch.ones(nbytes // 4)
        for _ in range(3):
            dist.all_reduce(x)
        n = iterations(nbytes)
        dist.barrier()
        start = time.perf_counter()
        for _ in range(n):
            dist.all_reduce(x)
        s = slowest(time.perf_counter() - start)
        if rank == 0:
            print(f"allreduce {nbytes} {s / n * 1e6}", flush=True)
        nbytes *= 4
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(784, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10), nn.LogSoftmax(1))
    ddp = nn.parallel.DistributedDataParallel(net)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    x = torch.randn(64, 784)
    y = torch.randint(0, 10, (64,))

    def step():
        opt.zero_grad()
        loss = F.nll_loss(ddp(x), y)
        loss.backward()
        opt.step()

    for _ in range(20):
        step()
    steps = 300
    dist.barrier()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    s = slowest(time.perf_counter() - start)
    if rank == 0:
        print(f"ddp_mlp {s / steps * 1e3}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
