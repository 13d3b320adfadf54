#!/usr/bin/env bash
# wick quick start, part 1: install dependencies, build (release), run the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
# Plugins that other users could modify are refused (sdk/docs/trust.md): build
# them with files only their owner can write.
umask 022
bash tools/install-deps.sh
cmake --preset release -DWICK_BUILD_TESTS=OFF -DWICK_BUILD_BENCH=OFF
cmake --build --preset release --target wick_cli cpu extending_autograd extending_torch wick_example_train \
  wick_example_mlp wick_example_dcgan wick_example_mnist
build/release/bin/wick demo
echo
echo "== training the note's Linear module (plugins/extending_autograd) =="
build/release/bin/wick_example_train
echo
echo "== libtorch's C++ examples in wick (tools/examples): the MLP, DCGAN, the MNIST-style classifier =="
build/release/bin/wick_example_mlp
build/release/bin/wick_example_dcgan --checkpoint-dir "${TMPDIR:-/tmp}"
build/release/bin/wick_example_mnist
