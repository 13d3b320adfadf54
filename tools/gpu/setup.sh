# tools/gpu/setup.sh - source on the GPU machine, in the repository root.
#
# Unpacks build/gpu/pack.tar.xz (tools/gpu/pack.sh) at the build path baked
# into its programs (WICK_BUILD, default /work/main/build/release: a link to
# here when that path does not exist), and points LD_LIBRARY_PATH at the
# packed Debian libraries and at the CUDA libraries of python3's nvidia
# packages.
root=$PWD
build=${WICK_BUILD:-/work/main/build/release}
src=${build%/build/*}
if [ ! -e "$src" ]; then mkdir -p "$(dirname "$src")" && ln -s "$root" "$src"; fi
mkdir -p "$build" /tmp/wick_gpu
xz -dc "$root/build/gpu/pack.tar.xz" | tar -C /tmp/wick_gpu -xf -
tar -C "$build" -xf /tmp/wick_gpu/build.tar
if [ -f /tmp/wick_gpu/cmake/path ]; then  # for ctest: the CMake module its test lists name
  module=$(cat /tmp/wick_gpu/cmake/path)
  [ -e "$module" ] || { mkdir -p "$(dirname "$module")" && cp /tmp/wick_gpu/cmake/GoogleTestAddTests.cmake "$module"; }
fi
nvidia=$(python3 -c 'import nvidia, os; print(os.path.dirname(list(nvidia.__path__)[0]))' 2>/dev/null)/nvidia
cuda_libs=$(find "$nvidia" -name 'lib*.so*' -printf '%h\n' 2>/dev/null | sort -u | tr '\n' ':')
export LD_LIBRARY_PATH="/tmp/wick_gpu/deblib:${cuda_libs}${LD_LIBRARY_PATH:-}"
export WICK_GPU_BUILD=$build
