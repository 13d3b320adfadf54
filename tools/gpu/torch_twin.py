#!/usr/bin/env python3
"""PyTorch twins of wick_cuda_bench's benchmarks, for the GPU machine.

Each figure is measured as wick_cuda_bench measures its own: device time with
CUDA events around each call (median of the runs), host cost per call with the
queue kept busy, and wall time per training step over 100 steps between
synchronisations. Prints one JSON object: {name: value}, milliseconds for
device work, microseconds for host cost and steps.
"""
import json
import statistics
import sys
import time

import torch


def device_ms(fn, runs=20):
    fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(runs):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def tiny_add_us(batches=3000, batch=64):
    """Host cost per call, as wick_cuda_bench's Note [Host cost per call]:
    only issuing a batch of 64 calls is timed; the synchronisation is not."""
    a = torch.ones(1, device="cuda")
    b = torch.ones(1, device="cuda")
    torch.add(a, b)
    torch.cuda.synchronize()
    per_call = []
    for _ in range(batches):
        begin = time.perf_counter()
        for _ in range(batch):
            torch.add(a, b)
        per_call.append((time.perf_counter() - begin) / batch)
        torch.cuda.synchronize()
    return statistics.median(per_call) * 1e6


def mlp_step_us(width, batch, steps=100, rounds=5):
    torch.manual_seed(0)
    params = []
    for _ in range(4):
        params.append((torch.randn(width, width) * 0.03).cuda().requires_grad_())
        params.append(torch.zeros(width).cuda().requires_grad_())
    x = torch.randn(batch, width).cuda()
    target = torch.randn(batch, width).cuda()
    opt = torch.optim.SGD(params, lr=0.01, foreach=False)

    def step():
        opt.zero_grad(set_to_none=True)
        h = x
        for i in range(4):
            h = torch.nn.functional.linear(h, params[2 * i], params[2 * i + 1])
            if i < 3:
                h = torch.relu(h)
        torch.nn.functional.mse_loss(h, target).backward()
        opt.step()

    for _ in range(20):
        step()
    torch.cuda.synchronize()
    per_step = []
    for _ in range(rounds):
        begin = time.perf_counter()
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
        per_step.append((time.perf_counter() - begin) / steps * 1e6)
    return statistics.median(per_step)


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    if len(sys.argv) == 4 and sys.argv[1] == "--mlp":  # one MLP size alone (for a profiler)
        print(mlp_step_us(int(sys.argv[2]), int(sys.argv[3])))
        return
    out = {"torch_version": torch.__version__, "device": torch.cuda.get_device_name()}
    n = 1 << 28
    a = torch.zeros(n, device="cuda")
    b = torch.zeros(n, device="cuda")
    c = torch.empty(n, device="cuda")
    out["copy_2e28"] = device_ms(lambda: c.copy_(a))
    out["neg_2e28"] = device_ms(lambda: torch.neg(a))
    out["add_2e28"] = device_ms(lambda: torch.add(a, b))
    side = 1 << 14
    out["add_rows_2e28"] = device_ms(lambda: torch.add(a.view(side, side), b[:side]))
    del a, b, c
    for size in (1024, 4096, 8192):
        x = torch.randn(size, size, device="cuda")
        y = torch.randn(size, size, device="cuda")
        out[f"mm/{size}"] = device_ms(lambda: torch.mm(x, y))
    del x, y
    # 16-bit GEMMs on tensor cores, PyTorch's defaults (reduced-precision
    # reductions allowed), as wick_mm_f16 / wick_mm_bf16.
    for name, dtype in (("f16", torch.float16), ("bf16", torch.bfloat16)):
        for size in (4096, 8192):
            x = torch.randn(size, size, device="cuda", dtype=dtype)
            y = torch.randn(size, size, device="cuda", dtype=dtype)
            out[f"mm_{name}/{size}"] = device_ms(lambda: torch.mm(x, y))
            del x, y
    x = torch.randn(32, 128, 56, 56, device="cuda")
    w = torch.randn(128, 128, 3, 3, device="cuda")
    for bench in (False, True):
        torch.backends.cudnn.benchmark = bench
        for tf32 in (False, True):
            torch.backends.cudnn.allow_tf32 = tf32
            out[f"conv2d_tf32_{'on' if tf32 else 'off'}{'_benchmark' if bench else ''}"] = device_ms(
                lambda: torch.nn.functional.conv2d(x, w, padding=1))
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.allow_tf32 = True
    for name, dtype in (("f16", torch.float16), ("bf16", torch.bfloat16)):
        xh = x.to(dtype)
        wh = w.to(dtype)
        out[f"conv2d_{name}"] = device_ms(lambda: torch.nn.functional.conv2d(xh, wh, padding=1))
        del xh, wh
    v = torch.randn(1 << 24, device="cuda")
    out["sort_2e24"] = device_ms(lambda: torch.sort(v))
    out["sort_rows_2e24"] = device_ms(lambda: torch.sort(v.view(1 << 14, 1024)))
    a = torch.randn(1024, 1024, device="cuda") + 64 * torch.eye(1024, device="cuda")
    rhs = torch.randn(1024, 64, device="cuda")
    out["solve_1024"] = device_ms(lambda: torch.linalg.solve(a, rhs))
    del v, a, rhs
    out["tiny_add_us"] = tiny_add_us()
    for width, batch in ((256, 64), (1024, 256), (4096, 512)):
        out[f"mlp_step/{width}/{batch}"] = mlp_step_us(width, batch)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
