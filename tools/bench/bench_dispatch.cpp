// tools/bench/bench_dispatch.cpp - dispatcher overhead: typed and boxed calls of
// a no-op operator, a 1-element add, and add_out into a preallocated tensor.
/// \file
/// Run: build/release/tools/bench/wick_bench. With libtorch-dev installed the
/// libtorch twins (bench_libtorch.cpp) run in the same process; compare the
/// `wick/...` and `torch/...` lines (the README keeps the latest ratios).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <set>
#include <memory>
#include <string>

#include "wick/dispatcher.h"
#include "wick/library.h"
#include "wick/loader.h"
#include "wick/ops.h"

namespace {

wick::Tensor noop_kernel(const wick::Tensor& self) { return self; }

// The benchmark's own operator, registered for the process (never static init).
struct NoopOp {
  NoopOp() {
    wick::init();
    defs.def("noop(Tensor self) -> Tensor");
    cpu.impl("noop", &noop_kernel);
  }
  wick::Library defs{"bench"};
  wick::Library cpu{"bench", wick::DispatchKey::kCPU};
};

NoopOp& noop_op() {
  static NoopOp op;
  return op;
}

void wick_typed_noop(benchmark::State& state) {
  noop_op();
  auto op = wick::find_op("bench.noop").typed<wick::Tensor(const wick::Tensor&)>();
  wick::Tensor x = wick::ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(op.call(x));
}
BENCHMARK(wick_typed_noop);

void wick_boxed_noop(benchmark::State& state) {
  noop_op();
  auto op = wick::find_op("bench.noop");
  wick::Tensor x = wick::ones({1});
  wick::Stack stack;
  stack.reserve(1);
  for (auto _ : state) {
    stack.clear();
    stack.emplace_back(x);
    op.call_boxed(stack);
    benchmark::DoNotOptimize(stack);
  }
}
BENCHMARK(wick_boxed_noop);

void wick_add_1elem(benchmark::State& state) {
  wick::init();
  wick::Tensor a = wick::ones({1});
  wick::Tensor b = wick::ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(wick::add(a, b));
}
BENCHMARK(wick_add_1elem);

void wick_add_out_1elem(benchmark::State& state) {
  wick::init();
  wick::Tensor a = wick::ones({1});
  wick::Tensor b = wick::ones({1});
  wick::Tensor out = wick::empty({1});
  for (auto _ : state) benchmark::DoNotOptimize(wick::add_out(out, a, b));
}
BENCHMARK(wick_add_out_1elem);

// Console output as usual, then one line per wick_X / torch_X pair (and
// wick_X / blas_X, a raw library call, and wick_X / loop_X, a hand-written
// OpenMP loop) with the ratio of their real times
// (below 1: wick is faster). Names include the arguments: wick_add/1000.
class RatioReporter final : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    // With --benchmark_repetitions the median is used, else the single run.
    for (const Run& r : runs) {
      const std::string name = key(r);
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") {
        times_[name] = r.GetAdjustedRealTime();
        medians_.insert(name);
      } else if (r.run_type == Run::RT_Iteration && !medians_.count(name)) {
        times_[name] = r.GetAdjustedRealTime();
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void print_ratios() const {
    bool any = false;
    for (const char* other : {"torch_", "blas_", "loop_"}) {
      const char* title = other[0] == 't' ? "libtorch" : other[0] == 'b' ? "raw BLAS" : "OpenMP loop";
      bool header = false;
      for (const auto& [name, t] : times_) {
        if (name.rfind("wick_", 0) != 0) continue;
        auto twin = times_.find(other + name.substr(5));
        if (twin == times_.end()) continue;
        if (!header) std::printf("\n%-26s %14s %14s %8s\n", "pair", "wick", title, "ratio");
        header = any = true;
        std::printf("%-26s %12.1fns %12.1fns %8.3f\n", name.substr(5).c_str(), t, twin->second, t / twin->second);
      }
    }
    if (!any) std::printf("\n(libtorch twins not built: install libtorch-dev and reconfigure for ratios)\n");
  }

 private:
  // "wick_add/1000" from the family name and its arguments.
  static std::string key(const Run& r) {
    return r.run_name.args.empty() ? r.run_name.function_name : r.run_name.function_name + "/" + r.run_name.args;
  }
  std::map<std::string, double> times_;
  std::set<std::string> medians_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_ratios();
  benchmark::Shutdown();
  return 0;
}
