#!/usr/bin/env bash
# wick — install every build and test dependency from Debian 12 packages.
#
# Idempotent: packages already present are left alone. Runs apt-get as root,
# or through sudo otherwise. Set WICK_WITH_LIBTORCH=1 to also install
# Debian's libtorch-dev, used only by the side-by-side benchmarks.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config git
  python3                                # the operator generator (sdk/opgen) and the layer check
  libboost-dev libboost-filesystem-dev   # Boost.DLL (header-only) + its filesystem dependency
  nettle-dev                             # SHA-256 for the plugin allowlist
  libspdlog-dev                          # logging
  libopenblas-dev libopenblas-openmp-dev # CPU BLAS; its OpenMP build shares wick's thread pool
  libdnnl-dev                            # oneDNN: bfloat16 CPU matrix products
  libkissfft-dev                         # kissfft: the CPU DFTs of torch.fft (its header-only C++ class)
  libdlpack-dev                          # DLPack: wick::to_dlpack / from_dlpack (its one header)
  libgtest-dev libgmock-dev              # tests
  libbenchmark-dev                       # benchmarks
  libcli11-dev                           # the wick CLI
  nlohmann-json3-dev                     # JSON output and reference files
  libzip-dev                             # the zip container of PyTorch .pt files (wick::save / wick::load)
  libgloo-dev                            # Gloo: the gloo plugin, wick::distributed's CPU engine
  clang-tidy                             # naming check (tools/lint.sh)
  valgrind                               # the Valgrind.* leak checks (ctest label valgrind)
  doxygen                                # the API reference (target docs) and its comment check (Docs.ApiComments)
  clang libclang-rt-14-dev libomp-14-dev # the asan and fuzz presets: libFuzzer + sanitizer runtimes, OpenMP for clang
)
if [[ "${WICK_WITH_LIBTORCH:-0}" == 1 ]]; then
  packages+=(libtorch-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

as_root=()
if [[ $(id -u) -ne 0 ]]; then as_root=(sudo); fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
