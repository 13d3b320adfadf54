#!/usr/bin/env bash
# wick's lints: raw int64 size arithmetic in kernels and meta functions
# (tools/check_size_arith.py, Note [Checked size arithmetic]), then the
# naming check (.clang-tidy, STYLE.md) over every source file but the ones that
# include libtorch (benchmark twins, the DLPack interop test), whose headers clang-tidy cannot parse.
# Needs a configured build for compile_commands.json (default build/release).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
python3 tools/check_size_arith.py --self-test
python3 tools/check_size_arith.py
mapfile -t files < <(git ls-files 'core/*.cpp' 'dispatch/*.cpp' 'plugins/*.cpp' 'backends/*.cpp' 'tools/*.cpp' \
  'tests/*.cpp' | grep -v -E 'tools/bench/.*libtorch.cpp|tests/libtorch/')
# clang does not know GCC's -fno-gnu-unique (wick_add_plugin, GCC only), nor
# read GCC's precompiled headers (WICK_PCH): the check reads a copy of the
# compile commands without them.
db=$(mktemp -d)
trap 'rm -rf "$db"' EXIT
sed -E 's/ -fno-gnu-unique//g; s/ -Winvalid-pch//g; s/ -include [^ ]*cmake_pch\.hxx//g' \
  "$build/compile_commands.json" > "$db/compile_commands.json"
run-clang-tidy -p "$db" -quiet -j "$(nproc)" -extra-arg=-Wno-unknown-warning-option "${files[@]}" > "$build/lint.log" 2>&1 || {
  grep -E 'error:|warning:' "$build/lint.log" | grep -v 'warnings generated' | sort -u
  echo "lint: naming check failed (full log: $build/lint.log)"
  exit 1
}
echo "lint: ${#files[@]} files clean"
