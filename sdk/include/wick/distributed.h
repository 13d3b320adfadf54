// wick/distributed.h - torch.distributed for wick: process groups, collectives, async work handles.
/// \file
/// Several processes, on one machine or many, train together by exchanging
/// tensors. Each process joins the default process group once; collectives
/// then run over it (or over a subgroup made with `new_group`):
///
///   #include <wick/distributed.h>
///   namespace dist = wick::distributed;
///   dist::init_process_group("gloo");                // env://: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE
///   auto t = wick::ones({4}) * (dist::get_rank() + 1);
///   dist::all_reduce(t);                              // every rank now holds the sum
///   auto work = dist::all_reduce(t, {.op = dist::ReduceOp::kMax, .async_op = true});
///   work->wait();
///   dist::destroy_process_group();
///
/// `wick run --nproc-per-node 4 ./train` starts the processes with that
/// environment (the CLI's `run`, in the manner of torchrun).
///
/// The collectives are catalog operators, `torch.distributed.all_reduce`
/// and the rest (dispatch/ops/distributed.ops): they dispatch like any
/// operator, tensor-likes can override them, `wick ops` lists them, and
/// `wick::call` reaches them boxed. The engines that move the bytes (gloo
/// for CPU tensors, nccl for CUDA tensors) are plugins
/// (wick/distributed_backend.h).
///
/// Note [Collectives run in order]
/// Each process group runs its collectives one at a time, in the order this
/// process issued them, on a thread of its own; a synchronous call waits for
/// its own turn (and, when nothing is pending, runs on the caller's thread,
/// which spares two thread switches), an async one (`async_op`) returns a
/// Work handle at once.
/// Every rank must issue the same collectives in the same order, as in
/// PyTorch. An async collective reads and writes its tensors when it runs:
/// leave them alone until `wait()` returns.
///
/// Note [Naming the rank that failed]
/// A collective that cannot finish within the group's timeout, because a
/// rank died, hangs or never called it, fails on every rank that is still
/// there with a DistributedError naming the operation, its sequence number
/// in the group, and the ranks that did not arrive: ranks whose process
/// ended (the store's server saw its connection drop) and ranks that had not
/// reached this collective, or, when all arrived but asked for different
/// things (sizes, dtypes, roots), what each asked for. A rank publishes its progress to the store only
/// when a collective has waited longer than a short grace period, so the
/// common, quick path costs no store traffic.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "wick/device.h"
#include "wick/distributed_store.h"
#include "wick/export.h"
#include "wick/tensor.h"
#include "wick/value.h"

namespace wick::distributed {

/// How values combine (torch.distributed.ReduceOp). kAvg divides the sum by
/// the group's size (floating dtypes; integer sums divide as PyTorch's
/// true division would refuse, so kAvg on integers is a ValueError).
/// Room is left for more.
enum class ReduceOp : std::uint8_t { kSum = 0, kProduct = 1, kMin = 2, kMax = 3, kAvg = 4, kBand = 5, kBor = 6, kBxor = 7 };

/// "sum", "product", "min", "max", "avg", "band", "bor", "bxor" (also the
/// upper-case names and "ReduceOp.SUM"); ValueError naming the choices.
[[nodiscard]] WICK_API ReduceOp reduce_op_from_name(const std::string& name);
/// The lower-case name of `op`.
[[nodiscard]] WICK_API const char* reduce_op_name(ReduceOp op);

/// A handle on a collective issued with `async_op`. Shared by the caller
/// and the group's thread.
class WICK_API Work : public Object {
 public:
  /// A pending collective `op_name`, number `sequence` in its group.
  Work(std::string op_name, std::int64_t sequence);
  ~Work() override;
  /// "Work".
  [[nodiscard]] std::string type_name() const override { return "Work"; }
  [[nodiscard]] std::string repr() const override;

  /// Blocks until the collective has run; rethrows its error (a
  /// DistributedError naming the op and the ranks) if it failed. With a
  /// timeout: DistributedError when it has not finished by then (the
  /// collective itself goes on).
  void wait(std::optional<std::chrono::milliseconds> timeout = std::nullopt);
  /// Whether it has finished (successfully or not), without blocking.
  [[nodiscard]] bool is_completed() const;
  /// Whether it finished without error.
  [[nodiscard]] bool is_success() const;
  /// The tensors it wrote (the output of all_gather and the like), once complete.
  [[nodiscard]] std::vector<Tensor> result();
  /// The operation's catalog name ("torch.distributed.all_reduce").
  [[nodiscard]] const std::string& op_name() const noexcept { return op_name_; }
  /// Its sequence number in its group (1 for the group's first collective).
  [[nodiscard]] std::int64_t sequence() const noexcept { return sequence_; }

  /// For the group's thread: marks it finished with `result`, or failed with `error`.
  void finish(std::vector<Tensor> result, std::exception_ptr error);

  struct State;

 private:
  std::string op_name_;
  std::int64_t sequence_;
  std::shared_ptr<State> state_;
};

class Engine;

/// A set of ranks that run collectives together (torch.distributed's
/// ProcessGroup): the default group of init_process_group, or one of
/// new_group. A Value can hold one (`group=` of a boxed call).
class WICK_API ProcessGroup final : public Object {
 public:
  struct Impl;
  /// Made by init_process_group and new_group (its insides are libwick's).
  explicit ProcessGroup(std::unique_ptr<Impl> impl);
  ~ProcessGroup() override;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;
  /// "ProcessGroup".
  [[nodiscard]] std::string type_name() const override { return "ProcessGroup"; }
  /// "<ProcessGroup 'default_pg' gloo, rank 0 of 4>".
  [[nodiscard]] std::string repr() const override;

  /// This process's rank in the group.
  [[nodiscard]] int rank() const noexcept;
  /// The group's size.
  [[nodiscard]] int size() const noexcept;
  /// The group's unique name ("default_pg", "group_1", ...).
  [[nodiscard]] const std::string& name() const noexcept;
  /// Its backend as given ("gloo", "cpu:gloo,cuda:nccl").
  [[nodiscard]] const std::string& backend() const noexcept;
  /// Its members as ranks of the default group, in group order.
  [[nodiscard]] const std::vector<int>& global_ranks() const noexcept;
  /// The group rank of default-group rank `global_rank`; -1 when not a member.
  [[nodiscard]] int group_rank(int global_rank) const noexcept;
  /// The bound on each collective.
  [[nodiscard]] std::chrono::milliseconds timeout() const noexcept;
  /// The engine for tensors on `type`; RuntimeError naming the group's
  /// backend when it has none ("no engine for cuda tensors in process group
  /// 'default_pg' (backend gloo)").
  [[nodiscard]] Engine& engine(DeviceType type);

  /// Runs `body` on the group's thread after the collectives issued before
  /// it (Note [Collectives run in order]); returns its Work. `body` returns
  /// the tensors the Work's result() gives. `call` describes what this rank
  /// asked for ("4 float32 elements, sum"): ranks whose descriptions differ
  /// never match (Note [Call tags], wick/distributed_backend.h).
  std::shared_ptr<Work> enqueue(const std::string& op_name, const std::string& call,
                                std::function<std::vector<Tensor>()> body);
  /// enqueue, then waits; when nothing is pending it runs `body` on the
  /// calling thread. Rethrows the collective's error.
  void run(const std::string& op_name, const std::string& call, std::function<std::vector<Tensor>()> body);
  /// The group's insides (libwick's own).
  [[nodiscard]] Impl& impl() noexcept { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

/// Options of init_process_group.
struct InitOptions {
  /// "env://" (the default: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE from
  /// the environment), "tcp://host:port" (rank and world size given below),
  /// or "file:///path" is not supported (ValueError). Ignored when `store` is set.
  std::string init_method = "env://";
  /// A store to rendezvous through instead of `init_method`.
  std::shared_ptr<Store> store = nullptr;
  /// This process's rank; -1: from the environment (RANK).
  int rank = -1;
  /// The number of processes; -1: from the environment (WORLD_SIZE).
  int world_size = -1;
  /// The bound on every collective and on the rendezvous.
  std::chrono::milliseconds timeout = kDefaultTimeout;
  /// The group's name (default "default_pg").
  std::string group_name = {};
};

/// Joins the default process group with the named engine ("gloo", "nccl",
/// or "cpu:gloo,cuda:nccl" to choose per device type; a plugin's engine by
/// its name). RuntimeError when the default group exists already ("trying
/// to initialize the default process group twice!"), ValueError for a rank
/// outside [0, world_size), a missing environment variable (named), or an
/// engine no loaded plugin provides; DistributedError when the rendezvous
/// does not complete in time (naming the ranks that never arrived) or the
/// ranks disagree on the world size.
WICK_API void init_process_group(const std::string& backend, const InitOptions& options = {});
/// Whether the default process group exists.
[[nodiscard]] WICK_API bool is_initialized();
/// Leaves `group` (default: the default group, and with it every group:
/// as PyTorch does). Pending async collectives finish first.
WICK_API void destroy_process_group(const std::shared_ptr<ProcessGroup>& group = nullptr);
/// This process's rank in `group` (default group), -1 when not a member;
/// RuntimeError when no default group exists.
[[nodiscard]] WICK_API int get_rank(const std::shared_ptr<ProcessGroup>& group = nullptr);
/// The number of ranks in `group` (default group).
[[nodiscard]] WICK_API int get_world_size(const std::shared_ptr<ProcessGroup>& group = nullptr);
/// The engine name of `group`'s CPU tensors ("gloo").
[[nodiscard]] WICK_API std::string get_backend(const std::shared_ptr<ProcessGroup>& group = nullptr);
/// A group of some ranks of the default group (every rank must call it,
/// members or not, with the same ranks, as in PyTorch). Non-members get
/// nullptr, as PyTorch returns GroupMember.NON_GROUP_MEMBER. An empty list
/// means every rank. ValueError for a rank outside the world or repeated.
[[nodiscard]] WICK_API std::shared_ptr<ProcessGroup> new_group(const std::vector<int>& ranks = {},
                                                               std::optional<std::chrono::milliseconds> timeout = std::nullopt,
                                                               const std::string& backend = "");
/// The default group (RuntimeError when there is none).
[[nodiscard]] WICK_API std::shared_ptr<ProcessGroup> default_group();

/// Options shared by the collectives.
struct CollectiveOptions {
  /// How values combine (the reductions only).
  ReduceOp op = ReduceOp::kSum;
  /// nullptr: the default group.
  std::shared_ptr<ProcessGroup> group = nullptr;
  /// Return at once with a Work handle (Note [Collectives run in order]).
  bool async_op = false;
};

/// The result of a collective: a Work handle when `async_op`, else nullptr.
using WorkHandle = std::shared_ptr<Work>;

// The collectives (torch.distributed.*). Each checks its arguments on every
// rank (ValueError/RuntimeError naming the operator and the argument), and
// fails with a DistributedError naming the ranks when the ranks disagree
// on sizes or dtypes, or one does not arrive (Note [Naming the rank that failed]).
// `src`, `dst` and roots are ranks of the default group, as in PyTorch.

/// Every rank's `tensor` becomes the reduction of all ranks' (in place).
WICK_API WorkHandle all_reduce(Tensor& tensor, const CollectiveOptions& options = {});
/// Every rank's `tensor` becomes rank `src`'s.
WICK_API WorkHandle broadcast(Tensor& tensor, int src, const CollectiveOptions& options = {});
/// Rank `dst`'s `tensor` becomes the reduction; the other ranks' tensors may
/// hold partial results afterwards, as with PyTorch's Gloo.
WICK_API WorkHandle reduce(Tensor& tensor, int dst, const CollectiveOptions& options = {});
/// `outputs[r]` becomes rank r's `tensor` (outputs: one tensor per rank, each like `tensor`).
WICK_API WorkHandle all_gather(std::vector<Tensor>& outputs, const Tensor& tensor, const CollectiveOptions& options = {});
/// `output` (world_size * tensor's numel elements, first dim world_size times tensor's) holds every rank's tensor, in rank order.
WICK_API WorkHandle all_gather_into_tensor(Tensor& output, const Tensor& tensor, const CollectiveOptions& options = {});
/// On rank `dst`, `gather_list[r]` becomes rank r's tensor; other ranks pass an empty list.
WICK_API WorkHandle gather(const Tensor& tensor, std::vector<Tensor>& gather_list, int dst, const CollectiveOptions& options = {});
/// `tensor` becomes rank `src`'s `scatter_list[rank]`; only `src` passes the list.
WICK_API WorkHandle scatter(Tensor& tensor, const std::vector<Tensor>& scatter_list, int src, const CollectiveOptions& options = {});
/// `output` becomes the reduction over ranks of `inputs[rank]`.
WICK_API WorkHandle reduce_scatter(Tensor& output, const std::vector<Tensor>& inputs, const CollectiveOptions& options = {});
/// `outputs[r]` becomes rank r's `inputs[rank]`.
WICK_API WorkHandle all_to_all(std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs, const CollectiveOptions& options = {});
/// all_to_all on the first dimension of one tensor each, split evenly or by the given sizes.
WICK_API WorkHandle all_to_all_single(Tensor& output, const Tensor& input, const std::vector<std::int64_t>& output_split_sizes = {},
                                      const std::vector<std::int64_t>& input_split_sizes = {}, const CollectiveOptions& options = {});
/// Waits until every rank of the group has called it.
WICK_API WorkHandle barrier(const CollectiveOptions& options = {});
/// Point to point: sends `tensor` to rank `dst` (blocking until it is received).
WICK_API void send(const Tensor& tensor, int dst, const std::shared_ptr<ProcessGroup>& group = nullptr, int tag = 0);
/// Receives into `tensor` from rank `src` (-1: any rank); returns the sender's rank.
WICK_API int recv(Tensor& tensor, int src = -1, const std::shared_ptr<ProcessGroup>& group = nullptr, int tag = 0);
/// send, returning a Work handle at once.
WICK_API WorkHandle isend(const Tensor& tensor, int dst, const std::shared_ptr<ProcessGroup>& group = nullptr, int tag = 0);
/// recv, returning a Work handle at once (its wait() ends when `tensor` holds the message).
WICK_API WorkHandle irecv(Tensor& tensor, int src = -1, const std::shared_ptr<ProcessGroup>& group = nullptr, int tag = 0);

}  // namespace wick::distributed
