#!/usr/bin/env bash
# tests/integration/plugin_lifecycle.sh - issue 17's acceptance, from an
# extension author's side: on a fresh install, follow the README's trust
# recipe literally, build sdk/template out of tree four times (a different
# version and kernel each time) and, in one long-running `wick shell`,
# reload it after each rebuild: each reload must run the new code, and the
# allowlist must judge each build (refused until listed, the loaded build
# staying). Then the configure-time checks of wick_add_plugin: another C++
# standard, and another compiler where clang++ is installed.
# Usage: plugin_lifecycle.sh CMAKE_COMMAND BUILD_DIR
set -euo pipefail
cmake=$1 build=$2
# A build copied to a machine without this one's toolchain (the GPU
# machine: no cmake at the configured path, no Boost or spdlog headers)
# cannot build out of tree: ctest reports the test skipped (77).
if [[ ! -x "$cmake" || ! -e /usr/include/boost/dll.hpp || ! -e /usr/include/spdlog/spdlog.h ]]; then
  echo "SKIPPED: needs the build machine's toolchain ($cmake, Boost and spdlog headers)"
  exit 77
fi
umask 022
work=$(mktemp -d)
chmod 755 "$work"
shell_pid=
cleanup() {
  [[ -n "$shell_pid" ]] && kill "$shell_pid" 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAILED: $*"
  exit 1
}
run_logged() {  # run_logged LOG COMMAND...: the log is printed if the command fails
  local log=$1
  shift
  if ! "$@" >> "$log" 2>&1; then
    echo "FAILED: $*"
    cat "$log"
    exit 1
  fi
}
expect() {  # expect WHAT EXPECTED ACTUAL
  if [[ "$2" != "$3" ]]; then
    printf 'FAILED: %s\n  expected: %s\n  actual:   %s\n' "$1" "$2" "$3"
    exit 1
  fi
  echo "ok: $1"
}
expect_in() {  # expect_in WHAT PART TEXT
  [[ "$3" == *"$2"* ]] || { printf 'FAILED: %s\n  expected to contain: %s\n  actual: %s\n' "$1" "$2" "$3"; exit 1; }
  echo "ok: $1"
}

run_logged "$work/install.log" "$cmake" --install "$build" --prefix "$work/wick"
prefix=$work/wick
gen=()
command -v ninja > /dev/null && gen=(-G Ninja)

# The author's copy of the template; build N scales by N times the factor
# and is version 0.1.N.
cp -r "$prefix/share/wick/template" "$work/myplugin"
template_source=$(cat "$work/myplugin/myplugin.cpp")
build_plugin() {  # build_plugin N
  local n=$1
  local src=${template_source//'WICK_PLUGIN("myplugin", "0.1.0"'/"WICK_PLUGIN(\"myplugin\", \"0.1.$n\""}
  src=${src//'static_cast<float>(factor)'/"static_cast<float>(factor * $n)"}
  [[ "$src" != "$template_source" ]] || fail "the template's version or kernel line changed; update this test"
  printf '%s\n' "$src" > "$work/myplugin/myplugin.cpp"
  run_logged "$work/build.log" "$cmake" --build "$work/myplugin/build"
  # Installed as a linker writes its output: a new file renamed into place.
  cp "$work/myplugin/build/libwick_myplugin.so" "$work/wick-plugins/.libwick_myplugin.so.new"
  mv "$work/wick-plugins/.libwick_myplugin.so.new" "$work/wick-plugins/libwick_myplugin.so"
}
mkdir "$work/wick-plugins"
run_logged "$work/build.log" "$cmake" -S "$work/myplugin" -B "$work/myplugin/build" "${gen[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix"
build_plugin 1

# The README's recipe ("Trust"), literally: the install's backends (the CUDA
# kernel library included) and plugins, then the author's plugins (after a
# rebuild, the new build's line is appended the same way).
(cd "$prefix" && find lib/wick -name '*.so' -exec sha256sum {} + > "$work/wick-allowlist")
allow_plugin() { (cd "$work/wick-plugins" && sha256sum *.so) >> "$work/wick-allowlist"; }
allow_plugin
export WICK_PLUGIN_PATH=$work/wick-plugins WICK_PLUGIN_ALLOWLIST=$work/wick-allowlist WICK_LOG_LEVEL=error
expect "a fresh process with the allowlist: no refusal" "0" \
  "$("$prefix/bin/wick" plugins list > /dev/null 2>&1; echo $?)"

# One long-running session.
mkfifo "$work/to_shell" "$work/from_shell"
"$prefix/bin/wick" shell < "$work/to_shell" > "$work/from_shell" 2>&1 &
shell_pid=$!
exec 3> "$work/to_shell" 4< "$work/from_shell"
say() {  # say LINE: runs LINE in the session and prints its output
  printf '%s\n%s\n' "$1" "eval \"'--end--'\"" >&3
  local line out=""
  while IFS= read -r -t 120 line <&4; do
    [[ "$line" == "'--end--'" ]] && { printf '%s' "$out"; return; }
    out+="$line"$'\n'
  done
  fail "the session did not answer '$1' (got: $out)"
}
scale="eval 'myplugin.scale(torch.ones(2), 3.0)'"
expect "build 1 runs" "tensor([3., 3.])" "$(say "$scale")"
expect "its type's handler" "tensor(6.)" "$(say "eval 'torch.sum(Scaled(torch.ones(3), 2.0))'")"
for n in 2 3 4; do
  build_plugin "$n"
  out=$(say "plugins reload myplugin")
  expect_in "build $n, not yet on the allowlist, is refused" "refused: not on the allowlist $work/wick-allowlist" "$out"
  expect_in "build $((n - 1)) stays loaded" "version 0.1.$((n - 1)) stays loaded" "$out"
  expect "build $((n - 1)) still runs" "tensor([$((3 * (n - 1)))., $((3 * (n - 1))).])" "$(say "$scale")"
  allow_plugin
  expect "reload to build $n" "reloaded myplugin 0.1.$((n - 1)) -> 0.1.$n (plugin) $work/wick-plugins/libwick_myplugin.so" \
    "$(say "plugins reload myplugin" | head -1)"
  expect "build $n runs" "tensor([$((3 * n))., $((3 * n)).])" "$(say "$scale")"
done
expect "unloading unmaps it" "unloaded myplugin 0.1.4 ($work/wick-plugins/libwick_myplugin.so); its code is unmapped" \
  "$(say "plugins unload myplugin")"
exec 3>&-
wait "$shell_pid" || true  # its exit code is 1: the refused reloads
shell_pid=

# A fresh process with the recipe's list and the last build: nothing refused.
expect "a new process runs the last build" "tensor([12., 12.])" \
  "$("$prefix/bin/wick" eval 'myplugin.scale(torch.ones(2), 3.0)')"
# Without the backends in the list, the CPU backend is refused, and saying so.
(cd "$prefix" && sha256sum lib/wick/plugins/*.so > "$work/plugins-only")
out=$(WICK_PLUGIN_PATH= WICK_PLUGIN_ALLOWLIST=$work/plugins-only "$prefix/bin/wick" eval 'torch.ones(2)' 2>&1 || true)
# (With CUDA built, the CUDA backend is refused too: "These plugin files were found".)
expect_in "a list without the backends refuses the CPU backend, and says so" \
  "found but not loaded: $prefix/lib/wick/backends/libwick_cpu.so: refused: not on the allowlist" \
  "$out"
expect_in "the refusal names the list" "libwick_cpu.so: refused: not on the allowlist $work/plugins-only" "$out"

# Configure-time checks (wick_add_plugin): another C++ standard...
unset WICK_PLUGIN_PATH WICK_PLUGIN_ALLOWLIST
out=$("$cmake" -S "$work/myplugin" -B "$work/cxx23" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_STANDARD=23 2>&1 | tr -s ' \n' ' ' || true)  # CMake wraps its messages
expect_in "C++23 stops the configure" "CMAKE_CXX_STANDARD is 23, but wick plugins are compiled as C++20" "$out"
# ...and another compiler.
if command -v clang++ > /dev/null && ! c++ --version | grep -qi clang; then
  out=$(CXX=clang++ "$cmake" -S "$work/myplugin" -B "$work/clang" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix" 2>&1 |
    tr -s ' \n' ' ' || true)
  expect_in "clang++ stops the configure" "but the wick SDK was built with GNU" "$out"
else
  echo "skipped: the compiler check (needs clang++ beside a non-clang c++)"
fi
echo "plugin lifecycle: all checks passed"
