// core/frontend/ddp.cpp - GradientReducer: DistributedDataParallel's buckets, hooks and all-reduces.
/// \file
/// Note [Gradient buckets] (wick/nn_parallel.h) says what happens; this
/// file keeps each bucket as one flat tensor with a slot (a view) per
/// parameter.
#include <algorithm>
#include <mutex>
#include <unordered_map>

#include "wick/autograd.h"
#include "wick/nn_parallel.h"
#include "wick/ops.h"

namespace wick::nn {

namespace dist = wick::distributed;

struct GradientReducer::State {
  struct Bucket {
    Tensor flat;
    std::vector<std::size_t> params;  // indices into `params`
    std::size_t pending = 0;          // parameters not yet ready this backward
    dist::WorkHandle work;
  };
  std::shared_ptr<dist::ProcessGroup> group;
  std::vector<Tensor> params;
  std::vector<Tensor> slots;         // each parameter's view into its bucket
  std::vector<std::size_t> bucket_of;
  std::vector<bool> ready;
  std::vector<Bucket> buckets;
  std::vector<Tensor> buffers;
  std::vector<autograd::RemovableHandle> hooks;
  std::size_t ready_count = 0;
  std::size_t next_launch = 0;
  bool sync = true;
  bool broadcast_buffers = true;
  bool in_backward = false;  // some hooks fired, the reduction is not finished
  std::mutex mutex;

  /// A parameter's gradient is ready: the hook (Note [Gradient buckets]).
  Tensor on_grad(std::size_t i, const Tensor& grad) {
    const std::lock_guard<std::mutex> lock(mutex);
    if (!sync) return {};
    const NoGradGuard no_grad;
    WICK_CHECK(!ready[i], RuntimeError,
               "Expected to mark a variable ready only once. This error is caused by one of the following reasons: "
               "1) Use of a module parameter outside the `forward` function. 2) Reused parameters in multiple reentrant "
               "backward passes. (parameter ", i, " of DistributedDataParallel)");
    in_backward = true;
    ready[i] = true;
    ++ready_count;
    const Tensor old = params[i].grad();
    Tensor slot = slots[i];
    if (old.defined()) {
      slot.copy_(old.add(grad).view(slot.sizes()));
    } else {
      slot.copy_(grad.reshape(slot.sizes()));
    }
    Bucket& b = buckets[bucket_of[i]];
    if (--b.pending == 0) launch_ready();
    if (ready_count < params.size()) return {};
    return finish(i);
  }

  /// All-reduces every full bucket whose predecessors are launched.
  void launch_ready() {
    while (next_launch < buckets.size() && buckets[next_launch].pending == 0) {
      Bucket& b = buckets[next_launch++];
      b.work = dist::all_reduce(b.flat, {.op = dist::ReduceOp::kSum, .group = group, .async_op = true});
    }
  }

  /// The last gradient arrived: waits for every bucket, writes the averages
  /// into `.grad` and returns the replacement for parameter `last`'s gradient.
  Tensor finish(std::size_t last) {
    const double scale = 1.0 / static_cast<double>(group->size());
    for (auto& b : buckets) {
      b.work->wait();
      b.work = nullptr;
      b.flat.mul_(Scalar(scale));
    }
    Tensor replacement;
    for (std::size_t i = 0; i < params.size(); ++i) {
      const Tensor avg = slots[i].view(params[i].sizes());
      if (i == last) {
        // AccumulateGrad adds the returned gradient to what .grad holds.
        const Tensor old = params[i].grad();
        replacement = old.defined() ? avg.sub(old) : avg.clone();
      } else {
        Tensor g = params[i].grad();
        if (g.defined()) {
          g.copy_(avg);
        } else {
          params[i].mutable_grad() = avg.clone();
        }
      }
    }
    reset();
    return replacement;
  }

  void reset() {
    std::fill(ready.begin(), ready.end(), false);
    ready_count = 0;
    next_launch = 0;
    for (auto& b : buckets) b.pending = b.params.size();
    in_backward = false;
  }
};

GradientReducer::GradientReducer(Module& module, DistributedDataParallelOptions options)
    : state_(std::make_shared<State>()) {
  State& s = *state_;
  s.group = options.process_group != nullptr ? options.process_group : dist::default_group();
  s.broadcast_buffers = options.broadcast_buffers;
  WICK_CHECK(options.bucket_cap_mb > 0, ValueError, "DistributedDataParallel: bucket_cap_mb must be positive, got ",
             options.bucket_cap_mb);
  const int root = s.group->global_ranks().front();
  // Rank 0's parameters and buffers everywhere.
  {
    const NoGradGuard no_grad;
    for (Tensor p : module.parameters()) dist::broadcast(p, root, {.group = s.group});
    for (Tensor b : module.buffers()) {
      if (b.defined()) {
        dist::broadcast(b, root, {.group = s.group});
        s.buffers.push_back(b);
      }
    }
  }
  // The parameters that take gradients, once each, in reverse order.
  std::vector<Tensor> all = module.parameters();
  std::reverse(all.begin(), all.end());
  for (const Tensor& p : all) {
    if (!p.requires_grad()) continue;
    const bool seen = std::any_of(s.params.begin(), s.params.end(), [&](const Tensor& q) { return q.is_same(p); });
    if (!seen) s.params.push_back(p);
  }
  WICK_CHECK(!s.params.empty(), RuntimeError,
             "DistributedDataParallel is not needed when a module doesn't have any parameter that requires a gradient.");
  // Buckets of at most bucket_cap_mb, one dtype and device each.
  const auto cap = static_cast<std::int64_t>(options.bucket_cap_mb * 1024 * 1024);
  std::vector<std::vector<std::size_t>> groups;
  std::int64_t bytes = 0;
  for (std::size_t i = 0; i < s.params.size(); ++i) {
    const Tensor& p = s.params[i];
    const std::int64_t n = checked_mul(p.numel(), static_cast<std::int64_t>(itemsize(p.dtype())), "DistributedDataParallel");
    const bool fits = !groups.empty() && bytes + n <= cap && s.params[groups.back().front()].dtype() == p.dtype() &&
                      s.params[groups.back().front()].device() == p.device();
    if (!fits) {
      groups.emplace_back();
      bytes = 0;
    }
    groups.back().push_back(i);
    bytes += n;
  }
  s.slots.resize(s.params.size());
  s.bucket_of.resize(s.params.size());
  s.ready.assign(s.params.size(), false);
  for (std::size_t b = 0; b < groups.size(); ++b) {
    std::int64_t total = 0;
    for (const std::size_t i : groups[b]) total = checked_add(total, s.params[i].numel(), "DistributedDataParallel");
    State::Bucket bucket;
    const Tensor& first = s.params[groups[b].front()];
    bucket.flat = zeros({total}, TensorOptions().dtype(first.dtype()).device(first.device()));
    std::int64_t at = 0;
    for (const std::size_t i : groups[b]) {
      s.slots[i] = bucket.flat.narrow(0, at, s.params[i].numel());
      s.bucket_of[i] = b;
      at += s.params[i].numel();
    }
    bucket.params = groups[b];
    bucket.pending = groups[b].size();
    s.buckets.push_back(std::move(bucket));
  }
  // The hooks hold the state weakly: a hook that outlives the reducer does nothing.
  for (std::size_t i = 0; i < s.params.size(); ++i) {
    std::weak_ptr<State> weak = state_;
    s.hooks.push_back(s.params[i].register_hook([weak, i](const Tensor& grad) -> Tensor {
      const auto st = weak.lock();
      return st != nullptr ? st->on_grad(i, grad) : Tensor();
    }));
  }
}

GradientReducer::~GradientReducer() {
  for (auto& h : state_->hooks) h.remove();
}

void GradientReducer::prepare_forward() {
  State& s = *state_;
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    if (s.in_backward) {
      std::string unused;
      for (std::size_t i = 0; i < s.params.size(); ++i) {
        if (!s.ready[i]) unused += (unused.empty() ? "" : ", ") + std::to_string(s.params.size() - 1 - i);
      }
      s.reset();
      throw RuntimeError(
          "Expected to have finished reduction in the prior iteration before starting a new one. This error indicates "
          "that your module has parameters that were not used in producing loss. Parameter indices which did not "
          "receive grad for rank " +
          std::to_string(s.group->rank()) + ": " + unused);
    }
  }
  if (s.broadcast_buffers && s.group->size() > 1) {
    const NoGradGuard no_grad;
    const int root = s.group->global_ranks().front();
    for (Tensor b : s.buffers) dist::broadcast(b, root, {.group = s.group});
  }
}

void GradientReducer::set_sync(bool sync) noexcept {
  const std::lock_guard<std::mutex> lock(state_->mutex);
  state_->sync = sync;
}

bool GradientReducer::sync() const noexcept { return state_->sync; }

std::vector<std::size_t> GradientReducer::bucket_sizes() const {
  std::vector<std::size_t> out;
  for (const auto& b : state_->buckets) out.push_back(b.params.size());
  return out;
}

}  // namespace wick::nn
