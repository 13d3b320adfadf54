// tools/bench/bench_libtorch.cpp - the libtorch twins of bench_dispatch.cpp,
// built only when Debian's libtorch-dev is installed, run in the same binary.
/// \file
#include <ATen/core/dispatch/Dispatcher.h>
#include <benchmark/benchmark.h>
#include <torch/library.h>
#include <torch/torch.h>

namespace {

at::Tensor torch_noop_kernel(const at::Tensor& self) { return self; }

// libtorch's own registration style (a static registrar) is fine here: this
// file only measures libtorch.
TORCH_LIBRARY(wickbench, m) { m.def("noop(Tensor self) -> Tensor"); }
TORCH_LIBRARY_IMPL(wickbench, CPU, m) { m.impl("noop", &torch_noop_kernel); }

void torch_typed_noop(benchmark::State& state) {
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow("wickbench::noop", "").typed<at::Tensor(const at::Tensor&)>();
  at::Tensor x = torch::ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(op.call(x));
}
BENCHMARK(torch_typed_noop);

void torch_boxed_noop(benchmark::State& state) {
  auto op = c10::Dispatcher::singleton().findSchemaOrThrow("wickbench::noop", "");
  at::Tensor x = torch::ones({1});
  torch::jit::Stack stack;
  stack.reserve(1);
  for (auto _ : state) {
    stack.clear();
    stack.emplace_back(x);
    op.callBoxed(&stack);
    benchmark::DoNotOptimize(stack);
  }
}
BENCHMARK(torch_boxed_noop);

void torch_add_1elem(benchmark::State& state) {
  at::Tensor a = torch::ones({1});
  at::Tensor b = torch::ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(at::add(a, b));
}
BENCHMARK(torch_add_1elem);

void torch_add_out_1elem(benchmark::State& state) {
  at::Tensor a = torch::ones({1});
  at::Tensor b = torch::ones({1});
  at::Tensor out = torch::empty({1});
  for (auto _ : state) benchmark::DoNotOptimize(at::add_out(out, a, b));
}
BENCHMARK(torch_add_out_1elem);

}  // namespace
