// wick/distributed_store.h - key-value stores for rendezvous: the Store interface, TCPStore, HashStore, PrefixStore.
/// \file
/// The processes of a job find each other through a store, as in
/// torch.distributed: rank 0 (or the launcher) serves a TCPStore, every
/// process connects to it, and the collective engines exchange their
/// addresses through it.
///
///   wick::distributed::TCPStore store("10.0.0.1", 29500, {.is_master = rank == 0, .world_size = 4});
///   store.set("config", "ready");
///   auto n = store.add("arrived", 1);            // an atomic counter
///   store.wait({"config"});                      // blocks until the key exists (or the timeout)
///
/// Note [Store timeouts]
/// Every blocking call (`get` of a missing key, `wait`, connecting to the
/// server) ends after the store's timeout with a wick::DistributedError
/// (a RuntimeError) naming the keys and the server, never hangs. A server
/// that goes away (its process died) ends every waiting client's call at
/// once with an error naming the server's address.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "wick/error.h"
#include "wick/export.h"

namespace wick {

/// A collective operation or rendezvous that failed: a peer timed out, died,
/// or disagreed. A RuntimeError, as PyTorch raises them; the message names
/// the operation and the ranks involved.
class WICK_API DistributedError : public RuntimeError {
 public:
  using RuntimeError::RuntimeError;
};

namespace distributed {

/// The default timeout of stores and process groups: 30 minutes, as PyTorch's.
inline constexpr std::chrono::milliseconds kDefaultTimeout = std::chrono::minutes(30);

/// A key-value store shared by the processes of a job. Values are bytes.
/// Thread-safe; every blocking call is bounded by `timeout()`
/// (Note [Store timeouts]). A TCPStore client runs one call at a time: a
/// thread blocked in `get` holds it until the key comes, so threads of one
/// process that wait for each other need clients of their own.
class WICK_API Store {
 public:
  virtual ~Store() = default;
  /// Sets `key` to `value`, waking the processes that wait for it.
  virtual void set(const std::string& key, const std::vector<std::uint8_t>& value) = 0;
  /// The value of `key`, waiting for it to be set; DistributedError after the timeout.
  [[nodiscard]] virtual std::vector<std::uint8_t> get(const std::string& key) = 0;
  /// Adds `delta` to the integer at `key` (0 when absent) and returns the sum.
  virtual std::int64_t add(const std::string& key, std::int64_t delta) = 0;
  /// Waits until every key exists; DistributedError naming the missing ones after `timeout`.
  virtual void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) = 0;
  /// Whether every key exists, without waiting.
  [[nodiscard]] virtual bool check(const std::vector<std::string>& keys) = 0;
  /// Removes `key`; whether it existed.
  virtual bool delete_key(const std::string& key) = 0;
  /// The number of keys.
  [[nodiscard]] virtual std::int64_t num_keys() = 0;

  /// set with a text value.
  void set(const std::string& key, std::string_view value);
  /// get of a text value.
  [[nodiscard]] std::string get_string(const std::string& key);
  /// wait with the store's timeout.
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout()); }

  /// The bound on every blocking call.
  [[nodiscard]] std::chrono::milliseconds timeout() const noexcept { return timeout_; }
  /// Changes the bound on every blocking call.
  void set_timeout(std::chrono::milliseconds timeout) noexcept { timeout_ = timeout; }

 protected:
  Store() = default;
  /// A store whose blocking calls end after `timeout`.
  explicit Store(std::chrono::milliseconds timeout) : timeout_(timeout) {}

 private:
  std::chrono::milliseconds timeout_ = kDefaultTimeout;
};

/// Options of a TCPStore.
struct TCPStoreOptions {
  /// This process serves the store (and is also a client of it).
  bool is_master = false;
  /// When known, the master waits in its constructor until this many
  /// clients (itself included) have connected; 0 does not wait.
  int world_size = 0;
  /// How long every blocking call may take (Note [Store timeouts]).
  std::chrono::milliseconds timeout = kDefaultTimeout;
};

/// A store served over TCP by one process (the master) to all
/// (torch.distributed.TCPStore). The master listens on every interface
/// at `port` (0 picks a free one: `port()` tells which); clients connect to
/// `host:port`, retrying until the timeout while the master starts. Raises DistributedError when the port is taken,
/// the host cannot be resolved or the master cannot be reached in time.
class WICK_API TCPStore final : public Store {
 public:
  /// Serves (is_master) and/or connects to the store at host:port.
  TCPStore(std::string host, int port, TCPStoreOptions options = {});
  ~TCPStore() override;
  TCPStore(const TCPStore&) = delete;
  TCPStore& operator=(const TCPStore&) = delete;

  void set(const std::string& key, const std::vector<std::uint8_t>& value) override;
  using Store::set;
  [[nodiscard]] std::vector<std::uint8_t> get(const std::string& key) override;
  std::int64_t add(const std::string& key, std::int64_t delta) override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  using Store::wait;
  [[nodiscard]] bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  [[nodiscard]] std::int64_t num_keys() override;

  /// The host clients connect to.
  [[nodiscard]] const std::string& host() const noexcept;
  /// The port the master listens on (the one it picked, for port 0).
  [[nodiscard]] int port() const noexcept;
  /// The address of this host on the connection to the server (how the
  /// other hosts of the job can reach this one).
  [[nodiscard]] std::string local_address() const;
  /// Tells the server which rank this client is, so that when this process
  /// dies the server records it (Note [Naming the rank that failed]).
  void register_rank(const std::string& group, int rank);
  /// The ranks of `group` whose processes ended without closing their
  /// store (they died), as the server saw it.
  [[nodiscard]] std::vector<int> dead_ranks(const std::string& group);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// A store in this process's memory: for tests and single-process groups.
class WICK_API HashStore final : public Store {
 public:
  /// An empty store whose blocking calls end after `timeout`.
  explicit HashStore(std::chrono::milliseconds timeout = kDefaultTimeout);
  ~HashStore() override;
  void set(const std::string& key, const std::vector<std::uint8_t>& value) override;
  using Store::set;
  [[nodiscard]] std::vector<std::uint8_t> get(const std::string& key) override;
  std::int64_t add(const std::string& key, std::int64_t delta) override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  using Store::wait;
  [[nodiscard]] bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  [[nodiscard]] std::int64_t num_keys() override;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// Another store's keys under `prefix + "/"`: each process group talks
/// through one, so that groups never see each other's keys.
class WICK_API PrefixStore final : public Store {
 public:
  /// `store`'s keys under `prefix`; ValueError when `store` is null.
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);
  void set(const std::string& key, const std::vector<std::uint8_t>& value) override;
  using Store::set;
  [[nodiscard]] std::vector<std::uint8_t> get(const std::string& key) override;
  std::int64_t add(const std::string& key, std::int64_t delta) override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  using Store::wait;
  [[nodiscard]] bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  [[nodiscard]] std::int64_t num_keys() override;
  /// The store underneath.
  [[nodiscard]] const std::shared_ptr<Store>& underlying() const noexcept { return store_; }

 private:
  [[nodiscard]] std::string key(const std::string& k) const { return prefix_ + "/" + k; }
  std::string prefix_;
  std::shared_ptr<Store> store_;
};

}  // namespace distributed
}  // namespace wick
