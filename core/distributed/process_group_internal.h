// core/distributed/process_group_internal.h - private: process groups' insides, shared by the distributed layer's files.
/// \file
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "wick/distributed_backend.h"

namespace wick::distributed {

/// The registered engine called `name`: its device types and factory.
std::optional<std::pair<std::vector<DeviceType>, EngineFactory>> find_engine(const std::string& name);

struct ProcessGroup::Impl {
  std::string name;
  std::string backend;
  int rank = 0;
  int size = 1;
  std::vector<int> global_ranks;
  std::chrono::milliseconds timeout{};
  /// The group's own keys (Note [Naming the rank that failed]).
  std::shared_ptr<Store> store;
  /// The job's store (a TCPStore for env:// and tcp://).
  std::shared_ptr<Store> job_store;
  std::map<DeviceType, std::shared_ptr<Engine>> engines;

  // The group's thread (Note [Collectives run in order]).
  struct Task {
    std::shared_ptr<Work> work;
    std::string call;
    std::function<std::vector<Tensor>()> body;
  };
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<Task> queue;
  bool stopping = false;
  /// A collective is running (on the group's thread or a caller's).
  bool busy = false;
  std::atomic<bool> destroyed{false};
  std::int64_t issued = 0;
  /// The first failure: later collectives fail with it at once.
  std::exception_ptr failure;
  std::thread worker;

  // Progress, for the monitor.
  std::atomic<std::int64_t> running{0};
  std::string running_call;  // "op(call)", under `mutex`
  std::chrono::steady_clock::time_point running_since{};
  std::int64_t published = 0;
  std::thread monitor;

  /// Point-to-point work runs beside the collectives, on threads joined by stop().
  std::mutex aside_mutex;
  std::vector<std::thread> aside;
  void run_aside(std::function<void()> body);

  void start();
  void stop() noexcept;
  void run_worker();
  /// Runs one task: its call tag, its body, its Work's result or error.
  void execute(Task& task);
  void run_monitor();
  void publish_progress(std::int64_t sequence, const std::string& call) noexcept;
  /// The sentence naming the ranks that did not arrive at collective `sequence`.
  std::string blame(std::int64_t sequence, const std::string& call);
};

/// The group a collective's `group` argument names: None -> the default
/// group; a ProcessGroup object; nullptr when this rank is not a member.
/// TypeError for anything else; RuntimeError when there is no default group.
std::shared_ptr<ProcessGroup> resolve_group(const Value& group, const char* op);

/// This process's rank in the default group.
int global_rank();

}  // namespace wick::distributed
