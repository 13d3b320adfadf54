#!/usr/bin/env python3
# tests/examples/make_dcgan_fixture.py - a DCGAN generator checkpoint written by PyTorch 1.13, with noise and its outputs.
#
# Run with Debian's python3-torch (PyTorch 1.13): /usr/bin/python3 tests/examples/make_dcgan_fixture.py
# Writes tests/data/reference/examples/dcgan_generator.pt (the generator's state_dict, saved by torch.save)
# and dcgan_io.pt (the noise, and the generator's output in eval and in train mode). The generator is
# tools/examples/dcgan_model.h's, with the same module names, at width 8 and noise size 16 so the file stays small.
import os

import torch
from torch import nn

NOISE, WIDTH = 16, 8


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.ConvTranspose2d(NOISE, WIDTH * 4, 4, bias=False)
        self.batch_norm1 = nn.BatchNorm2d(WIDTH * 4)
        self.conv2 = nn.ConvTranspose2d(WIDTH * 4, WIDTH * 2, 3, stride=2, padding=1, bias=False)
        self.batch_norm2 = nn.BatchNorm2d(WIDTH * 2)
        self.conv3 = nn.ConvTranspose2d(WIDTH * 2, WIDTH, 4, stride=2, padding=1, bias=False)
        self.batch_norm3 = nn.BatchNorm2d(WIDTH)
        self.conv4 = nn.ConvTranspose2d(WIDTH, 1, 4, stride=2, padding=1, bias=False)

    def forward(self, x):
        x = torch.relu(self.batch_norm1(self.conv1(x)))
        x = torch.relu(self.batch_norm2(self.conv2(x)))
        x = torch.relu(self.batch_norm3(self.conv3(x)))
        return torch.tanh(self.conv4(x))


def main():
    torch.manual_seed(21)
    g = Generator()
    # Running statistics and affine parameters away from their defaults, as after training.
    with torch.no_grad():
        for bn in (g.batch_norm1, g.batch_norm2, g.batch_norm3):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.2, 0.2)
            bn.num_batches_tracked.fill_(7)
    noise = torch.randn(3, NOISE, 1, 1)
    out = os.path.join(os.path.dirname(__file__), "..", "data", "reference", "examples")
    os.makedirs(out, exist_ok=True)
    torch.save(g.state_dict(), os.path.join(out, "dcgan_generator.pt"))
    g.eval()
    with torch.no_grad():
        eval_out = g(noise)
    g.train()
    with torch.no_grad():
        train_out = g(noise)
    torch.save({"noise": noise, "eval": eval_out, "train": train_out}, os.path.join(out, "dcgan_io.pt"))


if __name__ == "__main__":
    main()
