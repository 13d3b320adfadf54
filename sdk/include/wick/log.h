// wick/log.h - a thin logging facade over spdlog.
/// \file
/// Plugins and applications log through these functions; spdlog stays an
/// implementation detail of libwick. The namespace is `wick::logging` (as
/// Python's module): `wick::log` is the operator torch.log. The level comes
/// from `WICK_LOG_LEVEL` (trace, debug, info, warn, error, off; default warn)
/// and can be changed with `set_level`.
///
///   wick::logging::info("loaded ", n, " plugins");
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "wick/error.h"
#include "wick/export.h"

namespace wick::logging {

/// Message severities, lowest first; kOff as a level silences everything.
enum class Level : int { kTrace = 0, kDebug, kInfo, kWarn, kError, kOff };

/// Logs `message` at `level` when it passes the current level (to stderr and every ScopedSink).
WICK_API void write(Level level, std::string_view message);

/// Also sends every message that passes the level to `fn` while this object
/// lives (for tests, and applications that keep their own logs). Messages
/// still go to stderr. Several may be active; each is called in turn.
class WICK_API ScopedSink final {
 public:
  /// What a sink is called with: the message's level and text.
  using Fn = std::function<void(Level level, std::string_view message)>;
  /// Starts sending messages to `fn` until destruction.
  explicit ScopedSink(Fn fn);
  ~ScopedSink();
  ScopedSink(const ScopedSink&) = delete;
  ScopedSink& operator=(const ScopedSink&) = delete;

 private:
  std::shared_ptr<Fn> fn_;
};
/// Sets the process-wide level: messages below it are dropped (overrides WICK_LOG_LEVEL).
WICK_API void set_level(Level level);
/// The current level (from WICK_LOG_LEVEL at start-up, default kWarn).
[[nodiscard]] WICK_API Level level() noexcept;
/// Parses "trace".."off"; throws ValueError on anything else.
[[nodiscard]] WICK_API Level parse_level(std::string_view name);

/// Logs the concatenated arguments (streamed with <<) at trace level; nothing is formatted below the level.
template <typename... Args>
void trace(const Args&... a) { if (level() <= Level::kTrace) write(Level::kTrace, detail::str_cat(a...)); }
/// Logs the concatenated arguments at debug level; nothing is formatted below the level.
template <typename... Args>
void debug(const Args&... a) { if (level() <= Level::kDebug) write(Level::kDebug, detail::str_cat(a...)); }
/// Logs the concatenated arguments at info level; nothing is formatted below the level.
template <typename... Args>
void info(const Args&... a) { if (level() <= Level::kInfo) write(Level::kInfo, detail::str_cat(a...)); }
/// Logs the concatenated arguments at warn level; nothing is formatted below the level.
template <typename... Args>
void warn(const Args&... a) { if (level() <= Level::kWarn) write(Level::kWarn, detail::str_cat(a...)); }
/// Logs the concatenated arguments at error level; nothing is formatted below the level.
template <typename... Args>
void error(const Args&... a) { if (level() <= Level::kError) write(Level::kError, detail::str_cat(a...)); }

}  // namespace wick::logging
