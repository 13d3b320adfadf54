// wick/nn_parallel.h - DistributedDataParallel: one model replica per process, gradients all-reduced in buckets.
/// \file
/// torch.nn.parallel.DistributedDataParallel for wick. Every process builds
/// the same model, wraps it, and trains on its own share of each batch; the
/// wrapper makes the gradients every process sees the average over all of
/// them, so each optimizer step is the step of the whole batch:
///
///   wick::distributed::init_process_group("gloo");
///   auto net = std::make_shared<Net>();
///   wick::nn::DistributedDataParallel ddp(net);      // rank 0's parameters everywhere
///   wick::optim::SGD opt(net->parameters(), {.lr = 0.1});
///   for (auto& batch : loader) {                     // a DistributedSampler shards the data
///     opt.zero_grad();
///     auto loss = wick::nn::functional::cross_entropy(ddp(batch.data), batch.target);
///     loss.backward();                               // gradients averaged over the ranks
///     opt.step();
///   }
///
/// Note [Gradient buckets]
/// The parameters that require gradients are packed, in reverse order of
/// registration (the order backward usually reaches them), into buckets of
/// at most `bucket_cap_mb` (one dtype and device each). Backward calls a
/// hook on each parameter when its gradient is ready; the hook copies the
/// gradient (plus what `.grad` already holds, from steps run under
/// `no_sync`) into its bucket, and a full bucket is all-reduced at once,
/// asynchronously, while backward goes on: buckets are launched in index
/// order, which is the same on every rank. When the last parameter's
/// gradient arrives, the hook waits for every bucket and writes the
/// averages into `.grad`. Every parameter that requires a gradient must
/// take part in each backward, as with PyTorch's default
/// (find_unused_parameters=False): a forward that finds the previous
/// reduction unfinished raises PyTorch's RuntimeError.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "wick/distributed.h"
#include "wick/export.h"
#include "wick/nn.h"

namespace wick::nn {

/// How DistributedDataParallel averages (PyTorch's constructor arguments).
struct DistributedDataParallelOptions {
  /// The group to average over (nullptr: the default group).
  std::shared_ptr<distributed::ProcessGroup> process_group = nullptr;
  /// The largest bucket, in MiB (PyTorch's default, 25).
  double bucket_cap_mb = 25;
  /// Broadcast the module's buffers (BatchNorm's statistics) from rank 0 before each forward.
  bool broadcast_buffers = true;
};

/// The engine under DistributedDataParallel, usable with any Module
/// (Note [Gradient buckets]). Not copyable; removes its hooks when destroyed.
class WICK_API GradientReducer final {
 public:
  /// Broadcasts `module`'s parameters and buffers from rank 0 of the group
  /// and hooks its parameters. RuntimeError when no process group exists.
  GradientReducer(Module& module, DistributedDataParallelOptions options = {});
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  /// Before a forward: checks that the previous backward's reduction
  /// finished, and broadcasts the buffers.
  void prepare_forward();
  /// While false, backward accumulates gradients locally (no_sync).
  void set_sync(bool sync) noexcept;
  /// Whether backward averages the gradients now.
  [[nodiscard]] bool sync() const noexcept;
  /// The number of buckets, and each one's parameter count (for tests).
  [[nodiscard]] std::vector<std::size_t> bucket_sizes() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

/// Wraps a module (a std::shared_ptr to it) for data-parallel training
/// (torch.nn.parallel.DistributedDataParallel). Calling it calls the module.
template <class M>
class DistributedDataParallel final {
 public:
  /// Wraps `module`: broadcasts rank 0's parameters and buffers, and hooks its parameters.
  explicit DistributedDataParallel(std::shared_ptr<M> module, DistributedDataParallelOptions options = {})
      : module_(std::move(module)), reducer_(std::make_unique<GradientReducer>(*module_, std::move(options))) {}
  /// A built-in module's holder: `DistributedDataParallel ddp(nn::Sequential(...))`.
  explicit DistributedDataParallel(const ModuleHolder<M>& holder, DistributedDataParallelOptions options = {})
      : DistributedDataParallel(holder.ptr(), std::move(options)) {}

  /// The wrapped module's forward (through its hooks, as `(*module)(args...)`).
  template <class... Args>
  decltype(auto) operator()(Args&&... args) {
    reducer_->prepare_forward();
    return (*module_)(std::forward<Args>(args)...);
  }

  /// The wrapped module (`ddp.module()->state_dict()`, as PyTorch's `.module`).
  [[nodiscard]] const std::shared_ptr<M>& module() const noexcept { return module_; }
  /// The wrapped module's parameters (for the optimizer).
  [[nodiscard]] std::vector<Tensor> parameters() const { return module_->parameters(); }
  /// The engine underneath (Note [Gradient buckets]).
  [[nodiscard]] GradientReducer& reducer() noexcept { return *reducer_; }

  /// Scope in which backward only accumulates gradients locally (gradient
  /// accumulation); the first backward after it averages the sum.
  class NoSync final {
   public:
    /// Stops averaging until destroyed.
    explicit NoSync(GradientReducer& r) : reducer_(&r) { reducer_->set_sync(false); }
    ~NoSync() { reducer_->set_sync(true); }
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    GradientReducer* reducer_;
  };
  /// `auto guard = ddp.no_sync();`: backward in this scope only accumulates locally.
  [[nodiscard]] NoSync no_sync() { return NoSync(*reducer_); }

 private:
  std::shared_ptr<M> module_;
  std::unique_ptr<GradientReducer> reducer_;
};

/// `DistributedDataParallel ddp(nn::Sequential(...))` wraps the holder's module.
template <class Impl>
DistributedDataParallel(const ModuleHolder<Impl>&, DistributedDataParallelOptions = {}) -> DistributedDataParallel<Impl>;

}  // namespace wick::nn
