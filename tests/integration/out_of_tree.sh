#!/usr/bin/env bash
# tests/integration/out_of_tree.sh - the SDK from an extension author's side:
# install wick to a temporary prefix, build sdk/template and an application
# against it with only CMAKE_PREFIX_PATH, drop the plugin into a directory,
# and use it through WICK_PLUGIN_PATH, `wick eval` and the application; then
# move the install and check it still finds its own backends and plugins.
# Usage: out_of_tree.sh CMAKE_COMMAND BUILD_DIR SOURCE_DIR
set -euo pipefail
cmake=$1 build=$2 src=$3
# A build copied to a machine without this one's toolchain (the GPU
# machine: no cmake at the configured path, no Boost or spdlog headers)
# cannot build out of tree: ctest reports the test skipped (77).
if [[ ! -x "$cmake" || ! -e /usr/include/boost/dll.hpp || ! -e /usr/include/spdlog/spdlog.h ]]; then
  echo "SKIPPED: needs the build machine's toolchain ($cmake, Boost and spdlog headers)"
  exit 77
fi
umask 022
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"

run_logged() {  # run_logged LOG COMMAND...: the log is printed if the command fails
  local log=$1
  shift
  if ! "$@" >> "$log" 2>&1; then
    echo "FAILED: $*"
    cat "$log"
    exit 1
  fi
}

for tool in objdump pkg-config c++; do
  command -v "$tool" > /dev/null || { echo "FAILED: $tool is needed (tools/install-deps.sh installs it)"; exit 1; }
done

expect() {  # expect WHAT EXPECTED ACTUAL
  if [[ "$2" != "$3" ]]; then
    printf 'FAILED: %s\n  expected: %s\n  actual:   %s\n' "$1" "$2" "$3"
    exit 1
  fi
  echo "ok: $1"
}

run_logged "$work/install.log" "$cmake" --install "$build" --prefix "$work/prefix"
prefix=$work/prefix
# The layout: SDK headers only, libwick with its SONAME, backends, plugins,
# the CMake package, the pkg-config file, the CLI, the template.
for f in include/wick/plugin.h lib/libwick.so lib/cmake/Wick/WickConfig.cmake lib/cmake/Wick/WickConfigVersion.cmake \
         lib/cmake/Wick/WickTargets.cmake lib/pkgconfig/wick.pc lib/wick/backends/libwick_cpu.so \
         lib/wick/plugins/libwick_extending_torch.so bin/wick share/wick/template/CMakeLists.txt; do
  [[ -e "$prefix/$f" ]] || { echo "FAILED: $f is not installed"; exit 1; }
done
expect "only headers under include/wick" "" "$(find "$prefix/include/wick" -type f ! -name '*.h' ! -name 'torch_methods.inc')"
expect "libwick's SONAME" "libwick.so.0" \
  "$(objdump -p "$prefix/lib/libwick.so" | awk '/SONAME/ {print $2}')"
expect "no compile flags leak into consumers" "" \
  "$(grep -E 'INTERFACE_(COMPILE_OPTIONS|COMPILE_DEFINITIONS|LINK_OPTIONS)' "$prefix/lib/cmake/Wick/WickTargets.cmake" || true)"

# The template and an application, each against the installed package only.
gen=()
command -v ninja > /dev/null && gen=(-G Ninja)
run_logged "$work/template.log" "$cmake" -S "$prefix/share/wick/template" -B "$work/template" "${gen[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix"
run_logged "$work/template.log" "$cmake" --build "$work/template"
mkdir "$work/plugins"
cp "$work/template/libwick_myplugin.so" "$work/plugins/"
export WICK_PLUGIN_PATH=$work/plugins WICK_LOG_LEVEL=error

expect "the operator through wick eval" "tensor([3., 3.])" \
  "$("$prefix/bin/wick" eval 'myplugin.scale(torch.ones(2), 3.0)')"
expect "the type's handler through wick eval" "tensor(6.)" \
  "$("$prefix/bin/wick" eval 'torch.sum(Scaled(torch.ones(3), 2.0))')"
expect "plugins list names it" "myplugin 0.1.0 (plugin) $work/plugins/libwick_myplugin.so" \
  "$("$prefix/bin/wick" plugins list | grep '^myplugin ')"
# What its one definition gives: a method, out=, the Meta backend, a clean opcheck.
expect "its out= variant" "tensor([1.5000, 1.5000], dtype=torch.float64)" \
  "$("$prefix/bin/wick" eval 'myplugin.scale(torch.ones(2), 1.5, out=torch.empty(2, dtype=torch.float64))')"
expect "its method" "tensor([-1., -1.])" "$("$prefix/bin/wick" eval 'myplugin.Tensor.scale(torch.ones(2), -1.0)')"
expect "meta tensors through its meta function" "tensor(..., device='meta', size=(2, 3))" \
  "$("$prefix/bin/wick" eval 'myplugin.scale(torch.ones(2, 3, device="meta"), 2.0)')"
expect "wick opcheck --plugin is clean" "opcheck: 3 operators, 11 checks passed, 0 failed, 1 skipped" \
  "$("$prefix/bin/wick" opcheck --plugin "$work/plugins/libwick_myplugin.so" | tail -1)"

run_logged "$work/consumer.log" "$cmake" -S "$src/tests/integration/consumer" -B "$work/consumer" "${gen[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix"
run_logged "$work/consumer.log" "$cmake" --build "$work/consumer"
expect "an application built against the package" "consumer: all checks passed" "$("$work/consumer/consumer")"

# pkg-config: the same library for builds without CMake.
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs wick)
printf '#include <wick/loader.h>\n#include <wick/ops.h>\nint main() { wick::init(); return wick::ones({2}).dim() == 1 ? 0 : 1; }\n' > "$work/pc.cpp"
# shellcheck disable=SC2086
run_logged "$work/pc.log" c++ -std=c++20 "$work/pc.cpp" -o "$work/pc" $flags -Wl,-rpath,"$prefix/lib"
"$work/pc" || { echo "FAILED: the program built with pkg-config's flags"; exit 1; }
echo "ok: a program built with pkg-config's flags"

# Relocatable: a moved install still finds its own backends and plugins.
mv "$prefix" "$work/moved"
unset WICK_PLUGIN_PATH
expect "the moved install's CLI" "tensor([2., 4.])" \
  "$("$work/moved/bin/wick" eval 'torch.tensor([1., 2.]) * 2')"
expect "the moved install's plugins" "$work/moved/lib/wick/backends/libwick_cpu.so" \
  "$("$work/moved/bin/wick" plugins list --json | grep -o '"path":"[^"]*libwick_cpu.so"' | cut -d'"' -f4)"
echo "out-of-tree: all checks passed"
