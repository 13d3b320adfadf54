#!/usr/bin/python3
# tests/differential/make_autocast_cases.py - what PyTorch 1.13's CPU autocast gives for each catalog operator.
"""Writes tests/data/reference/golden/autocast-cpu.json: {"expr": ..., "dtype": ...} cases.

Run it with Debian's python3-torch (PyTorch 1.13) from the repository root:

    /usr/bin/python3 tests/differential/make_autocast_cases.py

Each operator's first sample (the catalog section's expressions of
make_cases.py), with float32 inputs and with bfloat16 inputs, evaluated
inside torch.autocast('cpu', dtype=torch.bfloat16); "dtype" is the dtype
of the (first) result, or "error". tests/differential/autocast_test.cpp
evaluates the same expressions inside wick's AutocastGuard(kCPU) and
compares: the operators PyTorch casts to bfloat16 or to float32 are the ones
wick's policy lists name (dispatch/autocast.cpp).
"""
import json
import warnings

import torch
import torch.nn.functional as F

import make_cases as mc

warnings.filterwarnings("ignore")


def main():
    cases = []
    for op in mc.walked_ops(skip_random=True):
        if op.schema.name in ("tensor", "empty", "zeros", "ones", "full", "eye", "linspace", "arange"):
            continue  # creation functions take no floating input
        for sample in (op.samples or mc.default_samples(op))[:1]:
            for dtype in (None, "bfloat16"):
                expr = mc.call_expr(op, mc.Tensors(mc.domain_of(op), dtype).expand(sample))
                try:
                    with torch.autocast("cpu", dtype=torch.bfloat16):
                        r = eval(expr, {"torch": torch, "F": F})
                    if isinstance(r, (tuple, list)):
                        r = r[0]
                    got = str(r.dtype).replace("torch.", "") if isinstance(r, torch.Tensor) else "value"
                except Exception:  # noqa: BLE001 - refusals are recorded as such
                    got = "error"
                cases.append({"expr": expr, "dtype": got})
    path = mc.ROOT / "tests" / "data" / "reference" / "golden" / "autocast-cpu.json"
    path.write_text(json.dumps({"torch_version": torch.__version__, "cases": cases}, indent=0) + "\n")
    print(f"{len(cases)} cases -> {path}")


if __name__ == "__main__":
    main()
