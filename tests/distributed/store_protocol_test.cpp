// tests/distributed/store_protocol_test.cpp - the store's server and the rendezvous against hostile or corrupt bytes.
/// \file
/// What store_fuzz (tests/fuzz) explores, kept as ordinary tests: requests
/// no TCPStore client would send, timeouts at the int64 edges, and a
/// rendezvous store holding something other than what wick wrote there.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <thread>
#include <wick/distributed.h>
#include <wick/distributed_backend.h>
#include <wick/distributed_store.h>

#include "tests/autograd/test_util.h"
#include "tests/distributed/store_wire.h"

namespace {

namespace dist = wick::distributed;
using std::chrono::milliseconds;

using namespace wick_test::store_wire;

Bytes wait_request(const std::string& key, std::int64_t timeout_ms) {
  Bytes out{kWait};
  put_u32(out, 1);
  put_str(out, key);
  put_i64(out, timeout_ms);
  return out;
}

/// A raw connection to the server on `port`.
class Raw {
 public:
  explicit Raw(int port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    EXPECT_EQ(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  }
  ~Raw() { ::close(fd_); }
  Raw(const Raw&) = delete;
  Raw& operator=(const Raw&) = delete;
  void send(const Bytes& b) const { ASSERT_EQ(::send(fd_, b.data(), b.size(), MSG_NOSIGNAL), static_cast<ssize_t>(b.size())); }
  /// The next byte within `most`; -1 at end of stream, -2 when none came.
  [[nodiscard]] int next(milliseconds most) const {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(most.count())) <= 0) return -2;
    std::uint8_t b = 0;
    const ssize_t k = ::recv(fd_, &b, 1, 0);
    return k == 1 ? b : -1;
  }
  void end() const { ::shutdown(fd_, SHUT_WR); }

 private:
  int fd_;
};

TEST(StoreProtocol, TheServerDropsWhatNoClientSendsAndKeepsServing) {
  dist::TCPStore master("127.0.0.1", 0, {.is_master = true, .timeout = milliseconds(5000)});
  {
    Raw unknown(master.port());
    unknown.send({0xee, 1, 2, 3});  // no such command: not a TCPStore client
    EXPECT_EQ(unknown.next(milliseconds(5000)), -1);
  }
  {
    Raw truncated(master.port());
    truncated.send({1, 0xff, 0xff, 0xff, 0x7f, 'k'});  // a set whose key claims 2 GiB, then the end
    truncated.end();
    EXPECT_EQ(truncated.next(milliseconds(5000)), -1);
  }
  master.set("k", std::string_view("v"));
  EXPECT_EQ(master.get_string("k"), "v");
}

TEST(StoreProtocol, TimeoutsAtTheInt64EdgesAreClamped) {
  dist::TCPStore master("127.0.0.1", 0, {.is_master = true, .timeout = milliseconds(5000)});
  Raw client(master.port());
  // A negative timeout has passed already: "timed out" (status 1) at once.
  client.send(wait_request("absent", std::numeric_limits<std::int64_t>::min()));
  EXPECT_EQ(client.next(milliseconds(5000)), 1);
  // The longest one waits (once its deadline overflowed the clock) until the key comes: "ok" (status 0).
  client.send(wait_request("later", std::numeric_limits<std::int64_t>::max()));
  EXPECT_EQ(client.next(milliseconds(200)), -2);
  master.set("later", std::string_view("here"));
  EXPECT_EQ(client.next(milliseconds(5000)), 0);
}

bool have_gloo() {
  const auto engines = dist::registered_engines();
  return std::any_of(engines.begin(), engines.end(), [](const std::string& e) { return e.starts_with("gloo:"); });
}

TEST(StoreProtocol, ARendezvousStoreHoldingSomethingElseIsNamed) {
  if (!have_gloo()) GTEST_SKIP() << "no gloo engine (built without Gloo)";
  for (const char* held : {"two", "", "99999999999999999999", "-2", "2 "}) {
    auto store = std::make_shared<dist::HashStore>();
    store->set("wick/g1/world_size/0", std::string_view(held));
    WICK_EXPECT_THROW_MSG(
        dist::init_process_group("gloo", {.store = store, .rank = 1, .world_size = 2, .timeout = milliseconds(2000)}),
        wick::DistributedError, std::string("init_process_group: the store holds '") + held + "' under 'wick/g1/world_size/0', not a world size");
    EXPECT_FALSE(dist::is_initialized()) << held;
  }
  // A counter the rendezvous adds to that holds text is a ValueError naming the key.
  auto store = std::make_shared<dist::HashStore>();
  store->set("wick/inits/0", std::string_view("x"));
  WICK_EXPECT_THROW_MSG(dist::init_process_group("gloo", {.store = store, .rank = 0, .world_size = 1}), wick::ValueError,
                        "the value of key 'wick/inits/0' is not an integer counter");
  EXPECT_FALSE(dist::is_initialized());
}

TEST(StoreProtocol, ATcpInitMethodNeedsAWholePortNumber) {
  if (!have_gloo()) GTEST_SKIP() << "no gloo engine (built without Gloo)";
  for (const char* method : {"tcp://127.0.0.1:12ab", "tcp://127.0.0.1:", "tcp://127.0.0.1:99999999999"}) {
    WICK_EXPECT_THROW_MSG(dist::init_process_group("gloo", {.init_method = method, .rank = 0, .world_size = 1}),
                          wick::ValueError, "' has no port number");
  }
}

}  // namespace
