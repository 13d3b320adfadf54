"""Writes bitwise.json: values PyTorch 1.13 computes in its own order, for tests/cli/random_test.cpp to compare bit
for bit: its random numbers after torch.manual_seed ("random"), and linspace ("arithmetic").

Run under Debian's python3-torch (PyTorch 1.13.1) on an x86-64 machine with AVX2 (PyTorch's float32 randn of
16 or more values and its linspace take their AVX2 kernels there): /usr/bin/python3 make_bitwise.py > bitwise.json
Each case is an expression that `wick eval` reads too; float values are written as their IEEE bit patterns
(hex), so that the test compares them bit for bit.
"""
import json
import struct

import torch
import torch.nn.functional as F


def bits(t):
    if t.dtype == torch.float32:
        return ['%08x' % struct.unpack('<I', struct.pack('<f', v))[0] for v in t.flatten().tolist()]
    if t.dtype == torch.float64:
        return ['%016x' % struct.unpack('<Q', struct.pack('<d', v))[0] for v in t.flatten().tolist()]
    return t.flatten().tolist()


def run(expr):
    *first, last = expr.split(';')
    scope = {'torch': torch, 'F': F}
    for statement in first:
        exec(statement.strip(), scope)
    return eval(last.strip(), scope)


exprs = []
for d in ('float32', 'float64'):
    for n in (1, 3, 5, 15, 16, 17, 20, 37, 100):
        exprs.append(f'torch.manual_seed(0); torch.rand({n}, dtype=torch.{d})')
        exprs.append(f'torch.manual_seed(0); torch.randn({n}, dtype=torch.{d})')
    exprs += [
        f'torch.manual_seed(42); torch.rand(2, 3, dtype=torch.{d})',
        f'torch.manual_seed(7); torch.randn(4, 5, dtype=torch.{d})',
        # the second value of a Box-Muller pair waits in the generator for the next call
        f'torch.manual_seed(0); torch.cat([torch.randn(3, dtype=torch.{d}), torch.randn(1, dtype=torch.{d})])',
        f'torch.manual_seed(0); F.dropout(torch.ones(16, dtype=torch.{d}), 0.5)',
        f'torch.manual_seed(3); F.dropout(torch.arange(1., 11., dtype=torch.{d}), 0.3)',
    ]
exprs.append('torch.manual_seed(2**32 + 5); torch.rand(3)')  # the low 32 bits seed the generator
for lo, hi in ((0, 10), (-5, 1000), (0, 2**33), (-2**40, 2**40)):
    exprs.append(f'torch.manual_seed(0); torch.randint({lo}, {hi}, (6,))')
exprs.append('torch.manual_seed(1); torch.cat([torch.randint(0, 3, (4,)).to(torch.float32), torch.rand(2)])')
arithmetic = []
for d in ('float32', 'float64'):
    for a, b, n in ((-1, 1, 7), (0, 1, 10), (0, 10, 37), (-3.3, 7.1, 100), (0.001, 5, 33), (2, -2, 50),
                    (0, 1, 1000), (-7.3127, 6.9487, 197), (1, 1, 5), (0, 1, 2), (5, 6, 1), (-1e10, 1e-10, 64)):
        arithmetic.append(f'torch.linspace({a}, {b}, {n}, dtype=torch.{d})')


def cases_of(exprs):
    cases = []
    for expr in exprs:
        t = run(expr)
        cases.append({'expr': expr, 'dtype': str(t.dtype).replace('torch.', ''), 'shape': list(t.shape),
                      'values': bits(t)})
    return cases


print(json.dumps({'made_by': 'make_bitwise.py, PyTorch ' + torch.__version__, 'random': cases_of(exprs),
                  'arithmetic': cases_of(arithmetic)}, indent=1))
