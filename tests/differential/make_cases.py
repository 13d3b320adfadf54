#!/usr/bin/python3
# tests/differential/make_cases.py - the differential test's expressions, and what PyTorch 1.13 prints for each.
"""Writes tests/data/reference/golden/differential.json: {"expr": ..., "torch": ...} cases.

Run it with Debian's python3-torch (PyTorch 1.13) from the repository root:

    /usr/bin/python3 tests/differential/make_cases.py

The expressions are what a user types into `wick eval`; "torch" is what
PyTorch prints for the same text evaluated as Python: the repr of the last
statement's value, or `ExceptionType: first line of its message`. The test
(tests/differential/differential_test.cpp) evaluates each expression with
wick's expression engine and compares. Nothing here is random: every tensor
is built from linspace/arange, and expressions that draw random numbers seed
the generator first.

Sections:
  catalog    every operator definition of dispatch/ops/*.ops, from its
             `sample:` lines (the same samples as `wick opcheck`), through
             every entry the catalog derives: the function, its method, its
             dunders and other-namespace aliases, out= and in-place variants
  promotion  every pair of the twelve dtypes (and Python numbers, complex
             ones included) through the arithmetic, comparison and logical
             operators
  conversions  to(dtype) between every pair, special values included (NaN,
             infinities, out of range, rounding ties)
  dtypes     every operator sample of the catalog section with its floating
             inputs in each other dtype: the per-operator dtype coverage
             (Note [Dtype coverage] in differential_test.cpp)
  printing   PyTorch's print formats: widths, scientific mode, nan and inf,
             integers, bools, empty and 0-dim tensors, summarisation
  errors     bad arguments: types, shapes, dims, dtypes, devices
  grammar    the expression language: numbers, subscripts, attributes,
             operators, tuples, lists, strings
"""
import json
import pathlib
import re
import sys

import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "sdk" / "opgen"))
import wick_opgen  # noqa: E402  (the .ops parser: the catalog's own definitions)

DTYPES = ["bool", "int32", "int64", "float32", "float64", "float16", "bfloat16", "uint8", "int8", "int16",
          "complex64", "complex128"]
# The dtypes the `dtypes` section converts each sample's floating inputs to.
COVERAGE_DTYPES = ["float64", "float16", "bfloat16", "uint8", "int8", "int16", "int32", "int64", "bool", "complex64",
                   "complex128"]

# --- catalog ---------------------------------------------------------------------------


def shape_of(text):
    return [int(x) for x in text.split(",") if x.strip()]


class Tensors:
    """Deterministic stand-ins for the sample language's tensors (wick/opcheck.h)."""

    def __init__(self, domain, dtype=None):
        self.domain = domain
        self.dtype = dtype  # the dtype floating inputs are converted to (the dtypes section)
        self.n = 0

    def real(self, dims, positive=False, unit_interval=False):
        self.n += 1
        count = 1
        for d in dims:
            count *= d
        lo, hi = {"positive": (0.5, 2.5), "unit": (-0.8, 0.7), "probability": (0.1, 0.9),
                  "above_one": (1.2, 2.2)}.get(
            "positive" if positive else "probability" if unit_interval else self.domain, (-1.7, 1.9))
        lo += 0.13 * (self.n % 3)
        if not dims:
            return self.convert(f"torch.tensor({round((lo + hi) / 2, 4)})")
        if count == 0:
            return self.convert(f"torch.ones({', '.join(map(str, dims))})")
        base = f"torch.linspace({round(lo, 4)}, {hi}, {count})"
        base = base if len(dims) == 1 else f"{base}.reshape({', '.join(map(str, dims))})"
        square = not positive and not unit_interval and len(dims) >= 2 and dims[-1] == dims[-2]
        if self.domain in ("hermitian", "spd") and square:
            base = f"(({base} + {base}.transpose(-2, -1)) / 2)"
        if self.domain == "hermitian" and square:  # the symmetric part of linspace is singular: separate the eigenvalues
            base = f"({base} + torch.eye({dims[-1]}) * torch.arange({dims[-1]}))"
        if self.domain in ("invertible", "spd") and square:
            base = f"({base} + {2 * dims[-1]} * torch.eye({dims[-1]}))"  # linspace alone is singular
        elif self.domain == "invertible" and not positive and len(dims) >= 2:
            # linspace alone has rank 2: a decomposition's other columns would be rounding noise
            base = f"({base} + {2 * max(dims[-2:])} * torch.eye({dims[-2]}, {dims[-1]}))"
        return self.convert(base)

    def convert(self, text):
        if self.dtype is None:
            return text
        if self.dtype.startswith("complex"):  # a rotation gives every element an imaginary part
            return f"({text}.to(torch.{self.dtype}) * (0.8+0.6j))"
        return f"{text}.to(torch.{self.dtype})"

    def mask(self, dims):
        count = 1
        for d in dims:
            count *= d
        return f"(torch.arange({count}).reshape({', '.join(map(str, dims)) or '()'}) % 3 == 1)"

    def expand(self, sample):
        def sub(m):
            kind, body = m.group(1), m.group(2)
            if kind in ("T", "R"):
                return self.real(shape_of(body))
            if kind == "G":  # an input that requires grad
                return f"{self.real(shape_of(body))}.requires_grad_()"
            if kind == "P":
                return self.real(shape_of(body), positive=True)
            if kind == "U":  # uniform [0, 1): fractional max pooling's samples
                return self.real(shape_of(body), unit_interval=True)
            if kind == "M":
                return self.mask(shape_of(body))
            if kind == "D":  # float64 (complex128 in a complex section) whatever the section's dtype
                dtype = self.dtype
                self.dtype = "complex128" if dtype and dtype.startswith("complex") else "float64"
                text = self.real(shape_of(body))
                self.dtype = dtype
                return text
            if kind == "C":  # complex whatever the section's dtype
                dtype, self.dtype = self.dtype, "complex64"
                text = self.real(shape_of(body))
                self.dtype = dtype
                return text
            if kind == "L":
                return f"torch.tensor([{body}])"
            if kind == "B":
                return f"torch.tensor([{body}])"
            raise ValueError(kind)

        text = re.sub(r"\b([TGDRPUMC])\[([^\[\]]*)\]", sub, sample)
        # L[...] and B[...] hold nested lists: up to the matching bracket.
        while m := re.search(r"\b([LBI])\[", text):
            depth, i = 0, m.end() - 1
            while True:
                depth += {"[": 1, "]": -1}.get(text[i], 0)
                if depth == 0:
                    break
                i += 1
            int32 = ", dtype=torch.int32" if m.group(1) == "I" else ""
            text = text[:m.start()] + f"torch.tensor({text[m.end() - 1:i + 1]}{int32})" + text[i + 1:]
        text = re.sub(r"\bL\((-?\d+)\)", r"torch.tensor(\1)", text)
        text = re.sub(r"\bB\((True|False)\)", r"torch.tensor(\1)", text)
        text = re.sub(r"(?<![.\w'\"])(" + "|".join(DTYPES + ["float16", "int8", "uint8"]) + r")\b(?!['\"])",
                      r"torch.\1", text)
        text = re.sub(r"(?<![\w.'\"])inf\b", "float('inf')", text)
        return text


def split_args(text):
    return [a.strip() for a in wick_opgen.split_top(text) if a.strip()]


def python_name(ns, name):
    if ns == "torch.nn.functional":
        return f"F.{name}"
    return f"{ns}.{name}"


def default_samples(op):
    """Samples for definitions without any: one per tensor argument count."""
    tensors = [a for a in op.schema.args if a.kind == "Tensor" and not a.is_list and a.default is None]
    others = [a for a in op.schema.args if not (a.kind == "Tensor") and a.default is None]
    if others:
        return []
    return [", ".join(["T[2, 3]"] * len(tensors)), ", ".join(["T[]"] * len(tensors))]


# --- the operator walk (shared with make_autocast_cases.py) ---------------------------------


def walked_ops(skip_random=False):
    """The operator definitions of dispatch/ops whose samples run on the CPU
    in PyTorch: not CUDA-only, not device copies, not memory addresses
    (data_ptr), not wick's internal aten operators (not PyTorch's API);
    without random ones when asked."""
    ops = []
    for f in sorted((ROOT / "dispatch" / "ops").glob("*.ops")):
        ops.extend(wick_opgen.parse_ops(str(f)))
    for op in ops:
        tags = op.fields.get("tags", "")
        if "device=cuda" in tags or "device_copy" in tags or "address" in tags or op.ns == "aten":
            continue
        if skip_random and "random" in tags:
            continue
        yield op


def domain_of(op):
    """The sample domain its tags ask for ("positive", ...), or ""."""
    m = re.search(r"domain=(\w+)", op.fields.get("tags", ""))
    return m.group(1) if m else ""


def call_expr(op, args):
    """The Python call of the definition itself with `args`: a method call
    (or an attribute, for a property) for a torch.Tensor operator, else the
    function."""
    if op.ns == "torch.Tensor" or wick_opgen.is_method_namespace(op.ns):
        first, *rest = split_args(args)
        if op.is_property:  # an attribute: x.shape
            return f"({first}).{op.schema.name}"
        return f"({first}).{op.schema.name}({', '.join(rest)})"
    return f"{python_name(op.ns, op.schema.name)}({args})"


def catalog_cases():
    cases = []
    for op in walked_ops():
        tags = op.fields.get("tags", "")
        samples = op.samples or default_samples(op)
        seed = "torch.manual_seed(0); " if "random" in tags else ""
        s = op.schema
        for sample in samples:
            args = Tensors(domain_of(op)).expand(sample)
            name = python_name(op.ns, s.name)
            if "empty" in s.name:  # uninitialised memory: only the geometry is defined
                cases.append(f"{call_expr(op, args)}.shape")
                cases.append(f"{call_expr(op, args)}.stride()")
                continue
            if op.ns == "torch.Tensor" or wick_opgen.is_method_namespace(op.ns):
                cases.append(f"{seed}{call_expr(op, args)}")
                continue
            parts = split_args(args)
            cases.append(f"{seed}{name}({args})")
            positional = [p for p in parts if not re.match(r"^\w+=", p)]
            if "method" in op.variants and positional:
                cases.append(f"{seed}({positional[0]}).{s.name}({', '.join(parts[1:])})")
            for also in op.list("also"):
                alias_ns, _, alias_name = (x.strip() for x in also.partition(" as "))
                cases.append(f"{seed}{python_name(alias_ns, alias_name or s.name)}({args})")
            for other in op.list("names"):
                cases.append(f"{seed}{python_name(op.ns, other)}({args})")
                if "method" in op.variants and positional:
                    cases.append(f"{seed}({positional[0]}).{other}({', '.join(parts[1:])})")
                if "out" in op.variants:
                    cases.append(f"{seed}{python_name(op.ns, other)}({args}, out=torch.empty(0))")
                if ("inplace" in op.variants or "inplace_view" in op.variants) and positional:
                    cases.append(f"{seed}({positional[0]}).{other}_({', '.join(parts[1:])})")
            if "out" in op.variants:
                cases.append(f"{seed}{name}({args}, out=torch.empty(0))")
            if "inplace" in op.variants and positional:
                cases.append(f"{seed}({positional[0]}).{s.name}_({', '.join(parts[1:])})")
            for d in op.list("dunders"):
                if d.startswith("__i") or not positional:
                    continue
                cases.append(f"{seed}({positional[0]}).{d}({', '.join(parts[1:])})")
    return cases


def coverage_cases():
    """Each operator's samples (function form) with floating inputs in each other dtype."""
    cases = []
    for op in walked_ops(skip_random=True):
        for sample in op.samples or default_samples(op):
            for dtype in COVERAGE_DTYPES:
                args = Tensors(domain_of(op), dtype).expand(sample)
                if "empty" not in op.schema.name:
                    cases.append(call_expr(op, args))
    return list(dict.fromkeys(cases))  # a sample of C[...] tensors only is the same in every dtype


# --- promotion -----------------------------------------------------------------------------


def promotion_cases():
    values = {"bool": "[True, False, True]", "int32": "[3, -2, 0]", "int64": "[5, 2, -7]",
              "float32": "[1.5, -2.25, 0.5]", "float64": "[2.5, 0.125, -3.0]", "float16": "[0.1, -2.5, 3.0]",
              "bfloat16": "[1.25, 0.3, -4.0]", "uint8": "[3, 250, 0]", "int8": "[5, -2, 100]",
              "int16": "[300, -2, 7]", "complex64": "[1+2j, -0.5j, 3]", "complex128": "[2-1j, 0.25, -1j]"}

    def t(dt):
        return f"torch.tensor({values[dt]}, dtype=torch.{dt})"

    cases = []
    for a in DTYPES:
        for b in DTYPES:
            for op in ("+", "-", "*", "/", "//", "%", "**", "==", "<", ">=", "&", "|", "^"):
                cases.append(f"{t(a)} {op} {t(b)}")
            cases.append(f"torch.maximum({t(a)}, {t(b)})")
            cases.append(f"torch.where(torch.tensor([True, False, True]), {t(a)}, {t(b)})")
            cases.append(f"torch.cat([{t(a)}, {t(b)}])")
            cases.append(f"torch.result_type({t(a)}, {t(b)})")
            cases.append(f"({t(a)} + torch.tensor(1, dtype=torch.{b})).dtype")
        for number in ("2", "2.5", "True", "-3", "1j", "(1.5-2j)"):
            for op in ("+", "*", "/", "-"):
                cases.append(f"{t(a)} {op} {number}")
                cases.append(f"{number} {op} {t(a)}")
    return cases


# --- conversions -----------------------------------------------------------------------------


def conversion_cases():
    sources = {
        "float32": "torch.tensor([float('nan'), float('inf'), -float('inf'), 300.7, -1.5, 1e10, -1e10, 65520., "
                   "65519., 3.4e38, 2.5, 3.5, -200.5, 1e-8, -0.0])",
        "float64": "torch.tensor([float('nan'), -float('inf'), 300.7, -1.5, 1e10, 65520., 65504.5, 3e39, 2.5, -3.5, "
                   "1.00048828125, 1.001953125, 5e-324], dtype=torch.float64)",
        "int64": "torch.tensor([2**62, -2**62, 2**31, 300, -1, 65535, 70000, 16777217, -129, 0])",
        "int32": "torch.tensor([2**31 - 1, -2**31, 257, -129, 0], dtype=torch.int32)",
        "bool": "torch.tensor([True, False])",
        "uint8": "torch.tensor([0, 127, 128, 255], dtype=torch.uint8)",
        "int8": "torch.tensor([-128, -1, 0, 127], dtype=torch.int8)",
        "int16": "torch.tensor([-32768, -1, 256, 32767], dtype=torch.int16)",
        "float16": "torch.tensor([float('nan'), float('inf'), 65504., -0.0, 6e-8, 2.5, -300.5], dtype=torch.float16)",
        "bfloat16": "torch.tensor([float('nan'), -float('inf'), 1e30, 2.5, -300.5, 1e-40], dtype=torch.bfloat16)",
        "complex64": "torch.tensor([1+2j, -0.5j, complex(float('nan'), 1), 300.7-1j, 0j])",
        "complex128": "torch.tensor([2-1j, 0.25, complex(1e10, -1e10), 0j], dtype=torch.complex128)",
    }
    cases = []
    for src, text in sources.items():
        for dst in DTYPES:
            cases.append(f"{text}.to(torch.{dst})")
        cases.append(f"{text}.tolist()")
        cases.append(f"{text}[0].item()")
    cases += [f"torch.ones(2, dtype=torch.{d}).copy_(torch.tensor([1.5, -2.5]))" for d in DTYPES]
    cases += [f"torch.ones(2).copy_(torch.tensor([1.5, -2.5], dtype=torch.{d}))" for d in DTYPES]
    cases += [f"torch.tensor([0.1, 1e-5, 65519.], dtype=torch.{d}).to(torch.float64)" for d in ("float16", "bfloat16")]
    return cases


# --- printing --------------------------------------------------------------------------------

PRINTING = [
    "torch.tensor([1.0, 2.0, 3.0])", "torch.tensor([1.5, -2.25, 1e-4])", "torch.tensor([1e-5, 1.0])",
    "torch.tensor([1e8, 1.0])", "torch.tensor([1e16, 2.0])", "torch.tensor([123456.789])",
    "torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64)", "torch.tensor([1/3], dtype=torch.float64)",
    "torch.tensor([float('nan'), 1.0, float('inf'), -float('inf')])", "torch.tensor([float('nan')])",
    "torch.tensor([-0.0, 0.0])", "torch.tensor(-0.0)", "torch.tensor(3.5)", "torch.tensor(7)",
    "torch.tensor(True)", "torch.tensor([], dtype=torch.float32)", "torch.zeros(0, 3)", "torch.zeros(2, 0, 4)",
    "torch.ones(2, 3, dtype=torch.int64)", "torch.tensor([-1, 100, 1000000])", "torch.tensor([True, False])",
    "torch.arange(1001.)", "torch.arange(2000).reshape(40, 50)", "torch.arange(24).reshape(2, 3, 4)",
    "torch.linspace(0, 1, 7)", "torch.linspace(-1, 1, 7)", "torch.linspace(0, 1e-6, 4)",
    "torch.tensor([[1e-10, 1e10], [1.0, 2.0]])", "torch.tensor([2**31 - 1, -2**31], dtype=torch.int32)",
    "torch.tensor([2**62, -2**62])", "torch.tensor([1.0, 2.0], dtype=torch.float64)",
    "torch.tensor([0.5], dtype=torch.float64) * 3", "torch.full((2, 2), 1.25)", "torch.eye(3)",
    "torch.tensor([[True], [False]])", "torch.tensor([100.0, 0.01])", "torch.tensor([99999.0, 0.5])",
    "torch.tensor([1000.5, 2.25])", "torch.arange(10.) / 3", "torch.arange(6.).reshape(2, 3).t()",
    "torch.tensor([1.0]).requires_grad_()", "torch.tensor([2.0], requires_grad=True) * 2",
    "torch.ones(2, device='meta')", "torch.empty(3, 0, dtype=torch.int64)", "torch.tensor([[]])",
    "torch.tensor(1e-30)", "torch.tensor(1e30)", "torch.tensor([1.0, -1.0]) / 0",
    "torch.tensor([0.001, 0.0001])", "torch.tensor([12345678.0])", "torch.arange(5) * 1000000000",
    "torch.float32", "torch.int64", "torch.bool", "torch.float64", "torch.int32",
    "torch.tensor([1.0]).device", "torch.Size([2, 3])", "torch.ones(2, 3).shape", "torch.ones(4).size()",
    "torch.ones(2, 3).dtype", "torch.tensor([1, 2]).tolist()", "torch.tensor([1.5, 2.0]).tolist()",
    "torch.tensor(2.5).item()", "torch.tensor(7).item()", "torch.tensor(True).item()", "1 / 3", "2 ** 100",
    "10 // 3", "-7 // 2", "-7 % 3", "7.5 % -2", "1e300 * 1e10", "0.1 + 0.2", "'a\\'b'", "'x\"y'", "'tab\\there'",
    "[1, 2.5, True, None, 'x']", "(1,)", "()", "(1, (2, 3))", "{'a': 1, 'b': [2]}", "True and False",
    "None", "3 == 3.0", "2 < 3", "abs(-3)", "abs(-2.5)", "type(torch.ones(1))", "type(1.5)",
    # the dtypes of issue 19
    "torch.float16", "torch.half", "torch.bfloat16", "torch.uint8", "torch.int8", "torch.int16", "torch.short",
    "torch.complex64", "torch.cfloat", "torch.complex128", "torch.cdouble", "torch.complex32",
    "torch.tensor([1.5, 2.25], dtype=torch.float16)", "torch.tensor([0.1, 1e-5, 65504.], dtype=torch.float16)",
    "torch.tensor([1.5, 2.25], dtype=torch.bfloat16)", "torch.tensor([1e20, 1.0], dtype=torch.bfloat16)",
    "torch.tensor([1, 255], dtype=torch.uint8)", "torch.tensor([-128, 5], dtype=torch.int8)",
    "torch.tensor([-32768, 5], dtype=torch.int16)", "torch.tensor([1+2j, 3-1j])", "torch.tensor([1.5+2j, -3-1.25j])",
    "torch.tensor([1e10+2j, 3-1j])", "torch.tensor([0j, -0.0-0.0j])", "torch.tensor(1+2j)",
    "torch.tensor([complex(float('nan'), float('inf')), 1j], dtype=torch.complex128)",
    "torch.arange(30).to(torch.complex64) * (1+1j)", "torch.zeros(2, 3, dtype=torch.complex64)",
    "torch.empty(0, dtype=torch.complex64)", "torch.empty(0, dtype=torch.float16)", "torch.ones(2, dtype=torch.int8, device='meta')",
    "torch.tensor([1+1e-5j, 100+2j])", "torch.tensor([[1+2j, 3], [4j, -5]], dtype=torch.complex128)",
    "torch.arange(2000).to(torch.float16)", "torch.arange(1200).to(torch.complex64).reshape(40, 30)",
    "torch.tensor(2.5, dtype=torch.float16).item()", "torch.tensor(1+2j).item()", "torch.tensor([1+2j, 3]).tolist()",
    "torch.tensor([3], dtype=torch.uint8).item()", "1j", "2.5j", "1 + 2j", "(1+2j) * (3-1j)", "(1+2j) / (3-1j)",
    "(1+2j) ** 2", "1j ** 0.5", "abs(3+4j)", "-(1+2j)", "complex(1, 2)", "complex(2)", "1j == 1j", "1j < 2",
    "1j // 2", "(1+2j) % 2", "0j ** -1", "1 / 0j", "not 0j", "type(1j)", "torch.tensor([1j]).dtype",
    "torch.full((2,), 1j)", "torch.full((2,), 1j, dtype=torch.complex128)", "torch.ones(2).half()",
    "torch.ones(2).bfloat16()", "torch.ones(2).byte()", "torch.ones(2).char()", "torch.ones(2).short()",
    "torch.ones(2).cfloat()", "torch.ones(2).cdouble()",
    # views of complex parts, conj, angle
    "torch.view_as_real(torch.tensor([1+2j, 3j]))", "torch.view_as_real(torch.tensor(1+2j))",
    "torch.view_as_complex(torch.tensor([[1., 2.], [3., 4.]]))", "torch.view_as_complex(torch.ones(2, dtype=torch.float64))",
    "torch.view_as_complex(torch.ones(3))", "torch.view_as_complex(torch.ones(3, 2).t().contiguous().t())",
    "torch.view_as_complex(torch.ones(4)[1:].reshape(3)[:2].reshape(1, 2))", "torch.view_as_real(torch.ones(2))",
    "torch.real(torch.tensor([1+2j, -3.5j]))", "torch.imag(torch.tensor([1+2j, -3.5j]))", "torch.real(torch.ones(2))",
    "torch.imag(torch.ones(2))", "torch.conj(torch.tensor([1+1j, 2-0j]))", "torch.conj(torch.tensor([1, 2]))",
    "torch.tensor([1+1j, 3]).conj()", "torch.angle(torch.tensor([1+1j, -1j, -2]))", "torch.angle(torch.tensor([-1, 0, 2]))",
    "torch.angle(torch.tensor([-1., 0., float('nan')]))", "torch.angle(torch.tensor([True]))",
    "torch.tensor([-1.5, 2]).angle()", "torch.view_as_real(torch.arange(6).to(torch.complex64).reshape(2, 3)[:, 1:])",
    "torch.imag(torch.arange(4).to(torch.complex128) * 1j)",
    "torch.tensor([3+4j, 1-2j]).real", "torch.tensor([3+4j, 1-2j]).imag", "torch.ones(2).real", "torch.ones(2).imag",
    "torch.tensor([1+2j]).is_complex()", "torch.is_complex(torch.ones(2))", "torch.is_floating_point(torch.ones(2).half())",
    "torch.is_floating_point(torch.ones(2, dtype=torch.int8))", "torch.tensor([1j]).is_conj()", "torch.is_neg(torch.ones(1))",
    "torch.resolve_conj(torch.tensor([1+1j]))", "torch.tensor([2-1j]).resolve_neg()",
    "torch.conj_physical(torch.tensor([1+1j, -2j]))", "torch.conj_physical(torch.tensor([1.5, -2]))",
    "torch.tensor([1+1j, 3]).conj_physical_()", "torch.complex(torch.ones(2, 1), torch.tensor([1., 2., 3.]))",
    "torch.complex(torch.ones(2, dtype=torch.float64), torch.zeros(2, dtype=torch.float64))",
    "torch.complex(torch.ones(2), torch.ones(2, dtype=torch.float64))", "torch.complex(torch.ones(2).long(), torch.ones(2).long())",
    "torch.complex(torch.ones(2), 2)", "torch.complex(torch.ones(2), torch.ones(3))",
    "torch.polar(torch.tensor([1., 2.]), torch.tensor([0., 3.14159]))", "torch.polar(torch.tensor([-1.]), torch.tensor([0.5]))",
    "torch.polar(torch.ones(2), torch.ones(2, dtype=torch.float64))", "torch.polar(torch.ones(1).long(), torch.ones(1).long())",
    "torch.sgn(torch.tensor([3+4j, 0j, -1j]))", "torch.sgn(torch.tensor([-2., 0., 5.]))", "torch.tensor([3+4j]).sgn()",
    "torch.tensor([-3+4j, 1j]).sgn_()", "torch.sgn(torch.tensor([-2, 0, 5]))",
    # sorting: NaN above every number, stable ties, -0. and 0. equal
    "torch.sort(torch.tensor([3., float('nan'), 1., 3., -0., 0.]))",
    "torch.sort(torch.tensor([3., float('nan'), 1., 3., -0., 0.]), descending=True)",
    "torch.argsort(torch.tensor([2, 1, 2, 1, 0]))", "torch.sort(torch.tensor([True, False, True]))",
    "torch.kthvalue(torch.tensor([[3., 1., 2.], [0., 5., 4.]]), 4)", "torch.kthvalue(torch.ones(2, 0), 1)",
    "torch.topk(torch.tensor([[3., 1., 2.], [0., 5., 4.]]), -1)", "torch.topk(torch.tensor(3.), 2)",
    "torch.sort(torch.tensor([1j, 2]))", "torch.sort(torch.ones(2, 0))", "torch.topk(torch.ones(2, 0), 0)",
    "torch.sort(torch.tensor([1, 3, 2], dtype=torch.float16))", "torch.sort(torch.tensor([[1, 3], [2, 0]]), 2)",
    "torch.median(torch.tensor([[3., 1., 2., 2.], [float('nan'), 5., 4., float('nan')]]), 1)",
    "torch.nanmedian(torch.tensor([[3., 1., 2., 2.], [float('nan'), 5., 4., float('nan')]]), 1)",
    "torch.median(torch.tensor([[3., 1.], [float('nan'), 5.]]))", "torch.nanmedian(torch.tensor([float('nan'), 2., 1.]))",
    "torch.median(torch.tensor([]))", "torch.median(torch.tensor([], dtype=torch.int64))", "torch.nanmedian(torch.tensor([]))",
    "torch.median(torch.ones(2, 0), 1)", "torch.median(torch.tensor([1j]))", "torch.median(torch.tensor([True, False]))",
    "torch.nanmedian(torch.tensor([float('nan'), float('nan')]), 0)", "torch.median(torch.tensor([2, 2, 1, 2]), 0)",
    "torch.mode(torch.tensor([[1, 2, 2, 3, 3], [5, 4, 4, 5, 1]]), 1)", "torch.mode(torch.tensor([1., float('nan'), float('nan'), 2.]))",
    "torch.mode(torch.tensor([3, 1, 3, 1]))", "torch.mode(torch.tensor([True, False, False]))", "torch.mode(torch.tensor([]))",
    "torch.mode(torch.tensor([1j, 1j]))", "torch.mode(torch.tensor([[1., 2.], [2., 2.]]), 0, True)",
    "torch.median(torch.tensor([1j]), 0)", "torch.nanmedian(torch.tensor([1j]), 0)",
    "torch.abs(torch.tensor([3+4j, -1j]))", "torch.tensor([3-4j]).abs()", "torch.absolute(torch.tensor([-3+4j]))",
    # searching: promotion, both sides, sorter, N-D boundaries, NaN, the checks
    "torch.searchsorted(torch.tensor([1., 3, 5, 7]), torch.tensor([[0., 3, 6], [8, 1, 5]]))",
    "torch.searchsorted(torch.tensor([1., 3, 5, 7]), torch.tensor([[0., 3, 6], [8, 1, 5]]), right=True)",
    "torch.searchsorted(torch.tensor([1., 3, 5, 7]), torch.tensor([3., 5]), side='right', out_int32=True)",
    "torch.searchsorted(torch.tensor([1, 3, 5]), 3.5)", "torch.searchsorted(torch.tensor([1., 3, 5]), 3)",
    "torch.searchsorted(torch.tensor([1, 3, 5]), torch.tensor([2.5, 3.]))",
    "torch.searchsorted(torch.tensor([[1., 2], [3, 4]]), torch.tensor([[1.5], [3.5]]))",
    "torch.searchsorted(torch.tensor([5., 1, 3]), torch.tensor([0., 2, 4, 6]), sorter=torch.tensor([1, 2, 0]))",
    "torch.searchsorted(torch.tensor([1., 2., float('nan')]), torch.tensor([float('nan'), 2.5, 2.]))",
    "torch.searchsorted(torch.tensor([]), torch.tensor([1.]))", "torch.searchsorted(torch.tensor([1.]), torch.tensor([]))",
    "torch.searchsorted(torch.tensor([1., 2]).bfloat16(), torch.tensor([1.5]).bfloat16())",
    "torch.searchsorted(torch.tensor([1, 2], dtype=torch.uint8), torch.tensor([1.5]))",
    "torch.searchsorted(torch.rand(2, 3), torch.rand(3, 3))", "torch.searchsorted(torch.rand(2, 3), 3.)",
    "torch.searchsorted(torch.tensor(1.), torch.rand(2))", "torch.searchsorted(torch.tensor([1.]), torch.rand(2), side='middle')",
    "torch.searchsorted(torch.tensor([1.]), torch.rand(2), side='left', right=True)",
    "torch.searchsorted(torch.tensor([5., 1, 3]), torch.rand(2), sorter=torch.tensor([1, 2]))",
    "torch.searchsorted(torch.tensor([5., 1, 3]), torch.rand(2), sorter=torch.tensor([1., 2, 0]))",
    "torch.searchsorted(torch.tensor([1j, 2]), torch.tensor([1j]))", "torch.searchsorted(torch.tensor([True, False]), torch.tensor([True]))",
    "torch.bucketize(torch.tensor([[0., 3, 6], [8, 1, 5]]), torch.tensor([1., 3, 5, 7]))",
    "torch.bucketize(torch.tensor([[0., 3, 6], [8, 1, 5]]), torch.tensor([1., 3, 5, 7]), right=True, out_int32=True)",
    "torch.bucketize(3, torch.tensor([1., 3, 5, 7]))", "torch.bucketize(torch.tensor(3.), torch.tensor([1., 3, 5, 7]))",
    "torch.bucketize(torch.tensor([1, 5]), torch.tensor([2, 4]))", "torch.bucketize(torch.rand(3), torch.rand(2, 2))",
    # unique: sorted, inverse, counts, along a dim, consecutive runs, empty and 0-dim inputs, refused dtypes
    "torch.unique(torch.tensor([3, 1, 2, 3, 1, 5]))",
    "torch.unique(torch.tensor([3, 1, 2, 3, 1, 5]), return_inverse=True, return_counts=True)",
    "torch.unique(torch.tensor([[1, 2], [1, 2], [0, 5]]), dim=0, return_inverse=True, return_counts=True)",
    "torch.unique(torch.tensor([[1, 2], [1, 2], [0, 5]]), dim=1, return_inverse=True, return_counts=True)",
    "torch.unique(torch.tensor([[2., 1.], [1., 2.]]), dim=1)", "torch.unique(torch.tensor([[1, 2], [1, 2], [0, 5]]), return_inverse=True)",
    "torch.unique(torch.tensor(3.), return_inverse=True, return_counts=True)",
    "torch.unique(torch.tensor([]), return_inverse=True, return_counts=True)",
    "torch.unique(torch.tensor([[]]), dim=0)", "torch.unique(torch.tensor([[]]), dim=1, return_inverse=True, return_counts=True)",
    "torch.unique(torch.ones(0, 3), dim=0, return_inverse=True, return_counts=True)",
    "torch.unique(torch.tensor([True, False, True]), return_counts=True)", "torch.unique(torch.tensor([-0., 0.]))",
    "torch.unique(torch.tensor([[True], [False]]), dim=0, return_counts=True)",
    "torch.unique(torch.tensor([2, 1, 2]).bfloat16(), return_inverse=True)", "torch.unique(torch.tensor([2, 1, 2]).to(torch.int8))",
    "torch.unique(torch.tensor([1j, 1j, 2]))", "torch.unique(torch.tensor([1j, 1j, 2]), dim=0)",
    "torch.unique(torch.tensor([1.5, 1.5]).half())", "torch.unique(torch.tensor([3, 1]), dim=3)", "torch.unique(torch.tensor(3.), dim=0)",
    "torch.tensor([3, 1, 3]).unique(return_inverse=True)", "torch.functional.unique(torch.tensor([2, 2, 1]))",
    "torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True, return_counts=True)",
    "torch.unique_consecutive(torch.tensor([[1, 1], [1, 1], [2, 3], [1, 1]]), return_inverse=True, return_counts=True, dim=0)",
    "torch.unique_consecutive(torch.tensor(3.), return_inverse=True, return_counts=True)",
    "torch.unique_consecutive(torch.tensor([[1, 2], [3, 4]]), return_inverse=True)",
    "torch.unique_consecutive(torch.tensor([float('nan'), float('nan'), 1.]), return_counts=True)",
    "torch.unique_consecutive(torch.ones(3, 0), dim=0)", "torch.unique_consecutive(torch.tensor([1j, 1j]))",
    "torch.tensor([1, 1, 2]).unique_consecutive(return_counts=True)",
    # histc and bincount
    "torch.histc(torch.tensor([1., 2, 1, 0.5, 7, 3]), bins=4)", "torch.histc(torch.tensor([1., 2, 1, 0.5, 7, 3]), bins=4, min=0, max=3)",
    "torch.histc(torch.tensor([2., 2]), bins=4)", "torch.histc(torch.tensor([0.1, 0.2, 0.3, 0.7, 1.0]), bins=3, min=0.1, max=1)",
    "torch.histc(torch.tensor([1., float('nan')]), bins=4, min=0, max=2)", "torch.histc(torch.tensor([]), bins=4)",
    "torch.histc(torch.tensor(2.), bins=4)", "torch.histc(torch.tensor([1., 1, 2]), bins=3, min=1, max=1)",
    "torch.histc(torch.tensor([1., 2, 1, 0.5, 7, 3]).double(), bins=4)", "torch.histc(torch.tensor([1., 2, 1, 0.5, 7, 3]).bfloat16(), bins=4)",
    "torch.histc(torch.tensor([1., 2]), bins=0)", "torch.histc(torch.tensor([1., 2]), bins=4, min=3, max=1)",
    "torch.histc(torch.tensor([1., 2]), bins=4, min=float('inf'), max=1)", "torch.histc(torch.tensor([1, 2]), bins=4)",
    "torch.histc(torch.tensor([1., 2]).half(), bins=4)", "torch.histc(torch.tensor([1., 2]).half(), bins=3, min=0, max=3)",
    "torch.histc(torch.tensor([1j]), bins=3)", "torch.tensor([1., 2, 2]).histc(2)",
    "torch.bincount(torch.tensor([1, 3, 1, 0]))", "torch.bincount(torch.tensor([1, 3, 1, 0]), minlength=6)",
    "torch.bincount(torch.tensor([1, 3, 1, 0]), weights=torch.tensor([.5, 1, 2, 3]))",
    "torch.bincount(torch.tensor([1, 3, 1, 0]), weights=torch.tensor([.5, 1, 2, 3]).double())",
    "torch.bincount(torch.tensor([1, 3, 1, 0]), weights=torch.tensor([1, 1, 2, 3]))",
    "torch.bincount(torch.tensor([1, 3, 1, 0]), weights=torch.tensor([True, False, True, True]))",
    "torch.bincount(torch.tensor([-1, 2]))", "torch.bincount(torch.tensor([[1, 2]]))", "torch.bincount(torch.tensor([1., 2]))",
    "torch.bincount(torch.tensor([1, 2]), minlength=-1)", "torch.bincount(torch.tensor([1, 2]), weights=torch.tensor([1.]))",
    "torch.bincount(torch.tensor([], dtype=torch.long))", "torch.bincount(torch.tensor([], dtype=torch.long), minlength=3)",
    "torch.bincount(torch.tensor([2, 1], dtype=torch.uint8))", "torch.bincount(torch.tensor([True, False]))",
    "torch.bincount(torch.tensor(2))", "torch.tensor([0, 2]).bincount()",
    # indexing by positions and masks
    "torch.take(torch.arange(6.).reshape(2, 3), torch.tensor([0, -1, 4]))", "torch.take(torch.ones(2, 3), torch.tensor([6]))",
    "torch.take(torch.ones(2, 3), torch.tensor([-7]))", "torch.take(torch.ones(2, 3), torch.tensor([1.]))",
    "torch.take(torch.tensor([]), torch.tensor([0]))", "torch.take(torch.tensor([]), torch.tensor([], dtype=torch.long))",
    "torch.take_along_dim(torch.arange(6.).reshape(2, 3), torch.tensor([[0, 2], [1, 0]]), 1)",
    "torch.take_along_dim(torch.arange(6.).reshape(2, 3), torch.tensor([0, 5]))",
    "torch.take_along_dim(torch.arange(6.).reshape(2, 3), torch.tensor([[0, 2]]), 0)",
    "torch.take_along_dim(torch.arange(6.).reshape(2, 3), torch.tensor([[0, 2]]).float(), 0)",
    "torch.take_along_dim(torch.arange(6.).reshape(2, 3), torch.tensor([0, 2]), 0)",
    "torch.take_along_dim(torch.arange(6.).reshape(2, 3), torch.tensor([[3]]), 0)",
    "torch.take_along_dim(torch.arange(3.).reshape(3, 1), torch.tensor([[2, 0]]), 0)",
    "torch.masked_select(torch.arange(6.).reshape(2, 3), torch.tensor([True, False, True]))",
    "torch.masked_select(torch.arange(6.).reshape(2, 3), torch.tensor([1, 0, 1]))",
    "torch.masked_select(torch.arange(6.).reshape(2, 3), torch.tensor([True, False]))",
    "torch.masked_select(torch.tensor(2.), torch.tensor(True))", "torch.masked_select(torch.arange(3), torch.ones(2, 3).bool())",
    "torch.argwhere(torch.tensor([[1, 0, 2], [0, 0, 3]]))", "torch.argwhere(torch.tensor(2.))", "torch.tensor([0., 1.]).argwhere()",
    "torch.index_fill(torch.arange(6.).reshape(2, 3), 1, torch.tensor([0, 2]), -1.)",
    "torch.index_fill(torch.arange(6.).reshape(2, 3), 1, torch.tensor([0, -1]), torch.tensor(-1.))",
    "torch.index_fill(torch.arange(6.).reshape(2, 3), 1, torch.tensor([0, 3]), -1.)",
    "torch.index_fill(torch.arange(6.).reshape(2, 3), 1, torch.tensor([[0]]), -1.)",
    "torch.index_fill(torch.arange(6.).reshape(2, 3), 1, torch.tensor([0.]), -1.)",
    "torch.index_fill(torch.arange(6.).reshape(2, 3), 1, torch.tensor([0]), torch.tensor([1.]))",
    "torch.index_fill(torch.arange(6.).reshape(2, 3), 2, torch.tensor([0]), 1)", "torch.index_fill(torch.tensor(3.), 0, torch.tensor([0]), 1)",
    "torch.arange(6.).reshape(2, 3).index_fill_(0, torch.tensor([1]), 7)", "torch.arange(6).reshape(2, 3).index_fill(0, torch.tensor(1), 2.5)",
    "torch.index_copy(torch.arange(6.).reshape(2, 3), 1, torch.tensor([2, 0]), torch.tensor([[10., 20], [30, 40]]))",
    "torch.index_copy(torch.arange(6.).reshape(2, 3), 1, torch.tensor([2, 0]), torch.tensor([[10., 20, 5], [30, 40, 5]]))",
    "torch.index_copy(torch.arange(6.).reshape(2, 3), 1, torch.tensor([3]), torch.tensor([[10.], [30]]))",
    "torch.index_copy(torch.arange(6.).reshape(2, 3), 1, torch.tensor([0]), torch.tensor([[10], [30]]))",
    "torch.index_copy(torch.arange(6.).reshape(2, 3), 1, torch.tensor([-1]), torch.tensor([[10.], [30]]))",
    "torch.arange(6.).reshape(3, 2).index_copy_(0, torch.tensor([1]), torch.ones(1, 2))",
    "torch.index_add(torch.arange(6.).reshape(2, 3), 1, torch.tensor([2, 0, 2]), torch.ones(2, 3), alpha=2)",
    "torch.index_add(torch.arange(6.).reshape(2, 3), 1, torch.tensor([2, 0, 3]), torch.ones(2, 3))",
    "torch.index_add(torch.arange(6.).reshape(2, 3), 1, torch.tensor([2, 0]), torch.ones(2, 3))",
    "torch.index_add(torch.arange(6.).reshape(2, 3), 1, torch.tensor([-1, 0, 1]), torch.ones(2, 3))",
    "torch.index_add(torch.arange(6.).reshape(2, 3), 1, torch.tensor([1, 0, 1]), torch.ones(2, 3).double())",
    "torch.index_add(torch.arange(6).reshape(2, 3), 1, torch.tensor([1, 0, 1]), torch.ones(2, 3).long(), alpha=2.5)",
    "torch.arange(4.).index_add_(0, torch.tensor([0, 0]), torch.tensor([1., 2.]))",
    "torch.put(torch.arange(6.).reshape(2, 3), torch.tensor([0, -1]), torch.tensor([9., 8]))",
    "torch.put(torch.arange(6.).reshape(2, 3), torch.tensor([0, 0]), torch.tensor([9., 8]), accumulate=True)",
    "torch.put(torch.arange(6.).reshape(2, 3), torch.tensor([6]), torch.tensor([9.]))",
    "torch.put(torch.arange(6.).reshape(2, 3), torch.tensor([0, 1]), torch.tensor([9.]))",
    "torch.arange(6.).reshape(2, 3).put_(torch.tensor([[1]]), torch.tensor([[9.]]))",
    "torch.masked_scatter(torch.arange(6.).reshape(2, 3), torch.arange(6).reshape(2, 3) > 2, torch.tensor([10., 20, 30, 40]))",
    "torch.masked_scatter(torch.arange(6.).reshape(2, 3), torch.tensor([True, False, True]), torch.arange(10., 20))",
    "torch.masked_scatter(torch.arange(6.).reshape(2, 3), torch.arange(6).reshape(2, 3) > 2, torch.tensor([10., 20]))",
    "torch.masked_scatter(torch.arange(6.).reshape(2, 3), torch.arange(6).reshape(2, 3) > 2, torch.tensor([10, 20, 30, 40]))",
    "torch.masked_scatter(torch.ones(3), torch.ones(2, 3).bool(), torch.arange(10.))",
    "torch.zeros(2, 2).masked_scatter_(torch.tensor([[True, False], [False, True]]), torch.tensor([1., 2.]))",
    # advanced indexing: several index tensors broadcast, adjacent or not, with slices, ints, None and masks
    "torch.arange(24.).reshape(2, 3, 4)[torch.tensor([1, 0]), :, torch.tensor([3, 1])]",
    "torch.arange(24.).reshape(2, 3, 4)[:, torch.tensor([[2], [0]]), torch.tensor([3, 1])]",
    "torch.arange(24.).reshape(2, 3, 4)[torch.tensor([1, 0]), torch.tensor([0, 2])]",
    "torch.arange(24.).reshape(2, 3, 4)[1, torch.tensor([0, 2]), torch.tensor([-1])]",
    "torch.arange(24.).reshape(2, 3, 4)[torch.tensor([1, 0]), 1:, torch.tensor([0, 2])]",
    "torch.arange(24.).reshape(2, 3, 4)[None, torch.tensor([1]), ..., torch.tensor([0, 3])]",
    "torch.arange(24.).reshape(2, 3, 4)[torch.tensor([True, False]), torch.tensor([0, 2])]",
    "torch.arange(24.).reshape(2, 3, 4)[torch.tensor([[True, False, True], [False, False, True]])]",
    "torch.arange(24.).reshape(2, 3, 4)[:, torch.tensor([[True, False, False, True], [True, False, False, True], [False, True, True, False]])]",
    "torch.arange(24.).reshape(2, 3, 4)[torch.tensor([1, 0]), torch.tensor([0, 1, 2])]",
    "torch.arange(24.).reshape(2, 3, 4)[torch.tensor([2]), torch.tensor([0])]",
    "torch.arange(24.).reshape(2, 3, 4)[torch.tensor([0]), torch.tensor([0]), torch.tensor([0]), torch.tensor([0])]",
    "torch.arange(24.).reshape(2, 3, 4)[torch.tensor([True, False, True])]",
    "torch.arange(24.).reshape(2, 3, 4)[torch.tensor([1.])]", "torch.arange(24.).reshape(2, 3, 4)[torch.tensor([1], dtype=torch.int32)]",
    "torch.arange(24.).reshape(2, 3, 4)[torch.tensor([1, 0], dtype=torch.uint8)]",
    "torch.arange(6).reshape(2, 3)[torch.tensor([[0, 1], [1, 0]]), torch.tensor([[2], [0]])]",
    "torch.arange(6.).reshape(2, 3)[torch.tensor(True)]", "torch.arange(6.).reshape(2, 3)[torch.tensor([], dtype=torch.long)]",
    "torch.index_put(torch.arange(12.).reshape(3, 4), [torch.tensor([2, 0])], torch.tensor([1., 2, 3, 4]))",
    "torch.index_put(torch.arange(12.).reshape(3, 4), (torch.tensor([1, 1]), torch.tensor([0, 0])), torch.tensor([5., 6]), accumulate=True)",
    "torch.index_put(torch.arange(12.).reshape(3, 4), [torch.tensor([1])], torch.ones(2))",
    "torch.index_put(torch.arange(12.).reshape(3, 4), [torch.tensor([1])], torch.ones(4).double())",
    "torch.index_put(torch.arange(12.).reshape(3, 4), [torch.tensor([5])], torch.ones(1))",
    "torch.index_put(torch.arange(12.).reshape(3, 4), [torch.arange(12).reshape(3, 4) > 8], torch.tensor([-1., -2, -3]))",
    "torch.index_put(torch.arange(12.).reshape(3, 4), [torch.arange(12).reshape(3, 4) > 8], torch.tensor([-1., -2]))",
    "torch.arange(12.).reshape(3, 4).index_put_((torch.tensor([0]),), torch.tensor(0.))",
    "torch.arange(12.).reshape(3, 4).index_put((torch.tensor([0, 2]), torch.tensor([3, 1])), torch.tensor(9.))",
    "torch.index_put(torch.arange(12).reshape(3, 4), [torch.tensor([0])], torch.tensor(1.5))",
]

# --- errors ------------------------------------------------------------------------------------

ERRORS = [
    "torch.ones(2, 3) + torch.ones(4)", "torch.ones(2, 3) @ torch.ones(2, 3)", "torch.mm(torch.ones(2), torch.ones(2))",
    "torch.ones(2).reshape(3)", "torch.ones(2, 3).view(4)", "torch.ones(2, 3).sum(5)", "torch.ones(2, 3).transpose(0, 3)",
    "torch.cat([torch.ones(2, 3), torch.ones(3, 2)])", "torch.cat([])", "torch.stack([torch.ones(2), torch.ones(3)])",
    "torch.ones(2).squeeze(2)", "torch.ones(2, 3).permute(0)", "torch.ones(2, 3).permute(0, 0)",
    "torch.ones(3).expand(2)", "torch.ones(2, 3).expand(3, 3)", "torch.ones(2).unsqueeze(3)",
    "torch.zeros(-1)", "torch.ones(2, 3).flatten(2)", "torch.ones(2, 3).narrow(0, 1, 5)",
    "torch.ones(2, 3).select(0, 5)", "torch.ones(2, 3).index_select(0, torch.tensor([5]))",
    "torch.ones(2, 3).index_select(0, torch.tensor([0.5]))", "torch.ones(3).gather(0, torch.tensor([3]))",
    "torch.ones(2, 3).chunk(0)", "torch.ones(4).split(0)", "torch.arange(6).reshape(2, 3).float().mean(dtype=torch.int64)",
    "torch.arange(6).mean()", "torch.ones(2, dtype=torch.bool).neg()", "-torch.tensor([True])",
    "torch.ones(2).add(torch.ones(2), alpha='x')", "torch.ones(2).add()", "torch.add(torch.ones(2))",
    "torch.add(1, 2)", "torch.ones(2).foo()", "torch.nope", "torch.nn.functional.nope(1)", "undefined_name",
    "torch.ones(2, 3, 4).sum(dim=(0, 0))", "torch.tensor([1, 2]) / torch.tensor([0, 0]) // 1",
    "torch.tensor([1, 2]) // torch.tensor([0, 1])", "torch.tensor([1, 2]) % torch.tensor([0, 1])",
    "torch.ones(2, 3).max(dim=4)", "torch.ones(0).max()", "torch.ones(0).argmax()", "torch.ones(2, 3)[2]",
    "torch.ones(2, 3)[0, 0, 0]", "torch.ones(2, 3)[..., ...]", "torch.ones(3)[torch.tensor([3])]",
    "torch.ones(3)[1.5]", "torch.ones(2, 3).to('cuda:x')", "torch.ones(2, device='nonsense')",
    "torch.ones(2, dtype=torch.float32).to(torch.float32, 5)", "torch.tensor([[1, 2], [3]])",
    "torch.tensor('abc')", "torch.ones(2, 3).t().view(6)", "torch.ones(2, 2, 2).t()",
    "F.linear(torch.ones(2, 3), torch.ones(4, 2))", "F.conv2d(torch.ones(1, 3, 5, 5), torch.ones(2, 2, 3, 3))",
    "F.conv2d(torch.ones(3, 5, 5, 5, 5), torch.ones(2, 3, 3, 3))", "F.max_pool2d(torch.ones(1, 1, 2, 2), 3)",
    "F.avg_pool2d(torch.ones(1, 1, 4, 4), 2, padding=2)", "F.pad(torch.ones(2, 2), (1,))",
    "F.cross_entropy(torch.ones(2, 3), torch.tensor([0, 5]))", "F.nll_loss(torch.ones(2, 3), torch.tensor([0.0, 1.0]))",
    "F.mse_loss(torch.ones(2), torch.ones(3))", "F.softmax(torch.ones(2, 3), dim=2)", "F.layer_norm(torch.ones(2, 3), [4])",
    "F.embedding(torch.tensor([5]), torch.ones(3, 2))", "F.dropout(torch.ones(2), p=1.5)",
    "torch.ones(2).masked_fill(torch.tensor([1, 0]), 0.0)", "torch.ones(2).masked_fill(torch.tensor([True]), torch.ones(2))",
    "torch.where(torch.tensor([1, 0]), torch.ones(2), torch.zeros(2))", "torch.ones(2, 3).repeat(2)",
    "torch.ones(2).pow(torch.ones(3))", "torch.ones(2, 3).norm(p='fro', dim=5)", "torch.linspace(0, 1, -1)",
    "torch.arange(0, 10, 0)", "torch.arange(10, 0, 1)", "torch.eye(-1)", "torch.full((2,), 'x')",
    "torch.randint(5, 3, (2,))", "torch.ones(2).item()", "torch.ones(2, 3).tolist(1)", "torch.ones(2).size(3)",
    "torch.ones(2).backward()", "torch.ones(2, requires_grad=True).sum().backward(); 1 / 0", "1 / 0", "1 // 0",
    "1 % 0", "2.0 ** 10000", "int('x')", "float('abc')", "[1, 2][5]", "(1, 2)[-3]", "'abc'[10]", "[1][0.5]",
    "torch.ones(2).clamp()", "torch.ones(2, 2).triu(diagonal='x')", "torch.ones(2, 2).diagonal(0, 0, 0)",
    "torch.ones(2, 3).unbind(2)", "torch.ones(2, 3).movedim(0, 5)", "torch.ones(2, 3).split([1, 1], 1)",
    "torch.ones(2, 3).scatter(1, torch.tensor([[3]]), 1.0)", "torch.ones(3).flip(1)", "torch.ones(3).flip(0, 0)",
    "torch.ones(2, 3).roll(1, 4)", "torch.ones(2, 3).cumsum(2)", "torch.ones(2, 3).softmax(3)",
    "torch.ones(2, 3).var(correction=5, dim=7)", "torch.ones(2, 3).std(unbiased=2)",
    # Python numbers where PyTorch has no Scalar overload
    "torch.maximum(torch.ones(2), 2.0)", "torch.minimum(2, torch.ones(2))", "torch.atan2(torch.ones(2), 2)",
    "torch.logical_and(torch.ones(2), 1)", "torch.exp(3)", "torch.ones(2).where(torch.ones(2) > 0, 0.5)",
    "torch.where(torch.ones(2) > 0, torch.ones(2), 0.5)", "torch.ones(2).masked_fill(torch.ones(2) > 0, 0.5)",
    "torch.ones(2).lerp(torch.zeros(2), 0.5)", "torch.ones(2) + 2", "torch.ones(2).pow(2)", "torch.eq(torch.ones(2), 1)",
    "torch.eq(2, torch.ones(2))", "torch.add(2, torch.ones(2))", "torch.pow(2, torch.ones(2))",
    "torch.remainder(5, torch.ones(2) * 3)", "torch.bitwise_and(6, torch.tensor([3, 5]))", "torch.ones(2).copy_(3)",
    "torch.ones(3).scatter(0, torch.tensor([1]), 2.0)", "torch.ones(2).maximum(2.0)", "torch.ones(2).add_(1)",
    "torch.result_type(2, torch.ones(2))", "torch.ones(2).mul(torch.ones(2), 3)", "torch.ones(2, 3).where(torch.ones(3) > 0)",
    # PyTorch's answers for edge cases
    "torch.abs(torch.tensor([True, False]))", "torch.arange(3, dtype=torch.bool)",
    "torch.arange(0, 5, 1.5, dtype=torch.int64)", "torch.arange(0, 5, 0.5, dtype=torch.int32)",
    "torch.norm(torch.ones(0))", "torch.norm(torch.ones(0), float('inf'))", "torch.linalg.vector_norm(torch.ones(0))",
    "torch.linalg.vector_norm(torch.ones(0), float('inf'))", "torch.linalg.vector_norm(torch.ones(0), float('-inf'))",
    "torch.linalg.vector_norm(torch.ones(0, 3), float('inf'), -2)", "torch.linalg.vector_norm(torch.ones(0, 3), float('inf'), 1)",
    "torch.linalg.vector_norm(torch.ones(3, 0), float('-inf'), (0, 1))", "torch.linalg.vector_norm(torch.ones(0), 0)",
    "torch.linalg.matrix_norm(torch.ones(0, 0))",
    "F.binary_cross_entropy(torch.full((2, 3), 0.5), torch.ones(2, 3), weight=torch.ones(3))",
    "F.binary_cross_entropy(torch.full((2, 3), 0.5), torch.ones(2, 3), weight=torch.ones(4))",
    "F.binary_cross_entropy_with_logits(torch.zeros(2, 3), torch.ones(2, 3), pos_weight=torch.ones(2))",
    "F.mse_loss(torch.ones(2, 3), torch.ones(3))", "F.l1_loss(torch.ones(2, 3), 2.0)",
    # torch.norm's Python signature (p='fro', dim=None, keepdim=False, dtype=None)
    "torch.norm(torch.arange(6.).reshape(2, 3), dim=1)", "torch.norm(torch.arange(6.).reshape(2, 3), 'fro')",
    "torch.arange(6.).reshape(2, 3).norm(dim=1, keepdim=True)", "torch.norm(torch.arange(6.).reshape(2, 3), dtype=torch.float64)",
    "torch.norm(torch.arange(6.).reshape(2, 3), 3, dtype=torch.float64)", "torch.norm(torch.arange(6.).reshape(2, 3), 'fro', dim=0)",
    "torch.norm(torch.arange(6.).reshape(2, 3), None, 1)", "torch.norm(torch.arange(6.).reshape(2, 3), 'bad')",
    "torch.norm(torch.ones(2, 2, 2), 'fro', (0, 1, 2))", "torch.norm(torch.arange(6.).reshape(2, 3), 1, dtype=torch.int64)",
    "torch.arange(6.).reshape(2, 3).norm(p=1, dim=1)", "torch.norm(torch.arange(6.).reshape(2, 3), keepdim=True)",
    "torch.norm(torch.arange(6.).reshape(2, 3), float('inf'), dim=(0, 1))", "torch.norm(torch.ones(2, 3), 2, dim=[])",
    "torch.norm(torch.ones(2, 3, requires_grad=True))",
    # clamp with tensor bounds: promotion, NaN from any operand, broadcasting, a mix with a number
    "torch.clamp(torch.tensor([float('nan'), 1., 5., -3.]), torch.tensor([0., float('nan'), 0., 0.]), torch.tensor([2., 2., float('nan'), 2.]))",
    "torch.clamp(torch.tensor([1, 5, -3]), torch.tensor([0.5]), torch.tensor([2]))",
    "torch.clamp(torch.tensor([1, 5, -3]), torch.tensor([0]), torch.tensor([2]))",
    "torch.clamp(torch.tensor([1., 5, -3]), torch.tensor([3.]), torch.tensor([2.]))",
    "torch.clamp(torch.arange(4.), 0.5, torch.ones(4))", "torch.clamp(torch.arange(4.), torch.ones(2, 4))",
    "torch.arange(4.).clamp_(torch.ones(2, 4))", "torch.arange(4.).clamp_(max=torch.tensor(1.5))",
    "torch.clamp(torch.tensor([1, 2]), torch.tensor([0.5]), out=torch.empty(0, dtype=torch.int64))",
    "torch.clamp(torch.tensor([True, False]), torch.tensor([True]))", "torch.clamp(torch.arange(4.), None, None)",
    "torch.arange(4.).clamp(min=torch.tensor(0.5), max=torch.tensor([1., 2., 3., 4.]))",
    # batch_norm's arithmetic: PyTorch's fold of the statistics into one scale and shift
    "torch.batch_norm(torch.linspace(-3, 3, 24).reshape(2, 3, 4), torch.linspace(0.5, 2, 3), torch.linspace(-1, 1, 3), torch.linspace(-0.5, 0.7, 3), torch.linspace(0.3, 2.1, 3), False, 0.1, 1e-05, True)",
    "torch.batch_norm(torch.linspace(-3, 3, 24).reshape(2, 3, 4), torch.linspace(0.5, 2, 3), torch.linspace(-1, 1, 3), None, None, True, 0.1, 1e-05, True)",
    "torch.batch_norm(torch.linspace(-3, 3, 24).reshape(2, 3, 2, 2), None, None, None, None, True, 0.1, 1e-05, True)",
    "F.batch_norm(torch.linspace(-3, 3, 24).reshape(4, 6), torch.linspace(-0.5, 0.7, 6), torch.linspace(0.3, 2.1, 6), torch.linspace(0.5, 2, 6), torch.linspace(-1, 1, 6))",
    "F.batch_norm(torch.linspace(-3, 3, 24).reshape(4, 6), None, None, torch.linspace(0.5, 2, 6), torch.linspace(-1, 1, 6), training=True)",
    "F.batch_norm(torch.linspace(-1.57, 1.9, 30).reshape(5, 6), torch.linspace(-1.44, 1.9, 6), torch.linspace(0.63, 2.5, 6), training=False)",
    "F.batch_norm(torch.linspace(-1.57, 1.9, 30).reshape(5, 6), torch.zeros(6), torch.ones(6), training=True, momentum=0.3)",
    "F.batch_norm(torch.linspace(-1.57, 1.9, 30, dtype=torch.float64).reshape(5, 6), torch.linspace(-1.44, 1.9, 6, dtype=torch.float64), torch.linspace(0.63, 2.5, 6, dtype=torch.float64), training=False)",
    # one-argument where, nonzero
    "torch.where(torch.tensor([[1, 0], [0, 1]]) > 0)", "torch.where(torch.tensor(True))",
    "torch.where(torch.tensor([0., float('nan'), 2.]))", "torch.where(torch.zeros(2, 0))",
    "torch.nonzero(torch.tensor([[1, 0, 2], [0, 0, 3]]))", "torch.nonzero(torch.tensor(5))",
    "torch.nonzero(torch.zeros(2, 3))", "torch.tensor([True, False, True]).nonzero()", "torch.where()",
    # F.pad circular, adaptive pooling with None, embedding max_norm, integer convolution
    "F.pad(torch.arange(6.).reshape(1, 2, 3), (1, 1), mode='circular')",
    "F.pad(torch.arange(6.).reshape(1, 2, 3), (3, 0), mode='circular')",
    "F.pad(torch.arange(6.).reshape(1, 2, 3), (4, 0), mode='circular')",
    "F.pad(torch.arange(6.).reshape(1, 2, 3), (-1, 2), mode='circular')",
    "F.pad(torch.arange(6.).reshape(1, 2, 3), (-2, -1), mode='circular')",
    "F.pad(torch.arange(6.).reshape(1, 2, 3), (-2, -2), mode='circular')",
    "F.pad(torch.arange(6.).reshape(2, 3), (1, 1), mode='circular')",
    "F.pad(torch.arange(6.).reshape(1, 1, 2, 3), (1, 1, 1, 0), mode='circular')",
    "F.pad(torch.arange(6.).reshape(1, 2, 3), (1, 1), mode='circular', value=2.0)",
    "F.pad(torch.ones(1, 1, 0), (1, 1), mode='circular')", "F.pad(torch.ones(1, 2, 3), (1, 1), mode='circular2')",
    "F.adaptive_avg_pool2d(torch.arange(24.).reshape(1, 1, 4, 6), (None, 3))",
    "F.adaptive_avg_pool2d(torch.arange(24.).reshape(1, 4, 6), (2, None))",
    "F.adaptive_avg_pool2d(torch.arange(24.).reshape(1, 4, 6), [None, None])",
    "F.adaptive_avg_pool2d(torch.arange(24.).reshape(1, 4, 6), (2, 3, 4))",
    "F.embedding(torch.tensor([0, 2, 2]), torch.arange(12.).reshape(4, 3), max_norm=5.0)",
    "F.embedding(torch.tensor([[1, 3]]), torch.arange(12.).reshape(4, 3), max_norm=2.0, norm_type=1.0)",
    "F.embedding(torch.tensor([1, 3]), torch.arange(12.).reshape(4, 3), padding_idx=1, max_norm=2.0)",
    "F.conv2d(torch.arange(16).reshape(1, 1, 4, 4), torch.tensor([[[[1, 2], [3, 4]]]]))",
    "F.conv2d(torch.arange(32).reshape(1, 2, 4, 4), torch.arange(16).reshape(4, 1, 2, 2), torch.tensor([1, 2, 3, 4]), stride=2, padding=1, groups=2)",
    "F.conv2d(torch.arange(50).reshape(1, 2, 5, 5), torch.arange(8).reshape(1, 2, 2, 2), dilation=2, padding=(1, 0))",
    "F.conv1d(torch.arange(10).reshape(1, 2, 5), torch.arange(6).reshape(1, 2, 3), stride=2)",
    "F.conv2d(torch.ones(1, 1, 3, 3, dtype=torch.int32), torch.ones(1, 1, 2, 2, dtype=torch.int32))",
    "F.conv2d(torch.ones(1, 1, 3, 3, dtype=torch.bool), torch.ones(1, 1, 2, 2, dtype=torch.bool))",
    # scatter with reduce
    "torch.scatter(torch.ones(3, 4), 0, torch.tensor([[0, 1], [0, 2]]), torch.tensor([[2., 3.], [4., 5.]]), reduce='multiply')",
    "torch.ones(3, 4).scatter(1, torch.tensor([[0, 0]]), 2.5, reduce='add')",
    "torch.ones(3, 4).scatter(1, torch.tensor([[0, 0]]), 2.5, reduce='max')",
    "torch.ones(3, 4).scatter_(1, torch.tensor([[0, 0]]), torch.tensor([[2., 3.]]), reduce='multiply')",
    "torch.ones(3, 4).scatter(1, torch.tensor([[0, 5]]), 2.5, reduce='multiply')",
    "torch.arange(12).reshape(3, 4).scatter(-1, torch.tensor([[3, 0], [1, 1]]), 2, reduce='multiply')",
    "torch.tensor(2.).scatter(0, torch.tensor(0), 3., reduce='multiply')",
    # out= with an input that requires grad: refused only for a differentiable operator
    "torch.eq(torch.ones(2, requires_grad=True), 1, out=torch.empty(0, dtype=torch.bool))",
    "torch.argmax(torch.ones(2, requires_grad=True), out=torch.empty(0, dtype=torch.int64))",
    "torch.nonzero(torch.ones(2, requires_grad=True), out=torch.empty(0, dtype=torch.int64))",
    "torch.exp(torch.ones(2, requires_grad=True), out=torch.empty(0))",
    # a call that fits none of several overloads: PyTorch's invalid combination
    "torch.max(torch.ones(2, 3), [1, 2], True)", "torch.max(torch.ones(2, 3), 1, keepdim=True, foo=2)",
    "torch.ones(2, 3).std(keepdim=3, unbiased=2)", "torch.ones(2, 3).max('a', 1.5, None)",
    "torch.var(torch.ones(2, 3), correction=0)", "torch.randint(5)",
    # out= of composite operators and by plain name
    "torch.matmul(torch.ones(2, 3), torch.ones(3, 2), out=torch.empty(0))",
    "torch.stack([torch.ones(2), torch.zeros(2)], 1, out=torch.empty(0))",
    "torch.all(torch.ones(2, 3) > 0, 1, out=torch.empty(0, dtype=torch.bool))",
    "torch.max(torch.ones(2, 3), torch.zeros(3), out=torch.empty(0))",
    "torch.add(torch.ones(2, requires_grad=True), 1, out=torch.empty(2))",
    "torch.ones(4).addmm_(torch.ones(2, 3), torch.ones(3, 4))",
]

# --- edge values and refusals of single operators ------------------------------------------------

EDGES = [
    # creation functions, windows, statistics and the scatter views
    "torch.hann_window(-1)", "torch.hann_window(4, dtype=torch.int64)", "torch.kaiser_window(5, True, 0.)",
    "torch.bartlett_window(2, False)", "torch.blackman_window(1)", "torch.hamming_window(0)",
    "torch.logspace(0, 3, -1)", "torch.logspace(0, 2, 3, dtype=torch.bool)", "torch.logspace(0, 1, 3, base=-2)",
    "torch.range(0, 3, 0)", "torch.range(3, 0)", "torch.range(0, float('inf'))", "torch.range(0, 2, dtype=torch.bool)",
    "torch.range(3, 0, -1)", "torch.empty_strided((2, 3), (1,))", "torch.empty_strided((2, 2), (-1, 2))",
    "torch.vander(torch.tensor([[1, 2]]))", "torch.vander(torch.tensor([1, 2]), N=-1)",
    "torch.vander(torch.tensor([True, False]))", "torch.vander(torch.zeros(0))",
    "torch.ones(2).new_zeros((2, -1))", "torch.ones(2).new_tensor([[1, 2], [3]])",
    "torch.ones(2, dtype=torch.bool).new_tensor([2, 0])", "torch.ones(2, dtype=torch.int64).new_full((2,), 2.5)",
    "torch.cov(torch.ones(2, 2, 2))", "torch.cov(torch.tensor([True]))",
    "torch.cov(torch.ones(2, 3), fweights=torch.ones(3))",
    "torch.cov(torch.ones(2, 3), fweights=torch.ones(2, dtype=torch.int64))",
    "torch.cov(torch.ones(2, 3), fweights=torch.tensor([1, -1, 1]))",
    "torch.cov(torch.ones(2, 3), aweights=torch.tensor([1, 1, 1]))",
    "torch.cov(torch.ones(2, 3), aweights=torch.zeros(3))", "torch.cov(torch.tensor([1., 2]), correction=2)",
    "torch.cov(torch.ones(2, 1))", "torch.cov(torch.ones(2, 0))", "torch.corrcoef(torch.ones(2, 3))",
    "torch.corrcoef(torch.tensor([1., 2, 3]))", "torch.cov(torch.tensor([[1+2j, 2, 3j], [1, 0, 1j]]))",
    "torch.corrcoef(torch.tensor([[1+2j, 2, 3j], [1, 0, 1j]]))",
    "torch.isin(torch.tensor([True]), torch.tensor([True]))", "torch.isin(torch.tensor([1+1j]), torch.tensor([1+1j]))",
    "torch.isin(torch.tensor([1., float('nan')]), torch.tensor([float('nan')]))", "torch.isin(2.5, torch.tensor([2, 3]))",
    "torch.isin(torch.tensor([1., 2]), torch.tensor([]))", "torch.renorm(torch.ones(3), 2, 0, 1)",
    "torch.renorm(torch.ones(2, 3), 0, 0, 1)", "torch.renorm(torch.ones(2, 3), 2, 0, -1)",
    "torch.renorm(torch.ones(2, 3, dtype=torch.int64), 2, 0, 1)", "torch.renorm(torch.ones(2, 3, dtype=torch.float16), 2, 0, 1)",
    "torch.renorm(torch.ones(2, 3), float('inf'), 0, 0.5)",
    "torch.select_scatter(torch.zeros(2, 2), torch.ones(3), 0, 0)",
    "torch.select_scatter(torch.zeros(2, 2), torch.ones(2, dtype=torch.int64), 0, 5)",
    "torch.slice_scatter(torch.zeros(4, 2), torch.ones(3, 2), 0, 0, 4, 2)",
    "torch.diagonal_scatter(torch.zeros(3, 3), torch.ones(3), 1)",
    "torch.ones(2, 3).sum_to_size(4, 3)", "torch.ones(2, 3).sum_to_size(2, 3, 1)",
    "torch.ones(2, 3, dtype=torch.int32).sum_to_size(1, 3)", "torch.tensor(5.).unfold(0, 2, 1)",
    "torch.arange(6.).unfold(0, 7, 1)", "torch.arange(6.).unfold(0, 0, 1)", "torch.arange(6.).unfold(0, 2, 0)",
    "torch.arange(6.).unfold(2, 2, 1)", "torch.zeros(0).unfold(0, 0, 1)", "torch.zeros(0).unfold(0, 1, 1)",
    "torch.nn.functional.upsample_bilinear(torch.arange(4.).reshape(1, 1, 4), scale_factor=2)",
    "torch.isreal(torch.tensor([1., float('nan')]))", "torch.is_signed(torch.tensor([True]))",
    # sinc, logit, xlog1py, entr and ndtr at their edges
    "torch.sinc(torch.tensor([0., -0., 1., 0.5, -2.5, float('inf'), float('nan')]))", "torch.sinc(torch.tensor([0, 3]))",
    "torch.special.sinc(torch.tensor([1e-8, 1e20], dtype=torch.float64))",
    "torch.logit(torch.tensor([0., 1., 0.5, 2., -1., float('nan')]))",
    "torch.logit(torch.tensor([0., 1., 0.25, float('nan')]), 0.1)", "torch.logit(torch.tensor([0., 0.3]), -0.5)",
    "torch.special.logit(torch.tensor([0, 1]), eps=0.25)", "torch.logit(torch.tensor([0.2, 0.9], dtype=torch.float64), 0.35)",
    "torch.special.xlog1py(torch.tensor([0., 0., 1., 2.]), torch.tensor([-1., float('nan'), -2., 0.5]))",
    "torch.special.xlog1py(2, torch.tensor([1., 0.5]))", "torch.special.xlog1py(torch.tensor([1, 0]), 3)",
    "torch.special.entr(torch.tensor([-1., 0., 0.5, 1., float('inf'), float('nan')]))", "torch.special.entr(torch.tensor([0, 1, 2]))",
    "torch.special.ndtr(torch.tensor([float('-inf'), -40., -1., 0., 1.5, float('inf'), float('nan')]))",
    "torch.special.ndtr(torch.tensor([0, 2]))", "torch.logit(torch.tensor([1+1j]))", "torch.special.entr(torch.tensor([1j]))",
    # the special functions at their poles, infinities and NaN, their dtypes and errors
    "torch.lgamma(torch.tensor([float('-inf'), -2., -1.5, -0., 0., 0.5, 1., 2., 100., float('inf'), float('nan')]))",
    "torch.digamma(torch.tensor([float('-inf'), -2., -1.5, -0., 0., 0.5, 1., 1e17, float('inf'), float('nan')]))",
    "torch.polygamma(1, torch.tensor([float('-inf'), -1.5, -0., 0., 0.5, 1., 1e10, float('inf'), float('nan')]))",
    "torch.polygamma(3, torch.tensor([float('-inf'), -2., -1.5, 0., 0.5, 2., 10., float('inf'), float('nan')]))",
    "torch.polygamma(0, torch.tensor([1, 2]))", "torch.polygamma(-1, torch.tensor([1.]))",
    "torch.polygamma(2, torch.tensor([1.], dtype=torch.float16))", "torch.tensor([1., 2.]).polygamma(2)",
    "torch.tensor([1., 2.]).polygamma_(1)", "torch.special.polygamma(1, torch.tensor([0.5]))",
    "torch.erfinv(torch.tensor([-2., -1., -0.5, -0., 0., 1e-10, 0.5, 0.999, 1., 2., float('nan')]))",
    "torch.erfinv(torch.tensor([0, 1]))", "torch.erfinv(torch.tensor([0.5], dtype=torch.bfloat16))",
    "torch.erfinv(torch.tensor([0.5], dtype=torch.float16))", "torch.lgamma(torch.tensor([1j]))",
    "torch.i0(torch.tensor([float('-inf'), -800., -30., -8., 0., 1e-20, 8., 30., 700., 800., float('inf'), float('nan')], dtype=torch.float64))",
    "torch.special.i0e(torch.tensor([float('-inf'), -30., -8., 0., 8., 30., 800., float('inf'), float('nan')]))",
    "torch.special.i1(torch.tensor([float('-inf'), -800., -30., -8., -0., 1e-20, 8., 30., 800., float('inf'), float('nan')]))",
    "torch.special.i1e(torch.tensor([float('-inf'), -30., -8., -0., 0., 8., 30., float('inf'), float('nan')]))",
    "torch.special.i1(torch.tensor([1.], dtype=torch.bfloat16))", "torch.special.i0e(torch.tensor([1, 2]))",
    "torch.special.ndtri(torch.tensor([-1., 0., 1e-300, 0.1, 0.5, 0.9, 1., 2., float('nan')], dtype=torch.float64))",
    "torch.special.log_ndtr(torch.tensor([float('-inf'), -100., -20., -2., -1., 0., 1., 10., float('inf'), float('nan')], dtype=torch.float64))",
    "torch.special.erfcx(torch.tensor([float('-inf'), -30., -26., -2., -0.5, 0., 0.5, 2., 25., 30., 1e10, float('inf'), float('nan')], dtype=torch.float64))",
    "torch.special.zeta(torch.tensor([0.5, 1., 1.5, 2., 10., float('inf'), float('nan')]), 2.)",
    "torch.special.zeta(3., torch.tensor([float('-inf'), -2., -1.5, 0., 0.5, 1., 1e10, float('inf')]))",
    "torch.special.zeta(torch.tensor([1.5, 2., 3.]), torch.tensor([-1.5]))", "torch.special.zeta(2, torch.tensor([1, 2]))",
    "torch.special.zeta(torch.tensor([True]), torch.tensor([True]))", "torch.special.zeta(torch.tensor([2.], dtype=torch.bfloat16), 1.)",
    "torch.igamma(torch.tensor([-1., 0., 0., 0.5, 1., 1., float('inf'), float('inf'), 2., float('nan')]), torch.tensor([1., 0., 1., 0., float('inf'), -1., 1., float('inf'), 3., 1.]))",
    "torch.igammac(torch.tensor([-1., 0., 0., 0.5, 1., 1., float('inf'), float('inf'), 2., float('nan')]), torch.tensor([1., 0., 1., 0., float('inf'), -1., 1., float('inf'), 3., 1.]))",
    "torch.special.gammainc(torch.tensor([0.5, 5., 50.], dtype=torch.float64), torch.tensor([0.1, 6., 40.], dtype=torch.float64))",
    "torch.igamma(torch.tensor([1, 2]), torch.tensor([1, 2]))", "torch.igamma(torch.tensor([2.], dtype=torch.float16), torch.tensor([1.], dtype=torch.float16))",
    "torch.mvlgamma(torch.tensor([2.5, 3.]), 3)", "torch.mvlgamma(torch.tensor([1, 2]), 1)", "torch.mvlgamma(torch.tensor([True]), 2)",
    "torch.mvlgamma(torch.tensor([2.]), 0)", "torch.special.multigammaln(torch.tensor([[1.5, 4.]], dtype=torch.float64), 2)",
    "torch.round(torch.tensor([1.2345, 2.5, -0.125, 1234.5, 0.5]), decimals=2)",
    "torch.round(torch.tensor([1.2345, 2.5, -0.125, 1234.5, 0.5]), decimals=-2)",
    "torch.special.round(torch.tensor([1.25, -2.5]))", "torch.special.round(torch.tensor([1.25, -2.5], dtype=torch.float64), decimals=1)",
    "torch.round(torch.tensor([15, 25]), decimals=1)", "torch.round(torch.tensor([1.5], dtype=torch.float16), decimals=1)",
    "torch.special.gammaln(torch.tensor([0.5, 3.]))", "torch.special.psi(torch.tensor([0.5, 3.]))",
    # the Bessel and Airy functions and the orthogonal polynomials at their edges, dtypes and errors;
    # and numbers for every Tensor argument, which only the add family and result_type take
    "torch.special.bessel_j0(torch.tensor([float('-inf'), -5., -0., 0., 1e-20, 2.5, 30., 1e10, float('inf'), float('nan')], dtype=torch.float64))",
    "torch.special.bessel_j1(torch.tensor([float('-inf'), -5., -0., 0., 1e-20, 2.5, 30., 1e10, float('inf'), float('nan')], dtype=torch.float64))",
    "torch.special.bessel_y0(torch.tensor([float('-inf'), -1., -0., 0., 1e-20, 0.5, 3., 30., 1e10, float('inf'), float('nan')], dtype=torch.float64))",
    "torch.special.bessel_y1(torch.tensor([float('-inf'), -1., -0., 0., 1e-20, 0.5, 3., 30., 1e10, float('inf'), float('nan')], dtype=torch.float64))",
    "torch.special.modified_bessel_i0(torch.tensor([float('-inf'), -800., -30., -0., 0., 1e-20, 30., 700., 800., float('inf'), float('nan')], dtype=torch.float64))",
    "torch.special.modified_bessel_i1(torch.tensor([float('-inf'), -800., -30., -0., 0., 1e-20, 30., 700., 800., float('inf'), float('nan')], dtype=torch.float64))",
    "torch.special.modified_bessel_k0(torch.tensor([float('-inf'), -1., -0., 0., 1e-300, 1e-20, 0.5, 1., 2., 30., 700., 800., float('inf'), float('nan')], dtype=torch.float64))",
    "torch.special.modified_bessel_k1(torch.tensor([float('-inf'), -1., -0., 0., 1e-300, 1e-20, 0.5, 1., 2., 30., 700., 800., float('inf'), float('nan')], dtype=torch.float64))",
    "torch.special.scaled_modified_bessel_k0(torch.tensor([float('-inf'), -1., -0., 0., 1e-300, 1e-20, 0.5, 1., 2., 30., 700., 800., float('inf'), float('nan')], dtype=torch.float64))",
    "torch.special.scaled_modified_bessel_k1(torch.tensor([float('-inf'), -1., -0., 0., 1e-300, 1e-20, 0.5, 1., 2., 30., 700., 800., float('inf'), float('nan')], dtype=torch.float64))",
    "torch.special.spherical_bessel_j0(torch.tensor([float('-inf'), -10., -0.4, -0., 0., 1e-20, 0.4, 0.5, 3.14159, 1e10, float('inf'), float('nan')], dtype=torch.float64))",
    "torch.special.airy_ai(torch.tensor([float('-inf'), -1e5, -100., -10.5, -10., -9.5, -2., -0., 0., 1e-20, 2., 2.5, 50., 103.8, 103.9, 105., float('inf'), float('nan')], dtype=torch.float64))",
    "torch.special.chebyshev_polynomial_t(torch.tensor([-2., -1., -0.5, 0., 0.3, 1., 1.5, float('inf'), float('nan')], dtype=torch.float64), torch.tensor([[-1.], [0.], [1.], [2.], [3.], [7.], [9.], [2.7], [40.]], dtype=torch.float64))",
    "torch.special.chebyshev_polynomial_u(torch.tensor([-2., -1., -0.5, 0., 0.3, 1., 1.5, float('inf'), float('nan')], dtype=torch.float64), torch.tensor([[-1.], [0.], [1.], [2.], [3.], [7.], [9.], [2.7], [40.]], dtype=torch.float64))",
    "torch.special.chebyshev_polynomial_v(torch.tensor([-2., -1., -0.5, 0., 0.3, 1., 1.5, float('inf'), float('nan')], dtype=torch.float64), torch.tensor([[-1.], [0.], [1.], [2.], [3.], [7.], [9.], [2.7], [40.]], dtype=torch.float64))",
    "torch.special.chebyshev_polynomial_w(torch.tensor([-2., -1., -0.5, 0., 0.3, 1., 1.5, float('inf'), float('nan')], dtype=torch.float64), torch.tensor([[-1.], [0.], [1.], [2.], [3.], [7.], [9.], [2.7], [40.]], dtype=torch.float64))",
    "torch.special.hermite_polynomial_h(torch.tensor([-2., -1., -0.5, 0., 0.3, 1., 1.5, float('inf'), float('nan')], dtype=torch.float64), torch.tensor([[-1.], [0.], [1.], [2.], [3.], [7.], [9.], [2.7], [40.]], dtype=torch.float64))",
    "torch.special.hermite_polynomial_he(torch.tensor([-2., -1., -0.5, 0., 0.3, 1., 1.5, float('inf'), float('nan')], dtype=torch.float64), torch.tensor([[-1.], [0.], [1.], [2.], [3.], [7.], [9.], [2.7], [40.]], dtype=torch.float64))",
    "torch.special.laguerre_polynomial_l(torch.tensor([-2., -1., -0.5, 0., 0.3, 1., 1.5, float('inf'), float('nan')], dtype=torch.float64), torch.tensor([[-1.], [0.], [1.], [2.], [3.], [7.], [9.], [2.7], [40.]], dtype=torch.float64))",
    "torch.special.legendre_polynomial_p(torch.tensor([-2., -1., -0.5, 0., 0.3, 1., 1.5, float('inf'), float('nan')], dtype=torch.float64), torch.tensor([[-1.], [0.], [1.], [2.], [3.], [7.], [9.], [2.7], [40.]], dtype=torch.float64))",
    "torch.special.shifted_chebyshev_polynomial_t(torch.tensor([-0.5, 0., 0.2, 0.5, 1., 1.5, float('inf'), float('nan')], dtype=torch.float64), torch.tensor([[-1.], [0.], [1.], [2.], [3.], [7.], [9.], [2.7], [40.]], dtype=torch.float64))",
    "torch.special.shifted_chebyshev_polynomial_u(torch.tensor([-0.5, 0., 0.2, 0.5, 1., 1.5, float('inf'), float('nan')], dtype=torch.float64), torch.tensor([[-1.], [0.], [1.], [2.], [3.], [7.], [9.], [2.7], [40.]], dtype=torch.float64))",
    "torch.special.shifted_chebyshev_polynomial_v(torch.tensor([-0.5, 0., 0.2, 0.5, 1., 1.5, float('inf'), float('nan')], dtype=torch.float64), torch.tensor([[-1.], [0.], [1.], [2.], [3.], [7.], [9.], [2.7], [40.]], dtype=torch.float64))",
    "torch.special.shifted_chebyshev_polynomial_w(torch.tensor([-0.5, 0., 0.2, 0.5, 1., 1.5, float('inf'), float('nan')], dtype=torch.float64), torch.tensor([[-1.], [0.], [1.], [2.], [3.], [7.], [9.], [2.7], [40.]], dtype=torch.float64))",
    'torch.special.chebyshev_polynomial_t(torch.tensor([0.25, 0.9]), 12)',
    'torch.special.legendre_polynomial_p(0.5, torch.tensor([3, 4]))',
    'torch.special.hermite_polynomial_h(torch.tensor([1, 2]), torch.tensor([2, 3]))',
    'torch.special.laguerre_polynomial_l(torch.tensor([True]), torch.tensor([True]))',
    'torch.special.chebyshev_polynomial_u(torch.tensor([0.5], dtype=torch.float16), 2)',
    'torch.special.chebyshev_polynomial_t(torch.tensor([1j]), 2)',
    'torch.special.bessel_j0(torch.tensor([1.], dtype=torch.float16))',
    'torch.special.airy_ai(torch.tensor([1.], dtype=torch.bfloat16))',
    'torch.special.modified_bessel_k1(torch.tensor([1, 2]))', 'torch.special.bessel_y0(torch.tensor([1j]))',
    'torch.special.legendre_polynomial_p(torch.tensor([0.5], dtype=torch.float64), torch.tensor([2.], dtype=torch.float32))',
    'torch.pow(2, 3)', 'torch.special.zeta(2., 3.)', 'torch.xlogy(2, 3)', 'torch.remainder(5, 3)',
    'torch.bitwise_and(6, 3)', 'torch.sub(5, 3)', 'torch.mul(2, 3.5)', 'torch.div(1, 4)', 'torch.true_divide(1, 4)',
    'torch.floor_divide(7, 2)', 'torch.result_type(2, 3.)', 'torch.where(torch.tensor([True, False]), 2, 3)',
    'torch.special.chebyshev_polynomial_t(0.5, 3)', 'torch.float_power(2, 3)', 'torch.pow(2, 3, out=torch.ones(1))',
    'torch.isin(2, 3)', 'torch.special.xlog1py(1, 2)',
    # the recurrent layers (padded and packed) and cells: values, checks, the parts' errors
    'torch.lstm(torch.ones(3, 2, 4), [torch.zeros(1, 2, 5)], [torch.ones(20, 4), torch.ones(20, 5)], False, 1, 0.0, False, False, False)',
    'torch.lstm(torch.ones(3, 2, 4), [torch.zeros(1, 2, 5), torch.zeros(1, 2, 5)], [torch.ones(20, 4), torch.ones(20, 5), torch.ones(20)], True, 1, 0.0, False, False, False)',
    'torch.lstm(torch.ones(3, 2, 4), [torch.zeros(1, 2, 5), torch.zeros(1, 2, 5)], [torch.ones(20, 4), torch.ones(20, 5)], False, 2, 0.0, False, False, False)',
    'torch.lstm(torch.ones(3, 2, 4), [torch.zeros(1, 2, 5), torch.zeros(1, 2, 5)], [torch.ones(20, 4), torch.ones(20, 5)], False, 1, 0.0, False, True, False)',
    'torch.lstm(torch.ones(3, 2, 4), [torch.zeros(1, 2, 5), torch.zeros(1, 2, 5)], [torch.ones(20, 3), torch.ones(20, 5)], False, 1, 0.0, False, False, False)',
    'torch.lstm(torch.ones(3, 2, 4), [torch.zeros(1, 2, 5), torch.zeros(1, 2, 5)], [torch.ones(20, 4), torch.ones(20, 5)], False, 0, 0.0, False, False, False)',
    'torch.gru(torch.ones(3, 2, 4), torch.zeros(1, 2, 5), [torch.ones(20, 4), torch.ones(20, 5)], False, 1, 0.0, False, False, False)',
    'torch.gru(torch.ones(3, 3, 4), torch.zeros(1, 2, 5), [torch.ones(15, 4), torch.ones(15, 5)], False, 1, 0.0, False, False, False)',
    'torch.rnn_tanh(torch.ones(2, 3, 4) * 0.1, torch.zeros(1, 2, 5), [torch.ones(5, 4), torch.ones(5, 5) * 0.1], False, 1, 0.0, False, False, True)',
    'torch.rnn_relu(torch.arange(12.).reshape(3, 1, 4), torch.ones(1, 1, 2), [torch.ones(2, 4) * 0.1, -torch.ones(2, 2), torch.ones(2), torch.ones(2)], True, 1, 0.0, False, False, False)',
    'torch.gru(torch.ones(5, 4), torch.tensor([2, 2, 1]), torch.zeros(1, 2, 5), [torch.ones(15, 4) * 0.1, torch.ones(15, 5) * 0.1], False, 1, 0.0, False, False)',
    'torch.gru(torch.ones(5, 4), torch.tensor([2, 1, 2]), torch.zeros(1, 2, 5), [torch.ones(15, 4), torch.ones(15, 5)], False, 1, 0.0, False, False)',
    'torch.gru(torch.ones(5, 4), torch.tensor([2., 2, 1]), torch.zeros(1, 2, 5), [torch.ones(15, 4), torch.ones(15, 5)], False, 1, 0.0, False, False)',
    'torch.lstm(torch.ones(5, 4), torch.tensor([2, 2, 2]), [torch.zeros(1, 2, 5), torch.zeros(1, 2, 5)], [torch.ones(20, 4), torch.ones(20, 5)], False, 1, 0.0, False, False)',
    'torch.lstm(torch.ones(5, 4) * 0.1, torch.tensor([3, 1, 1]), [torch.zeros(2, 3, 2), torch.zeros(2, 3, 2)], [torch.ones(8, 4) * 0.1, torch.ones(8, 2) * 0.1, torch.ones(8, 4) * 0.2, torch.ones(8, 2) * 0.2], False, 1, 0.0, False, True)',
    'torch.lstm_cell(torch.ones(2, 4), [torch.zeros(2, 5)], torch.ones(20, 4), torch.ones(20, 5))',
    'torch.lstm_cell(torch.ones(4), [torch.zeros(5), torch.zeros(5)], torch.ones(20, 4), torch.ones(20, 5))',
    'torch.lstm_cell(torch.ones(2, 4), [torch.zeros(2, 5), torch.zeros(3, 5)], torch.ones(20, 4), torch.ones(20, 5))',
    'torch.gru_cell(torch.ones(2, 3), torch.zeros(2, 5), torch.ones(15, 4), torch.ones(15, 5))',
    'torch.gru_cell(torch.ones(2, 4), torch.zeros(2, 6), torch.ones(15, 4), torch.ones(15, 5))',
    'torch.rnn_tanh_cell(torch.ones(2, 4) * 0.1, torch.zeros(2, 5), torch.ones(5, 4), torch.ones(5, 5), torch.ones(5), torch.ones(5))',
    'torch.rnn_relu_cell(torch.ones(2, 4), torch.zeros(2, 5), torch.ones(5, 4), torch.ones(5, 5), None, torch.ones(5))',
    'torch.rnn_tanh_cell(torch.ones(2, 4, dtype=torch.float64), torch.zeros(2, 5), torch.ones(5, 4), torch.ones(5, 5))',
    # integer shifts, gcd/lcm and nextafter at their edges
    "torch.bitwise_left_shift(torch.tensor([1, -1, 5]), torch.tensor([63, 64, -1]))",
    "torch.bitwise_right_shift(torch.tensor([-8, 8, 7]), torch.tensor([1, 70, -2]))",
    "torch.tensor([1, 2], dtype=torch.uint8) << 7", "torch.tensor([1., 2.]) << 1", "torch.tensor([True]) >> 1",
    "torch.gcd(torch.tensor([0, -4, 9]), torch.tensor([0, 6, -3]))", "torch.lcm(torch.tensor([0, -4, 9]), torch.tensor([5, 6, -3]))",
    "torch.gcd(torch.tensor([1.]), torch.tensor([2.]))", "torch.nextafter(torch.tensor([1., 0.]), torch.tensor([2., -1.]))",
    # nn.functional: distances, shuffles, losses, dropouts at their edges and errors
    "torch.nn.functional.one_hot(torch.tensor([0, 3]), 2)", "torch.nn.functional.one_hot(torch.tensor([-1, 0]))",
    "torch.nn.functional.one_hot(torch.tensor([1., 0.]))", "torch.nn.functional.one_hot(torch.zeros(0, dtype=torch.long))",
    "torch.nn.functional.one_hot(torch.zeros(0, dtype=torch.long), 3)",
    "torch.nn.functional.normalize(torch.zeros(2, 3))", "torch.nn.functional.normalize(torch.tensor([[3., 4.]]), p=1)",
    "torch.cosine_similarity(torch.tensor([1, 2]), torch.tensor([3, 4]), 0)",
    "torch.cosine_similarity(torch.zeros(2, 3), torch.ones(2, 3))", "torch.cosine_similarity(torch.ones(2, 3), torch.ones(4, 3))",
    "torch.pairwise_distance(torch.ones(3), torch.zeros(3))", "torch.pairwise_distance(torch.tensor(1.), torch.tensor(2.))",
    "torch.pdist(torch.ones(3))", "torch.pdist(torch.ones(3, 2, dtype=torch.long))", "torch.pdist(torch.ones(2, 2), -1.)",
    "torch.pdist(torch.arange(6.).reshape(3, 2), 0.)", "torch.pdist(torch.arange(6.).reshape(3, 2), float('inf'))",
    "torch.pixel_shuffle(torch.ones(2, 3), 2)", "torch.pixel_shuffle(torch.ones(3, 2, 2), 2)",
    "torch.pixel_shuffle(torch.ones(4, 2, 2), 0)", "torch.pixel_unshuffle(torch.ones(1, 3, 2), 2)",
    "torch.pixel_unshuffle(torch.ones(1, 2, 3), 2)", "torch.pixel_unshuffle(torch.ones(1, 2, 2), -1)",
    "torch.channel_shuffle(torch.ones(2, 3), 1)", "torch.channel_shuffle(torch.ones(1, 3, 2), 2)",
    "torch.channel_shuffle(torch.ones(1, 4, 2), 0)",
    "torch.nn.functional.huber_loss(torch.ones(2), torch.zeros(2), delta=0.)",
    "torch.nn.functional.smooth_l1_loss(torch.ones(2), torch.zeros(2), beta=-1.)",
    "torch.nn.functional.huber_loss(torch.ones(2, 3), torch.zeros(3))",
    "torch.nn.functional.kl_div(torch.ones(2, 3), torch.ones(2, 3))",
    "torch.nn.functional.kl_div(torch.ones(2), torch.tensor([0., 1.]), reduction='foo')",
    "torch.nn.functional.kl_div(torch.tensor(0.5), torch.tensor(0.25), reduction='batchmean')",
    "torch.kl_div(torch.ones(2, dtype=torch.long), torch.ones(2))", "torch.kl_div(torch.ones(2), torch.ones(2), 3)",
    "torch.nn.functional.hinge_embedding_loss(torch.tensor([0.3, -2., 1.5]), torch.tensor([1., -1., -1.]))",
    "torch.nn.functional.margin_ranking_loss(torch.ones(3), torch.ones(3), torch.ones(1, 3))",
    "torch.nn.functional.cosine_embedding_loss(torch.ones(2, 3), torch.ones(2, 3), torch.ones(2, 1))",
    "torch.nn.functional.cosine_embedding_loss(torch.ones(3), torch.ones(3), torch.ones(1))",
    "torch.nn.functional.cosine_embedding_loss(torch.eye(3)[:2], torch.ones(2, 3), torch.tensor([1., -1.]), margin=0.2)",
    "torch.nn.functional.poisson_nll_loss(torch.tensor([0.5, 2.]), torch.tensor([0., 3.]), log_input=False, full=True)",
    "torch.nn.functional.gaussian_nll_loss(torch.ones(2, 3), torch.zeros(2, 3), torch.ones(3))",
    "torch.nn.functional.gaussian_nll_loss(torch.ones(2, 3), torch.zeros(2, 3), -torch.ones(2, 3))",
    "torch.nn.functional.gaussian_nll_loss(torch.ones(2, 3), torch.zeros(2, 3), torch.zeros(2, 3))",
    "torch.nn.functional.gaussian_nll_loss(torch.ones(2), torch.zeros(2), torch.ones(2), reduction='foo')",
    "torch.nn.functional.triplet_margin_loss(torch.ones(3), torch.ones(2, 3), torch.ones(2, 3))",
    "torch.triplet_margin_loss(torch.ones(2, 3), torch.zeros(2, 3), torch.ones(2, 3), swap=True)",
    "torch.nn.functional.multilabel_soft_margin_loss(torch.tensor([[0.5, -1.], [2., 0.]]), torch.tensor([[1., 0.], [0., 1.]]), reduction='sum')",
    "torch.nn.functional.dropout1d(torch.ones(2), 0.5)", "torch.nn.functional.dropout1d(torch.ones(2, 3), 1.5)",
    "torch.nn.functional.dropout2d(torch.ones(2, 3, 2), 1.0)", "torch.nn.functional.dropout3d(torch.ones(3, 2), 1.0)",
    "torch.nn.functional.alpha_dropout(torch.ones(2, 3), 1.0, True)", "torch.feature_alpha_dropout(torch.ones(3), 0.5, True)",
    "torch.feature_dropout(torch.ones(3), 0.5, True)", "torch.alpha_dropout(torch.ones(2), -0.5, True)",
    "torch.nn.functional.local_response_norm(torch.ones(2, 3), 2)", "torch.nn.functional.local_response_norm(torch.ones(1, 0, 2), 2)",
    "torch.nn.functional.local_response_norm(torch.arange(24.).reshape(1, 4, 3, 2), 3, alpha=0.1)",
    "torch.nn.functional.lp_pool2d(torch.tensor([[[-1., 2.], [3., -4.]]]), 1., 2)",
    "torch.nn.functional.lp_pool1d(torch.arange(6.).reshape(1, 6), 2., 2, ceil_mode=True)",
    "torch.nn.functional.instance_norm(torch.ones(2, 3, 1))", "torch.nn.functional.instance_norm(torch.arange(12.).reshape(2, 3, 2), use_input_stats=False)",
    "torch.instance_norm(torch.arange(12.).reshape(2, 3, 2), None, None, torch.zeros(3), torch.ones(3), False, 0.1, 1e-5, True)",
    "torch.nn.functional.softmin(torch.arange(6.).reshape(2, 3))", "torch.special.expit(torch.tensor([-1., 0., 2.]))",
    "torch.special.logsumexp(torch.tensor([[1., 2.], [3., 4.]]), 1)", "torch.special.softmax(torch.tensor([1, 2]), 0)",
    # interpolate and the transposed convolutions
    "torch.nn.functional.interpolate(torch.arange(6.).reshape(1, 1, 2, 3), scale_factor=1.7, mode='bilinear')",
    "torch.nn.functional.interpolate(torch.arange(6.).reshape(1, 1, 2, 3), scale_factor=1.7, mode='bilinear', recompute_scale_factor=True)",
    "torch.nn.functional.interpolate(torch.arange(6.).reshape(1, 1, 6), scale_factor=0.4, mode='nearest')",
    "torch.nn.functional.interpolate(torch.arange(6.).reshape(1, 1, 6), size=4, mode='linear', align_corners=True)",
    "torch.nn.functional.interpolate(torch.arange(9.).reshape(1, 1, 3, 3), size=(5, 2), mode='bicubic', align_corners=True)",
    "torch.nn.functional.interpolate(torch.arange(6, dtype=torch.uint8).reshape(1, 1, 6), size=9)",
    "torch.nn.functional.interpolate(torch.arange(6).reshape(1, 1, 6), size=9, mode='linear')",
    "torch.nn.functional.interpolate(torch.ones(1, 1, 4), size=2, mode='bilinear')",
    "torch.nn.functional.interpolate(torch.ones(1, 1, 2, 2), size=(3,), mode='bilinear')",
    "torch.nn.functional.interpolate(torch.ones(1, 1, 2, 2), size=3, scale_factor=2.0)",
    "torch.nn.functional.interpolate(torch.ones(1, 1, 2, 2))",
    "torch.nn.functional.interpolate(torch.ones(1, 1, 2, 2), size=3, align_corners=True)",
    "torch.nn.functional.interpolate(torch.ones(1, 1, 2, 2), size=3, mode='foo')",
    "torch.nn.functional.interpolate(torch.ones(2, 2), size=3)",
    "torch.nn.functional.interpolate(torch.ones(1, 1, 2, 2), size=0)",
    "torch.nn.functional.interpolate(torch.arange(24.).reshape(1, 1, 2, 3, 4), size=(1, 2, 3), mode='area')",
    "torch.nn.functional.interpolate(torch.arange(8.).reshape(1, 1, 8), scale_factor=0.5, mode='area')",
    "torch.conv_transpose2d(torch.ones(1, 2, 3, 3), torch.ones(3, 1, 2, 2))",
    "torch.conv_transpose2d(torch.ones(1, 2, 3, 3), torch.ones(2, 1, 2, 2), stride=2, output_padding=2)",
    "torch.conv_transpose1d(torch.ones(1, 2, 3), torch.ones(2, 1, 2), output_padding=1)",
    "torch.conv_transpose2d(torch.ones(1, 2, 1, 1), torch.ones(2, 1, 1, 1), padding=1)",
    "torch.conv_transpose2d(torch.ones(2, 3, 3), torch.ones(2, 1, 2, 2), torch.ones(2))",
    "torch.conv_transpose1d(torch.arange(6.).reshape(1, 2, 3), torch.arange(8.).reshape(2, 2, 2), stride=3, padding=1, output_padding=2, dilation=2)",
    # quantiles with a tensor q (the .ops samples have no float literal tensors), NaN lines, interpolations,
    # and the scans at NaN, ties and infinities
    "torch.quantile(torch.arange(10.).reshape(2, 5), torch.tensor([0.25, 0.5, 1.0]), dim=1)",
    "torch.quantile(torch.arange(10.).reshape(2, 5), torch.tensor([0.3]), dim=0, keepdim=True, interpolation='nearest')",
    "torch.quantile(torch.tensor([1., 2., 3., 4., 5.]), torch.tensor([0.125, 0.375, 0.625, 0.875]), interpolation='nearest')",
    "torch.quantile(torch.tensor([[1., float('nan')], [2., 3.]]), torch.tensor([0.5, 1.0]), dim=1)",
    "torch.nanquantile(torch.tensor([[float('nan'), float('nan')], [2., 3.]]), torch.tensor([0.5]), dim=1)",
    "torch.quantile(torch.tensor([0., 1., 2., 3.]), torch.tensor([0.2, 0.5, 0.7]), interpolation='midpoint')",
    "torch.quantile(torch.tensor([0., 1., 2., 3.]), torch.tensor([0.2, 0.5, 0.7]), interpolation='higher')",
    "torch.quantile(torch.arange(6.), torch.tensor([[0.5]]))", "torch.quantile(torch.arange(6.), torch.tensor([0.5]).double())",
    "torch.quantile(torch.arange(6.), torch.tensor([1.5]))", "torch.quantile(torch.arange(6), 0.5)",
    "torch.quantile(torch.ones(0), 0.5)", "torch.quantile(torch.arange(6.), 0.5, interpolation='foo')",
    "torch.cummax(torch.tensor([[1., 3., 3.], [float('nan'), 0., 5.]]), 1)",
    "torch.cummin(torch.tensor([[1., 3., 2.], [float('nan'), 0., float('nan')]]), 0)",
    "torch.cummax(torch.tensor([True, False, True]), 0)", "torch.cummax(torch.tensor(3.), 0)",
    "torch.logcumsumexp(torch.tensor([-1000., 0., float('inf'), 1.]), 0)",
    "torch.logcumsumexp(torch.tensor([float('-inf'), float('-inf'), 1.]), 0)",
    "torch.combinations(torch.tensor([1, 2, 3]), r=4)", "torch.combinations(torch.tensor([5]), r=3, with_replacement=True)",
    "torch.combinations(torch.ones(2, 2))", "torch.combinations(torch.tensor([1, 2]), r=-1)",
    "torch.trapezoid(torch.tensor(1.))", "torch.trapezoid(torch.ones(0))", "torch.cumulative_trapezoid(torch.ones(0))",
    "torch.trapezoid(torch.tensor([True, False]))", "torch.trapezoid(torch.ones(2, 3), torch.ones(4))",
    "torch.trapezoid(torch.tensor([1, 2, 4]), torch.tensor([1, 2, 4]))",
    "torch.addcdiv(torch.ones(2), torch.tensor([1, 2]), torch.tensor([3, 4]))",
    "torch.addcmul(torch.ones(2, dtype=torch.long), torch.tensor([1, 2]), torch.tensor([3, 4]), value=0.5)",
    "torch.einsum('ij,jk', torch.ones(2, 3))", "torch.einsum('ij', torch.ones(2, 2), torch.ones(2, 2))",
    "torch.einsum('i1', torch.ones(2))", "torch.einsum('ii', torch.ones(2, 3))", "torch.einsum('ij->k', torch.ones(2, 2))",
    "torch.einsum('ij->ii', torch.ones(2, 2))", "torch.einsum('i..j', torch.ones(2, 2))",
    "torch.einsum('...i,...i->...', torch.ones(2, 3, 4), torch.ones(5, 4))", "torch.einsum('ba', torch.arange(6.).reshape(2, 3))",
    "torch.einsum('ij,jk->ik', [torch.ones(2, 3), torch.ones(3, 2)])", "torch.einsum('i,i', torch.ones(3), torch.ones(2))",
    "torch.meshgrid(torch.ones(2), torch.ones(2), indexing='foo')",
    "torch.meshgrid([torch.arange(2), torch.arange(3)])", "torch.block_diag(torch.ones(2, 2, 2))",
    "torch.broadcast_tensors(torch.ones(2, 1), torch.ones(3))", "torch.broadcast_tensors(torch.ones(2), torch.ones(3))",
    "torch.chain_matmul(torch.ones(2, 3), torch.ones(4, 4))", "torch.chain_matmul(torch.ones(3))",
    "torch.atleast_1d(torch.tensor(1.), torch.tensor(2.))",
    # signs: -0.0 and -NaN carry a sign bit
    "torch.signbit(torch.tensor([-0., 0., float('-nan'), float('nan'), -float('inf'), 2.]))",
    "torch.signbit(torch.tensor([-0., 1.], dtype=torch.float16))", "torch.signbit(torch.tensor([-3, 0, 4]))",
    "torch.signbit(torch.tensor([True]))", "torch.signbit(torch.ones(2, dtype=torch.complex64))",
    "torch.copysign(torch.tensor([1., 2., 3.]), torch.tensor([-0., 0., float('-nan')]))",
    "torch.copysign(torch.tensor([1, -2, 3]), -1)", "torch.copysign(torch.tensor([True, False]), -1.5)",
    "torch.positive(torch.tensor([True]))", "+torch.tensor([1, -2])",
    # infinities and NaN
    "torch.hypot(torch.tensor([3., float('inf'), float('nan'), 1e30]), torch.tensor([4., float('nan'), 1., 1e30]))",
    "torch.hypot(torch.tensor([3, 4]), torch.tensor([4, 3]))",
    "torch.logaddexp(torch.tensor([float('inf'), -float('inf'), 1000., -1000.]), "
    "torch.tensor([float('inf'), -float('inf'), 1000., -1000.]))",
    "torch.logaddexp2(torch.tensor([float('inf'), -float('inf'), 0.]), torch.tensor([1., -float('inf'), 0.]))",
    "torch.logaddexp(torch.tensor([1, 2]), torch.tensor([1, 2]))",
    "torch.xlogy(torch.tensor([0., 0., 1., 2.]), torch.tensor([0., float('nan'), 0., -1.]))",
    "torch.xlogy(2, torch.tensor([1., 0.5]))", "torch.xlogy(torch.tensor([1, 0]), 3)",
    "torch.fmax(torch.tensor([float('nan'), 1., float('nan')]), torch.tensor([2., float('nan'), float('nan')]))",
    "torch.fmin(torch.tensor([1, 5]), torch.tensor([3., float('nan')]))",
    "torch.fmax(torch.ones(2, dtype=torch.complex64), torch.ones(2, dtype=torch.complex64))",
    "torch.float_power(torch.tensor([2, -2]), 2)", "torch.float_power(2, torch.tensor([0.5, -1.]))",
    "torch.float_power(torch.tensor([-8.]), torch.tensor([1 / 3]))",
    "torch.ldexp(torch.tensor([1., -3.]), torch.tensor([10, -2]))",
    "torch.heaviside(torch.tensor([-1.5, 0., 2.]), torch.tensor([0.5]))",
    "torch.heaviside(torch.tensor([-1, 0, 2]), torch.tensor([7]))",
    "torch.heaviside(torch.tensor([-1., 0.]), torch.tensor([1]))",
    # reductions
    "torch.count_nonzero(torch.tensor([[0, 1, 2], [0, 0, 3]]), 0)",
    "torch.count_nonzero(torch.tensor([[0., 1.], [float('nan'), 0.]]), (0, 1))", "torch.count_nonzero(torch.ones(2), 3)",
    "torch.aminmax(torch.tensor([[1., 5.], [float('nan'), 0.]]), dim=0)", "torch.aminmax(torch.ones(0))",
    "torch.aminmax(torch.ones(2, 3), keepdim=True)", "torch.aminmax(torch.ones(2, 0), dim=0)",
    "torch.var_mean(torch.tensor([1, 2]))", "torch.std_mean(torch.tensor([[1., 2.], [3., 5.]]), 0, keepdim=True)",
    "torch.var_mean(torch.tensor([1., 2., 4.]), correction=2)", "torch.var_mean(torch.tensor([1.]))",
    "torch.dist(torch.tensor([1, 2]), torch.tensor([3, 4]))",
    "torch.dist(torch.tensor([1., 2.]), torch.tensor([3., 5.]), float('inf'))",
    "torch.dist(torch.tensor([1., 2.]), torch.tensor([3., 5.]), 0)",
    # shapes
    "torch.rot90(torch.arange(6).reshape(2, 3), 1, [0, 0])", "torch.rot90(torch.arange(6).reshape(2, 3), 1, [0, -2])",
    "torch.rot90(torch.arange(6).reshape(2, 3), 1, [0, 2])", "torch.rot90(torch.arange(6).reshape(2, 3), 1, [0])",
    "torch.rot90(torch.arange(3), 1)", "torch.rot90(torch.arange(6).reshape(2, 3), -7)",
    "torch.fliplr(torch.ones(3))", "torch.flipud(torch.tensor(1.))", "torch.tile(torch.arange(3), ())",
    "torch.tile(torch.arange(6).reshape(2, 3), (2, 1, 2))", "torch.tile(torch.arange(3), (-1,))",
    "torch.ravel(torch.arange(6).reshape(2, 3).t())",
    "torch.tensor_split(torch.arange(7), [2, 1, 9, -1])", "torch.tensor_split(torch.arange(7), 0)",
    "torch.tensor_split(torch.arange(7), torch.tensor(3))", "torch.tensor_split(torch.arange(7), torch.tensor([2, 5]))",
    "torch.tensor_split(torch.arange(7), torch.tensor([[1]]))", "torch.tensor_split(torch.arange(7), torch.tensor([1.]))",
    "torch.tensor_split(torch.tensor(1), 2)", "torch.tensor_split(torch.arange(4), 6)",
    "torch.hsplit(torch.arange(6), 4)", "torch.hsplit(torch.arange(6).reshape(1, 6), [1, 4])",
    "torch.hsplit(torch.tensor(1), 2)", "torch.vsplit(torch.arange(6), 2)", "torch.vsplit(torch.ones(3, 2), 2)",
    "torch.dsplit(torch.ones(2, 2), 2)", "torch.dsplit(torch.arange(8).reshape(1, 2, 4), 2)",
    "torch.repeat_interleave(torch.tensor([2, 0, 1]))", "torch.repeat_interleave(torch.tensor([1, -2]))",
    "torch.repeat_interleave(torch.tensor([[1, 2]]))", "torch.repeat_interleave(torch.tensor([1., 2.]))",
    "torch.repeat_interleave(torch.tensor([1, 2]), output_size=5)",
    "torch.repeat_interleave(torch.arange(6).reshape(2, 3), torch.tensor([1, 2]), dim=0)",
    "torch.repeat_interleave(torch.arange(6).reshape(2, 3), torch.tensor([1, 2]), dim=1)",
    "torch.repeat_interleave(torch.arange(6).reshape(2, 3), torch.tensor(2))",
    "torch.repeat_interleave(torch.arange(6).reshape(2, 3), 2, dim=1, output_size=6)",
    "torch.repeat_interleave(torch.arange(6).reshape(2, 3), 2, dim=0, output_size=3)",
    "torch.repeat_interleave(torch.tensor(3.), 2)", "torch.repeat_interleave(torch.ones(2), -1)",
    # products
    "torch.inner(torch.ones(2, 3), torch.ones(2))", "torch.inner(torch.tensor([1, 2]), torch.tensor([1., 2.]))",
    "torch.inner(torch.tensor(2.), torch.ones(2, 3))", "torch.inner(torch.arange(6).reshape(2, 3), torch.arange(3))",
    "torch.vdot(torch.ones(2, 2), torch.ones(2, 2))", "torch.vdot(torch.ones(2), torch.ones(3))",
    "torch.vdot(torch.tensor([1 + 2j, 3j]), torch.tensor([2 - 1j, 1 + 1j]))",
    "torch.trace(torch.arange(6).reshape(2, 3))", "torch.trace(torch.ones(3))",
    "torch.trace(torch.ones(2, 2, dtype=torch.bool))", "torch.trace(torch.ones(2, 2, dtype=torch.int8))",
    "torch.kron(torch.tensor([1, 2]), torch.tensor([[1, 10], [100, 1000]]))", "torch.kron(torch.tensor(3), torch.ones(2))",
    # pooling in one to three dims (Note [Pooling one dim at a time]): ties, infinities, empties, refusals
    "torch.nn.functional.max_pool1d(torch.tensor([[[1., 3., 3., 2., float('-inf'), float('-inf')]]]), 2, return_indices=True)",
    "torch.nn.functional.max_pool3d(torch.ones(1, 2, 2, 2), 2, return_indices=True)",
    "torch.nn.functional.max_pool3d(torch.arange(64.).reshape(1, 4, 4, 4) % 7, 3, 2, 1, ceil_mode=True, return_indices=True)",
    "torch.nn.functional.max_pool3d_with_indices(torch.arange(48.).reshape(1, 3, 4, 4).sin(), [1, 2, 3], dilation=[1, 2, 1])",
    "torch.nn.functional.avg_pool3d(torch.arange(64).reshape(1, 4, 4, 4), 2)",
    "torch.nn.functional.avg_pool3d(torch.arange(64.).reshape(1, 4, 4, 4), 3, 2, 1, ceil_mode=True)",
    "torch.nn.functional.avg_pool3d(torch.arange(64.).reshape(1, 4, 4, 4), 3, 2, 1, ceil_mode=True, count_include_pad=False)",
    "torch.nn.functional.avg_pool3d(torch.ones(0, 2, 3, 3, 3), 2)",
    "torch.nn.functional.adaptive_max_pool2d(torch.arange(35.).reshape(1, 5, 7) % 4, [None, 3], True)",
    "torch.nn.functional.adaptive_max_pool3d(torch.arange(60.).reshape(1, 3, 4, 5).cos(), [2, None, 3], True)",
    "torch.nn.functional.adaptive_avg_pool3d(torch.arange(60.).reshape(1, 3, 4, 5), [None, 2, 3])",
    "torch.nn.functional.adaptive_avg_pool3d(torch.arange(60.).reshape(1, 3, 4, 5).half(), 2)",
    "torch.nn.functional.adaptive_max_pool1d(torch.arange(10.).reshape(2, 5), 7, True)",
    "torch.adaptive_max_pool1d(torch.arange(10.).reshape(1, 2, 5), [0])",
    "torch.nn.functional.fractional_max_pool2d(torch.arange(49.).reshape(1, 7, 7).sin(), 3, [3, 2], _random_samples=torch.tensor([[[0.25, 0.75]]]), return_indices=True)",
    "torch.nn.functional.fractional_max_pool3d(torch.arange(125.).reshape(1, 5, 5, 5).cos(), 2, output_ratio=0.6, _random_samples=torch.tensor([[[0.1, 0.5, 0.9]]]))",
    "torch.manual_seed(3); torch.nn.functional.fractional_max_pool2d(torch.arange(72.).reshape(2, 6, 6).sin(), 2, 3, return_indices=True)",
    "torch.manual_seed(3); torch.nn.functional.fractional_max_pool3d(torch.arange(72.).reshape(2, 4, 3, 3).sin(), [2, 1, 1], [2, 3, 2])",
    "torch.nn.functional.max_unpool2d(torch.tensor([[[[5., 6.], [7., 8.]]]]), torch.tensor([[[[0, 3], [9, 14]]]]), 2, output_size=[1, 1, 5, 5])",
    "torch.nn.functional.max_unpool1d(torch.tensor([[1., 2.]]), torch.tensor([[1, 2]]), 2, stride=1)",
    "torch.nn.functional.max_unpool3d(torch.tensor([[[[[1., 2.]]]]]), torch.tensor([[[[[0, 7]]]]]), 2, 2, 0, [1, 2, 2, 2])",
    "torch.nn.functional.max_pool1d(torch.arange(100.).reshape(2, 2, 5, 5), 2)",
    "torch.nn.functional.max_pool1d(torch.arange(28.).reshape(2, 2, 7), 0)",
    "torch.nn.functional.max_pool1d(torch.arange(28.).reshape(2, 2, 7), 2, 0)",
    "torch.nn.functional.max_pool1d(torch.arange(28.).reshape(2, 2, 7), 2, 1, 2)",
    "torch.nn.functional.max_pool1d(torch.arange(28.).reshape(2, 2, 7), 9)",
    "torch.nn.functional.max_pool1d(torch.arange(28.).reshape(2, 2, 7), 2, dilation=0)",
    "torch.nn.functional.max_pool1d(torch.arange(28.).reshape(2, 2, 7), [2,2])",
    "torch.max_pool1d(torch.arange(28.).reshape(2, 2, 7), 2, [])",
    "torch.nn.functional.max_pool3d(torch.arange(28.).reshape(2, 2, 7), 2)",
    "torch.nn.functional.max_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4), 0)",
    "torch.nn.functional.max_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4), 2, 0)",
    "torch.nn.functional.max_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4), 2, 1, 2)",
    "torch.nn.functional.max_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4), 5)",
    "torch.nn.functional.max_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4), [2,2])",
    "torch.nn.functional.max_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4), 2, dilation=0)",
    "torch.nn.functional.avg_pool3d(torch.arange(28.).reshape(2, 2, 7), 2)",
    "torch.nn.functional.avg_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4), 0)",
    "torch.nn.functional.avg_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4), 2, 0)",
    "torch.nn.functional.avg_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4), 2, 1, 2)",
    "torch.nn.functional.avg_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4), 5)",
    "torch.nn.functional.avg_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4), 2, divisor_override=0)",
    "torch.nn.functional.adaptive_max_pool1d(torch.arange(100.).reshape(2, 2, 5, 5), 2)",
    "torch.nn.functional.adaptive_max_pool1d(torch.arange(28.).reshape(2, 2, 7), [2,2])",
    "torch.nn.functional.adaptive_max_pool1d(torch.arange(28.).reshape(2, 2, 7), -1)",
    "torch.nn.functional.adaptive_max_pool1d(torch.arange(28.).reshape(2, 2, 7)[:,:,:0], 2)",
    "torch.nn.functional.adaptive_max_pool2d(torch.arange(28.).reshape(2, 2, 7)[0], 2)",
    "torch.nn.functional.adaptive_max_pool2d(torch.arange(128.).reshape(2, 2, 4, 4, 4), 2)",
    "torch.nn.functional.adaptive_max_pool2d(torch.arange(100.).reshape(2, 2, 5, 5), -1)",
    "torch.nn.functional.adaptive_max_pool2d(torch.arange(100.).reshape(2, 2, 5, 5), [2,2,2])",
    "torch.nn.functional.adaptive_max_pool2d(torch.arange(100.).reshape(2, 2, 5, 5)[:,:,:0], 2)",
    "torch.nn.functional.adaptive_max_pool3d(torch.arange(100.).reshape(2, 2, 5, 5)[0], 2)",
    "torch.nn.functional.adaptive_max_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4), -1)",
    "torch.nn.functional.adaptive_avg_pool3d(torch.arange(100.).reshape(2, 2, 5, 5)[0], 2)",
    "torch.nn.functional.adaptive_avg_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4), -1)",
    "torch.nn.functional.adaptive_avg_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4)[:,:,:0], 2)",
    "torch.nn.functional.adaptive_max_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4)[:,:,:0], 2)",
    "torch.nn.functional.adaptive_max_pool2d(torch.arange(100.).reshape(2, 2, 5, 5), [None, 2])",
    "torch.nn.functional.adaptive_max_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4), [None, 2, None])",
    "torch.nn.functional.adaptive_avg_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4), [None, 2, 3])",
    "torch.nn.functional.max_unpool2d(torch.arange(100.).reshape(2, 2, 5, 5)[:,:,:2,:2], torch.full((2,2,2,2),30), 2)",
    "torch.nn.functional.max_unpool2d(torch.arange(100.).reshape(2, 2, 5, 5)[:,:,:2,:2], torch.full((2,2,2,2),-1), 2)",
    "torch.nn.functional.max_unpool2d(torch.arange(100.).reshape(2, 2, 5, 5)[:,:,:2,:2], torch.zeros(2,2,2,2), 2)",
    "torch.nn.functional.max_unpool2d(torch.arange(100.).reshape(2, 2, 5, 5)[:,:,:2,:2], torch.zeros(2,2,2,1,dtype=torch.long), 2)",
    "torch.nn.functional.max_unpool2d(torch.arange(100.).reshape(2, 2, 5, 5)[:,:,:2,:2], torch.zeros(2,2,2,2,dtype=torch.long), 2, output_size=[9,9])",
    "torch.nn.functional.max_unpool1d(torch.arange(28.).reshape(2, 2, 7)[:,:,:2], torch.full((2,2,2),9), 2)",
    "torch.nn.functional.max_unpool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4)[:,:,:2,:2,:2], torch.full((2,2,2,2,2),99), 2)",
    "torch.nn.functional.max_unpool3d(torch.arange(100.).reshape(2, 2, 5, 5), torch.zeros(2,2,5,5,dtype=torch.long), 2)",
    "torch.nn.functional.max_unpool2d(torch.arange(100.).reshape(2, 2, 5, 5)[:,:,:2,:2], torch.zeros(2,2,2,2,dtype=torch.long), 2, output_size=[2,2,4,5])",
    "torch.nn.functional.max_unpool2d(torch.arange(100.).reshape(2, 2, 5, 5)[:,:,:2,:2], torch.zeros(2,2,2,2,dtype=torch.long), 2, output_size=[5])",
    "torch.nn.functional.fractional_max_pool2d(torch.arange(100.).reshape(2, 2, 5, 5), 2)",
    "torch.nn.functional.fractional_max_pool2d(torch.arange(100.).reshape(2, 2, 5, 5), 2, output_size=5)",
    "torch.nn.functional.fractional_max_pool2d(torch.arange(128.).reshape(2, 2, 4, 4, 4), 2, output_size=2)",
    "torch.nn.functional.fractional_max_pool2d(torch.arange(100.).reshape(2, 2, 5, 5), 0, output_size=2)",
    "torch.nn.functional.fractional_max_pool2d(torch.arange(100.).reshape(2, 2, 5, 5), 2, output_size=0)",
    "torch.nn.functional.fractional_max_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4), 2, output_size=2)",
    "torch.nn.functional.fractional_max_pool3d(torch.arange(128.).reshape(2, 2, 4, 4, 4), 2, output_size=4)",
    "torch.nn.functional.fractional_max_pool3d(torch.arange(100.).reshape(2, 2, 5, 5), 2, output_size=2)",
    "torch.manual_seed(0); torch.multinomial(torch.tensor([0.1, 0.2, 0.7]), 5, True)",
    "torch.manual_seed(0); torch.multinomial(torch.tensor([[0.1, 0.2, 0.7], [1., 1., 0.]]), 2)",
    "torch.manual_seed(0); torch.multinomial(torch.tensor([0.1, 0.2, 0.7]), 1)",
    "torch.manual_seed(2); torch.multinomial(torch.tensor([[0.3, 0.3, 0.4], [0.5, 0.25, 0.25]], dtype=torch.float64), 6, replacement=True)",
    "torch.manual_seed(5); torch.tensor([2., 0., 1., 5.]).multinomial(3)",
    "torch.multinomial(torch.tensor([0.1, 0.2, 0.7]), 4)",
    "torch.multinomial(torch.tensor([0.1, -0.2, 0.7]), 2)",
    "torch.multinomial(torch.tensor([0.1, -0.2, 0.7]), 2, True)",
    "torch.multinomial(torch.tensor([0.1, float('nan'), 0.7]), 2, True)",
    "torch.multinomial(torch.tensor([0.1, float('inf'), 0.7]), 2, True)",
    "torch.multinomial(torch.tensor([0., 0., 0.]), 2, True)",
    "torch.multinomial(torch.tensor([0., 0., 0.]), 2)",
    "torch.multinomial(torch.tensor([1, 2]), 1)",
    "torch.multinomial(torch.ones(2, 2, 2), 1)",
    "torch.multinomial(torch.ones(3), 0)",
    "torch.multinomial(torch.tensor(1.), 1)",
    "torch.multinomial(torch.tensor([0.3, 0.3, 0.4]).half(), 3, replacement=True)",
    "torch.manual_seed(0); torch.poisson(torch.tensor([0.5, 3., 12., 0., 40.]))",
    "torch.manual_seed(1); torch.poisson(torch.tensor([[2.5, 100.], [0.1, 15.]], dtype=torch.float64))",
    "torch.manual_seed(4); torch.poisson(torch.tensor([9.99, 10., 1000., 1e6]))",
    "torch.manual_seed(0); torch.poisson(torch.tensor([float('inf'), 1e30, 1e18, 5e18]))",
    "torch.poisson(torch.tensor([-1.]))",
    "torch.poisson(torch.tensor([float('nan')]))",
    "torch.poisson(torch.tensor([1, 2]))",
    "torch.linalg.lstsq(torch.tensor([[1., 2.], [3., 4.], [5., 7.]]), torch.tensor([[1.], [2.], [4.]]))",
    "torch.linalg.lstsq(torch.tensor([[1., 2.], [3., 4.], [5., 7.]]), torch.tensor([[1.], [2.], [4.]]), driver='gels')",
    "torch.linalg.lstsq(torch.tensor([[1., 2.], [3., 4.], [5., 7.]]), torch.tensor([[1.], [2.], [4.]]), driver='gelsd')",
    "torch.linalg.lstsq(torch.tensor([[1., 2.], [3., 4.], [5., 7.]]), torch.tensor([1., 2., 4.]), driver='gelss')",
    "torch.linalg.lstsq(torch.tensor([[1., 2.], [3., 4.], [5., 7.]]), torch.tensor([[1.], [2.], [4.]]), 0.5, driver='gelsd')",
    "torch.linalg.lstsq(torch.tensor([[1., 3., 5.], [2., 4., 7.]]), torch.tensor([[1.], [2.]]))",
    "torch.linalg.lstsq(torch.ones(3, 2), torch.tensor([[1.], [2.], [4.]]))",
    "torch.linalg.lstsq(torch.ones(3, 2), torch.tensor([[1.], [2.], [4.]]), driver='gelsd')",
    "torch.linalg.lstsq(torch.tensor([[1., 2.], [3., 4.], [5., 7.]]), torch.ones(3, 1), driver='foo')",
    "torch.linalg.lstsq(torch.tensor([[1., 2.], [3., 4.], [5., 7.]]), torch.ones(2, 1))",
    "torch.linalg.lstsq(torch.ones(3), torch.ones(3, 1))",
    "torch.linalg.lstsq(torch.ones(3, 2, dtype=torch.long), torch.ones(3, 1, dtype=torch.long))",
    "torch.linalg.lstsq(torch.ones(3, 2), torch.ones(3, 1, dtype=torch.float64))",
    "torch.linalg.lstsq(torch.ones(3, 2), torch.ones(2, 3, 1))",
    "torch.linalg.lstsq(torch.ones(2, 3, 2), torch.ones(3, 1))",
    # torch.fft: lengths of every kind (smooth, prime through Bluestein, 1, odd and even real ones),
    # norms, sizes cut and padded, dims, dtypes, and PyTorch's refusals
    "torch.fft.fft(torch.arange(8.))", "torch.fft.fft(torch.arange(7.), norm='ortho')",
    "torch.fft.fft(torch.arange(11, dtype=torch.float64) ** 2 / 7)", "torch.fft.fft(torch.tensor([2.5]))",
    "torch.fft.fft(torch.arange(6.).reshape(2, 3) + 1j * torch.arange(6.).reshape(2, 3), n=5, dim=0)",
    "torch.fft.ifft(torch.arange(9.) - 1j, norm='forward')", "torch.fft.ifft(torch.arange(4))",
    "torch.fft.rfft(torch.arange(10.))", "torch.fft.rfft(torch.arange(13.), n=17)", "torch.fft.rfft(torch.tensor([3.]))",
    "torch.fft.irfft(torch.tensor([4., 1. + 2j, -1. + 5j]))", "torch.fft.irfft(torch.tensor([4. + 3j, 1. + 2j, -1. + 5j]), n=5)",
    "torch.fft.irfft(torch.tensor([4., 1. + 2j, -1. + 5j, 2.]), n=3, norm='ortho')",
    "torch.fft.hfft(torch.tensor([4., 1. + 2j, -1. + 5j]))", "torch.fft.hfft(torch.tensor([1., 2., 3.]), n=7, norm='forward')",
    "torch.fft.ihfft(torch.arange(6.))", "torch.fft.ihfft(torch.arange(5, dtype=torch.float64), norm='ortho')",
    "torch.fft.fft2(torch.arange(12.).reshape(3, 4))", "torch.fft.ifft2(torch.arange(12.).reshape(3, 4), s=(2, 5))",
    "torch.fft.fftn(torch.arange(24.).reshape(2, 3, 4), dim=(0, 2), norm='ortho')",
    "torch.fft.fftn(torch.arange(6.).reshape(2, 3), s=[4])", "torch.fft.ifftn(torch.arange(6.).reshape(2, 3), s=(-1, 2))",
    "torch.fft.rfftn(torch.arange(24.).reshape(2, 3, 4))", "torch.fft.rfft2(torch.arange(15.).reshape(3, 5), s=(4, 6))",
    "torch.fft.irfftn(torch.arange(12.).reshape(3, 4) * (1 + 1j))", "torch.fft.irfft2(torch.arange(12.).reshape(3, 4), s=(3, 5))",
    "torch.fft.hfftn(torch.arange(12.).reshape(3, 4) * (1 - 1j))", "torch.fft.hfft2(torch.arange(6.).reshape(2, 3), s=(2, 5), norm='forward')",
    "torch.fft.ihfftn(torch.arange(12.).reshape(3, 4))", "torch.fft.ihfft2(torch.arange(10.).reshape(2, 5), norm='ortho')",
    "torch.fft.ihfftn(torch.arange(24.).reshape(2, 3, 4), dim=(0, 2))",
    "torch.fft.fftshift(torch.arange(10.).reshape(2, 5))", "torch.fft.ifftshift(torch.arange(10.).reshape(2, 5), dim=1)",
    "torch.fft.fftshift(torch.arange(7), dim=(0,))", "torch.fft.ifftshift(torch.arange(7))",
    "torch.fft.fftfreq(7)", "torch.fft.fftfreq(8, 0.25)", "torch.fft.rfftfreq(9, d=2.)", "torch.fft.fftfreq(4, dtype=torch.float64)",
    "torch.fft.fftfreq(0)", "torch.fft.rfftfreq(-3)", "torch.fft.fftfreq(-1)", "torch.fft.fftfreq(4, dtype=torch.int64)",
    "torch.fft.fft(torch.randn(2, 0), dim=0)", "torch.fft.rfft(torch.ones(2, 3), dim=0)",
    "torch.fft.fft(torch.ones(3, 4), n=0)", "torch.fft.fft(torch.ones(3, 4), n=-1)", "torch.fft.fft(torch.ones(3, 4), dim=2)",
    "torch.fft.fft(torch.tensor(1.))", "torch.fft.fft(torch.tensor(1.), dim=1)", "torch.fft.irfft(torch.tensor(1.))",
    "torch.fft.irfft(torch.ones(1))", "torch.fft.rfft(torch.ones(3, dtype=torch.complex64))",
    "torch.fft.ihfft(torch.ones(3, dtype=torch.complex64))", "torch.fft.rfftn(torch.ones(3, 2, dtype=torch.complex64))",
    "torch.fft.ihfftn(torch.ones(3, 2, dtype=torch.complex64))",
    "torch.fft.fft(torch.ones(3, dtype=torch.float16))", "torch.fft.fft(torch.ones(3, dtype=torch.bfloat16))",
    "torch.fft.fft(torch.ones(3, dtype=torch.bool))", "torch.fft.fft(torch.ones(3), norm='bad')",
    "torch.fft.fftn(torch.ones(3, 4), s=[2], dim=[0, 1])", "torch.fft.fftn(torch.ones(3, 4), dim=[0, 0])",
    "torch.fft.fftn(torch.ones(3, 4), dim=[0, -2])", "torch.fft.fftn(torch.ones(3, 4), s=[2, 3, 4])",
    "torch.fft.fftn(torch.ones(3, 4), s=[0])", "torch.fft.fftn(torch.ones(3, 4), s=[-2, 3])",
    "torch.fft.rfftn(torch.ones(3, 4), dim=[])", "torch.fft.irfftn(torch.ones(3, 4), dim=[])",
    "torch.fft.hfftn(torch.ones(3, 4), dim=[])", "torch.fft.ihfftn(torch.tensor(1.))", "torch.fft.ifftn(torch.tensor(2.))",
    "torch.fft.fft2(torch.ones(3))", "torch.fft.fftshift(torch.ones(2, 3), dim=5)", "torch.fft.ifftshift(torch.tensor(2.))",
    "torch.fft.fftshift(torch.tensor(2.), dim=0)", "torch.fft.rfft2(torch.randn(2, 3), dim=[0, 2])",
    # the inverse hyperbolic functions and erfc at their edges
    "torch.acosh(torch.tensor([1., 0.5, float('inf')]))", "torch.atanh(torch.tensor([1., -1., 0.5, 2.]))",
    "torch.asinh(torch.tensor([-1e10, 0., 1e-10]))", "torch.erfc(torch.tensor([-10., 0., 10., 30.]))",
    "torch.erfc(torch.ones(2, dtype=torch.complex64))", "torch.arccosh(torch.tensor([2, 3]))",
    # segment_reduce: empty runs, initial, offsets, batched lengths, and its refusals
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'max', lengths=torch.tensor([1, 0, 3]))",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'min', lengths=torch.tensor([1, 0, 3]))",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'mean', lengths=torch.tensor([1, 0, 3]))",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'prod', lengths=torch.tensor([1, 0, 3]))",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'sum', lengths=torch.tensor([1, 0, 3]), initial=5)",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'mean', lengths=torch.tensor([1, 0, 3]), initial=5)",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'max', lengths=torch.tensor([1, 3]), initial=100)",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'max', offsets=torch.tensor([0, 1, 1, 4]))",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'sum', offsets=torch.tensor([1, 4]))",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'sum', lengths=torch.tensor([1, 3]), offsets=torch.tensor([0, 2, 4]))",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'sum', offsets=torch.tensor([0]))",
    "torch.segment_reduce(torch.arange(24.).reshape(2, 4, 3), 'sum', lengths=torch.tensor([[1, 3], [2, 2]]), axis=1)",
    "torch.segment_reduce(torch.arange(24.).reshape(2, 4, 3), 'mean', offsets=torch.tensor([[0, 1, 4], [0, 2, 4]]), axis=-2)",
    "torch.segment_reduce(torch.arange(12., dtype=torch.float64), 'sum', lengths=torch.tensor([5, 7], dtype=torch.int32))",
    "torch.segment_reduce(torch.tensor([1., 2., 4.]), 'sum', lengths=torch.tensor([1, 1]), unsafe=True)",
    "torch.segment_reduce(torch.tensor([1., 2., 4.], dtype=torch.float16), 'prod', lengths=torch.tensor([0, 1, 2]), initial=3.5)",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'sum', lengths=torch.tensor([1, 2]))",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'sum', lengths=torch.tensor([1, -1, 4]))",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'foo', lengths=torch.tensor([1, 3]))",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'sum')",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'sum', indices=torch.tensor([0, 0, 1, 1]))",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'sum', lengths=torch.tensor([1., 3.]))",
    "torch.segment_reduce(torch.arange(12).reshape(4, 3), 'sum', lengths=torch.tensor([1, 3]))",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'sum', offsets=torch.tensor([0, 3, 1, 4]))",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'sum', lengths=torch.tensor([1, 2]), axis=1)",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'sum', lengths=torch.tensor([1, 3]), axis=2)",
    "torch.segment_reduce(torch.tensor(3.), 'sum', lengths=torch.tensor([1]))",
    "torch.segment_reduce(torch.arange(12.).reshape(4, 3), 'sum', lengths=torch.tensor(4))",
    # batch_norm_update_stats: the statistics, PyTorch's dtypes and its refusals
    "torch.batch_norm_update_stats(torch.arange(24.).reshape(4, 3, 2), None, None, 0.1)",
    "torch.batch_norm_update_stats(torch.arange(6., dtype=torch.float64).reshape(2, 3), torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64), 0.5)",
    "torch.batch_norm_update_stats(torch.arange(24.).reshape(4, 3, 2).bfloat16(), torch.zeros(3), torch.ones(3), 0.1)",
    "torch.batch_norm_update_stats(torch.arange(6.).reshape(2, 3).bfloat16(), None, None, 0.1)",
    "torch.batch_norm_update_stats(torch.tensor([[1., 2., 3.]]), None, None, 0.1)",
    "torch.batch_norm_update_stats(torch.ones(3), None, None, 0.1)",
    "torch.batch_norm_update_stats(torch.arange(6).reshape(2, 3), None, None, 0.1)",
    "torch.batch_norm_update_stats(torch.ones(2, 3).half(), None, None, 0.1)",
    "torch.batch_norm_update_stats(torch.ones(2, 3), torch.zeros(3, dtype=torch.float64), None, 0.1)",
    "torch.batch_norm_update_stats(torch.ones(2, 3).double(), torch.zeros(3), torch.ones(3), 0.1)",
    "torch.batch_norm_update_stats(torch.ones(2, 3), torch.zeros(3), torch.ones(3, dtype=torch.float64), 0.1)",
    # what a tensor says about itself: layout, grad_fn, the old names, pinning, autocast's casts, DLPack's device
    "torch.ones(2).layout", "torch.strided", "torch.ones(2).layout == torch.strided", "torch.ones(2).grad_fn",
    "type(torch.ones(2, requires_grad=True).mul(2).grad_fn).__name__", "type(torch.ones(2).layout).__name__",
    "type(torch.ones(2, requires_grad=True).sum()._grad_fn).__name__", "torch.ones(2, requires_grad=True)._grad_fn",
    "torch.ones(2)._grad", "torch.ones(2).name", "torch.ones(2).volatile", "torch.ones(2).is_pinned()",
    "torch.ones(2, device='meta').is_pinned()", "torch.ones(2, device='meta').pin_memory()",
    "torch.tensor([1, 2]).to_dense()", "torch.tensor([1, 2]).to_dense(torch.float32)",
    "torch.ones(2).to_dense(dtype=torch.float64)",
    "torch.ones(2)._autocast_to_reduced_precision(True, True, torch.half, torch.bfloat16)",
    "torch.ones(2)._autocast_to_reduced_precision(True, False, torch.half, torch.bfloat16)",
    "torch.ones(2).double()._autocast_to_reduced_precision(True, True, torch.half, torch.bfloat16)",
    "torch.ones(2).half()._autocast_to_reduced_precision(True, True, torch.half, torch.bfloat16)",
    "torch.tensor([1, 2])._autocast_to_reduced_precision(True, True, torch.half, torch.half)",
    "torch.ones(2)._autocast_to_reduced_precision(True, True, torch.half, torch.float64)",
    "torch.ones(2).half()._autocast_to_full_precision(False, True)",
    "torch.ones(2).bfloat16()._autocast_to_full_precision(True, False)",
    "torch.ones(2).double()._autocast_to_full_precision(True, True)",
    "torch.ones(2, requires_grad=True)._autocast_to_reduced_precision(True, True, torch.half, torch.bfloat16)",
    "torch.ones(2).__dlpack_device__()", "torch.ones(2, device='meta').__dlpack_device__()",
    # Python callables over the elements, and register_hook's refusal
    "torch.tensor([-1.5, 2.0, -3.0]).apply_(abs)", "torch.tensor([-1, 2, -3]).apply_(abs)",
    "torch.tensor([True, False]).apply_(abs)", "torch.arange(6.).reshape(2, 3).t().apply_(abs)",
    "torch.tensor(-3.).apply_(abs)", "torch.tensor([-1.5, 2.0]).apply_(3)", "torch.tensor([-1.5, 2.0]).apply_(type)",
    "torch.tensor([-1.5, 2.0], requires_grad=True).apply_(abs)", "torch.tensor([-1.5, 2.0], device='meta').apply_(abs)",
    "torch.tensor([1., 2.]).map_(torch.tensor([3., 4.]), max)",
    "torch.tensor([[1., 2.], [5., 0.]]).map_(torch.tensor([3., 4.]), min)",
    "torch.tensor([1., 2.]).map_(torch.tensor([[3., 4.]]), max)", "torch.tensor([1., 2.]).map_(torch.tensor([3, 4]), max)",
    "torch.tensor([1., 2.]).map_(torch.tensor([3., 4.]), abs)",
    "torch.tensor([1., 2.]).map2_(torch.tensor([3., 4.]), torch.tensor([0., 9.]), max)",
    "torch.tensor([[1, -2], [3, -4]]).map2_(torch.tensor([0, 5]), torch.tensor(2), max)",
    "torch.tensor([1., 2.]).map2_(torch.tensor([3., 4.]), torch.tensor([0, 9]), max)",
    "torch.tensor([1., 2.]).register_hook(abs)", "max(1, 2.5, 2)", "min([3, 1, 2])", "max([])", "min(4)", "max(2, True)",
]

# --- format(): Python's format-spec mini-language, on numbers and 0-dim tensors ------------------

def format_cases():
    values = ["0", "7", "-42", "1234567", "True", "2.5", "-0.0", "1234.5678", "1e16", "1e-05", "0.125",
              "float('nan')", "float('inf')", "-float('inf')", "99.99"]
    specs = ["", "d", "5d", "<6", "^7", "*>8", "+", " ", "08", "08,d", ",", "_", "x", "#x", "X", "#o", "b", "_b",
             ".2f", "10.3f", "+.1e", "E", "g", ".3g", "G", "%", ".1%", ".2", ".17", "z.1f", "#.0f", "010.2f",
             ",.2f", "=10", "n", ".0f", "#g", "q", ".f", "5.2d", "012,.1f", "_x", ",x"]
    cases = [f"format({v}, '{spec}')" for v in values for spec in specs]
    complexes = ["complex(0.132, 0.099)", "complex(0, 2)", "complex(-0.0, 2)", "complex(1, -2)", "complex(1e16, -1e-5)"]
    cases += [f"format({v}, '{spec}')" for v in complexes
              for spec in ["", ".2", ".3f", "10.2f", "<20.2e", "+.1f", "g", ".3g", "%", ">16", "016.1f", "=12", ","]]
    cases += ["format(65, 'c')", "format(7)", "format(2.5, 3)", "format(torch.tensor(2.5), '.2f')",
              "format(torch.tensor([1., 2.]), '')", "format(torch.tensor([1.]), '.2f')",
              "format(torch.tensor(7), '#b')", "format(torch.tensor(True), '')", "format(torch.tensor(True), '^5')",
              "torch.tensor(3., requires_grad=True).__format__('.1f')", "torch.tensor(1.5, dtype=torch.bfloat16).__format__('')",
              "torch.tensor(2., device='meta').__format__('.1f')", "torch.tensor(2., device='meta').__format__('')",
              "torch.tensor(0.1, dtype=torch.float64).__format__('.20f')", "torch.tensor(0.1).__format__('.20f')",
              "torch.ones(2).__repr__()", "torch.ones(2, dtype=torch.float64, requires_grad=True).__repr__(tensor_contents='[...]')",
              "torch.zeros(0, 3).__repr__(tensor_contents='X')", "torch.ones(2, device='meta').__repr__(tensor_contents='M')",
              "torch.ones(2).__repr__(tensor_contents=3)", "torch.arange(4).__repr__(tensor_contents='[0, ..., 3]')",
              "torch.ones(2, 2).mul(torch.ones(2, requires_grad=True)).__repr__(tensor_contents='c')",
              "torch.ones(2, dtype=torch.int32).__repr__(tensor_contents='')"]
    return cases


# --- grammar --------------------------------------------------------------------------------------


def grammar_cases():
    x = "torch.arange(24.).reshape(2, 3, 4)"
    y = "torch.arange(6).reshape(2, 3)"
    subs = ["0", "-1", "1, 2", "0, :, 1", ":, 1", "..., 0", "None", "..., None", "1:", ":1", "::2", "::-1", "-2:",
            "0, 1, 2", "None, 0", ":, :, 1:3", "1, ..., 2", "..., 1:, None", "torch.tensor([1, 0])",
            "torch.tensor([True, False])", "0:5", "5:", "-5:", "1:1", "0, -1, -1", ":, None, 1"]
    # keys PyTorch reads as a tuple or as one index tensor (Note [Reading a subscript key])
    subs += ["[0, 1]", "[[0, 1], [2, 0]]", "[0, slice(1, 3)]", "[0, None]", "[True, False]", "[]", "()", "(1,)",
             "[1., 0.]", "True", "False, 0", "slice(None, None, 2)", "slice(2)", "Ellipsis, 1", "(..., 0)",
             "torch.tensor(1)", "1:3, [0, 3]", "[1, 0], :, [3, 0]", "[1, 0], 1:, [3, 0]"]
    cases = [f"{x}[{s}]" for s in subs] + [f"{y}[{s}]" for s in subs[:12]]
    cases += ["slice(1, None, 2)", "slice(3)", "...", "Ellipsis", "(slice(0, 2), ...)", "[1, 2, 3, 4][slice(1, 3)]",
              f"{x}.__getitem__((1, slice(None, None, 2)))", f"{y}.__setitem__(0, 7)", f"{y}.__setitem__(0, 'a')",
              f"{y}.__setitem__(0, [1, 2])", f"{y}.__setitem__(0, None)", f"{y}.__setitem__(0, torch.ones(2))",
              f"{y}.float().__setitem__((slice(None), 1), 1+2j)", f"{y}[1.5]", f"{y}['a']", f"{y}[{{'a': 2}}]", f"{x}[:, :, [0, 9]]",
              f"{y}[::0]", f"{y}[slice(1.5, 2)]", f"{y}[0, 0, 0]", f"{y}[[0, 3]]", f"{y}[..., ...]",
              f"{y}[torch.tensor([0.5])]", "slice()", "[1, 2][...]", "(1, 2)[1, 2]"]
    cases += [f"[10, 20, 30, 40][{s}]" for s in ("0", "-1", "1:", "::2", "::-1", "5:", "1:3")]
    cases += [f"(1, 2, 3)[{s}]" for s in ("0", "-2", "1:", "::-1")]
    cases += [f"'hello'[{s}]" for s in ("0", "-1", "1:3", "::-1")]
    cases += [f"{x}.shape[{s}]" for s in ("0", "-1", "1:")]
    cases += [f"{x}.{a}" for a in ("shape", "dtype", "device", "ndim", "requires_grad", "is_leaf")]
    cases += [f"{y}.{m}()" for m in ("dim", "numel", "size", "float", "double", "long", "int", "bool", "tolist", "t",
                                     "clone", "contiguous", "is_contiguous", "abs", "neg", "sum", "max", "flatten")]
    cases += [f"{y}.size({d})" for d in (0, 1, -1)] + [f"{y}.T", f"{x}.mT" if False else f"{y}.T.shape"]
    # strides, offsets and the matrix transposes
    cases += [f"{x}.{m}" for m in ("stride()", "stride(1)", "stride(-1)", "storage_offset()", "element_size()",
                                    "mT", "mH", "mT.stride()", "unfold(2, 2, 1).stride()",
                                    "unfold(1, 2, 1)[1:].storage_offset()", "stride(3)")]
    cases += [f"{y}.H", "torch.arange(3).mT", "torch.tensor(2.).mT", "torch.ones(2, 2, 2).H", "torch.arange(3).H",
              "torch.tensor([[1+1j, 2], [3, 4j]]).mH", "torch.tensor([[1+1j, 2], [3, 4j]]).H",
              "torch.ones(2, dtype=torch.float16).element_size()"]
    numbers = ["7", "-3", "2.5", "0", "True", "False"]
    for a in numbers:
        for b in numbers:
            for op in ("+", "-", "*", "/", "//", "%", "**", "==", "<", "&", "|", "^"):
                if op in ("&", "|", "^") and ("." in a or "." in b):
                    continue
                cases.append(f"{a} {op} {b}")
    cases += [f"not {a}" for a in numbers] + [f"~{a}" for a in ("7", "0", "-3", "True")]
    cases += [f"-{a}" for a in numbers] + ["-2 ** 2", "2 ** -1", "2 ** 3 ** 2", "(2 ** 3) ** 2", "1 - -1"]
    cases += [f"{y} {op} 2" for op in ("+", "-", "*", "/", "//", "%", "**", "==", "<", ">", "<=", ">=", "!=")]
    cases += [f"2 {op} {y}" for op in ("+", "-", "*", "/", "//", "%", "**")]
    cases += [f"-{y}", f"+{y}", f"{y} @ {y}.t()", f"{y}.float() @ {y}.t().float()", f"abs(-{y})",
              f"torch.ones(2, 3) + 1 * 2 - 3 / 4", f"({y} > 2) & ({y} < 5)", f"({y} > 2) | ({y} < 1)",
              f"({y} > 2) ^ ({y} < 4)", f"~({y} > 2)", f"~{y}", f"{y} & 3", f"{y} | 8", f"{y} ^ {y}",
              f"not torch.tensor(0)", f"not torch.tensor(2.5)", "torch.ones(2, 3).sum(), torch.ones(2).mean()",
              "torch.max(torch.arange(6.).reshape(2, 3), 1)", "torch.arange(6.).reshape(2, 3).max(1).values",
              "torch.arange(6.).reshape(2, 3).min(dim=0)", "torch.arange(5).split(2)", "torch.arange(5).chunk(5)",
              "torch.arange(4.).chunk(1)", "torch.manual_seed(0); torch.randn(3)", "torch.manual_seed(3); torch.rand(2, 2)",
              "torch.manual_seed(1); torch.randint(0, 10, (5,))", "torch.manual_seed(0)",
              "torch.manual_seed(2); F.dropout(torch.ones(8), 0.5)",
              "torch.manual_seed(0); torch.native_dropout(torch.linspace(-1, 1, 8), 0.4, True)",
              "torch.native_dropout(torch.arange(3), 0.5, True)", "torch.native_dropout(torch.ones(2), 1.5, True)", "torch.manual_seed(0); torch.randn(20)",
              "torch.manual_seed(0); torch.randn(4, dtype=torch.float64)", "torch.manual_seed(5); torch.rand(3, dtype=torch.float64)",
              "torch.manual_seed(0); torch.randperm(10)", "torch.manual_seed(7); torch.randperm(50)",
              "torch.manual_seed(1); torch.randperm(6, dtype=torch.float64)",
              "torch.manual_seed(3); (torch.randperm(100000) * torch.arange(100000)).sum()",
              "torch.manual_seed(3); torch.bernoulli(torch.linspace(0, 1, 10))",
              "torch.manual_seed(3); torch.bernoulli(torch.linspace(0, 1, 10, dtype=torch.float64))",
              "torch.manual_seed(3); torch.linspace(0, 1, 10).bernoulli_(0.5)",
              "torch.manual_seed(0); torch.bernoulli(torch.ones(5), 0.3)", "torch.randperm(-1)",
              "torch.randperm(3, dtype=torch.bool)", "torch.bernoulli(torch.tensor([1.5]))",
              "torch.bernoulli(torch.tensor([1, 0]))", "torch.ones(2).bernoulli_(-1)"]
    # The in-place random fills, normal, randint_like: PyTorch's numbers and refusals.
    fills = ["uniform_()", "uniform_(-1.7, 5.3)", "normal_()", "normal_(1.5, 0.25)", "random_()", "random_(7)",
             "random_(-3, 4)", "random_(3, None)", "exponential_()", "exponential_(0.3)", "exponential_(0)",
             "geometric_(0.3)", "cauchy_()", "cauchy_(1.5, 2.0)", "log_normal_()", "log_normal_(0.5, 0.25)"]
    for dtype in ("torch.float32", "torch.float64"):
        for n in (5, 40):
            cases += [f"torch.manual_seed(4); torch.empty({n}, dtype={dtype}).{f}" for f in fills]
    for dtype in ("torch.int64", "torch.int32", "torch.int16", "torch.int8", "torch.uint8", "torch.bool"):
        cases += [f"torch.manual_seed(4); torch.empty(6, dtype={dtype}).{f}"
                  for f in ("random_()", "random_(2)", "random_(1, None)", "geometric_(0.5)", "uniform_()",
                            "normal_()", "exponential_()", "cauchy_()", "log_normal_()")]
    cases += ["torch.empty(3).uniform_(5, 2)", "torch.empty(3).normal_(0, -1)", "torch.empty(3).exponential_(-1)",
              "torch.empty(3).geometric_(0)", "torch.empty(3).geometric_(1)", "torch.empty(3).log_normal_(1, 0)",
              "torch.empty(3).random_(5, 3)", "torch.empty(3).random_(0)",
              "torch.empty(3, dtype=torch.uint8).random_(0, 300)", "torch.empty(3, dtype=torch.uint8).random_(-1, 3)",
              "torch.empty(3, dtype=torch.int8).random_(200, None)", "torch.empty(3, dtype=torch.bool).random_(0, 3)",
              "torch.empty(3, dtype=torch.int32).random_(-5, 2 ** 40)", "torch.empty(3, dtype=torch.long).normal_(0, -1)",
              "torch.empty(0).uniform_(3, 1)", "torch.manual_seed(1); torch.empty(2, 3).t().uniform_()",
              "torch.manual_seed(1); torch.empty(3, dtype=torch.int64).random_(5, None)",
              "torch.manual_seed(1); torch.empty(3, dtype=torch.float64).random_()",
              "torch.manual_seed(2); torch.randint_like(torch.zeros(3), 5)",
              "torch.manual_seed(2); torch.randint_like(torch.zeros(3), 2, 5, dtype=torch.int64)",
              "torch.randint_like(torch.zeros(2), 0)", "torch.randint_like(torch.zeros(2), 3, 1)",
              "torch.manual_seed(5); torch.normal(torch.zeros(20) + 3, 2.)", "torch.manual_seed(5); torch.normal(3., torch.ones(20) * 2)",
              "torch.manual_seed(5); torch.normal(torch.linspace(-1, 1, 20), torch.linspace(0.5, 2, 20))",
              "torch.manual_seed(5); torch.normal(torch.zeros(2, 3), torch.ones(3))",
              "torch.manual_seed(5); torch.normal(3., 2., (20,))", "torch.manual_seed(5); torch.normal(0., 1., (2,), dtype=torch.float64)",
              "torch.normal(torch.zeros(3), -1.)", "torch.normal(torch.zeros(3), torch.ones(2))",
              "torch.normal(torch.zeros(3), torch.ones(3) * -1)", "torch.normal(-1., torch.tensor([1., -1.]))",
              "torch.normal(torch.zeros(3, dtype=torch.long), 1.)", "torch.normal(0., -1., (2,))",
              "torch.zeros(3, 3).fill_diagonal_(2)", "torch.zeros(3).fill_diagonal_(2)", "torch.zeros(3, 4, 5).fill_diagonal_(2)",
              "torch.zeros(7, 3).fill_diagonal_(5, wrap=True)", "torch.zeros(7, 3).fill_diagonal_(5)",
              "torch.zeros(2, 2, 2).fill_diagonal_(1)", "torch.zeros(3, 5).fill_diagonal_(1, True)",
              "torch.zeros(3, 3, dtype=torch.long).fill_diagonal_(2.5)", "torch.zeros(0, 0).fill_diagonal_(1)",
              "torch.zeros(2, 3).t().fill_diagonal_(4, True)", "torch.zeros(8, 2).fill_diagonal_(4, True)",
              "torch.arange(6.).view_as(torch.zeros(2, 3))", "torch.zeros(2, 3).t().view_as(torch.zeros(6))",
              "torch.arange(6.).view_as(torch.zeros(4))",
              "torch.frexp(torch.tensor([0., 1., -3.5, 1e-40, float('inf'), float('nan'), 1024., -0., 0.75]))",
              "torch.frexp(torch.tensor([1e-310, 5e-324, 1.7e308, -2.0 ** -1022, 3.0], dtype=torch.float64))",
              "torch.frexp(torch.tensor([1, 2]))", "torch.frexp(torch.tensor([1.5, 65504., 6e-8], dtype=torch.float16))",
              "torch.frexp(torch.tensor([1.5, 3e38, 1e-40], dtype=torch.bfloat16))",
              "torch.frexp(torch.tensor(3.0, dtype=torch.float64))", "torch.frexp(torch.tensor([], dtype=torch.float64))",
              "torch.tensor([12., -0.3]).frexp()"]
    return cases


def run(expr):
    g = {"torch": torch, "F": F}
    try:
        *first, last = expr.split(";") if ";" in expr and "';'" not in expr else [expr]
        for s in first:
            exec(s.strip(), g)
        return repr(eval(last.strip(), g))
    except Exception as e:  # noqa: BLE001 - every exception is an expected output
        return type(e).__name__ + ": " + str(e).split("\n")[0]


def main():
    sections = [("catalog", catalog_cases()), ("promotion", promotion_cases()), ("conversions", conversion_cases()),
                ("printing", PRINTING + format_cases()), ("errors", ERRORS), ("edges", EDGES),
                ("grammar", grammar_cases()),
                ("dtypes", coverage_cases())]
    out, seen = [], set()
    for section, exprs in sections:
        for e in exprs:
            if e in seen:
                continue
            seen.add(e)
            out.append({"section": section, "expr": e, "torch": run(e)})
    path = ROOT / "tests" / "data" / "reference" / "golden" / "differential.json"
    path.write_text(json.dumps({"torch_version": torch.__version__, "cases": out}, indent=0) + "\n")
    counts = {}
    for c in out:
        counts[c["section"]] = counts.get(c["section"], 0) + 1
    print(f"{len(out)} cases ({', '.join(f'{k} {v}' for k, v in counts.items())}) -> {path}")


if __name__ == "__main__":
    main()
