#!/usr/bin/env python3
# tools/check_size_arith.py - flags raw int64 size arithmetic in kernels and meta functions.
#   check_size_arith.py [--self-test] [--list] [FILE...]
# Note [Checked size arithmetic] (sdk/include/wick/checked.h): sizes, strides,
# offsets and counts a caller can choose may be anything in int64, so `*` and
# `+` on them go through wick::checked_add / checked_mul / checked_numel /
# ceil_div and friends. This check reads the kernels and meta functions
# (SCOPE below) and reports every `*`, `+`, `*=` and `+=` with an operand
# that is a size:
#   - an accessor: x.size(d), x.stride(d), x.sizes()[i], x.strides()[i],
#     x.numel(), x.storage_offset();
#   - an element of an array named like one: sizes[i], input_size[d],
#     out_shape[0], strides[k] (any name ending in size(s), shape or stride(s));
#   - a local variable initialised from either (`const int64_t n =
#     x.size(0);`), for the rest of its block.
# It is a grep, not a compiler: it sees one line at a time, and a size that
# went through a struct field or a function argument is invisible to it.
# What it cannot see to be safe is listed in tools/size_arith_allowlist.txt,
# one line per flagged source line, with the reason it cannot overflow
# (usually: the operands are sizes of a tensor that holds data, so the result
# is bounded by its numel or its storage). Entries that no longer match
# anything are errors too, so the list stays honest.
# The overflow builtins and 128-bit integers belong to core/checked.cpp and
# wick/checked.h alone; anywhere else in SCOPE they are flagged as well.
# Exit status 1 on any finding. `--self-test` checks the checker.
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALLOWLIST = os.path.join(ROOT, "tools", "size_arith_allowlist.txt")

# Kernels and meta functions: the backends' host code, the meta functions and
# structured glue, composite kernels, autograd formulas, the bundled plugins,
# and the core's tensor geometry.
SCOPE = [
    r"backends/cpu/[^/]+\.(cpp|h)$",
    r"backends/cuda/[^/]+\.(cpp|h)$",
    r"dispatch/ops/[^/]+\.cpp$",
    r"dispatch/composite/[^/]+\.cpp$",
    r"dispatch/autograd/[^/]+\.(cpp|h)$",
    r"plugins/extending_[^/]+/[^/]+\.(cpp|h)$",
    r"core/(tensor|tensor_meta|tensor_util|storage)\.cpp$",
]
HOME = {"core/checked.cpp", "sdk/include/wick/checked.h"}

ACCESSOR = (r"(?:\.|->)\s*(?:size|stride)\s*\(\s*[^()\s][^()]*\)"
            r"|(?:\.|->)\s*(?:sizes|strides)\s*\(\s*\)\s*\[[^\]]*\]"
            r"|(?:\.|->)\s*numel\s*\(\s*\)"
            r"|(?:\.|->)\s*storage_offset\s*\(\s*\)")
ARRAY = r"\b\w*(?:sizes?|shape|strides?)\s*\[[^\]]*\]"
DECL = re.compile(r"\b(?:const\s+)?(?:I64|std::int64_t|int64_t|auto|long)\s+(\w+)\s*=\s*([^;]*)")
RANGE_FOR = re.compile(r"\bfor\s*\(\s*(?:const\s+)?(?:I64|std::int64_t|int64_t|auto)\s*&?\s*(\w+)\s*:\s*(.*)\)")
# A negative index plus a size never overflows: `if (i < 0) i += size;`,
# `i < 0 ? i + size : i`, `if (p < 0) ... size + p`.
NEGATIVE_PLUS_SIZE = re.compile(r"\bif\s*\((\w+)\s*<\s*0\s*\)\s*\1\s*\+=|\b(\w+)\s*<\s*0\s*\?\s*\2\s*\+"
                                r"|\bif\s*\((\w+)\s*<\s*0\s*\).*\+\s*\3\s*\)")
WIDE = re.compile(r"__builtin_(?:add|sub|mul)_overflow|__int128")


def strip(text):
    """Blanks comments, string and character literals, keeping line breaks and columns."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + (c if j - i >= 2 else ""))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def binary_operand(line, start, end):
    """Whether the expression at line[start:end] is an operand of a binary *, +, *= or +=."""
    after = line[end:].lstrip()
    if re.match(r"(\*|\+)(?![+])", after):
        return True
    before = line[:start]
    # An accessor's object: `t` in t.size(0), `x.grad()` in x.grad().numel().
    while True:
        shorter = re.sub(r"(?:\w+|\.|->|\(\s*\)|\[[^\[\]]*\])$", "", before)
        if shorter == before:
            break
        before = shorter
    before = before.rstrip()
    m = re.search(r"(\*=|\+=|\*|\+)$", before)
    if not m:
        return False
    if m.group(1) in ("*=", "+="):
        return True
    if before.endswith("++"):
        return False
    # Binary only after an operand: an identifier, a literal, `)` or `]`.
    lhs = before[: m.start()].rstrip()
    return bool(re.search(r"[\w)\]]$", lhs)) and not re.search(r"\b(return|case|throw)$", lhs)


def findings(path, text):
    """(line number, stripped line, why) for each finding in one file."""
    out = []
    depth = 0
    tainted = []  # (name, depth it was declared at)
    rel = os.path.relpath(path, ROOT) if os.path.isabs(path) else path
    raw_lines = text.split("\n")
    for no, line in enumerate(strip(text).split("\n"), 1):
        if rel not in HOME and WIDE.search(line):
            out.append((no, raw_lines[no - 1].strip(), "overflow builtin or __int128 outside wick/checked.h"))
        here = list(tainted)
        for m in RANGE_FOR.finditer(line):
            if re.search(r"(?:sizes|shape|strides)\b", m.group(2)) or any(
                    re.search(r"\b" + re.escape(n) + r"\b", m.group(2)) for n, _ in tainted):
                here.append((m.group(1), depth + 1))
                if line.rstrip().endswith("{"):
                    tainted.append((m.group(1), depth + 1))
        names = [re.escape(n) for n, _ in here]
        size = ACCESSOR + "|" + ARRAY + ("|\\b(?:" + "|".join(names) + ")\\b(?!\\s*[\\[(])" if names else "")
        if not NEGATIVE_PLUS_SIZE.search(line):
            for m in re.finditer(size, line):
                if binary_operand(line, m.start(), m.end()):
                    out.append((no, raw_lines[no - 1].strip(), "raw arithmetic on a size: " + m.group(0).strip()))
                    break
        for m in DECL.finditer(line):
            name, init = m.group(1), m.group(2)
            if re.search(ACCESSOR + "|" + ARRAY, init):
                at = depth + line[: m.start()].count("{") - line[: m.start()].count("}")
                tainted.append((name, at))
        for c in line:
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                tainted = [(n, d) for n, d in tainted if d <= depth]
    return out


def normalize(code):
    return re.sub(r"\s+", " ", code).strip()


def load_allowlist():
    entries = []
    with open(ALLOWLIST, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" | ")]
            if len(parts) != 3 or not all(parts):
                sys.exit(f"{ALLOWLIST}:{no}: expected 'path | code | reason', got: {line}")
            entries.append((parts[0], normalize(strip(parts[1])), parts[2], no))
    return entries


def scoped_files():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return sorted(f for f in files if any(re.match(p, f) for p in SCOPE) or f in HOME)


def self_test():
    flagged = [
        "I64 n = a.size(0) * b.size(1);",
        "return x.numel() + 1;",
        "n *= t.sizes()[i];",
        "const I64 off = base.storage_offset() + start * self.strides()[d];",
        "total += sizes[i];",
        "const I64 k = w->size(2) * 3;",
        "auto w = __builtin_mul_overflow(a, b, &c);",
        "{ const I64 rows = x.size(0);\n  const I64 all = rows * cols; }",
        "I64 out = input_size[2] + 2 * pad;",
        "for (std::int64_t s : shape) numel *= s;",
        "for (const I64 s : x.sizes()) {\n  n = n * s;\n}",
    ]
    # A container's size() is not a tensor's: tensors' take a dim.
    clean = [
        "I64 n = checked_mul(a.size(0), b.size(1), op);",
        "I64 last = a.size(0) - 1;",
        "// a.size(0) * b.size(1) in a comment",
        'WICK_CHECK(ok, RuntimeError, "a.size(0) * 2");',
        "for (I64 i = 0; i < t.numel(); ++i) p[i] = 0;",
        "if (x.size(0) == y.size(0)) return;",
        "{ const I64 rows = x.size(0); }\nconst I64 all = rows * cols;",
        "const float* p = static_cast<const float*>(x.data_ptr()); *p = 1;",
        "sizes[i] = other.sizes()[i];",
        "std::size_t n = v.size() + 1;",
        "if (start < 0) start += size;",
        "const I64 i = index < 0 ? index + self.sizes()[d] : index;",
        "if (before < 0) x = narrow(x, d, -before, x.sizes()[d] + before);",
        "for (const I64 s : x.sizes()) WICK_CHECK(s >= 0, RuntimeError, op);\nn = n * s;",
    ]
    bad = []
    for code in flagged:
        if not findings("selftest.cpp", code):
            bad.append("not flagged: " + code)
    for code in clean:
        if findings("selftest.cpp", code):
            bad.append("flagged: " + code)
    for b in bad:
        print("check_size_arith self-test:", b)
    return not bad


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--list", action="store_true", help="print findings as allowlist lines")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    if args.self_test:
        ok = self_test()
        print("check_size_arith: self-test", "passed" if ok else "FAILED")
        return 0 if ok else 1
    files = args.files or scoped_files()
    allow = load_allowlist()
    used = set()
    problems = []
    for f in files:
        with open(os.path.join(ROOT, f), encoding="utf-8") as fh:
            text = fh.read()
        for no, code, why in findings(f, text):
            hit = [e for e in allow if e[0] == f and e[1] == normalize(strip(code))]
            if hit:
                used.update(e[3] for e in hit)
                continue
            problems.append(f"{f} | {code} | TODO" if args.list else f"{f}:{no}: {why}\n    {code}")
    if not args.files:
        for path, code, _, no in allow:
            if no not in used:
                problems.append(f"{ALLOWLIST}:{no}: stale entry, matches nothing: {path} | {code}")
    for p in problems:
        print(p)
    if problems:
        print(f"check_size_arith: {len(problems)} finding(s); use wick/checked.h, or allowlist the line with a reason "
              f"in tools/size_arith_allowlist.txt")
        return 1
    print(f"check_size_arith: {len(files)} files clean ({len(allow)} allowlisted lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
