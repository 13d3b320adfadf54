#!/usr/bin/env bash
# tests/docs/cpp_snippets.sh - the docs' C++ snippets against a fresh install of this build:
# install to a temporary prefix (as tests/integration/out_of_tree.sh does), then let
# tests/docs/check_docs.py compile each snippet with pkg-config's flags and run it, and build the
# pages' CMake projects (the front page's application) with find_package(Wick).
# Usage: cpp_snippets.sh CMAKE_COMMAND BUILD_DIR SOURCE_DIR
set -euo pipefail
cmake=$1 build=$2 src=$3
# A build copied to a machine without this one's toolchain cannot compile against it (77: skipped).
if [[ ! -x "$cmake" || ! -e /usr/include/boost/dll.hpp || ! -e /usr/include/spdlog/spdlog.h ]] ||
   ! command -v pkg-config > /dev/null || ! command -v c++ > /dev/null; then
  echo "SKIPPED: needs the build machine's toolchain ($cmake, c++, pkg-config, Boost and spdlog headers)"
  exit 77
fi
umask 022
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
if ! "$cmake" --install "$build" --prefix "$work/prefix" > "$work/install.log" 2>&1; then
  echo "FAILED: cmake --install"
  cat "$work/install.log"
  exit 1
fi
WICK_DOCS_CMAKE=$cmake exec python3 "$src/tests/docs/check_docs.py" cpp --source "$src" --prefix "$work/prefix"
