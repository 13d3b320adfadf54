// tools/bench/bench_loader.cpp - loading plugins, and the CLI's start-up.
/// \file
///   loader_load_50_plugins        load 50 distinct small plugins (one operator and
///                                 one CPU kernel each); their unloading is not timed
///   cli_startup_ops_overridable   run `wick ops overridable` as a new process
///                                 (loads the default backend and plugins)
/// No libtorch twin: these are wick's own costs (targets: under 50 ms each).
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "wick/loader.h"

namespace {

namespace fs = std::filesystem;

void wick_loader_load_50_plugins(benchmark::State& state) {
  wick::init();
  const fs::path dir = fs::temp_directory_path() / ("wick_bench_plugins_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::group_write | fs::perms::others_write, fs::perm_options::remove);
  std::vector<std::string> files;
  for (int i = 0; i < 50; ++i) {
    files.push_back((dir / ("libwick_bench_copy_" + std::to_string(i) + ".so")).string());
    fs::copy_file(WICK_BENCH_PLUGIN_PATH, files.back(), fs::copy_options::overwrite_existing);
  }
  for (auto _ : state) {
    for (const std::string& f : files) benchmark::DoNotOptimize(wick::load_plugin(f));
    state.PauseTiming();
    for (int i = 0; i < 50; ++i) wick::unload_plugin("bench_copy_" + std::to_string(i));
    state.ResumeTiming();
  }
  fs::remove_all(dir);
}
BENCHMARK(wick_loader_load_50_plugins)->Unit(benchmark::kMillisecond)->UseRealTime();

void wick_cli_startup_ops_overridable(benchmark::State& state) {
  const std::string cmd = std::string("'") + WICK_BENCH_CLI_PATH + "' ops overridable > /dev/null";
  for (auto _ : state)
    if (std::system(cmd.c_str()) != 0) state.SkipWithError("wick ops overridable failed");
}
BENCHMARK(wick_cli_startup_ops_overridable)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
