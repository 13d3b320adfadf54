#!/usr/bin/env python3
# sdk/opgen/wick_opgen.py - the operator generator: .ops definitions to catalog tables and the typed C++ API.
"""wick_opgen: one definition per operator, everything else derived.

An operator is defined once, in a `.ops` file (format below). From the
definitions this script writes:

  <out>/<name>_catalog.cpp   the catalog table: every schema (variants
                             included) and every alias (methods, dunders,
                             other namespaces), registered at start-up
  <out>/<name>_ops.cpp       the typed C++ API: free functions and methods
  <include>/<name>_ops.h     their declarations
  <include>/<name>_kernels.h  each dispatch key's kernel declarations and
                             the function that registers them (`dispatch:`)
  <include>/<name>_methods.inc
                             Tensor's method declarations (only for the
                             builtins: included inside class wick::Tensor)

The build runs it (CMake: libwick's `dispatch/ops/*.ops`; plugins:
`wick_add_plugin(... OPS file.ops)`); nothing it writes is edited by hand.

The .ops format
---------------
  # a comment
  namespace torch                     the namespace of the definitions below
  add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
      variants: method, out           derived entries (see below)
      dunders: __add__, __radd__      torch.Tensor aliases of this operator
      doc: self + alpha * other       the C++ declaration's comment (repeatable)

An operator starts with its schema (PyTorch's native-function syntax,
wick/schema.h) at the start of a line; indented `key: value` lines follow.

  variants    method    torch.Tensor.<name>: an alias entry (own overrides)
              out       <name>.out: the schema with `*, Tensor(a!) out`
                        appended, returning Tensor(a!)
              inplace   torch.Tensor.<name>_: self becomes Tensor(a!) and
                        the result Tensor(a!); its kernel writes the
                        operator's result into self
              inplace_view
                        the same for a view operator: self takes the view's
                        geometry (transpose_)
  dunders     aliases in torch.Tensor; `__i<op>__` names alias the
              in-place variant
  also        other namespaces with an alias entry (torch.nn.functional);
              `torch.special as expit` names the alias differently there
  names       other names in the operator's own namespace (PyTorch's alias
              functions: `names: absolute` on abs). Each gets the
              operator's variants under its name (torch.absolute, its out=,
              torch.Tensor.absolute and absolute_) and C++ functions and
              methods of that name (out= only under the operator's name)
  ignored     (no value) not overridable: creation functions
  property    (no value) a torch.Tensor property, not a method: Python
              reads it as an attribute (x.shape, x.T), and an override
              sees it as PyTorch's `Tensor.shape.__get__` (catalog kind
              "property"). Its schema takes `Tensor self` only
  cpp         the C++ function's name (default: the operator's name;
              `<name>_out` for out variants), or a torch.Tensor method's
              (where the name is a C++ keyword: Tensor.float is to_float);
              `none`: no generated C++ API for the operator and its
              variants, where class Tensor's own member serves and must
              not dispatch (x.dim(), x.numel(), x.detach(): Note [Tensor
              metadata operators] in dispatch/ops/attributes.ops)
  cpp_skip    arguments the C++ API leaves out (their defaults are passed)
  cpp_scalar  Tensor arguments that also take a number in C++ (an
              overload wraps it as a Python number would be); every
              `numbers` argument gets that overload too
  numbers     Tensor arguments that take a Python number in a boxed call
              (wick::call, `wick eval`): where PyTorch has a Scalar
              overload for them. Elsewhere a number is a TypeError, as in
              PyTorch (Note [Numbers for tensor arguments], wick/library.h).
              One Tensor argument must still be a tensor, unless `*` is
              listed too: then all may be numbers at once (add, mul, ...)
  cpp_literal `Any` arguments the C++ API takes as a wick::TensorLiteral
              (numbers in braced lists: wick::tensor({{1., 2.}}))
  cpp_any     `arg: type | type`: the C++ types an `Any` argument takes, one
              overload each (int, int[], float, str, bool, Tensor); list int
              before int[] so that a literal 0 is not ambiguous. An `Any`
              defaulting to None also gets an overload that stops before it
  cpp_return  `Tensor`: the C++ result of an operator returning `Any` when
              the skipped arguments make it a tensor
  meta        the result type of the operator's meta function (wick/meta.h,
              Note [Meta functions]): it checks the arguments and computes
              the result's geometry; backends register impls with
              `impl_structured`, and the out= kernel and the Meta backend are
              derived (wick/structured.h). Declared in <name>_meta.h as
              `<namespace>::meta::<name>[_<overload>]`, and written by hand;
              or one of the elementwise families, which the generator writes:
              unary(float) (integers compute in the default float dtype),
              unary(same), unary(floating) (floating dtypes only, as frac),
              unary(bitwise) and binary(bitwise) (integers and bools),
              binary(arith), binary(ordered) (no complex), binary(compare), binary(truediv),
              binary(logical) (wick::meta::unary_op / binary_op)
  dispatch    the dispatch keys with a kernel of this operator (CPU, CUDA,
              or a plugin backend's key); needs `meta`. Each key's kernels
              are declared in <name>_kernels.h as
              `<kernel namespace>::<name>[_<overload>]`, with the impl
              signature of wick/structured.h, and registered by the
              generated `register_<name>_kernels(registrar, key)` there:
              a backend writes only the kernels' bodies. The kernel
              namespace is `--kernel-namespace KEY=ns`, by default
              `<catalog namespace>::<key in lower case>` (wick::cpu)
  kernel      `name(param=value, ...)`: operators that one kernel computes,
              told apart by constant arguments (bool or int). Declared once,
              as the impl signature with the constants' parameters appended
              (`void scan(..., bool prod)`); the operator's own kernel is
              then an inline adapter in <name>_kernels.h that passes them
              (cumsum: `kernel: scan(prod=false)`, cumprod: `scan(prod=true)`)
  sample      one call of the operator for its checks (`wick opcheck`,
              `wick test-backend`), repeatable; arguments as in Python, with
              T[2, 3] an input tensor of that shape (random, in the
              operator's domain, in the dtype the check asks for; G[2, 3]
              the same, requiring grad), R[3] and
              P[3] random and positive tensors that are not inputs, L[...]
              an int64 tensor, I[...] an int32 one and B[...] a bool tensor of the given values
              (L(2) a 0-dim one), M[2, 3] a random bool mask, [T[2], T[3]] a
              tensor list, dtype names (float32), numbers, 'strings',
              True/False/None, int lists, nested lists, and name=value
              keywords (wick/opcheck.h). Variants (methods, aliases, out=,
              in-place) borrow their operator's samples and tags: write
              their own only where those cannot apply
  tags        comma-separated facts the checks use: domain=positive|unit|above_one|
              probability|invertible (where inputs are drawn; invertible adds
              2n times the identity to each n x n matrix), nondifferentiable,
              random (results depend on the generator), eps=..., atol=...
              (gradcheck's step and tolerance), may_alias (returns self or
              a new tensor), device_copy (copies between devices: no meta
              check), data_dependent (the result's shape depends on the
              values: no meta check), device_dependent (the result
              depends on the tensor's device, as autocast's casts do: no
              meta check), no_derivative (none in PyTorch
              either, or none in wick yet where the README says so:
              backward through it fails naming it, and opcheck checks
              that it does), refuses_grad (a call with inputs that
              require grad fails, as PyTorch's resize_ does: opcheck
              checks that it does), device=cuda (the checks need such a
              device), address (the result is a memory address, which
              differs from run to run and from tensor to tensor: the
              differential test leaves it out, and the catalog walk
              compares only its kind),
              inplace_check=structured (X_ refuses a self of another size
              than X's result as PyTorch's structured kernels do, "Bad
              in-place call: ...", not as its elementwise ones, "output
              with shape ... doesn't match the broadcast shape ...")
  doc         documentation of the C++ declaration

A file may start with `include <header>` lines: the headers that declare
the meta result types it names (wick/meta.h is always included).

C++ namespaces: torch and torch.functional -> wick, torch.nn.functional -> wick::nn::functional,
torch.linalg -> wick::linalg, torch.Tensor -> methods of wick::Tensor, any
other namespace `a.b` -> `a::b`.
"""
import argparse
import pathlib
import re
import sys

# --- definitions ---------------------------------------------------------------------


class Arg:
    def __init__(self, type_text, name, default, kwarg_only, variadic=False):
        self.type = type_text  # as written: "Tensor(a!)", "int[2]?", "Scalar"
        self.name = name
        self.default = default  # text or None
        self.kwarg_only = kwarg_only
        self.variadic = variadic  # `Tensor[] *tensors`: Python's *tensors

    @property
    def base(self):
        """The type without alias annotation: "Tensor", "int[2]?"."""
        return re.sub(r"\([^)]*\)", "", self.type)

    @property
    def kind(self):
        return re.match(r"[A-Za-z]+", self.base).group(0)

    @property
    def is_list(self):
        return "[" in self.base

    @property
    def optional(self):
        return self.base.endswith("?")

    @property
    def element_optional(self):
        """`Tensor?[]`: a list whose items may be None."""
        return "?[" in self.base

    @property
    def writes(self):
        return "!" in self.type


class Schema:
    def __init__(self, text, where):
        self.text = text
        self.where = where
        m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z0-9_]+))?\s*\(", text)
        if not m:
            fail(where, f"not a schema: {text}")
        self.name, self.overload = m.group(1), m.group(2) or ""
        args = argument_text(self)
        rest = text[text.index("(") + len(args) + 2:].strip()
        if not rest.startswith("->"):
            fail(where, f"expected '->' after the arguments: {text}")
        self.returns = rest[2:].strip()
        self.args = []
        kwarg_only = False
        for part in split_top(args):
            part = part.strip()
            if not part:
                continue
            if part == "*":
                kwarg_only = True
                continue
            am = re.fullmatch(r"(.+?)\s+(\*?)([A-Za-z_][A-Za-z0-9_]*)\s*(?:=\s*(.+))?", part, re.S)
            if not am:
                fail(where, f"bad argument '{part}' in {text}")
            variadic = am.group(2) == "*"
            self.args.append(Arg(am.group(1).strip(), am.group(3), am.group(4), kwarg_only, variadic))
            kwarg_only = kwarg_only or variadic  # what follows *args is keyword-only

    @property
    def full_name(self):
        return self.name + ("." + self.overload if self.overload else "")

    def return_types(self):
        """The returned types without names: ["Tensor"], ["Tensor", "Tensor"], []."""
        r = self.returns
        if r == "()":
            return []
        if r.startswith("("):
            return [re.sub(r"\s+[A-Za-z_][A-Za-z0-9_]*$", "", p.strip()) for p in split_top(r[1:-1])]
        return [r]


def split_top(text):
    """Splits on commas outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, None, ""
    for c in text:
        if quote:
            cur += c
            if c == quote:
                quote = None
            continue
        if c in "'\"":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += c
    parts.append(cur)
    return parts


KEYS = {"variants", "dunders", "also", "names", "ignored", "property", "meta", "dispatch", "kernel", "sample", "tags", "cpp", "cpp_skip", "cpp_scalar",
        "cpp_literal", "cpp_any", "cpp_return", "doc", "numbers"}
VARIANTS = {"method", "out", "inplace", "inplace_view"}


class Op:
    def __init__(self, ns, schema, where):
        self.ns = ns
        self.schema = schema
        self.where = where
        self.fields = {}
        self.docs = []
        self.samples = []

    def list(self, key):
        v = self.fields.get(key, "")
        return [x.strip() for x in v.split(",") if x.strip()]

    @property
    def variants(self):
        return set(self.list("variants"))

    @property
    def ignored(self):
        return "ignored" in self.fields

    @property
    def is_property(self):
        return "property" in self.fields

    @property
    def has_api(self):
        """False for `cpp: none`: class Tensor's own members serve."""
        return self.fields.get("cpp") != "none"

    @property
    def meta(self):
        """The meta function's result type, or None (no meta function)."""
        value = self.fields.get("meta")
        return "ElementwiseMeta" if value and self.meta_family() else value

    def meta_family(self):
        """(helper, kind) when the meta function is one of wick/meta.h's
        elementwise families (`meta: unary(float)`): the generator writes it."""
        m = re.fullmatch(r"(unary|binary)\((\w+)\)", self.fields.get("meta", ""))
        if not m:
            return None
        kinds = {"unary": {"float": "kFloat", "same": "kSame", "floating": "kFloating", "bitwise": "kBitwise"},
                 "binary": {"arith": "kArith", "ordered": "kOrdered", "compare": "kCompare", "truediv": "kTrueDiv", "logical": "kLogical",
                            "bitwise": "kBitwise"}}
        if m.group(2) not in kinds[m.group(1)]:
            fail(self.where, f"meta: {m.group(1)}({m.group(2)}): the kinds are {', '.join(kinds[m.group(1)])}")
        return m.group(1), kinds[m.group(1)][m.group(2)]

    def meta_name(self):
        s = self.schema
        return s.name + ("_" + s.overload if s.overload else "")

    def meta_namespace(self):
        ns = self.ns[: -len(".Tensor")] if is_method_namespace(self.ns) else self.ns
        if ns == "torch.Tensor":
            ns = "torch"
        return cpp_namespace(ns) + "::meta"

    def in_place(self):
        """An operator defined in place: self is written and returned."""
        s = self.schema
        return bool(s.args) and s.args[0].writes and re.sub(r"\s", "", s.returns).startswith("Tensor(a!)")


def fail(where, message):
    sys.exit(f"{where}: error: {message}")


INCLUDES = []  # `include <header>` lines: where the meta result types are declared


def parse_ops(path):
    ops, ns, current = [], None, None
    for number, raw in enumerate(pathlib.Path(path).read_text().splitlines(), 1):
        where = f"{path}:{number}"
        line = raw.split(" #")[0].rstrip() if not raw.lstrip().startswith("doc:") else raw.rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("namespace "):
            ns = line.split(None, 1)[1].strip()
            current = None
            continue
        if line.startswith("include "):
            INCLUDES.append(line.split(None, 1)[1].strip())
            current = None
            continue
        if not line[0].isspace():
            if ns is None:
                fail(where, "a definition before any 'namespace' line")
            current = Op(ns, Schema(line.strip(), where), where)
            ops.append(current)
            continue
        if current is None:
            fail(where, "an indented line outside a definition")
        key, _, value = line.strip().partition(":")
        key = key.strip()
        if key not in KEYS:
            fail(where, f"unknown key '{key}' (known: {', '.join(sorted(KEYS))})")
        if key == "doc":
            current.docs.append(value.strip())
        elif key == "sample":
            current.samples.append(value.strip())
        elif key in current.fields and key not in ("cpp_any",):
            fail(where, f"'{key}' given twice")
        elif key == "cpp_any":
            current.fields[key] = current.fields.get(key, "") + ";" + value.strip()
        else:
            current.fields[key] = value.strip()
        unknown = set(current.variants) - VARIANTS
        if unknown:
            fail(where, f"unknown variants {sorted(unknown)}")
    return ops


# --- catalog entries -------------------------------------------------------------------


def argument_text(s):
    """The text between the argument list's parentheses."""
    start = s.text.index("(")
    depth = 0
    for i in range(start, len(s.text)):
        depth += {"(": 1, ")": -1}.get(s.text[i], 0)
        if depth == 0:
            return s.text[start + 1: i]
    fail(s.where, f"unbalanced parentheses in {s.text}")


def out_schema(s):
    """`X.out`: the schema with `Tensor(a!) out` as its last keyword argument."""
    args = [a for a in split_top(argument_text(s)) if a.strip()]
    star = any(a.strip() == "*" or re.search(r"\s\*[A-Za-z_]", a) for a in args)
    args.append("Tensor(a!) out" if star else "*, Tensor(a!) out")
    overload = "out" if not s.overload else s.overload + "_out"
    return f"{s.name}.{overload}({', '.join(a.strip() for a in args)}) -> Tensor(a!)"


def inplace_schema(s):
    """`X_`: self written in place and returned."""
    args = [a.strip() for a in split_top(argument_text(s)) if a.strip()]
    first = re.sub(r"^Tensor(\([^)]*\))?", "Tensor(a!)", args[0])
    name = s.name + "_" + ("." + s.overload if s.overload else "")
    return f"{name}({', '.join([first] + args[1:])}) -> Tensor(a!)"


class Entry:
    """One catalog entry: a definition (schema) or an alias of another entry."""

    def __init__(self, ns, schema, op, kind, target=None, cpp_name=None, api=True):
        self.ns = ns
        self.cpp_name = cpp_name  # the C++ name of a `names` alias (default: the operator's)
        self.api = api and op.has_api  # whether the typed C++ API has a function for it
        self.schema = schema  # Schema (for aliases: the target's, renamed)
        self.op = op
        self.kind = kind  # "def", "out", "inplace", "inplace_view", "alias"
        self.target = target  # qualified full name of the alias target

    @property
    def qualified(self):
        return f"{self.ns}.{self.schema.full_name}"


def method_namespace(ns):
    """Where a namespace's methods live: torch.Tensor for PyTorch's
    namespaces, `<ns>.Tensor` for a plugin's (plugins do not add to torch)."""
    return "torch.Tensor" if ns == "torch" or ns.startswith("torch.") or ns == "aten" else ns + ".Tensor"


def is_method_namespace(ns):
    return ns == "torch.Tensor" or ns.endswith(".Tensor")


def catalog(ops):
    defs, aliases = [], []
    for op in ops:
        s = op.schema
        if op.is_property:
            # Python reads a property with no arguments but the tensor, under one name.
            if not is_method_namespace(op.ns):
                fail(op.where, f"property: {s.name} must be defined in a Tensor namespace, not {op.ns}")
            if [a.name for a in s.args] != ["self"] or s.args[0].kind != "Tensor" or s.overload:
                fail(op.where, f"property: {s.name} takes `Tensor self` only and has no overloads")
            if any(k in op.fields for k in ("variants", "dunders", "also", "names")):
                fail(op.where, f"property: {s.name} has no variants, dunders, aliases or other names")
        defs.append(Entry(op.ns, s, op, "def"))
        base = f"{op.ns}.{s.full_name}"
        if "out" in op.variants:
            defs.append(Entry(op.ns, Schema(out_schema(s), op.where), op, "out"))
        inplace = None
        for kind in ("inplace", "inplace_view"):
            if kind in op.variants:
                inplace = Entry(method_namespace(op.ns), Schema(inplace_schema(s), op.where), op, kind)
                defs.append(inplace)
        for n in op.list("names"):
            aliases.append(Entry(op.ns, rename(s, n), op, "alias", base, cpp_name=n))
            if "out" in op.variants:
                out = Schema(out_schema(s), op.where)
                aliases.append(Entry(op.ns, rename(out, n), op, "alias", f"{op.ns}.{out.full_name}", api=False))
            if "method" in op.variants:
                aliases.append(Entry(method_namespace(op.ns), rename(s, n), op, "alias", base, cpp_name=n))
            if inplace is not None:
                aliases.append(Entry(method_namespace(op.ns), rename(inplace.schema, n + "_"), op, "alias",
                                     inplace.qualified, cpp_name=n + "_"))
        if "method" in op.variants:
            aliases.append(Entry(method_namespace(op.ns), s, op, "alias", base))
        for item in op.list("also"):
            # `torch.special as expit`: the alias has another name there.
            ns, _, name = (x.strip() for x in item.partition(" as "))
            named = rename(s, name) if name else s
            # torch.functional's C++ functions are torch's: one function serves both.
            aliases.append(Entry(ns, named, op, "alias", base, cpp_name=name or None,
                                 api=bool(name) or cpp_namespace(ns) != cpp_namespace(op.ns)))
            if "out" in op.variants:  # the same builtin in PyTorch: out= as well
                out = Schema(out_schema(s), op.where)
                aliases.append(Entry(ns, rename(out, name) if name else out, op, "alias", f"{op.ns}.{out.full_name}",
                                     api=False))
        for d in op.list("dunders"):
            # __iadd__ and the like alias the in-place variant (or the
            # definition itself when it is the in-place operator).
            in_place = d.startswith("__i") and d not in ("__invert__", "__index__", "__int__")
            if in_place and inplace is not None:
                aliases.append(Entry(method_namespace(op.ns), rename(inplace.schema, d), op, "alias", inplace.qualified))
            elif in_place and not s.name.endswith("_"):
                fail(op.where, f"{d} needs an inplace variant or an in-place definition")
            else:
                aliases.append(Entry(method_namespace(op.ns), rename(s, d), op, "alias", base))
    seen = {}
    for e in defs + aliases:
        q = e.qualified
        if q in seen:
            fail(e.op.where, f"{q} is also defined at {seen[q].op.where}")
        seen[q] = e
    return defs, aliases


def rename(s, name):
    text = name + s.text[s.text.index("("):]
    if s.overload:
        text = name + "." + s.overload + s.text[s.text.index("("):]
    return Schema(text, s.where)


ROOT = None  # --root: .ops paths are recorded relative to it


def location(where):
    path, line = where.rsplit(":", 1)
    p = pathlib.Path(path).resolve()
    if ROOT is not None:
        try:
            p = p.relative_to(ROOT)
        except ValueError:
            p = pathlib.Path(p.name)
    return c_string(p.as_posix()), line


def c_string(text):
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + escaped + '"'



def glue_expressions(defs):
    """For structured operators: the names the glue needs, and the expression
    of each definition's glue (Note [Structured kernels] in wick/structured.h)."""
    names, glue = [], {}
    for i, e in enumerate(defs):
        op = e.op
        if not op.meta or e.kind not in ("def", "out"):
            continue
        base = f"{op.ns}.{op.schema.full_name}"
        if e.kind == "def":
            names.append(f"constexpr char kOp{i}[] = {c_string(f'{op.ns}.{op.schema.name}')};")
            fn = f"&{op.meta_namespace()}::{op.meta_name()}"
            sig = kernel_signature(op.schema)
            if op.in_place():
                glue[base] = f"&wick::structured_inplace_glue<{fn}, kOp{i}, {sig}>"
            elif "out" in op.variants:
                names.append(f"constexpr char kOut{i}[] = {c_string(f'{op.ns}.{out_schema_name(op.schema)}')};")
                glue[base] = f"&wick::structured_glue<{fn}, kOp{i}, {sig}, kOut{i}>"
            else:
                glue[base] = f"&wick::structured_glue<{fn}, kOp{i}, {sig}>"
    return names, glue


def out_schema_name(s):
    return s.name + ".out" if not s.overload else f"{s.name}.{s.overload}_out"


def family_meta_functions(defs):
    """The meta functions the `meta: unary(...)` / `binary(...)` families define."""
    lines = []
    for e in defs:
        op = e.op
        family = op.meta_family() if e.kind == "def" else None
        if not family:
            continue
        helper, kind = family
        tensors = [a.name for a in op.schema.args if a.kind == "Tensor" and not a.is_list]
        params = ", ".join(f"{kernel_type(a, op.where)} {a.name}" if a.name in tensors[:2] else kernel_type(a, op.where)
                           for a in op.schema.args)
        qualified = c_string(f"{op.ns}.{op.schema.name}")
        if helper == "unary":
            body = f"return wick::meta::unary_op({qualified}, {tensors[0]}, wick::meta::UnaryKind::{kind});"
        else:
            body = (f"return wick::meta::binary_op({qualified}, {tensors[0]}, {tensors[1]}, "
                    f"wick::meta::BinaryKind::{kind});")
        lines += [f"namespace {op.meta_namespace()} {{",
                  f"wick::ElementwiseMeta {op.meta_name()}({params}) {{ {body} }}",
                  f"}}  // namespace {op.meta_namespace()}"]
    return lines


def write_catalog(path, name, defs, aliases, namespace, meta_header):
    names, glue = glue_expressions(defs)
    lines = [
        f"// {name}_catalog.cpp - generated by sdk/opgen/wick_opgen.py from the .ops definitions: do not edit.",
        "#include <wick/definitions.h>",
    ]
    if glue:
        lines += ["#include <wick/structured.h>", "", f"#include <{meta_header}>"]
    lines += ["", "namespace {", ""] + names + ["", "constexpr wick::CatalogDef kDefs[] = {"]
    for e in defs:
        flags = []
        if e.op.ignored and e.kind == "def":
            flags.append("wick::CatalogDef::kIgnored")
        if e.op.is_property and e.kind == "def":
            flags.append("wick::CatalogDef::kProperty")
        if e.kind in ("inplace", "inplace_view"):
            flags.append("wick::CatalogDef::kInplaceTwin")
        if e.kind == "inplace_view":
            flags.append("wick::CatalogDef::kInplaceView")
        file, line = location(e.op.where)
        g = glue.get(f"{e.op.ns}.{e.op.schema.full_name}") if e.kind in ("def", "out") else None
        if g and e.kind == "out":
            flags.append("wick::CatalogDef::kOutVariant")
        elif e.kind == "out":
            flags.append("wick::CatalogDef::kOutByCopy")
        # Samples and tags belong to the definition; its out variant has none of its own.
        samples = c_string("\n".join(e.op.samples)) if e.kind == "def" and e.op.samples else "nullptr"
        tags = c_string(e.op.fields["tags"]) if e.kind == "def" and "tags" in e.op.fields else "nullptr"
        # Every variant takes numbers where its definition does (torch.add(t, 2, out=o), t.add_(2)).
        numbers = c_string(", ".join(e.op.list("numbers"))) if e.op.list("numbers") else "nullptr"
        lines.append(f"    {{{c_string(e.ns)}, {c_string(e.schema.text)}, {' | '.join(flags) or '0'}, {file}, {line}, "
                     f"{g or 'nullptr'}, {samples}, {tags}, {numbers}}},")
    lines += ["};", "", "constexpr wick::CatalogAlias kAliases[] = {"]
    for e in aliases:
        file, line = location(e.op.where)
        lines.append(f"    {{{c_string(e.ns)}, {c_string(e.schema.full_name)}, {c_string(e.target)}, {file}, {line}}},")
    lines += [
        "};",
        "",
        "}  // namespace",
        "",
    ]
    lines += [""] + family_meta_functions(defs) + [""]
    if namespace:
        lines.append(f"namespace {namespace} {{")
    lines += [
        f"const wick::CatalogTable& {name}_catalog() {{",
        "  static const wick::CatalogTable table{kDefs, kAliases};",
        "  return table;",
        "}",
    ]
    if namespace:
        lines.append(f"}}  // namespace {namespace}")
    write(path, lines)


# --- the typed C++ API -----------------------------------------------------------------

CPP_NAMESPACES = {"torch": "wick", "torch.functional": "wick", "torch.nn.functional": "wick::nn::functional", "torch.linalg": "wick::linalg",
                  "torch.special": "wick::special", "torch.fft": "wick::fft",
                  "torch.distributed": "wick::distributed::ops"}


def cpp_namespace(ns):
    return CPP_NAMESPACES.get(ns, ns.replace(".", "::"))


def kernel_type(arg, where):
    """The C++ type a kernel takes for a schema argument (wick/boxing.h)."""
    k, lst, opt = arg.kind, arg.is_list, arg.optional
    if k == "Tensor":
        if lst and arg.element_optional:
            return "const std::vector<std::optional<wick::Tensor>>&"
        if lst:
            return "const std::vector<wick::Tensor>&"
        return "const std::optional<wick::Tensor>&" if opt else "const wick::Tensor&"
    if k in ("int", "SymInt"):
        if lst:
            return "std::optional<wick::IntArrayRef>" if opt else "wick::IntArrayRef"
        return "std::optional<std::int64_t>" if opt else "std::int64_t"
    simple = {
        "float": "double",
        "bool": "bool",
        "str": "std::string_view",
        "ScalarType": "wick::ScalarType",
        "Device": "wick::Device",
    }
    if k in simple and not lst:
        return f"std::optional<{simple[k]}>" if opt else simple[k]
    if k == "Scalar" and not lst:
        return "const std::optional<wick::Scalar>&" if opt else "const wick::Scalar&"
    if k == "Any":
        return "const wick::Value&"
    fail(where, f"no C++ type for '{arg.type}'")


def return_type(schema):
    types = schema.return_types()
    if not types:
        return "void"
    cpp = []
    for t in types:
        base = re.sub(r"\([^)]*\)", "", t)
        cpp.append({"Tensor": "wick::Tensor", "Tensor[]": "std::vector<wick::Tensor>", "Any": "wick::Value",
                    "ScalarType": "wick::ScalarType", "bool": "bool"}.get(base))
        if cpp[-1] is None:
            fail(schema.where, f"no C++ type for the return type '{t}'")
    return cpp[0] if len(cpp) == 1 else f"std::tuple<{', '.join(cpp)}>"


def cpp_default(arg):
    """The schema default as a C++ default argument."""
    d = arg.default.strip()
    if d == "None":
        if arg.kind == "Tensor" and arg.is_list and not arg.element_optional:
            return "{}"  # Tensor[]? takes an empty list for None (wick/boxing.h)
        return "std::nullopt" if arg.kind not in ("Any",) else "wick::Value()"
    if d in ("True", "False"):
        return d.lower()
    if d.startswith(("'", '"')):
        return '"' + d[1:-1] + '"'
    if d.startswith("["):
        items = [x.strip() for x in d[1:-1].split(",") if x.strip()]
        return "wick::IntArrayRef({" + ", ".join(items) + "})" if items else "{}"
    if d in ("inf", "-inf"):
        return ("-" if d[0] == "-" else "") + "std::numeric_limits<double>::infinity()"
    if arg.kind == "float" and re.fullmatch(r"-?\d+", d):
        return d + ".0"
    return d


class Param:
    def __init__(self, arg, cpp_type, default, call_expr):
        self.arg = arg
        self.cpp_type = cpp_type
        self.default = default
        self.call_expr = call_expr  # how the wrapper passes it to the kernel signature


def self_index(schema):
    """The index of a method's `self`: the argument named self, else a
    leading Tensor named input (torch.softmax's method); None when neither."""
    for i, a in enumerate(schema.args):
        if a.name == "self" and a.kind == "Tensor" and not a.is_list:
            return i
    if schema.args and schema.args[0].name == "input" and schema.args[0].kind == "Tensor":
        return 0
    return None


def overload_sets(op, schema, skip=None):
    """The C++ parameter lists for a schema: the plain one, plus one per
    cpp_scalar argument and per cpp_any alternative."""
    skip_names = set(op.list("cpp_skip"))
    literal = set(op.list("cpp_literal"))
    # A Scalar overload wherever a tensor argument also takes a Python number
    # (`numbers:`), as PyTorch's Tensor/Scalar schema pairs: x.mul_(0.5), pow(x, 2).
    scalar = set(op.list("cpp_scalar")) | {
        a.name for a in schema.args
        if a.name in set(op.list("numbers")) and a.kind == "Tensor" and not a.is_list and not a.optional}
    anys = {}
    for spec in op.fields.get("cpp_any", "").split(";"):
        if spec.strip():
            name, _, types = spec.partition(":")
            anys[name.strip()] = [t.strip() for t in types.split("|")]
    base = []
    for k, a in enumerate(schema.args):
        if k == skip or a.name in skip_names:
            continue
        t, call = kernel_type(a, op.where), a.name
        if t == "std::optional<wick::IntArrayRef>":  # safe from a single int (wick/array_ref.h)
            t, call = "wick::OptionalIntArrayRef", f"{a.name}.get()"
        elif t in ("std::optional<wick::ScalarType>", "std::optional<wick::Device>", "std::optional<bool>"):
            call = f"wick::detail::settled({a.name})"  # Note [Settled optionals] in wick/dispatcher.h
        if a.name in literal:  # braced lists of numbers: wick::tensor({{1., 2.}}) (wick/value.h)
            t, call = "const wick::TensorLiteral&", f"{a.name}.value()"
        base.append(Param(a, t, cpp_default(a) if a.default is not None else None, call))
    sets = [base]
    any_types = {
        "int": "std::int64_t",
        "int[]": "wick::IntArrayRef",
        "float": "double",
        "str": "std::string_view",
        "bool": "bool",
        "Tensor": "const wick::Tensor&",
    }
    for i, p in enumerate(base):
        if p.arg.name in anys:
            alternatives = []
            for j, t in enumerate(anys[p.arg.name]):
                if t not in any_types:
                    fail(op.where, f"cpp_any type '{t}' (known: {', '.join(any_types)})")
                params = [Param(q.arg, q.cpp_type, q.default, q.call_expr) for q in base]
                default = p.default if j == 0 and p.arg.default not in (None, "None") else None
                boxed = f"wick::Value(std::string({p.arg.name}))" if t == "str" else f"wick::Value({p.arg.name})"
                params[i] = Param(p.arg, any_types[t], default, boxed)
                if j > 0:
                    for q in params[:i]:
                        q.default = None
                alternatives.append(params)
            # An argument whose default is None may be left out with every
            # argument after it: f(x) for f(x, ord=None, dim=None).
            if p.arg.default is not None and p.arg.default.strip() == "None" and all(
                    q.default is not None for q in base[i + 1:]):
                # The arguments before it keep their defaults: f(x) for
                # f(x, spacing=None, dim=None) too.
                alternatives.append([Param(q.arg, q.cpp_type, q.default, q.call_expr) for q in base[:i]])
            sets = alternatives
        if p.arg.name in scalar:
            extra = [Param(q.arg, q.cpp_type, q.default, q.call_expr) for q in base]
            extra[i] = Param(p.arg, "const wick::Scalar&", None, f"wick::wrap_scalar({p.arg.name})")
            for q in extra[:i]:
                q.default = None
            sets.append(extra)
    return sets


def kernel_signature(schema):
    """The C++ signature of the kernels: typed calls are checked against it."""
    return f"{return_type(schema)}({', '.join(kernel_type(a, schema.where) for a in schema.args)})"


def call_args(schema, params, op, self_expr=None, self_at=None):
    """The kernel's argument list: parameters, skipped defaults, self."""
    by_name = {p.arg.name: p for p in params}
    out = []
    for k, a in enumerate(schema.args):
        if k == self_at and self_expr is not None:
            out.append(self_expr)
        elif a.name in by_name:
            out.append(by_name[a.name].call_expr)
        else:
            out.append(cpp_default(a) if a.default is not None else "{}")
    return ", ".join(out)


def declaration(ret, name, params, with_defaults, qualifier=""):
    ps = []
    for p in params:
        s = f"{p.cpp_type} {p.arg.name}"
        if with_defaults and p.default is not None:
            s += f" = {p.default}"
        ps.append(s)
    return f"{ret} {qualifier}{name}({', '.join(ps)})"


def fix_defaults(params):
    """C++ defaults must be trailing: drop those before a parameter without one."""
    required = [i for i, p in enumerate(params) if p.default is None]
    for p in params[: required[-1] if required else 0]:
        p.default = None
    return params


def function_api(e):
    """[(namespace, declaration text, definition text)] of one catalog entry's free functions."""
    op, s = e.op, e.schema
    out = []
    if not e.api:
        return out
    sig = kernel_signature(s)
    if e.kind == "out":
        name = op.fields.get("cpp", s.name) + "_out"
        for params in overload_sets(op, op.schema):
            fix_defaults(params)
            out_param = "wick::Tensor& out"
            decl_params = ", ".join([out_param] + [
                f"{p.cpp_type} {p.arg.name}" + (f" = {p.default}" if p.default is not None else "") for p in params])
            def_params = ", ".join([out_param] + [f"{p.cpp_type} {p.arg.name}" for p in params])
            args = call_args(s, params + [Param(s.args[-1], "", None, "out")], op)
            decl = f"WICK_API wick::Tensor& {name}({decl_params});"
            body = (f"wick::Tensor& {name}({def_params}) {{\n"
                    f"  static const auto wick_op = wick::find_op({c_string(e.qualified)}).typed<{sig}>();\n"
                    f"  wick_op.call({args});\n  return out;\n}}")
            out.append((cpp_namespace(e.ns), decl, body))
        return out
    name = e.cpp_name or op.fields.get("cpp", s.name)
    ret = return_type(s)
    unbox = ""
    if op.fields.get("cpp_return") == "Tensor" and ret == "wick::Value":
        ret, unbox = "wick::Tensor", ".to_tensor()"
    for params in overload_sets(op, s):
        fix_defaults(params)
        decl = "WICK_API " + declaration(ret, name, params, True) + ";"
        ns = cpp_namespace(e.ns)
        body = (declaration(ret, name, params, False) + " {\n"
                f"  static const auto wick_op = wick::find_op({c_string(e.qualified)}).typed<{sig}>();\n"
                f"  return wick_op.call({call_args(s, params, op)}){unbox};\n}}")
        out.append((ns, decl, body))
    out += options_api(e, name, ret)
    return out


def options_api(e, name, ret):
    """A creation function's overloads for wick/tensor_options.h: a
    TensorOptions in the place of `dtype` and `device`, after any prefix of
    the optional positional arguments (`arange(0, 10, opts)`); and, as
    libtorch's implicit TensorOptions allows, a bare dtype or device there
    (`arange(6, wick::kFloat64)`, `zeros({2}, wick::kCUDA)`). Inline in the
    header, without a body in the generated source: requires_grad is set
    through the autograd API, which the operator definitions may not call."""
    op, s = e.op, e.schema
    names = [a.name for a in s.args]
    if ret != "wick::Tensor" or names[-2:] != ["dtype", "device"] or not s.args[-1].kwarg_only:
        return []
    out = []
    base = overload_sets(op, s)[0]
    lead = [p for p in base if p.arg.name not in ("dtype", "device") and not p.arg.kwarg_only]
    required = [p for p in lead if p.default is None]
    optional = lead[len(required):]
    ns = cpp_namespace(e.ns)
    for j in range(len(optional) + 1):
        params = required + optional[:j]
        given = [p.arg.name for p in params]
        rest = [p.default for p in optional[j:]]  # the positional arguments left out, at their defaults

        def overload(last_param, dtype_expr, device_expr, finish):
            ps = ", ".join([f"{p.cpp_type} {p.arg.name}" for p in params] + [last_param])
            call = f"{name}({', '.join(given + rest + [dtype_expr, device_expr])})"
            if finish:
                call = f"wick::detail::finish_options({call}, options)"
            return (ns, f"inline {ret} {name}({ps}) {{\n  return {call};\n}}", None)

        out.append(overload("const wick::TensorOptions& options", "options.dtype_opt()", "options.device_opt()", True))
        if j < len(optional):  # at the end of the positional arguments, the plain overload takes a dtype
            out.append(overload("wick::ScalarType dtype", "dtype", "std::nullopt", False))
        out.append(overload("wick::Device device", "std::nullopt", "device", False))
    return out


def method_api(e, qualifier="wick::Tensor::", self_type="wick::Tensor"):
    """[(declaration inside class Tensor, definition)] of one torch.Tensor entry's methods."""
    op, s = e.op, e.schema
    at = self_index(s)
    if s.name.startswith("__") or at is None or not e.api:
        return []
    sig = kernel_signature(s)
    inplace = s.name.endswith("_") and s.args[at].writes
    # A method alias takes the C++ name of the function it aliases; a method
    # defined in torch.Tensor its own `cpp:` name (Tensor.float: to_float).
    name = e.cpp_name or (op.fields.get("cpp", s.name) if e.kind == "alias" or (e.kind == "def" and is_method_namespace(op.ns)) else s.name)
    local_self = self_type.split("::")[-1]
    inside_wick = self_type == "wick::Tensor"  # the .inc is read inside namespace wick
    full_ret = return_type(s)
    unbox = ""
    if op.fields.get("cpp_return") == "Tensor" and full_ret == "wick::Value":
        full_ret, unbox = "wick::Tensor", ".to_tensor()"
    ret = local_self + "&" if inplace else (full_ret.replace("wick::", "") if inside_wick else full_ret)
    out = []
    # An alias shares the target's C++ overloads; its options come from the target's op.
    for params in overload_sets(op, s, skip=at):
        fix_defaults(params)
        local = [Param(p.arg, p.cpp_type.replace("wick::", "") if inside_wick else p.cpp_type, p.default, p.call_expr)
                 for p in params]
        decl = "  " + ("" if inplace else "[[nodiscard]] ") + declaration(ret, name, local, True) + (
            ";" if inplace else " const;")
        qual_ret = self_type + "&" if inplace else full_ret
        body = (declaration(qual_ret, name, params, False, qualifier) + ("" if inplace else " const") + " {\n"
                f"  static const auto wick_op = wick::find_op({c_string(e.qualified)}).typed<{sig}>();\n")
        this = "*this" if self_type == "wick::Tensor" else "t_"
        if inplace:
            body += f"  wick_op.call({call_args(s, params, op, this, at)});\n  return *this;\n}}"
        else:
            body += f"  return wick_op.call({call_args(s, params, op, this, at)}){unbox};\n}}"
        out.append((decl, body))
    return out


def write_api(out_dir, include_dir, include_prefix, name, defs, aliases, methods, export, declare_catalog):
    by_ns = {}
    definitions = []
    for e in defs + aliases:
        if is_method_namespace(e.ns):
            continue
        if e.kind == "alias":
            docs = [f"/// {e.qualified}: an alias of {e.target}."]
        elif e.kind == "out":
            docs = [f"/// {e.qualified}: writes the result into `out` (resized if needed)."]
        else:
            docs = [f"/// {d}" for d in e.op.docs]
        for ns, decl, body in function_api(e):
            if export != "WICK_API":
                decl = decl.replace("WICK_API ", export + " " if export else "", 1)
            by_ns.setdefault(ns, []).extend(docs + [decl])
            docs = []  # once, above the first overload
            if body is not None:
                definitions.append(f"namespace {ns} {{\n{body}\n}}  // namespace {ns}\n")
    method_decls = []
    if methods:
        for e in defs + aliases:
            if e.ns != "torch.Tensor":
                continue
            docs = e.op.docs if e.kind == "def" else []
            for decl, body in method_api(e):
                method_decls.extend([f"  /// {d}" for d in docs] + [decl])
                docs = []
                definitions.append(body + "\n")
    # A plugin's methods (`<ns>.Tensor.X`): C++ cannot add members to
    # wick::Tensor, so they are members of `<ns>::Tensor`, a wick::Tensor
    # with the namespace's methods (`myops::Tensor(x).scale(2.0)`).
    extensions = {}
    for e in defs + aliases:
        if e.ns == "torch.Tensor" or not is_method_namespace(e.ns):
            continue
        cpp_ns = cpp_namespace(e.ns[: -len(".Tensor")])
        docs = e.op.docs if e.kind == "def" else []
        for decl, body in method_api(e, f"{cpp_ns}::Tensor::", f"{cpp_ns}::Tensor"):
            extensions.setdefault(cpp_ns, []).extend([f"  /// {d}" for d in docs] + [decl])
            docs = []
            definitions.append(body + "\n")
    header = [
        f"// {include_prefix}{name}_ops.h - generated by sdk/opgen/wick_opgen.py from the .ops definitions: do not edit.",
        "/// \\file",
        "/// The typed API: one function per catalog entry (see wick/ops.h).",
        "#pragma once",
        "",
        "#include <cstdint>",
        "#include <limits>",
        "#include <optional>",
        "#include <string>",
        "#include <string_view>",
        "#include <tuple>",
        "#include <utility>",
        "#include <vector>",
        "",
        "#include <wick/export.h>",
        "#include <wick/tensor.h>",
        "#include <wick/value.h>",
        "",
    ]
    for ns, decls in by_ns.items():
        header += [f"namespace {ns} {{", ""] + decls + ["", f"}}  // namespace {ns}", ""]
    for ns, decls in extensions.items():
        header += [
            f"namespace {ns} {{",
            "",
            f"/// A wick::Tensor with the methods of {ns.replace('::', '.')}.Tensor: `{ns}::Tensor(x).method(...)`;",
            "/// it converts back to the wick::Tensor it holds.",
            "class Tensor final {",
            " public:",
            "  Tensor(wick::Tensor t) : t_(std::move(t)) {}  // NOLINT(google-explicit-constructor)",
            "  operator const wick::Tensor&() const noexcept { return t_; }  // NOLINT(google-explicit-constructor)",
            "  [[nodiscard]] const wick::Tensor& tensor() const noexcept { return t_; }",
            "",
        ] + decls + ["", " private:", "  wick::Tensor t_;", "};", "", f"}}  // namespace {ns}", ""]
    if declare_catalog:
        header += ["namespace wick { struct CatalogTable; }", "",
                   f"/// The definition table of {name}'s .ops files: `registrar.define({name}_catalog())`.",
                   f"const wick::CatalogTable& {name}_catalog();", ""]
    write(include_dir / f"{name}_ops.h", header)
    if methods:
        write(include_dir / f"{name}_methods.inc", [
            f"// {include_prefix}{name}_methods.inc - generated by sdk/opgen/wick_opgen.py: do not edit.",
            "// Included inside class wick::Tensor (wick/tensor.h): one method per torch.Tensor entry.",
            "",
        ] + method_decls)
    source = [
        f"// {name}_ops.cpp - generated by sdk/opgen/wick_opgen.py from the .ops definitions: do not edit.",
        "/// Each function looks its operator up once (a function-local static)",
        "/// and then makes a typed call: no boxing, no string work per call.",
        f"#include <{include_prefix}{name}_ops.h>",
        "",
        "#include <wick/dispatcher.h>",
        "",
    ] + definitions
    write(out_dir / f"{name}_ops.cpp", source)


def write_meta(include_dir, include_prefix, name, ops, export):
    """<name>_meta.h: the meta functions' declarations (Note [Meta functions])."""
    by_ns = {}
    for op in ops:
        if not op.meta:
            continue
        params = ", ".join(f"{kernel_type(a, op.where)} {a.name}" for a in op.schema.args)
        result = op.meta if "::" in op.meta else "wick::" + op.meta  # unqualified: wick/meta.h's
        decl = f"{export + ' ' if export else ''}{result} {op.meta_name()}({params});"
        by_ns.setdefault(op.meta_namespace(), []).extend(
            [f"/// {op.ns}.{op.schema.full_name}'s meta function ({location(op.where)[0][1:-1]})", decl])
    header = [
        f"// {include_prefix}{name}_meta.h - generated by sdk/opgen/wick_opgen.py from the .ops definitions: do not edit.",
        "/// \\file",
        "/// The meta functions of the operators that declare one (`meta:`): their",
        "/// checks and result geometry, shared by every backend (wick/meta.h).",
        "#pragma once",
        "",
        "#include <cstdint>",
        "#include <optional>",
        "#include <string_view>",
        "#include <vector>",
        "",
        "#include <wick/export.h>",
        "#include <wick/meta.h>",
        "#include <wick/tensor.h>",
        "#include <wick/value.h>",
    ] + [f"#include <{h}>" for h in INCLUDES] + [""]
    for ns, decls in by_ns.items():
        header += [f"namespace {ns} {{", ""] + decls + ["", f"}}  // namespace {ns}", ""]
    write(include_dir / f"{name}_meta.h", header)


def impl_params(op):
    """The parameters of a backend's structured impl of `op` as (type, name)
    (the impl signatures of Note [Structured kernels] in wick/structured.h)."""
    result = op.meta if "::" in op.meta else "wick::" + op.meta
    params = [(f"const {result}&", "meta_result" if any(a.name == "m" for a in op.schema.args) else "m")]
    if not op.in_place():
        n = len(op.schema.return_types())
        params.append(("const wick::Tensor&", "out") if n == 1 else (f"const std::array<wick::Tensor, {n}>&", "outs"))
    return params + [(kernel_type(a, op.where), a.name) for a in op.schema.args]


def shared_kernel(op):
    """`kernel: scan(prod=true)` as ("scan", [(type, name, value)]), or None."""
    text = op.fields.get("kernel")
    if not text:
        return None
    m = re.fullmatch(r"([A-Za-z_]\w*)\((.*)\)", text)
    if not m or not op.list("dispatch"):
        fail(op.where, "kernel: expected `name(param=value, ...)` beside a dispatch line")
    constants = []
    for part in split_top(m.group(2)):
        pm = re.fullmatch(r"\s*([A-Za-z_]\w*)\s*=\s*(true|false|-?\d+)\s*", part)
        if not pm:
            fail(op.where, f"kernel: '{part.strip()}' is not `param=value` with a bool or int value")
        kind = "bool" if pm.group(2) in ("true", "false") else "std::int64_t"
        constants.append((kind, pm.group(1), pm.group(2)))
    return m.group(1), constants


def write_kernels(include_dir, include_prefix, name, ops, base_namespace, kernel_namespaces):
    """<name>_kernels.h: per dispatch key, its kernels' declarations and their registration (`dispatch:`)."""
    by_key = {}
    for op in ops:
        keys = op.list("dispatch")
        if keys and not op.meta:
            fail(op.where, "'dispatch' needs 'meta': backends implement the meta function's result")
        for key in keys:
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", key):
                fail(op.where, f"dispatch: '{key}' is not a dispatch key's name")
            by_key.setdefault(key, []).append(op)
    header = [
        f"// {include_prefix}{name}_kernels.h - generated by sdk/opgen/wick_opgen.py from the .ops definitions: do not edit.",
        "/// \\file",
        "/// For each dispatch key named in a `dispatch:` line: the declarations of",
        "/// its kernels, which the backend defines, and the function that",
        "/// registers them all (Note [Structured kernels] in wick/structured.h).",
        "#pragma once",
        "",
        "#include <array>",
        "",
        "#include <wick/dispatch_key.h>",
        "#include <wick/plugin.h>",
        f"#include <{include_prefix}{name}_meta.h>",
        "",
    ]
    for key, key_ops in by_key.items():
        ns = kernel_namespaces.get(key, f"{base_namespace}::{key.lower()}")
        header += [f"namespace {ns} {{", ""]
        shared = {}  # a shared kernel's name -> its parameter types: declared once
        for op in key_ops:
            params = impl_params(op)
            header.append(f"/// {op.ns}.{op.schema.full_name} ({location(op.where)[0][1:-1]})")
            kernel = shared_kernel(op)
            if not kernel:
                header.append(f"void {op.meta_name()}({', '.join(f'{t} {n}' for t, n in params)});")
                continue
            kname, constants = kernel
            full = params + [(t, n) for t, n, _ in constants]
            types = [t for t, _ in full]
            if kname not in shared:
                shared[kname] = types
                header.append(f"void {kname}({', '.join(f'{t} {n}' for t, n in full)});")
            elif shared[kname] != types:
                fail(op.where, f"kernel: {kname} is shared by operators whose impl signatures differ")
            call = ", ".join([n for _, n in params] + [v for _, _, v in constants])
            header.append(f"inline void {op.meta_name()}({', '.join(f'{t} {n}' for t, n in params)}) "
                          f"{{ {kname}({call}); }}")
        header += ["", f"/// Registers the {key} kernels above at `key` for the registrar's plugin.",
                   f"inline void register_{name}_kernels(wick::Registrar& registrar, wick::DispatchKey key) {{"]
        by_ns = {}
        for op in key_ops:
            by_ns.setdefault(op.ns, []).append(op)
        for op_ns, ns_ops in by_ns.items():
            header.append(f"  registrar.library({c_string(op_ns)}, key)")
            for i, op in enumerate(ns_ops):
                end = ";" if i == len(ns_ops) - 1 else ""
                file, line = location(op.where)  # the definition
                header.append(f"      .impl_structured({c_string(op.schema.full_name)}, &{op.meta_name()}, false, "
                              f"wick::SourceLocation{{{file}, {line}}}){end}")
        header += ["}", "", f"}}  // namespace {ns}", ""]
    write(include_dir / f"{name}_kernels.h", header)


def write(path, lines):
    text = "\n".join(lines).rstrip() + "\n"
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:  # keep timestamps: no needless rebuilds
        path.write_text(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--name", required=True, help="the output files' stem (torch, or the plugin's name)")
    parser.add_argument("--out", required=True, help="directory of the generated sources")
    parser.add_argument("--include", required=True, help="directory of the generated headers")
    parser.add_argument("--include-prefix", default="", help="how sources include the headers (wick/gen/)")
    parser.add_argument("--methods", action="store_true", help="write Tensor's method declarations too")
    parser.add_argument("--root", help="record .ops paths relative to this directory")
    parser.add_argument("--catalog-namespace", default="", help="C++ namespace of <name>_catalog()")
    parser.add_argument("--export", default="", help="the export macro of the free functions (WICK_API for libwick)")
    parser.add_argument("--declare-catalog", action="store_true", help="declare <name>_catalog() in the header")
    parser.add_argument("--api-only", action="store_true",
                        help="only the typed API: an application calling a plugin's operators")
    parser.add_argument("--kernel-namespace", action="append", default=[], metavar="KEY=NS",
                        help="the C++ namespace of a dispatch key's kernels (CUDA=wick::cuda_backend)")
    parser.add_argument("ops", nargs="+", help=".ops files")
    a = parser.parse_args()
    global ROOT
    ROOT = pathlib.Path(a.root).resolve() if a.root else None
    ops = []
    for f in a.ops:
        ops.extend(parse_ops(f))
    defs, aliases = catalog(ops)
    if not a.api_only:
        write_catalog(pathlib.Path(a.out) / f"{a.name}_catalog.cpp", a.name, defs, aliases, a.catalog_namespace,
                      f"{a.include_prefix}{a.name}_meta.h")
        write_meta(pathlib.Path(a.include), a.include_prefix, a.name, ops, a.export)
        base = a.catalog_namespace or (cpp_namespace(ops[0].ns) if ops else a.name)
        write_kernels(pathlib.Path(a.include), a.include_prefix, a.name, ops, base,
                      dict(kv.split("=", 1) for kv in a.kernel_namespace))
    write_api(pathlib.Path(a.out), pathlib.Path(a.include), a.include_prefix, a.name, defs, aliases, a.methods,
              a.export, a.declare_catalog)


if __name__ == "__main__":
    main()
