// core/distributed/tcp_store.cpp - TCPStore: a key-value server on one process, clients on all.
/// \file
/// Note [The store's wire format]
/// A request is one byte of command, then its fields: strings as a 32-bit
/// length and the bytes, integers as 64-bit little-endian values (every
/// platform wick runs on is little-endian). The server answers each request
/// in order on the same connection. Blocking requests (get of a missing key,
/// wait) carry their timeout and the server answers "timed out" itself when
/// it passes, so a client never has to abandon a request and the stream
/// stays in step. One thread serves every connection with poll(2). The
/// server trusts nothing it reads: a malformed request drops its client, a
/// timeout is clamped to [0, a year], and a client that takes no reply
/// bytes for 10 s is dropped instead of stalling the others
/// (tests/fuzz/store_fuzz.cpp feeds it arbitrary bytes).
///
/// Each client may register (group, rank) pairs; when its connection ends
/// without a goodbye (the process died or was killed), the server records
/// those ranks as dead, for Note [Naming the rank that failed].
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cerrno>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "store_keys.h"
#include "wick/checked.h"
#include "wick/distributed_store.h"

namespace wick::distributed {

namespace {

enum Command : std::uint8_t { kSet = 1, kGet, kAdd, kWait, kCheck, kDelete, kNumKeys, kRegister, kDead, kBye };
enum Status : std::uint8_t { kOk = 0, kTimedOut = 1, kFailed = 2 };

using Clock = std::chrono::steady_clock;
using Bytes = std::vector<std::uint8_t>;

// --- encoding ------------------------------------------------------------------

void put_u32(Bytes& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
void put_i64(Bytes& out, std::int64_t v) {
  const auto u = static_cast<std::uint64_t>(v);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(u >> (8 * i)));
}
void put_bytes(Bytes& out, const void* data, std::size_t n) {
  WICK_CHECK(n <= 0xffffffffU, ValueError, "TCPStore: a key or value of ", n, " bytes is too large (at most 4 GiB)");
  put_u32(out, static_cast<std::uint32_t>(n));
  const auto* p = static_cast<const std::uint8_t*>(data);
  out.insert(out.end(), p, p + n);
}
void put_str(Bytes& out, const std::string& s) { put_bytes(out, s.data(), s.size()); }

/// Reads fields from a buffer; `ok` turns false (and stays) on a short read.
struct Reader {
  const std::uint8_t* p;
  std::size_t n;
  std::size_t at = 0;
  bool ok = true;
  bool need(std::size_t k) {
    if (!ok || n - at < k) ok = false;
    return ok;
  }
  std::uint8_t u8() { return need(1) ? p[at++] : 0; }
  std::uint32_t u32() {
    if (!need(4)) return 0;
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(p[at++]) << (8 * i);
    return v;
  }
  std::int64_t i64() {
    if (!need(8)) return 0;
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(p[at++]) << (8 * i);
    return static_cast<std::int64_t>(v);
  }
  Bytes bytes() {
    const std::uint32_t len = u32();
    if (!need(len)) return {};
    Bytes out(p + at, p + at + len);
    at += len;
    return out;
  }
  std::string str() {
    const Bytes b = bytes();
    return {b.begin(), b.end()};
  }
};

/// Sends all of `data`; false when the peer is gone or, with a `bound`, when
/// it takes no bytes for that long (a client that stopped reading must not
/// stall the server: Note [The store's wire format]).
bool send_all(int fd, const std::uint8_t* data, std::size_t n,
              std::optional<std::chrono::milliseconds> bound = std::nullopt) {
  while (n > 0) {
    const ssize_t k = ::send(fd, data, n, MSG_NOSIGNAL | (bound ? MSG_DONTWAIT : 0));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && bound && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd, POLLOUT, 0};
      if (::poll(&p, 1, static_cast<int>(bound->count())) <= 0) return false;
      continue;
    }
    if (k <= 0) return false;
    data += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

/// The longest wait a request may ask for (a year); longer ones, and
/// negative ones, are clamped, so that a deadline never overflows the clock.
constexpr std::int64_t kLongestWaitMs = 365LL * 24 * 3600 * 1000;
/// How long the server waits for a client to take a reply before dropping it.
constexpr std::chrono::milliseconds kReplyBound{10000};

std::string address_text(const std::string& host, int port) { return host + ":" + std::to_string(port); }

void set_nodelay(int fd) {
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

// --- the server ------------------------------------------------------------------

class Server {
 public:
  explicit Server(int port) {
    listen_fd_ = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool v6 = listen_fd_ >= 0;
    if (!v6) listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    WICK_CHECK(listen_fd_ >= 0, DistributedError, "TCPStore: cannot create a socket: ", std::strerror(errno));
    const int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    int rc = -1;
    if (v6) {
      const int zero = 0;
      ::setsockopt(listen_fd_, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
      sockaddr_in6 addr{};
      addr.sin6_family = AF_INET6;
      addr.sin6_addr = in6addr_any;
      addr.sin6_port = htons(static_cast<std::uint16_t>(port));
      rc = ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    } else {
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_ANY);
      addr.sin_port = htons(static_cast<std::uint16_t>(port));
      rc = ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    }
    if (rc != 0 || ::listen(listen_fd_, 512) != 0) {
      const int err = errno;
      ::close(listen_fd_);
      throw DistributedError("TCPStore: the server cannot listen on port " + std::to_string(port) + ": " +
                             std::strerror(err) + (err == EADDRINUSE ? " (another process has it: pick another MASTER_PORT)" : ""));
    }
    sockaddr_storage bound{};
    socklen_t len = sizeof(bound);
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len);
    port_ = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                        : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    if (::pipe2(wake_, O_CLOEXEC) != 0) {
      ::close(listen_fd_);
      throw DistributedError(std::string("TCPStore: pipe: ") + std::strerror(errno));
    }
    thread_ = std::thread([this] { run(); });
  }

  ~Server() {
    stop_ = true;
    const std::uint8_t b = 0;
    [[maybe_unused]] const auto n = ::write(wake_[1], &b, 1);
    thread_.join();
    for (auto& [fd, c] : clients_) ::close(fd);
    ::close(listen_fd_);
    ::close(wake_[0]);
    ::close(wake_[1]);
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  [[nodiscard]] int port() const noexcept { return port_; }

  /// Waits up to `most` for the other clients to leave: a master that ends
  /// first (its program finished, or failed) lets the others finish their
  /// last calls, such as naming the rank that failed.
  void linger(std::chrono::milliseconds most) {
    std::unique_lock<std::mutex> lock(connected_mutex_);
    connected_changed_.wait_for(lock, most, [this] { return connected_ == 0; });
  }

 private:
  struct Client {
    Bytes in;
    std::vector<std::pair<std::string, std::int64_t>> ranks;
    bool said_bye = false;
  };
  struct Waiter {
    int fd;
    bool is_get;  // get replies with the value; wait with the status only
    std::vector<std::string> keys;
    Clock::time_point deadline;
  };

  void run() {
    while (!stop_) {
      std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
      for (const auto& [fd, c] : clients_) fds.push_back({fd, POLLIN, 0});
      int wait_ms = -1;
      if (!waiters_.empty()) {
        auto first = waiters_.front().deadline;
        for (const auto& w : waiters_) first = std::min(first, w.deadline);
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(first - Clock::now()).count();
        wait_ms = static_cast<int>(std::clamp<std::int64_t>(left + 1, 0, 60000));
      }
      const int ready = ::poll(fds.data(), fds.size(), wait_ms);
      if (ready < 0 && errno != EINTR) break;
      if (stop_) break;
      if (ready > 0) {
        if ((fds[0].revents & POLLIN) != 0) accept_client();
        for (std::size_t i = 2; i < fds.size(); ++i) {
          if (fds[i].revents != 0) read_client(fds[i].fd);
        }
      }
      expire_waiters();
      for (const int fd : doomed_) drop_client(fd);
      doomed_.clear();
    }
  }

  void accept_client() {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    set_nodelay(fd);
    clients_[fd] = Client{};
    set_connected();
  }

  void drop_client(int fd) {
    auto it = clients_.find(fd);
    if (it == clients_.end()) return;
    if (!it->second.said_bye) {
      for (const auto& [group, rank] : it->second.ranks) dead_[group].insert(rank);
    }
    ::close(fd);
    clients_.erase(it);
    set_connected();
    std::erase_if(waiters_, [fd](const Waiter& w) { return w.fd == fd; });
  }

  void set_connected() {
    {
      const std::lock_guard<std::mutex> lock(connected_mutex_);
      connected_ = clients_.size();
    }
    connected_changed_.notify_all();
  }

  void read_client(int fd) {
    std::uint8_t buf[65536];
    const ssize_t k = ::recv(fd, buf, sizeof(buf), 0);
    if (k <= 0) {
      if (k < 0 && (errno == EINTR || errno == EAGAIN)) return;
      drop_client(fd);
      return;
    }
    Client& c = clients_[fd];
    c.in.insert(c.in.end(), buf, buf + k);
    // Serve every complete request in the buffer.
    for (;;) {
      Reader r{c.in.data(), c.in.size()};
      Bytes reply;
      bool bye = false;
      if (!handle(fd, r, reply, bye)) break;  // incomplete: wait for more bytes
      c.in.erase(c.in.begin(), c.in.begin() + static_cast<std::ptrdiff_t>(r.at));
      if (std::find(doomed_.begin(), doomed_.end(), fd) != doomed_.end()) return;
      if (bye) {
        c.said_bye = true;
        drop_client(fd);
        return;
      }
      if (!reply.empty() && !send_all(fd, reply.data(), reply.size(), kReplyBound)) {
        drop_client(fd);
        return;
      }
      if (c.in.empty()) break;
    }
  }

  /// Parses one request; false when it is not complete yet. A request that
  /// must wait registers a waiter and leaves `reply` empty.
  bool handle(int fd, Reader& r, Bytes& reply, bool& bye) {
    const std::uint8_t cmd = r.u8();
    switch (cmd) {
      case kSet: {
        std::string key = r.str();
        Bytes value = r.bytes();
        if (!r.ok) return false;
        values_[key] = std::move(value);
        reply.push_back(kOk);
        wake_waiters();
        return true;
      }
      case kGet:
      case kWait: {
        std::vector<std::string> keys;
        if (cmd == kGet) {
          keys.push_back(r.str());
        } else {
          const std::uint32_t n = r.u32();
          for (std::uint32_t i = 0; i < n && r.ok; ++i) keys.push_back(r.str());
        }
        const std::int64_t timeout_ms = std::clamp<std::int64_t>(r.i64(), 0, kLongestWaitMs);
        if (!r.ok) return false;
        Waiter w{fd, cmd == kGet, std::move(keys), Clock::now() + std::chrono::milliseconds(timeout_ms)};
        if (ready(w)) {
          reply = answer(w);
        } else {
          waiters_.push_back(std::move(w));
        }
        return true;
      }
      case kAdd: {
        std::string key = r.str();
        const std::int64_t delta = r.i64();
        if (!r.ok) return false;
        try {
          const std::int64_t sum = add_to_counter(values_[key], delta, key);
          reply.push_back(kOk);
          put_i64(reply, sum);
        } catch (const Error& e) {
          reply.push_back(kFailed);
          put_str(reply, e.message());
        }
        wake_waiters();
        return true;
      }
      case kCheck: {
        const std::uint32_t n = r.u32();
        bool all = true;
        for (std::uint32_t i = 0; i < n && r.ok; ++i) all = values_.count(r.str()) > 0 && all;
        if (!r.ok) return false;
        reply.push_back(all ? 1 : 0);
        return true;
      }
      case kDelete: {
        std::string key = r.str();
        if (!r.ok) return false;
        reply.push_back(values_.erase(key) > 0 ? 1 : 0);
        return true;
      }
      case kNumKeys:
        put_i64(reply, static_cast<std::int64_t>(values_.size()));
        return true;
      case kRegister: {
        std::string group = r.str();
        const std::int64_t rank = r.i64();
        if (!r.ok) return false;
        clients_[fd].ranks.emplace_back(group, rank);
        dead_[group].erase(rank);
        reply.push_back(kOk);
        return true;
      }
      case kDead: {
        std::string group = r.str();
        if (!r.ok) return false;
        const auto& dead = dead_[group];
        put_u32(reply, static_cast<std::uint32_t>(dead.size()));
        for (const std::int64_t rank : dead) put_i64(reply, rank);
        return true;
      }
      case kBye:
        bye = true;
        return true;
      default:
        if (!r.ok) return false;
        // A peer that is not a TCPStore client: drop it.
        bye = true;
        return true;
    }
  }

  [[nodiscard]] bool ready(const Waiter& w) const {
    return std::all_of(w.keys.begin(), w.keys.end(), [this](const std::string& k) { return values_.count(k) > 0; });
  }

  [[nodiscard]] Bytes answer(const Waiter& w) const {
    Bytes reply{kOk};
    if (w.is_get) put_bytes(reply, values_.at(w.keys[0]).data(), values_.at(w.keys[0]).size());
    return reply;
  }

  void wake_waiters() {
    answer_waiters([this](const Waiter& w) { return ready(w) ? std::optional<Bytes>(answer(w)) : std::nullopt; });
  }

  void expire_waiters() {
    const auto now = Clock::now();
    answer_waiters([now](const Waiter& w) { return now >= w.deadline ? std::optional<Bytes>(Bytes{kTimedOut}) : std::nullopt; });
  }

  /// Sends each waiter the reply `reply_for` gives it (none: it keeps
  /// waiting); the clients that do not take theirs are dropped by run(),
  /// not here, where read_client() may be serving one of them.
  template <class F>
  void answer_waiters(F reply_for) {
    std::vector<Waiter> still;
    std::vector<int> gone;
    for (auto& w : waiters_) {
      if (const std::optional<Bytes> reply = reply_for(w)) {
        if (!send_all(w.fd, reply->data(), reply->size(), kReplyBound)) gone.push_back(w.fd);
      } else {
        still.push_back(std::move(w));
      }
    }
    waiters_ = std::move(still);
    doomed_.insert(doomed_.end(), gone.begin(), gone.end());
  }

  int listen_fd_ = -1;
  int port_ = 0;
  int wake_[2] = {-1, -1};
  std::atomic<bool> stop_{false};
  std::mutex connected_mutex_;
  std::condition_variable connected_changed_;
  std::size_t connected_ = 0;  // guarded by connected_mutex_: clients_.size() for linger()
  std::map<int, Client> clients_;
  std::vector<Waiter> waiters_;
  std::vector<int> doomed_;  // clients to drop at the end of this poll round
  std::map<std::string, Bytes> values_;
  std::map<std::string, std::set<std::int64_t>> dead_;
  std::thread thread_;
};

/// connect(2) bounded by `deadline`: a host that drops the packets would
/// otherwise hold a blocking connect for the kernel's two minutes, whatever
/// the store's timeout. 0 on success, else the errno.
int connect_by(int fd, const sockaddr* addr, socklen_t len, Clock::time_point deadline) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) return errno;
  int err = ::connect(fd, addr, len) == 0 ? 0 : errno;
  if (err == EINPROGRESS || err == EINTR) {
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      pollfd p{fd, POLLOUT, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(std::clamp<std::int64_t>(left, 0, 60000)));
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0 && left > 0) continue;
      if (ready <= 0) {
        err = ETIMEDOUT;
        break;
      }
      socklen_t size = sizeof(err);
      if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &size) != 0) err = errno;
      break;
    }
  }
  if (err == 0 && ::fcntl(fd, F_SETFL, flags) != 0) err = errno;
  return err;
}

int connect_to(const std::string& host, int port, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::string last_error = "no address";
  for (int attempt = 0;; ++attempt) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const std::string service = std::to_string(port);
    const int gai = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
    if (gai != 0) {
      last_error = std::string("cannot resolve the host: ") + ::gai_strerror(gai);
    } else {
      for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        const int err = connect_by(fd, a->ai_addr, a->ai_addrlen, deadline);
        if (err == 0) {
          ::freeaddrinfo(found);
          set_nodelay(fd);
          return fd;
        }
        last_error = std::strerror(err);
        ::close(fd);
      }
      ::freeaddrinfo(found);
    }
    if (Clock::now() >= deadline) break;
    // The master may still be starting: retry, a little slower each time.
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(10 * (attempt + 1), 200)));
  }
  throw DistributedError("TCPStore: cannot reach the store server at " + address_text(host, port) + " within " +
                         std::to_string(timeout.count()) + " ms (" + last_error +
                         "); is rank 0 running, and MASTER_ADDR/MASTER_PORT right?");
}

}  // namespace

// --- shared helpers (store_keys.h) ---------------------------------------------------

std::int64_t add_to_counter(std::vector<std::uint8_t>& value, std::int64_t delta, const std::string& key) {
  std::int64_t current = 0;
  if (!value.empty()) {
    const std::string text(value.begin(), value.end());
    std::size_t used = 0;
    try {
      current = std::stoll(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    WICK_CHECK(used == text.size() && used > 0, ValueError, "Store.add: the value of key '", key, "' is not an integer counter");
  }
  const std::int64_t sum = checked_add(current, delta, "Store.add");
  const std::string text = std::to_string(sum);
  value.assign(text.begin(), text.end());
  return sum;
}

void throw_wait_timeout(const std::vector<std::string>& missing, std::chrono::milliseconds timeout, const std::string& where) {
  std::string keys;
  for (const auto& k : missing) keys += (keys.empty() ? "'" : ", '") + k + "'";
  throw DistributedError("Store: timed out after " + std::to_string(timeout.count()) + " ms waiting for keys [" + keys +
                         "] in " + where);
}

// --- TCPStore (the client, and the server on the master) ---------------------------------

struct TCPStore::Impl {
  std::string host;
  int port = 0;
  std::unique_ptr<Server> server;
  int fd = -1;
  std::mutex mutex;
  bool broken = false;

  [[nodiscard]] std::string where() const { return "the TCPStore at " + address_text(host, port); }

  /// Sends `request` and reads a reply of the given shape within `timeout`.
  Bytes call(const Bytes& request, std::chrono::milliseconds timeout, const std::function<std::size_t(Reader&)>& complete) {
    WICK_CHECK(!broken, DistributedError, "TCPStore: the connection to ", where(), " was lost earlier");
    if (!send_all(fd, request.data(), request.size())) lost();
    Bytes in;
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      Reader r{in.data(), in.size()};
      const std::size_t need = in.empty() ? 0 : complete(r);
      if (!in.empty() && r.ok && need == 0) return in;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        broken = true;
        throw DistributedError("TCPStore: " + where() + " did not answer within " + std::to_string(timeout.count()) + " ms");
      }
      pollfd p{fd, POLLIN, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left, 60000)));
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) continue;
      std::uint8_t buf[65536];
      const ssize_t k = ::recv(fd, buf, sizeof(buf), 0);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) lost();
      in.insert(in.end(), buf, buf + k);
    }
  }

  [[noreturn]] void lost() {
    broken = true;
    throw DistributedError("TCPStore: lost the connection to " + where() +
                           " (the process that serves it, usually rank 0, may have ended or crashed)");
  }
};

namespace {
// Reply shapes: how many more bytes a reply needs (0 when complete).
std::size_t status_only(Reader& r) {
  r.u8();
  return r.ok ? 0 : 1;
}
}  // namespace

TCPStore::TCPStore(std::string host, int port, TCPStoreOptions options)
    : Store(options.timeout), impl_(std::make_unique<Impl>()) {
  WICK_CHECK(port >= 0 && port <= 65535, ValueError, "TCPStore: port must be in [0, 65535], got ", port);
  WICK_CHECK(options.timeout.count() > 0, ValueError, "TCPStore: timeout must be positive, got ", options.timeout.count(), " ms");
  impl_->host = std::move(host);
  impl_->port = port;
  if (options.is_master) {
    impl_->server = std::make_unique<Server>(port);
    impl_->port = impl_->server->port();
  }
  impl_->fd = connect_to(options.is_master ? "localhost" : impl_->host, impl_->port, options.timeout);
  if (options.world_size > 0) {
    add("wick/store/joined", 1);
    if (options.is_master) {
      // The master waits for every worker, as PyTorch's wait_for_workers.
      const auto deadline = Clock::now() + options.timeout;
      for (;;) {
        const std::int64_t joined = add("wick/store/joined", 0);
        if (joined >= options.world_size) break;
        WICK_CHECK(Clock::now() < deadline, DistributedError, "TCPStore: timed out after ", options.timeout.count(),
                   " ms waiting for ", options.world_size, " processes to join the store at ",
                   address_text(impl_->host, impl_->port), " (", joined, " joined)");
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
  }
}

TCPStore::~TCPStore() {
  if (impl_ != nullptr && impl_->fd >= 0) {
    if (!impl_->broken) {
      const std::uint8_t bye = kBye;
      send_all(impl_->fd, &bye, 1);
    }
    ::close(impl_->fd);
  }
  if (impl_ != nullptr && impl_->server != nullptr) impl_->server->linger(std::min<std::chrono::milliseconds>(timeout(), std::chrono::seconds(2)));
}

const std::string& TCPStore::host() const noexcept { return impl_->host; }
int TCPStore::port() const noexcept { return impl_->port; }

void TCPStore::set(const std::string& key, const std::vector<std::uint8_t>& value) {
  Bytes req{kSet};
  put_str(req, key);
  put_bytes(req, value.data(), value.size());
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->call(req, timeout(), status_only);
}

std::vector<std::uint8_t> TCPStore::get(const std::string& key) {
  Bytes req{kGet};
  put_str(req, key);
  put_i64(req, timeout().count());
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  const Bytes reply = impl_->call(req, timeout() + std::chrono::seconds(10), [](Reader& r) -> std::size_t {
    if (r.u8() == kOk) r.bytes();
    return r.ok ? 0 : 1;
  });
  Reader r{reply.data(), reply.size()};
  if (r.u8() != kOk) throw_wait_timeout({key}, timeout(), impl_->where());
  return r.bytes();
}

std::int64_t TCPStore::add(const std::string& key, std::int64_t delta) {
  Bytes req{kAdd};
  put_str(req, key);
  put_i64(req, delta);
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  const Bytes reply = impl_->call(req, timeout(), [](Reader& r) -> std::size_t {
    if (r.u8() == kOk) {
      r.i64();
    } else {
      r.str();
    }
    return r.ok ? 0 : 1;
  });
  Reader r{reply.data(), reply.size()};
  if (r.u8() != kOk) throw ValueError(r.str());
  return r.i64();
}

void TCPStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  Bytes req{kWait};
  put_u32(req, static_cast<std::uint32_t>(keys.size()));
  for (const auto& k : keys) put_str(req, k);
  put_i64(req, timeout.count());
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  const Bytes reply = impl_->call(req, timeout + std::chrono::seconds(10), status_only);
  if (reply[0] != kOk) {
    std::vector<std::string> missing;
    for (const auto& k : keys) {
      Bytes one{kCheck};
      put_u32(one, 1);
      put_str(one, k);
      if (impl_->call(one, this->timeout(), status_only)[0] == 0) missing.push_back(k);
    }
    throw_wait_timeout(missing.empty() ? keys : missing, timeout, impl_->where());
  }
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  Bytes req{kCheck};
  put_u32(req, static_cast<std::uint32_t>(keys.size()));
  for (const auto& k : keys) put_str(req, k);
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->call(req, timeout(), status_only)[0] != 0;
}

bool TCPStore::delete_key(const std::string& key) {
  Bytes req{kDelete};
  put_str(req, key);
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->call(req, timeout(), status_only)[0] != 0;
}

std::int64_t TCPStore::num_keys() {
  const Bytes req{kNumKeys};
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  const Bytes reply = impl_->call(req, timeout(), [](Reader& r) -> std::size_t {
    r.i64();
    return r.ok ? 0 : 1;
  });
  Reader r{reply.data(), reply.size()};
  return r.i64();
}

std::string TCPStore::local_address() const {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (::getsockname(impl_->fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "127.0.0.1";
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&addr)->sin_addr, text, sizeof(text));
  } else {
    const auto* a6 = reinterpret_cast<sockaddr_in6*>(&addr);
    if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr)) {
      ::inet_ntop(AF_INET, &a6->sin6_addr.s6_addr[12], text, sizeof(text));
    } else {
      ::inet_ntop(AF_INET6, &a6->sin6_addr, text, sizeof(text));
    }
  }
  return text;
}

void TCPStore::register_rank(const std::string& group, int rank) {
  Bytes req{kRegister};
  put_str(req, group);
  put_i64(req, rank);
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->call(req, timeout(), status_only);
}

std::vector<int> TCPStore::dead_ranks(const std::string& group) {
  Bytes req{kDead};
  put_str(req, group);
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  const Bytes reply = impl_->call(req, timeout(), [](Reader& r) -> std::size_t {
    const std::uint32_t n = r.u32();
    for (std::uint32_t i = 0; i < n && r.ok; ++i) r.i64();
    return r.ok ? 0 : 1;
  });
  Reader r{reply.data(), reply.size()};
  std::vector<int> out;
  const std::uint32_t n = r.u32();
  for (std::uint32_t i = 0; i < n; ++i) out.push_back(static_cast<int>(r.i64()));
  return out;
}

}  // namespace wick::distributed
