// core/log.cpp - the logging facade over spdlog; level from WICK_LOG_LEVEL.
/// \file
#include "wick/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace wick::logging {
namespace {

spdlog::level::level_enum to_spdlog(Level l) {
  switch (l) {
    case Level::kTrace: return spdlog::level::trace;
    case Level::kDebug: return spdlog::level::debug;
    case Level::kInfo: return spdlog::level::info;
    case Level::kWarn: return spdlog::level::warn;
    case Level::kError: return spdlog::level::err;
    case Level::kOff: return spdlog::level::off;
  }
  return spdlog::level::warn;
}

Level initial_level() {
  const char* env = std::getenv("WICK_LOG_LEVEL");
  if (env == nullptr || *env == '\0') return Level::kWarn;
  try {
    return parse_level(env);
  } catch (const Error&) {
    return Level::kWarn;
  }
}

std::atomic<Level>& current() {
  static std::atomic<Level> level{initial_level()};
  return level;
}

spdlog::logger& logger() {
  // Logs go to stderr so that command output (stdout) stays clean.
  static std::shared_ptr<spdlog::logger> l = [] {
    auto lg = spdlog::stderr_color_mt("wick");
    lg->set_pattern("[wick] [%^%l%$] %v");
    lg->set_level(spdlog::level::trace);
    return lg;
  }();
  return *l;
}

// Callbacks run under a recursive mutex: a sink may log (same thread), and
// ~ScopedSink waits for a callback running on another thread to finish, so
// no callback runs after its sink is gone.
struct Sinks {
  std::recursive_mutex mutex;
  std::vector<std::shared_ptr<ScopedSink::Fn>> fns;
  std::atomic<bool> any{false};
};

Sinks& sinks() {
  static auto* s = new Sinks();  // never destroyed: logging may happen during static destruction
  return *s;
}

}  // namespace

ScopedSink::ScopedSink(Fn fn) : fn_(std::make_shared<Fn>(std::move(fn))) {
  auto& s = sinks();
  std::lock_guard lock(s.mutex);
  s.fns.push_back(fn_);
  s.any.store(true, std::memory_order_release);
}

ScopedSink::~ScopedSink() {
  auto& s = sinks();
  std::lock_guard lock(s.mutex);
  std::erase(s.fns, fn_);
  s.any.store(!s.fns.empty(), std::memory_order_release);
}

Level parse_level(std::string_view name) {
  if (name == "trace") return Level::kTrace;
  if (name == "debug") return Level::kDebug;
  if (name == "info") return Level::kInfo;
  if (name == "warn" || name == "warning") return Level::kWarn;
  if (name == "error" || name == "err") return Level::kError;
  if (name == "off") return Level::kOff;
  throw ValueError(detail::str_cat("unknown log level '", name,
                                   "' (expected trace, debug, info, warn, error or off)"));
}

void set_level(Level level) { current().store(level, std::memory_order_relaxed); }
Level level() noexcept { return current().load(std::memory_order_relaxed); }

void write(Level level, std::string_view message) {
  if (level < current().load(std::memory_order_relaxed) || level == Level::kOff) return;
  logger().log(to_spdlog(level), "{}", message);
  auto& s = sinks();
  if (!s.any.load(std::memory_order_acquire)) return;
  std::lock_guard lock(s.mutex);
  const std::vector<std::shared_ptr<ScopedSink::Fn>> fns = s.fns;  // a sink may add or remove sinks
  for (const auto& fn : fns) (*fn)(level, message);
}

}  // namespace wick::logging
