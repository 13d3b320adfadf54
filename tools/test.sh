#!/usr/bin/env bash
# wick quick start, part 2: install dependencies, then build and run the whole
# test suite with ctest in the release preset (GCC) and under AddressSanitizer +
# UndefinedBehaviorSanitizer (the asan preset: clang, which also builds each
# libFuzzer target of tests/fuzz and runs it for its bounded time), and the
# concurrency tests under ThreadSanitizer (the tsan preset, GCC).
# Set WICK_TEST_PRESETS to run a subset, e.g. WICK_TEST_PRESETS=release.
set -euo pipefail
cd "$(dirname "$0")/.."
# Plugins that other users could modify are refused (sdk/docs/trust.md): build
# them with files only their owner can write.
umask 022
# ctest runs two test processes at once: libgomp's threads would otherwise
# spin for the core the other process needs (sdk/docs/dispatch.md, "Threads and memory").
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
bash tools/install-deps.sh
for preset in ${WICK_TEST_PRESETS:-release asan tsan}; do
  echo "== $preset (at ${SECONDS} s) =="
  cmake --preset "$preset" -DWICK_WERROR=ON
  cmake --build --preset "$preset"
  if [[ $preset == tsan ]] && command -v setarch > /dev/null; then
    # GCC 12's ThreadSanitizer cannot map its shadow memory under the high
    # mmap randomisation of recent kernels; without ASLR it always can.
    setarch "$(uname -m)" -R ctest --preset "$preset"
  else
    ctest --preset "$preset"
  fi
done
echo "== tests done (at ${SECONDS} s) =="
