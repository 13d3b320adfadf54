#!/usr/bin/python3
# tests/data/reference/dump_dtypes.py - PyTorch 1.13's promotion table and 16-bit roundings, for tests/core/dtype_test.cpp.
"""Writes torch-1.13-dtypes.json. Run with Debian's python3-torch (PyTorch 1.13):

    /usr/bin/python3 tests/data/reference/dump_dtypes.py
"""
import json
import pathlib
import struct

import torch

DTYPES = ["bool", "int32", "int64", "float32", "float64", "float16", "bfloat16", "uint8", "int8", "int16",
          "complex64", "complex128"]


def bits16(t):
    return t.view(torch.int16).item() & 0xFFFF


def main():
    promote = {a: {b: str(torch.promote_types(getattr(torch, a), getattr(torch, b))).replace("torch.", "")
                   for b in DTYPES} for a in DTYPES}
    # float32 values (as bits) and the float16 and bfloat16 bits PyTorch rounds them to.
    values = [0.0, -0.0, 1.0, 0.1, 1 / 3, 65504.0, 65519.99, 65520.0, 1e-8, 6e-8, 5.96e-8, 2.98e-8, 1e-5, -2.5,
              3.0e38, float("inf"), -float("inf"), 1.00048828125, 1.0009765625, 1.001953125, 1.0029296875, 256.5,
              257.5, 0.0078125, 1e20, -1e-40, 3.14159]
    rounding = []
    for v in values:
        f = torch.tensor([v], dtype=torch.float32)
        rounding.append({"float_bits": struct.unpack("<I", struct.pack("<f", f.item()))[0],
                         "half_bits": bits16(f.to(torch.float16)), "bfloat16_bits": bits16(f.to(torch.bfloat16))})
    out = {"torch_version": torch.__version__, "promote_types": promote, "rounding": rounding}
    path = pathlib.Path(__file__).resolve().parent / "torch-1.13-dtypes.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"-> {path}")


if __name__ == "__main__":
    main()
