// tests/plugins/reload/reload.cpp - a plugin built three times (versions 1, 2, 3) to test that a reload runs the new
// build.
/// \file
/// Compiled once per version with `-DWICK_TEST_RELOAD_VERSION=N` into
/// `libwick_test_reload_vN.so`. It has what keeps careless plugins mapped
/// after `dlclose`: thread-locals (trivial ones touched by every kernel call,
/// one with a destructor used on a thread that ends during init), static
/// objects with destructors, a `wick::logging` sink, and an spdlog logger of
/// its own with a sink class defined here, dropped again by a static
/// destructor when the library is unmapped. Its kernel `testreload.version`
/// returns `self * N`, so a caller sees which build runs.
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <wick/log.h>
#include <wick/ops.h>
#include <wick/plugin.h>

#ifndef WICK_TEST_RELOAD_VERSION
#error "build with -DWICK_TEST_RELOAD_VERSION=N"
#endif

namespace {

constexpr int kVersion = WICK_TEST_RELOAD_VERSION;

// Trivially destructible thread-locals: glibc can unmap a library that has them.
thread_local int t_calls = 0;
thread_local const char* t_last_op = nullptr;

// An spdlog sink whose vtable lives in this library.
class CountingSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::atomic<int> lines{0};

 protected:
  void sink_it_(const spdlog::details::log_msg&) override { lines.fetch_add(1); }
  void flush_() override {}
};

// Static objects with destructors. The last one removes what this library
// lent to others (its spdlog logger, its wick log sink) and says so through
// wick's log, which outlives every plugin.
std::map<std::string, int> g_table = {{"version", kVersion}};
std::string g_name = "test_reload v" + std::to_string(kVersion);

struct Lent {
  std::shared_ptr<CountingSink> sink;
  std::unique_ptr<wick::logging::ScopedSink> wick_sink;
  ~Lent() {
    if (sink) spdlog::drop("test_reload");
    wick_sink.reset();
    wick::logging::info(g_name, ": static objects destroyed (table size ", g_table.size(), ")");
  }
};
Lent g_lent;

wick::Tensor version_cpu(const wick::Tensor& self) {
  ++t_calls;
  t_last_op = "testreload.version";
  if (auto logger = spdlog::get("test_reload")) logger->debug("call {} of v{}", t_calls, kVersion);
  return wick::mul(self, wick::wrap_scalar(static_cast<double>(kVersion)));
}

}  // namespace

WICK_PLUGIN("test_reload", "1.0." WICK_STR(WICK_TEST_RELOAD_VERSION), registrar) {
  // A thread-local with a destructor, used on a thread that ends: its
  // destructor runs when the thread exits, and nothing pins the library.
  std::thread([] {
    thread_local std::string t_scratch;
    t_scratch = g_name;
  }).join();
  g_lent.sink = std::make_shared<CountingSink>();
  auto logger = std::make_shared<spdlog::logger>("test_reload", g_lent.sink);
  logger->set_level(spdlog::level::debug);
  spdlog::register_logger(logger);
  g_lent.wick_sink = std::make_unique<wick::logging::ScopedSink>([](wick::logging::Level, std::string_view) {});
  registrar.library("testreload").def("version(Tensor self) -> Tensor");
  registrar.library("testreload", wick::DispatchKey::kCPU).impl("version", &version_cpu);
}
