#!/usr/bin/env python3
"""Prints wick_cuda_bench's figures beside PyTorch's (tools/gpu/torch_twin.py) as markdown tables."""
import json
import sys


def wick_medians(path):
    out = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("aggregate_name", "median") != "median" or b.get("error_occurred"):
            continue
        name = b["run_name"].split("/manual_time")[0].split("/iterations")[0]
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0}[b["time_unit"]]
        out[name] = b["real_time"] * scale  # milliseconds
    return out


def main():
    wick = wick_medians(sys.argv[1])
    torch = json.load(open(sys.argv[2]))
    print(f"PyTorch {torch['torch_version']} on {torch['device']}; wick/PyTorch below 1 means wick is faster.\n")
    print("| work | wick | PyTorch | cuBLAS/cuDNN | wick / PyTorch | raw / wick |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = [
        ("copy 2^28 float32", "copy_2e28", "copy_2e28", None, "ms"),
        ("neg 2^28 float32", "neg_2e28", "neg_2e28", None, "ms"),
        ("add 2^28 float32", "add_2e28", "add_2e28", None, "ms"),
        ("add [2^14, 2^14] + [2^14] float32 (row broadcast)", "add_rows_2e28", "add_rows_2e28", None, "ms"),
        ("mm float32 n=1024", "wick_mm/1024", "mm/1024", "cublas_sgemm/1024", "ms"),
        ("mm float32 n=4096", "wick_mm/4096", "mm/4096", "cublas_sgemm/4096", "ms"),
        ("mm float32 n=8192", "wick_mm/8192", "mm/8192", "cublas_sgemm/8192", "ms"),
        ("mm float16 n=4096 (tensor cores)", "wick_mm_f16/4096", "mm_f16/4096", "cublas_gemm_f16/4096", "ms"),
        ("mm float16 n=8192", "wick_mm_f16/8192", "mm_f16/8192", "cublas_gemm_f16/8192", "ms"),
        ("mm bfloat16 n=4096", "wick_mm_bf16/4096", "mm_bf16/4096", "cublas_gemm_bf16/4096", "ms"),
        ("mm bfloat16 n=8192", "wick_mm_bf16/8192", "mm_bf16/8192", "cublas_gemm_bf16/8192", "ms"),
        ("conv2d 3x3 N=32 C=K=128 56x56, TF32 off", "wick_conv2d", "conv2d_tf32_off", "cudnn_conv", "ms"),
        ("conv2d, TF32 on (PyTorch's default)", "wick_conv2d_tf32", "conv2d_tf32_on", "cudnn_conv_tf32", "ms"),
        ("conv2d, TF32 off, cudnn.benchmark", "wick_conv2d_benchmark", "conv2d_tf32_off_benchmark", None, "ms"),
        ("conv2d, TF32 on, cudnn.benchmark", "wick_conv2d_tf32_benchmark", "conv2d_tf32_on_benchmark", None, "ms"),
        ("conv2d float16", "wick_conv2d_f16", "conv2d_f16", None, "ms"),
        ("conv2d bfloat16", "wick_conv2d_bf16", "conv2d_bf16", None, "ms"),
        ("sort 2^24 float32, one row", "sort_2e24", "sort_2e24", None, "ms"),
        ("sort [2^14, 1024] float32 along rows", "sort_rows_2e24", "sort_rows_2e24", None, "ms"),
        ("linalg.solve 1024 x 1024, 64 right-hand sides", "solve_1024", "solve_1024", None, "ms"),
        ("1-element add, host cost per call", "tiny_add", "tiny_add_us", None, "us"),
        ("  the same add into an existing output", "tiny_add_out", None, None, "us"),
        ("  cudaMemsetAsync of 4 bytes (the driver call alone)", "tiny_memset", None, None, "us"),
        ("  fill_ of 1 element (one wick launch, no inputs)", "tiny_fill", None, None, "us"),
        ("  fill_ on a pool (non-blocking) stream", "tiny_fill_pool_stream", None, None, "us"),
        ("  empty kernel, <<<>>>", "tiny_launch_empty", None, None, "us"),
        ("  empty kernel, cudaLaunchKernel", "tiny_launch_empty_api", None, None, "us"),
        ("  empty kernel on a pool stream", "tiny_launch_empty_pool_stream", None, None, "us"),
        ("  256-thread kernel with 40 bytes of parameters", "tiny_launch_params", None, None, "us"),
        ("  cudaGetLastError", "tiny_get_last_error", None, None, "us"),
        ("  wick's device and stream lookups", "tiny_runtime_lookups", None, None, "us"),
        ("  the same add_out on CPU tensors (dispatch, checks)", "tiny_add_out_cpu", None, None, "us"),
        ("1-element add inside a replayed CUDA graph, per add", "graph_tiny_add", None, None, "us"),
    ]
    for label, w, t, raw, unit in rows:
        wv = wick.get(w)
        tv = torch.get(t)
        rv = wick.get(raw) if raw else None
        if unit == "us":
            wv = wv * 1e3 if wv is not None else None
        fmt = lambda v: "—" if v is None else f"{v:.3f} {unit}"
        ratio = "—" if wv is None or tv is None else f"{wv / tv:.2f}"
        # The share of the raw library's speed wick reaches (GEMM target: 0.90 and up).
        share = "—" if wv is None or rv is None else f"{rv / wv:.2f}"
        print(f"| {label} | {fmt(wv)} | {fmt(tv)} | {fmt(rv)} | {ratio} | {share} |")
    print("\n| MLP step (W, B), float32, µs | wick | wick, CUDA graph | PyTorch (Python) | wick / PyTorch |")
    print("|---|---:|---:|---:|---:|")
    us = lambda v: "—" if v is None else f"{v * 1e3:.0f}"
    for w, b in ((256, 64), (1024, 256), (4096, 512)):
        wv = wick.get(f"mlp_step/W:{w}/B:{b}/graph:0")
        gv = wick.get(f"mlp_step/W:{w}/B:{b}/graph:1")
        tv = torch.get(f"mlp_step/{w}/{b}")
        ratio = "—" if wv is None or tv is None else f"{wv * 1e3 / tv:.2f}"
        print(f"| {w}, {b} | {us(wv)} | {us(gv)} | {'—' if tv is None else f'{tv:.0f}'} | {ratio} |")


if __name__ == "__main__":
    main()
