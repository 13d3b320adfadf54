// tests/plugins/helper/helper.cpp - a plain shared library that test_uses_helper opens through the loader.
/// \file
/// Not a plugin (no entry point): a library of the kind a plugin keeps
/// beside itself, as the CUDA backend keeps its kernels in cuda/.
extern "C" __attribute__((visibility("default"))) int wick_test_helper_factor() { return 7; }
