// tools/bench/bench_plugin.cpp - a small plugin for the loading benchmark, named after its file.
/// \file
/// The benchmark copies this one .so to 50 files (libwick_bench_copy_0.so,
/// ...): each copy calls itself by its file's name ("bench_copy_0") and
/// defines one operator with a CPU kernel in a namespace of that name, so
/// the 50 copies are 50 distinct plugins.
#include <dlfcn.h>

#include <string>

#include <wick/ops.h>
#include <wick/plugin.h>

namespace {

wick::Tensor twice(const wick::Tensor& x) { return wick::add(x, x); }

const char* own_name() {
  static const std::string name = [] {
    Dl_info info{};
    std::string file = dladdr(reinterpret_cast<void*>(&twice), &info) != 0 && info.dli_fname != nullptr
                           ? std::string(info.dli_fname)
                           : std::string("libwick_bench_plugin.so");
    file = file.substr(file.rfind('/') + 1);                        // libwick_bench_copy_7.so
    file = file.substr(0, file.find('.'));                          // libwick_bench_copy_7
    return file.rfind("libwick_", 0) == 0 ? file.substr(8) : file;  // bench_copy_7
  }();
  return name.c_str();
}

}  // namespace

WICK_PLUGIN(own_name(), "0.1.0", registrar) {
  const std::string ns = own_name();
  registrar.library(ns).def("twice(Tensor self) -> Tensor");
  registrar.library(ns, wick::DispatchKey::kCPU).impl("twice", &twice);
}
