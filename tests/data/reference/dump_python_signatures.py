#!/usr/bin/python3
"""Writes torch-1.13-python-signatures.json: the Python signatures PyTorch 1.13
really accepts, every overload, for each name of torch-1.13-overridable.json and
torch-1.13-ignored.json. Run under Debian's python3-torch (PyTorch 1.13.1).

Why not torch-1.13-signatures.json: that file holds the dummies of
torch.overrides.get_testing_overrides(), written by hand in PyTorch and often
wrong (`Tensor.abs(input, out=None)`, `layer_norm(..., esp=...)`, no keyword-only
markers, one overload). The signatures here come from what PyTorch runs:

- Python functions (torch.functional, most of torch.nn.functional, Python
  methods of torch.Tensor): inspect.signature.
- Builtins: the signature strings of PyTorch's argument parser, read from the
  literals of libtorch_python.so ("add(Tensor input, Tensor other, *, Scalar
  alpha=1, Tensor out=None)"). Method strings have no `input`; function
  strings have `input` or `out`. Deprecated signatures are left out. The
  linker stores a literal that is the tail of a longer one only once
  ("mul(Tensor other)" inside "matmul(Tensor other)"), so the tails of
  longer literals count too. A tail can also be a longer name's own
  signature, so an entry may list an overload PyTorch does not have: the
  list is what an overload must be among, not what each must have.
- A builtin method without a parser signature takes no arguments (METH_NOARGS:
  `t.abs(1)` says "takes no arguments").

Each overload is written as inspect.signature prints it, with defaults spelled
as wick prints them: "(input, other, *, alpha=1, out=None)".
"""
import collections
import importlib
import inspect
import json
import os
import re
import subprocess

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_python.so")


def split_top(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += {"(": 1, "[": 1, "{": 1, "<": 1, ")": -1, "]": -1, "}": -1, ">": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


# The parser's spelling of a default -> Python's.
DEFAULTS = {"at::Reduction::Mean": "1", "contiguous_format": "torch.contiguous_format",
            "preserve_format": "torch.preserve_format", "c10::nullopt": "None", "true": "True", "false": "False"}


def parser_default(text, typ):
    text = DEFAULTS.get(text, text)
    if text.startswith('"') and text.endswith('"'):
        return "'" + text[1:-1] + "'"
    if text.startswith("{") and text.endswith("}"):
        return "[" + ", ".join(x.strip() for x in text[1:-1].split(",")) + "]"
    if text == "None" and typ.startswith(("IntArrayRef", "SymIntArrayRef")) and not typ.endswith("?"):
        return "None"
    return text


def read_parser_signatures():
    out = subprocess.run(["strings", LIB], capture_output=True, text=True, check=True).stdout
    direct, tails = collections.defaultdict(list), collections.defaultdict(list)
    for line in sorted(set(out.split("\n"))):
        m = re.match(r"^([a-z_0-9]+)\((.*)\)(\|hidden)?$", line.strip())
        if not m:
            continue
        params, kw = [], False
        for a in split_top(m.group(2)):
            if a == "*":
                kw = True
                continue
            if " " not in a:
                params = None
                break
            default = None
            if "=" in a:
                a, default = a.split("=", 1)
            typ, name = a.rsplit(" ", 1)
            params.append((name, None if default is None else parser_default(default, typ), kw, typ))
        if params is None:
            continue
        name = m.group(1)
        direct[name].append(params)
        if not re.match(r"_*(foreach|rnn|gru|lstm|quantized)_", name):
            for i in range(1, len(name)):
                if name[i] != "_" and params not in tails[name[i:]]:
                    tails[name[i:]].append(params)
    return direct, tails


def spell(params):
    """(name, default, kwonly) triples -> "(a, b=1, *, c=None)"."""
    parts, star = [], False
    for name, default, kw, *_ in params:
        if kw and not star and not name.startswith("*"):
            parts.append("*")
            star = True
        if name.startswith("*"):
            star = True
        parts.append(name if default is None else f"{name}={default}")
    return "(" + ", ".join(parts) + ")"


def from_inspect(obj):
    params = []
    for p in inspect.signature(obj).parameters.values():
        if p.kind == p.VAR_POSITIONAL:
            params.append(("*" + p.name, None, False))
        elif p.kind == p.VAR_KEYWORD:
            params.append(("**" + p.name, None, True))
        else:
            d = None if p.default is inspect.Parameter.empty else repr(p.default)
            params.append((p.name, d, p.kind == p.KEYWORD_ONLY))
    return [params]


def is_python(obj):
    if not (hasattr(obj, "__code__") or hasattr(obj, "__wrapped__")):
        return False
    try:
        inspect.signature(obj)
        return True
    except ValueError:
        return False


def sample_value(typ):
    """A value of parser type `typ` for a binding probe, or a reason to give up."""
    typ = typ.rstrip("?")
    if typ.startswith(("IntArrayRef", "SymIntArrayRef")):
        return [0]
    return {"Tensor": torch.ones(2, 2), "int64_t": 0, "SymInt": 0, "bool": False, "double": 0.5, "Scalar": 1,
            "ScalarType": torch.float32, "TensorList": [torch.ones(2, 2)], "c10::string_view": "none",
            "Layout": torch.strided, "Device": "cpu", "MemoryFormat": torch.contiguous_format}.get(typ, KeyError)


def binds(fn, params):
    """Whether PyTorch binds a call of `fn` with `params` (a tail literal's
    signature) by keyword: a real overload binds, and may then fail to run;
    a tail that is another name's signature is a TypeError of the parser."""
    kwargs = {}
    for name, default, kw, typ in params:
        if name in ("self", "out"):
            continue
        value = sample_value(typ)
        if value is KeyError and typ.endswith("?"):
            value = None
        if value is KeyError:
            return False
        kwargs[name] = value  # every name: only an overload that has them all binds
    try:
        result = fn(**kwargs)
    except TypeError:
        return False
    except Exception:  # noqa: BLE001 - bound, then refused by the operator itself
        return True
    return result is not NotImplemented  # a dunder turns the parser's TypeError into NotImplemented


def bound_method(name):
    try:
        return getattr(torch.ones(2, 2), name)
    except Exception:  # noqa: BLE001 - a property that refuses a float tensor (imag)
        return lambda **kwargs: (_ for _ in ()).throw(TypeError(name))


def is_function_signature(params):
    return any(p[0] in ("input", "out") for p in params)


DUNDERS = {"__truediv__": "div", "__itruediv__": "div_", "__mod__": "remainder", "__imod__": "remainder_",
           "__ifloordiv__": "floor_divide_", "__mul__": "mul", "__rmul__": "mul", "__ror__": "bitwise_or",
           "__rxor__": "bitwise_xor", "__rand__": "bitwise_and"}


def method_overloads(name, obj, direct, tails):
    base = getattr(getattr(obj, "__wrapped__", obj), "__name__", name)
    base = DUNDERS.get(name, DUNDERS.get(base, base))
    tries = [base]
    if base.startswith("__i"):
        tries.append(base[3:-2] + "_")
    if base.startswith("__r"):
        tries.append(base[3:-2])
    if base.startswith("__"):
        tries.append(base[2:-2])
    for t in tries:
        cand = [s for s in direct.get(t, []) if not is_function_signature(s)]
        if cand:
            bound = bound_method(name)
            cand += [s for s in tails.get(t, []) if not is_function_signature(s) and s not in cand and binds(bound, s)]
            return "parser", [[("self", None, False, "Tensor")] + s for s in cand]
    try:
        getattr(torch.ones(2, 2), name)(1)
    except Exception as e:  # noqa: BLE001 - any refusal says what the method takes
        if "takes no arguments" in str(e):
            return "noargs", [[("self", None, False, "Tensor")]]
    for t in tries:
        bound = bound_method(name)
        cand = [s for s in tails.get(t, []) if not is_function_signature(s) and binds(bound, s)]
        if cand:
            return "parser", [[("self", None, False, "Tensor")] + s for s in cand]
    return None, None


def function_overloads(ns, name, obj, direct, tails):
    base = getattr(getattr(obj, "__wrapped__", obj), "__name__", name)
    prefix = {"torch.linalg": "linalg_", "torch.special": "special_", "torch.fft": "fft_"}.get(ns, "")
    if prefix and not base.startswith(prefix):
        base = prefix + base
    every = direct.get(base, []) + [s for s in tails.get(base, []) if s not in direct.get(base, []) and binds(obj, s)]
    # A function's strings have `input` or `out`, a method's neither; a
    # function without them (where(condition)) is the one that binds.
    cand = [s for s in every if is_function_signature(s) or binds(obj, s)] or every
    return ("parser", cand) if cand else (None, None)


def main():
    direct, tails = read_parser_signatures()
    names = []
    for file in ("torch-1.13-overridable.json", "torch-1.13-ignored.json"):
        with open(os.path.join(HERE, file)) as fh:
            for ns, entries in json.load(fh)["namespaces"].items():
                names += [(ns, e["name"]) for e in entries]
    out, unresolved = {}, []
    for ns, name in sorted(set(names)):
        try:
            dispatcher = getattr(torch.nn.functional, name, None) if ns == "torch.nn.functional" else None
            if is_python(dispatcher) and spell(from_inspect(dispatcher)[0]) == "(*args, **kwargs)":
                # boolean_dispatch (max_pool2d(..., return_indices=...)): the
                # signature is that of the function it dispatches to.
                obj = getattr(torch.nn.functional, "_" + name)
                src, sigs = "python", from_inspect(obj)
            elif ns == "torch.Tensor":
                obj = getattr(torch.Tensor, name)
                src, sigs = ("python", from_inspect(obj)) if is_python(obj) else method_overloads(name, obj, direct, tails)
            else:
                obj = getattr(importlib.import_module(ns), name)
                src, sigs = ("python", from_inspect(obj)) if is_python(obj) else function_overloads(ns, name, obj, direct, tails)
        except (AttributeError, ValueError, TypeError):
            src, sigs = None, None
        if not sigs:
            unresolved.append(f"{ns}.{name}")
            continue
        spelled = []
        for s in sigs:
            if spell(s) not in spelled:
                spelled.append(spell(s))
        out[f"{ns}.{name}"] = {"source": src, "overloads": spelled}
    meta = {"torch_version": torch.__version__, "made_by": "tests/data/reference/dump_python_signatures.py",
            "unresolved": unresolved, "notes": __doc__.strip().split("\n\n")[1:]}
    with open(os.path.join(HERE, "torch-1.13-python-signatures.json"), "w") as fh:
        fh.write('{\n"_meta": ' + json.dumps(meta) + ',\n"signatures": {\n')
        fh.write(",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in out.items()))
        fh.write("\n}}\n")
    print(len(out), "signatures;", len(unresolved), "unresolved")


if __name__ == "__main__":
    main()
