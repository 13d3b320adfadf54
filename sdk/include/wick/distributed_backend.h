// wick/distributed_backend.h - writing a collective engine (gloo, nccl, your own) as a plugin.
/// \file
/// A process group hands the bytes of each collective to an engine, chosen
/// by the group's backend name and the tensors' device type. An engine is a
/// class with one synchronous method per collective; a plugin registers a
/// factory for it:
///
///   class MyEngine final : public wick::distributed::Engine { ... };
///   WICK_PLUGIN("myengine", "1.0", registrar) {
///     wick::distributed::register_engine(registrar, "myengine", {wick::DeviceType::kCPU},
///         [](const wick::distributed::EngineOptions& o) { return std::make_unique<MyEngine>(o); });
///   }
///
/// then `init_process_group("myengine")` uses it. Unloading the plugin
/// removes the registration (groups made with it must be destroyed first).
///
/// Note [What an engine sees]
/// The process group does everything but move bytes: argument checks,
/// contiguity (it copies strided tensors to contiguous ones and back),
/// kAvg (a sum, then a division), the order of collectives and the async
/// handles (Note [Collectives run in order], wick/distributed.h), and the
/// errors that name ranks (Note [Naming the rank that failed]). An engine
/// method gets contiguous tensors of one dtype on one device, ranks
/// within the group, never kAvg, and runs on the group's thread, one
/// collective at a time; send and recv may run on other threads at the
/// same time. It must give up after `EngineOptions::timeout` by throwing
/// (any exception; the group turns it into a DistributedError).
///
/// Note [Call tags]
/// Before each collective the group sets the engine's `call_tag()`: the
/// collective's sequence number in its low 20 bits and a hash of what this
/// rank asked for (the operation, dtype, sizes, root, ReduceOp) in the high
/// 12. An engine that tags its messages with it never matches the messages
/// of ranks that disagree on the call (a mismatched size, say): the
/// collective times out instead of mixing data, and the group's error says
/// which ranks asked for what (Note [Naming the rank that failed]).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "wick/device.h"
#include "wick/distributed.h"
#include "wick/export.h"
#include "wick/plugin.h"
#include "wick/tensor.h"

namespace wick::distributed {

/// What an engine is created with, once per process group.
struct EngineOptions {
  /// A store private to this group (a PrefixStore): the engine's rendezvous.
  std::shared_ptr<Store> store;
  /// This process's rank in the group.
  int rank = 0;
  /// The group's size.
  int size = 1;
  /// The group's ranks as ranks of the default group, in group order.
  std::vector<int> global_ranks;
  /// The bound on every operation.
  std::chrono::milliseconds timeout = kDefaultTimeout;
  /// The group's name (unique in the job).
  std::string group_name;
  /// The device type whose tensors this engine moves.
  DeviceType device_type = DeviceType::kCPU;
  /// An address of this host that the other ranks can reach: the one this
  /// process reaches the store's server from ("127.0.0.1" when the store
  /// is in this process).
  std::string address = "127.0.0.1";
};

/// One collective engine instance of one process group (Note [What an engine sees]).
/// Counts are in elements; roots, sources and destinations are group ranks.
class WICK_API Engine {
 public:
  /// Keeps the group's rank and size from `options`.
  explicit Engine(const EngineOptions& options) : rank_(options.rank), size_(options.size) {}
  virtual ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  /// This process's rank in the group.
  [[nodiscard]] int rank() const noexcept { return rank_; }
  /// The group's size.
  [[nodiscard]] int size() const noexcept { return size_; }
  /// The running collective's tag (Note [Call tags]); set by the group.
  [[nodiscard]] std::uint32_t call_tag() const noexcept { return call_tag_; }
  /// Set by the group before each collective (Note [Call tags]).
  void set_call_tag(std::uint32_t tag) noexcept { call_tag_ = tag; }
  /// Whether it moves tensors of `dtype` (default: every dtype).
  [[nodiscard]] virtual bool supports(ScalarType dtype) const;
  /// Whether it implements `op` for `dtype` (default: the four arithmetic
  /// ones for every dtype, the bitwise ones for integers and bool).
  [[nodiscard]] virtual bool supports(ReduceOp op, ScalarType dtype) const;

  /// `tensor` becomes the reduction of every rank's.
  virtual void all_reduce(const Tensor& tensor, ReduceOp op) = 0;
  /// `tensor` becomes rank `root`'s.
  virtual void broadcast(const Tensor& tensor, int root) = 0;
  /// On `root`, `tensor` becomes the reduction (others' may change).
  virtual void reduce(const Tensor& tensor, int root, ReduceOp op) = 0;
  /// `output` (size * numel(input) elements) gets every rank's input in rank order.
  virtual void all_gather(const Tensor& output, const Tensor& input) = 0;
  /// On `root` only, as all_gather; elsewhere `output` is undefined.
  virtual void gather(const Tensor& output, const Tensor& input, int root) = 0;
  /// `output` becomes chunk `rank` of root's `input` (size * numel(output) elements; undefined elsewhere).
  virtual void scatter(const Tensor& output, const Tensor& input, int root) = 0;
  /// `output` becomes chunk `rank` of the reduction of every rank's `input`
  /// (size * numel(output) elements). Default: all_reduce of a copy of `input`.
  virtual void reduce_scatter(const Tensor& output, const Tensor& input, ReduceOp op);
  /// Rank r's `input` chunk for this rank lands in this rank's `output` chunk
  /// for r; chunk sizes per rank as given.
  virtual void all_to_all(const Tensor& output, const Tensor& input, const std::vector<std::int64_t>& output_counts,
                          const std::vector<std::int64_t>& input_counts) = 0;
  /// Returns when every rank has called it.
  virtual void barrier() = 0;
  /// Sends `tensor` to `dst` and returns when it has gone.
  virtual void send(const Tensor& tensor, int dst, int tag) = 0;
  /// Receives into `tensor` from `src` (-1: any rank); returns the sender.
  virtual int recv(const Tensor& tensor, int src, int tag) = 0;

 private:
  int rank_;
  int size_;
  std::uint32_t call_tag_ = 0;
};

/// Makes the engine of one process group (it may connect to the peers: every rank calls it together).
using EngineFactory = std::function<std::unique_ptr<Engine>(const EngineOptions&)>;

/// Makes `init_process_group(name)` and `new_group(..., name)` use engines
/// from `factory` for tensors of `device_types`, until `registrar` is
/// cleared (the plugin unloads). PluginError when an engine of that name
/// already serves one of those device types.
WICK_API void register_engine(Registrar& registrar, const std::string& name, const std::vector<DeviceType>& device_types,
                              EngineFactory factory);

/// The engine names registered now, with their device types ("gloo: cpu").
[[nodiscard]] WICK_API std::vector<std::string> registered_engines();

}  // namespace wick::distributed
