#!/usr/bin/env python3
# tests/fuzz/make_seeds.py - writes the binary seed corpora (the text ones,
# corpus/schema and corpus/eval, are hand-written files).
#   corpus/boxed_call/seed_NN: one per operator family, "<operator>\n" and fixed
#     pseudo-random bytes that boxed_call_fuzz.cpp decodes into the arguments.
#   corpus/plugin_descriptor/seed_*: one per loader scenario, encoded the way
#     plugin/descriptor_plugin.cpp decodes them with FuzzedDataProvider
#     (choices are read from the end of the input, strings from the front).
# Rerun after changing either decoder; regress_* files are kept as they are.
import os
import random

OPS = """torch.add torch.add.out torch.Tensor.__add__ torch.div torch.where torch.lerp torch.sum torch.mean
torch.mm torch.bmm torch.matmul torch.reshape torch.Tensor.view torch.permute torch.cat torch.stack
torch.split torch.chunk torch.index_select torch.gather torch.scatter_add torch.masked_fill
torch.cumsum torch.max.dim torch.norm torch.linalg.vector_norm torch.arange torch.linspace torch.full
torch.tensor torch.eye torch.roll torch.flip torch.repeat torch.Tensor.expand torch.narrow
torch.nn.functional.conv2d torch.nn.functional.max_pool2d torch.nn.functional.avg_pool2d
torch.nn.functional.adaptive_avg_pool2d torch.nn.functional.pad torch.nn.functional.embedding
torch.nn.functional.cross_entropy torch.nn.functional.nll_loss torch.nn.functional.layer_norm
torch.nn.functional.group_norm torch.nn.functional.batch_norm torch.nn.functional.softmax
torch.Tensor.add_ torch.Tensor.copy_ torch.Tensor.transpose_ torch.std torch.var.correction""".split()

HERE = os.path.dirname(os.path.abspath(__file__))


def write(corpus, name, data):
    out = os.path.join(HERE, "corpus", corpus)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


rng = random.Random(7)
for i, op in enumerate(OPS):
    write("boxed_call", f"seed_{i:02d}", op.encode() + b"\n" + bytes(rng.randrange(256) for _ in range(rng.randrange(16, 96))))

# --- plugin descriptors -------------------------------------------------------
# Descriptor choices, in the order set_input reads them: ABI (1: right, 0: a
# random uint32 follows), name (0: "cpu"), then for name, version, SDK
# version and fingerprint a case (0 null, 1 empty, 2 random, 3 long, 4 right
# + NUL + junk, 5 right), then init (0: null).
RIGHT = [1, 1, 5, 5, 5, 5, 1]
# Commands (kOpNames etc. in descriptor_plugin.cpp), each a list of choices:
# pick(x, i) is [1, i]; keys: 0 CPU, 1 CUDA, 2 Autograd, 3 Override, 4 CompositeImplicit.
NS = {"fuzzns": 0, "torch": 2, "aten": 4}
SCHEMA = {"f": 0, "g": 1, "f.out": 2, "h": 3, "add": 4, "relu": 5, "zeros_fuzz": 6}
OPNAME = {"f": 0, "g": 1, "add": 4, "torch.add": 6, "fuzzns.f": 7, "nope": 8}


def pick(i):
    return [1, i]


def define(ns, schema):
    return [0] + pick(NS[ns]) + pick(SCHEMA[schema])


def define_twice(ns, schema):
    return [3] + pick(NS[ns]) + pick(SCHEMA[schema])


def impl(ns, key, name, replace=False):
    return [4] + pick(NS[ns]) + [key] + pick(OPNAME[name]) + [int(replace), 1]


def alias(ns, name, target):
    return [6] + pick(NS[ns]) + pick(OPNAME[name]) + pick(target)


def fallthrough(ns, key, name):
    return [7] + pick(NS[ns]) + [key] + pick(OPNAME[name])


THROW, THROW_INT, RETURN_ERROR, BACKEND = [9], [10], [11], [8, 0]


def descriptor(choices=RIGHT, commands=(), front=b"", tail=b""):
    """front: bytes the commands read as strings; tail: bytes the descriptor reads as strings."""
    inner = front + bytes(reversed([c for cmd in commands for c in cmd]))
    return inner + tail + bytes(reversed(choices))


PLUGINS = {
    "loads_empty": descriptor(),
    "defines_and_implements": descriptor(commands=[define("fuzzns", "f"), impl("fuzzns", 0, "f"), define("fuzzns", "g")]),
    "out_overload_and_tuple_returns": descriptor(commands=[define("fuzzns", "f"), define("fuzzns", "f.out"), define("fuzzns", "h")]),
    "throws_after_registering": descriptor(commands=[define("fuzzns", "f"), impl("fuzzns", 0, "f"), THROW]),
    "throws_a_non_exception": descriptor(commands=[define("fuzzns", "g"), THROW_INT]),
    "returns_an_error": descriptor(commands=[define("fuzzns", "f"), RETURN_ERROR]),
    "defines_twice": descriptor(commands=[define_twice("fuzzns", "f")]),
    "redefines_torch_add": descriptor(commands=[define("torch", "add")]),
    "kernel_conflicts_with_cpu_backend": descriptor(commands=[impl("torch", 0, "add")]),
    "replaces_a_cpu_kernel": descriptor(commands=[impl("torch", 0, "add", replace=True)]),
    "replaces_then_throws": descriptor(commands=[impl("torch", 0, "add", replace=True), THROW]),
    "alias_of_torch_add": descriptor(commands=[alias("fuzzns", "g", 0), impl("fuzzns", 2, "g")]),
    "autograd_fallthrough": descriptor(commands=[define("fuzzns", "f"), fallthrough("fuzzns", 2, "f")]),
    "registers_a_backend": descriptor(commands=[BACKEND, define("fuzzns", "f"), impl("fuzzns", 4, "f")]),
    "random_schema": descriptor(commands=[[0] + pick(NS["fuzzns"]) + [0]], front=b"q(Tensor(a!)[] x, *, int[3] k=2) -> ()\\x"),
    "name_of_the_cpu_backend": descriptor(choices=[1, 0, 5, 5, 5, 5, 1]),
    "newer_abi": descriptor(choices=[0, 0, 0, 0, 99] + RIGHT[1:]),
    "no_name": descriptor(choices=[1, 1, 0, 5, 5, 5, 1]),
    "empty_name_and_long_version": descriptor(choices=[1, 1, 1, 3, 0x10, 0x00, 5, 5, 1]),
    "junk_after_nul_in_fingerprint": descriptor(choices=[1, 1, 5, 5, 5, 4, 1], tail=b"junk\\x"),
    "random_sdk_version": descriptor(choices=[1, 1, 5, 5, 2, 5, 1], tail=b"9.9.9\\x"),
    "null_fingerprint": descriptor(choices=[1, 1, 5, 5, 5, 0, 1]),
    "no_init": descriptor(choices=[1, 1, 5, 5, 5, 5, 0]),
}
for name, data in PLUGINS.items():
    write("plugin_descriptor", "seed_" + name, data)
