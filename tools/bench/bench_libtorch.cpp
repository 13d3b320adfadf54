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

namespace {

struct TorchAffine : torch::autograd::Function<TorchAffine> {
  static at::Tensor forward(torch::autograd::AutogradContext*, at::Tensor x) { return x * 2 + 1; }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext*,
                                                 torch::autograd::variable_list g) {
    return {g[0] * 2};
  }
};

void torch_autograd_small_graph(benchmark::State& state) {
  at::Tensor x = torch::randn({16}).requires_grad_();
  for (auto _ : state) {
    at::Tensor y = ((x * 2) + 1).sum();
    y.backward();
  }
  benchmark::DoNotOptimize(x.grad());
}
BENCHMARK(torch_autograd_small_graph);

void torch_autograd_custom_function(benchmark::State& state) {
  at::Tensor x = torch::randn({16}).requires_grad_();
  for (auto _ : state) {
    at::Tensor y = TorchAffine::apply(x).sum();
    y.backward();
  }
  benchmark::DoNotOptimize(x.grad());
}
BENCHMARK(torch_autograd_custom_function);

}  // namespace
