#!/usr/bin/python3
# tests/serialization/make_serialization_fixtures.py - writes the .pt and .safetensors fixtures of tests/serialization.
"""Run with PyTorch 1.13 (/usr/bin/python3 has it):

    /usr/bin/python3 tests/serialization/make_serialization_fixtures.py

Writes small files into tests/data/reference/serialization/ with torch.save
(and safetensors files with the small writer below: the `safetensors` package
is not installed here), plus expected.json: for each file and key the dtype,
shape, strides, storage offset and values (complex values as [re, im] pairs).
"""
import collections
import json
import os
import struct
import zipfile

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "reference", "serialization")
DTYPE_NAMES = {
    torch.float32: "float32", torch.float64: "float64", torch.float16: "float16", torch.bfloat16: "bfloat16",
    torch.int64: "int64", torch.int32: "int32", torch.int16: "int16", torch.int8: "int8", torch.uint8: "uint8",
    torch.bool: "bool", torch.complex64: "complex64",
}
SAFETENSORS_DTYPES = {
    torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.int64: "I64",
    torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8", torch.bool: "BOOL",
}


def describe(t):
    flat = t.detach().reshape(-1)
    if t.is_complex():
        values = [[float(z.real), float(z.imag)] for z in flat.tolist()]
    elif t.dtype == torch.bool:
        values = [int(v) for v in flat.tolist()]
    else:
        values = [float(v) for v in flat.double().tolist()]
    return {"dtype": DTYPE_NAMES[t.dtype], "shape": list(t.shape), "strides": list(t.stride()),
            "storage_offset": t.storage_offset(), "requires_grad": t.requires_grad, "values": values}


def dtype_zoo():
    base = torch.tensor([-3.0, -1.5, 0.0, 0.25, 2.0, 7.0])
    zoo = collections.OrderedDict()
    zoo["float32"] = base.reshape(2, 3)
    zoo["float64"] = (base * 1.125).double()
    zoo["float16"] = base.half()
    zoo["bfloat16"] = base.bfloat16()
    zoo["int64"] = torch.tensor([-(2 ** 40), -1, 0, 1, 2 ** 40, 7])
    zoo["int32"] = torch.tensor([-(2 ** 30), -1, 0, 5], dtype=torch.int32)
    zoo["int16"] = torch.tensor([-300, 0, 300], dtype=torch.int16)
    zoo["int8"] = torch.tensor([-128, -1, 0, 127], dtype=torch.int8)
    zoo["uint8"] = torch.tensor([0, 1, 200, 255], dtype=torch.uint8)
    zoo["bool"] = torch.tensor([True, False, True])
    zoo["complex64"] = torch.tensor([1 + 2j, -0.5 + 0j, 0 - 3j], dtype=torch.complex64)
    zoo["scalar"] = torch.tensor(4.5)
    zoo["empty"] = torch.zeros(0, 3)
    return zoo


def write_safetensors(path, tensors, metadata):
    """A plain writer of the format: 8-byte length, space-padded JSON header, data."""
    header = {}
    if metadata:
        header["__metadata__"] = metadata
    data = b""
    for name, t in tensors.items():
        raw = t.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[name] = {"dtype": SAFETENSORS_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def write_archive(path, records):
    """A .pt-shaped zip of (name, bytes) records under archive/."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for name, data in records:
            z.writestr(zipfile.ZipInfo("archive/" + name, date_time=(1980, 1, 1, 0, 0, 0)), data)


def corrupt_files():
    """Broken .pt files: each must load as a SerializationError, never a crash."""
    with zipfile.ZipFile(os.path.join(OUT, "float.pt")) as z:
        pkl = z.read("float/data.pkl")
        storage = z.read("float/data/0")
    version = b"3\n"
    files = {
        "no_pkl": [("data/0", storage), ("version", version)],
        "no_storage": [("data.pkl", pkl), ("version", version)],
        "short_storage": [("data.pkl", pkl), ("data/0", storage[:12]), ("version", version)],
        "truncated_pickle": [("data.pkl", pkl[: len(pkl) // 2]), ("data/0", storage), ("version", version)],
        # size (2, 3) becomes (4, 3): 12 elements over a storage of 6
        "out_of_range": [("data.pkl", pkl.replace(b"K\x02K\x03\x86", b"K\x04K\x03\x86", 1)), ("data/0", storage),
                         ("version", version)],
        # EMPTY_SET (protocol 4), not in the subset
        "opcode": [("data.pkl", b"\x80\x02\x8f."), ("version", version)],
        # os.system('true'): must be refused, never called
        "exec": [("data.pkl", b"\x80\x02cos\nsystem\nX\x04\x00\x00\x00true\x85R."), ("version", version)],
        # a dict that holds itself through the memo
        "cycle": [("data.pkl", b"\x80\x02}q\x00X\x01\x00\x00\x00ah\x00s."), ("version", version)],
    }
    assert files["out_of_range"][0][1] != pkl
    for name, records in files.items():
        write_archive(os.path.join(OUT, "corrupt_" + name + ".pt"), records)
    with open(os.path.join(OUT, "corrupt_not_zip.pt"), "wb") as f:
        f.write(b"PK\x03\x04 this is not a zip archive at all")


def main():
    os.makedirs(OUT, exist_ok=True)
    torch.manual_seed(0)
    expected = {}

    def save(name, obj):
        torch.save(obj, os.path.join(OUT, name))
        if isinstance(obj, torch.Tensor):
            expected[name] = {"": describe(obj)}
        else:
            expected[name] = {k: describe(v) for k, v in obj.items()}

    save("float.pt", torch.arange(6, dtype=torch.float32).reshape(2, 3) * 0.5 - 1)
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    save("view.pt", base[1:, ::2].t())  # storage offset 6, strides (2, 6)
    save("dtypes.pt", dtype_zoo())
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    model(torch.randn(5, 3))  # running statistics move, num_batches_tracked = 1
    save("model.pt", model.state_dict())
    shared = torch.arange(8, dtype=torch.float64)
    save("shared.pt", collections.OrderedDict([("whole", shared), ("tail", shared[4:]), ("grid", shared.view(2, 4))]))
    save("parameter.pt", torch.nn.Parameter(torch.tensor([1.0, -2.0])))
    save("plain_dict.pt", {"b": torch.tensor([1, 2]), "a": torch.tensor([3.0])})
    # As if saved from a GPU: the storage's location tag says cuda:0.
    tag = torch.serialization.location_tag
    torch.serialization.location_tag = lambda storage: "cuda:0"
    try:
        save("cuda.pt", collections.OrderedDict([("w", torch.tensor([[1.5, -2.5]]))]))
    finally:
        torch.serialization.location_tag = tag
    # Not a tensor: loading must refuse these.
    torch.save({"epoch": 3}, os.path.join(OUT, "not_tensors.pt"))
    torch.save([torch.zeros(2)], os.path.join(OUT, "list.pt"))
    torch.save(collections.Counter(a=1), os.path.join(OUT, "counter.pt"))
    torch.save(torch.zeros(2), os.path.join(OUT, "legacy.pt"), _use_new_zipfile_serialization=False)

    corrupt_files()

    zoo = dtype_zoo()
    del zoo["complex64"]
    write_safetensors(os.path.join(OUT, "dtypes.safetensors"), zoo, {"format": "pt", "note": "wick fixtures"})
    expected["dtypes.safetensors"] = {k: describe(v) for k, v in zoo.items()}
    write_safetensors(os.path.join(OUT, "model.safetensors"), model.state_dict(), {})
    expected["model.safetensors"] = {k: describe(v) for k, v in model.state_dict().items()}

    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
