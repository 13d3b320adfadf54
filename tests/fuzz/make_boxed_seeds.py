#!/usr/bin/env python3
# tests/fuzz/make_boxed_seeds.py - writes corpus/boxed_call/: one seed per operator
# family, "<operator>\n" followed by fixed pseudo-random bytes (boxed_call_fuzz.cpp
# decodes the bytes into the arguments). Rerun after changing the list.
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

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "boxed_call")
os.makedirs(out, exist_ok=True)
rng = random.Random(7)
for i, op in enumerate(OPS):
    with open(os.path.join(out, f"seed_{i:02d}"), "wb") as f:
        f.write(op.encode() + b"\n" + bytes(rng.randrange(256) for _ in range(rng.randrange(16, 96))))
