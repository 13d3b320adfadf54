// tests/fuzz/store_fuzz.cpp - libFuzzer target: the distributed store's wire protocol, both ends, and the rendezvous.
/// \file
/// The store's messages are the bytes that cross the network in a
/// distributed job (Note [The store's wire format], core/distributed/tcp_store.cpp).
/// The input's first byte picks what reads them:
///   - 0, the server: a real TCPStore master on a free port (one serves 256
///     inputs); one to three raw connections send it requests decoded from
///     the input (well-formed ones with extreme fields, or raw bytes), read
///     some replies, end. Afterwards the server must close every connection
///     its client ended and still answer its own client (set then get);
///   - 1, the client: a TCPStore client connected to a fake server that
///     answers with bytes from the input, then calls the store's operations
///     on it; only wick::Error may come out, and nothing may wait;
///   - 2, the rendezvous: `init_process_group` over a HashStore that holds
///     values from the input under the rendezvous's keys (engine
///     "fuzzloop" from tests/fuzz/plugin/engine_plugin.cpp); only
///     wick::Error may come out, and after one no group is left behind.
/// Any other exception, a sanitizer report, a leak or a hang is a bug.
/// The seeds in corpus/store are written by make_store_seeds.py.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "tests/distributed/store_wire.h"
#include "tests/fuzz/fuzz_util.h"
#include "tests/support/test_paths.h"
#include "wick/distributed.h"
#include "wick/distributed_store.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/tensor.h"

namespace {

using wick::fuzz::fuzz_check;
using wick::fuzz::fuzz_unexpected;
using namespace wick_test::store_wire;
namespace dist = wick::distributed;

/// Reads the input front to back; past the end every read gives zeros.
struct Input {
  const std::uint8_t* p;
  std::size_t n;
  std::size_t at = 0;
  [[nodiscard]] bool done() const { return at >= n; }
  std::uint8_t byte() { return at < n ? p[at++] : 0; }
  Bytes bytes(std::size_t k) {
    k = std::min(k, n - std::min(at, n));
    Bytes out(p + at, p + at + k);
    at += k;
    return out;
  }
  /// One of a few keys, most of them shared by every connection, or a
  /// short string from the input.
  std::string key() {
    static const std::array<const char*, 6> kKeys = {"a", "b", "counter", "wick/store/joined", "", "wick/g1/world_size/0"};
    const std::uint8_t b = byte();
    if (b < 200) return kKeys[b % kKeys.size()];
    const Bytes raw = bytes(b - 200U);
    return {raw.begin(), raw.end()};
  }
  /// A 64-bit field: an edge value, or 8 bytes from the input.
  std::int64_t i64() {
    static const std::array<std::int64_t, 8> kEdges = {0, 1, -1, 5, 1000, std::int64_t{1} << 62,
                                                        std::numeric_limits<std::int64_t>::max(),
                                                        std::numeric_limits<std::int64_t>::min()};
    const std::uint8_t b = byte();
    if (b < 200) return kEdges[b % kEdges.size()];
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(byte()) << (8 * i);
    return static_cast<std::int64_t>(v);
  }
};

/// A well-formed request (command 1-10) with fields from the input, or a
/// command byte the server does not know.
Bytes request(Input& in) {
  const std::uint8_t cmd = in.byte() % 12;
  Bytes out{cmd};
  switch (cmd) {
    case kSet:
      put_str(out, in.key());
      put_str(out, in.key());
      break;
    case kGet:
      put_str(out, in.key());
      put_i64(out, in.i64());
      break;
    case kAdd:
      put_str(out, in.key());
      put_i64(out, in.i64());
      break;
    case kWait:
    case kCheck: {
      const std::uint32_t n = in.byte() % 4;
      put_u32(out, n);
      for (std::uint32_t i = 0; i < n; ++i) put_str(out, in.key());
      if (cmd == kWait) put_i64(out, in.i64());
      break;
    }
    case kDelete:
    case kDead:
      put_str(out, in.key());
      break;
    case kRegister:
      put_str(out, in.key());
      put_i64(out, in.i64());
      break;
    default:  // num_keys, bye, and 0 and 11, which no client sends
      break;
  }
  return out;
}

/// Connects to the server on `port` from the next of 65536 loopback
/// addresses (127.2.0.0/16). The fuzzer ends thousands of connections a
/// second, and each waits in TIME_WAIT for a minute: from one address the
/// ports to reach one server run out within seconds (connect() failing),
/// from many they never do.
int connect_local(int port) {
  static std::uint32_t next_source = 0;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  fuzz_check(fd >= 0, "socket()");
  const int one = 1;
  ::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
  sockaddr_in source{};
  source.sin_family = AF_INET;
  source.sin_addr.s_addr = htonl((127U << 24) | (2U << 16) | (next_source++ & 0xffffU));
  fuzz_check(::bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof(source)) == 0, "binding a loopback source address");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  // libFuzzer's timer signal may interrupt connect(); the connection then
  // goes on by itself, and POLLOUT says when it is made.
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    fuzz_check(errno == EINTR, std::string("connecting to the store's server: ") + std::strerror(errno));
    pollfd p{fd, POLLOUT, 0};
    int err = 0;
    socklen_t size = sizeof(err);
    fuzz_check(::poll(&p, 1, 5000) == 1 && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &size) == 0 && err == 0,
               "connecting to the store's server after an interrupted connect()");
  }
  return fd;
}

/// The server that mode 0 talks to. One serves many inputs (a new one for
/// each would leave its own client's connection in TIME_WAIT every time);
/// it is replaced every kInputsPerServer inputs, so that the values hostile
/// inputs stored do not pile up, and when it stopped answering.
constexpr int kInputsPerServer = 256;
dist::TCPStore& server_for_this_input() {
  static std::unique_ptr<dist::TCPStore> master;
  static int served = 0;
  if (master == nullptr || ++served >= kInputsPerServer) {
    master.reset();
    master = std::make_unique<dist::TCPStore>(
        "127.0.0.1", 0, dist::TCPStoreOptions{.is_master = true, .world_size = 0, .timeout = std::chrono::seconds(5)});
    served = 0;
  }
  return *master;
}

/// Reads what has arrived on `fd` without waiting; false at end of stream.
bool drain(int fd) {
  std::uint8_t buf[4096];
  for (;;) {
    const ssize_t k = ::recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (k == 0) return false;
    if (k < 0) return true;
  }
}

/// Mode 0: hostile clients of a real server.
void fuzz_server(Input& in) {
  dist::TCPStore& master = server_for_this_input();
  std::vector<int> fds;
  const int conns = 1 + in.byte() % 3;
  for (int i = 0; i < conns; ++i) fds.push_back(connect_local(master.port()));
  for (int step = 0; step < 64 && !in.done(); ++step) {
    const std::uint8_t b = in.byte();
    const int fd = fds[static_cast<std::size_t>((b & 3) % conns)];
    Bytes out;
    switch ((b >> 2) & 3) {  // 0 drain, 1 raw bytes, 2 a request, 3 half-close
      case 0:
        drain(fd);
        continue;
      case 1:
        out = in.bytes(in.byte());
        break;
      case 3:
        ::shutdown(fd, SHUT_WR);
        continue;
      default:
        out = request(in);
        break;
    }
    // The server may have dropped this connection already: that is fine.
    if (!out.empty()) (void)::send(fd, out.data(), out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  }
  // End every connection; the server must close each in turn. Reading all
  // of them together keeps the server from waiting on one we do not read.
  for (const int fd : fds) ::shutdown(fd, SHUT_WR);
  std::vector<int> open = fds;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(8);
  while (!open.empty() && std::chrono::steady_clock::now() < deadline) {
    std::vector<pollfd> polled;
    for (const int fd : open) polled.push_back({fd, POLLIN, 0});
    ::poll(polled.data(), polled.size(), 100);
    std::erase_if(open, [](int fd) { return !drain(fd); });
  }
  fuzz_check(open.empty(), "the server closes every connection whose client ended it");
  for (const int fd : fds) ::close(fd);
  const Bytes probe{1, 2, 3};
  master.set("\x01probe", probe);
  fuzz_check(master.get("\x01probe") == probe, "the server still answers its own client");
}

/// Mode 1: a client reading replies from a hostile server.
void fuzz_client(Input& in) {
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  fuzz_check(listener >= 0, "socket()");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  fuzz_check(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 && ::listen(listener, 4) == 0 &&
                 ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0,
             "a listening socket");
  {
    dist::TCPStore client("127.0.0.1", ntohs(addr.sin_port),
                          {.is_master = false, .world_size = 0, .timeout = std::chrono::milliseconds(200)});
    const int server = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    fuzz_check(server >= 0, "accept()");
    // Every reply the fake server will give, written before the calls; then
    // end of stream, so that a client wanting more bytes fails at once.
    const std::size_t reply_len = in.byte() * 4U + in.byte();
    const Bytes replies = in.bytes(reply_len);
    if (!replies.empty()) fuzz_check(::send(server, replies.data(), replies.size(), MSG_NOSIGNAL) >= 0, "send()");
    ::shutdown(server, SHUT_WR);
    for (int call = 0; call < 16 && !in.done(); ++call) {
      try {
        switch (in.byte() % 9) {
          case 0:
            client.set(in.key(), std::string_view("v"));
            break;
          case 1:
            (void)client.get(in.key());
            break;
          case 2:
            (void)client.add(in.key(), in.i64());
            break;
          case 3:
            client.wait({in.key(), in.key()}, std::chrono::milliseconds(1 + in.byte()));
            break;
          case 4:
            (void)client.check({in.key()});
            break;
          case 5:
            (void)client.delete_key(in.key());
            break;
          case 6:
            (void)client.num_keys();
            break;
          case 7:
            (void)client.dead_ranks(in.key());
            break;
          default:
            client.register_rank(in.key(), in.byte());
            break;
        }
      } catch (const wick::Error&) {
        // A refused reply or a lost connection: a fine answer.
      } catch (const std::exception& e) {
        fuzz_unexpected(e, "TCPStore client");
      }
    }
    ::close(server);
  }
  ::close(listener);
}

const std::string& engine_plugin() {
  static const std::string path =
      (std::filesystem::path(wick_test::build_dir()) / "tests" / "fuzz" / "plugin" / WICK_FUZZ_ENGINE_PLUGIN_NAME).string();
  return path;
}

/// Mode 2: the rendezvous of init_process_group over a store holding
/// values from the input.
void fuzz_rendezvous(Input& in) {
  auto store = std::make_shared<dist::HashStore>();
  static const std::array<const char*, 4> kKinds = {"wick/inits/", "claimed/", "world_size/", "wick/progress/"};
  const int values = in.byte() % 9;
  for (int i = 0; i < values; ++i) {
    const std::uint8_t b = in.byte();
    const std::string kind = kKinds[b % kKinds.size()];
    std::string key = kind.starts_with("wick/") ? kind : "wick/g" + std::to_string(1 + (b / 4) % 3) + "/" + kind;
    key += std::to_string(in.byte() % 5);
    const Bytes raw = in.bytes(in.byte() % 24);
    store->set(key, raw);
  }
  const int rank = static_cast<int>(in.byte() % 6) - 1;
  const int size = static_cast<int>(in.byte() % 6) - 1;
  try {
    dist::init_process_group("fuzzloop", {.store = store, .rank = rank, .world_size = size,
                                           .timeout = std::chrono::milliseconds(1)});
  } catch (const wick::Error&) {
    fuzz_check(!dist::is_initialized(), "a failed init_process_group leaves no group");
    return;
  } catch (const std::exception& e) {
    fuzz_unexpected(e, "init_process_group");
  }
  try {
    wick::Tensor x = wick::ones({2});
    dist::all_reduce(x);
    dist::barrier();
  } catch (const wick::Error&) {
  } catch (const std::exception& e) {
    fuzz_unexpected(e, "a collective after the rendezvous");
  }
  dist::destroy_process_group();
  fuzz_check(!dist::is_initialized(), "destroy_process_group leaves no group");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool ready = [] {
    wick::init();
    wick::load_plugin(engine_plugin());
    return true;
  }();
  (void)ready;
  if (size == 0) return 0;
  Input in{data, size};
  try {
    switch (in.byte() % 3) {
      case 0:
        fuzz_server(in);
        break;
      case 1:
        fuzz_client(in);
        break;
      default:
        fuzz_rendezvous(in);
        break;
    }
  } catch (const std::exception& e) {
    fuzz_unexpected(e, "store_fuzz");
  }
  return 0;
}
