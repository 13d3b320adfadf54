// wick/loader.h - finding, loading and listing plugins (host side).
/// \file
/// `wick::init()` loads every `.so` in the default backend and plugin
/// directories of the install (found relative to libwick itself), then each
/// directory of `WICK_PLUGIN_PATH` (colon-separated). A file that fails to
/// load is reported (logged and kept in `plugin_errors()`) and the rest go
/// on; nothing is loaded from the working directory implicitly.
///
///   wick::init();
///   for (const auto& p : wick::loaded_plugins()) std::cout << p.name << " " << p.path << "\n";
#pragma once

#include <string>
#include <vector>

#include "wick/export.h"
#include "wick/library.h"

namespace wick {

struct PluginInfo {
  std::string name;
  std::string version;
  std::string path;
  std::string sdk_version;
  std::string abi_fingerprint;
  /// "backend" (from a backend directory) or "plugin".
  std::string kind;
  /// What it registered (empty for `inspect_plugin`, which does not run `init`).
  Registrations registrations;
};

struct PluginLoadError {
  std::string path;
  std::string message;
};

/// Loads the default directories and WICK_PLUGIN_PATH once per process
/// (later calls do nothing). Never throws for a bad plugin file.
WICK_API void init();
/// Loads one plugin file; throws PluginError with a message naming the file.
WICK_API PluginInfo load_plugin(const std::string& path, const std::string& kind = "plugin");
/// Opens a plugin file and checks its descriptor without running `init`
/// (opening it does run its static initialisers and entry point); throws
/// PluginError naming the file and the problem.
WICK_API PluginInfo inspect_plugin(const std::string& path);
/// Unloads a plugin by name, removing everything it registered. PluginError
/// while instances of its types are alive (nothing is removed then). The
/// caller must make sure no other thread is running the plugin's code, and
/// that no autograd graph still holds its custom Functions' nodes.
WICK_API void unload_plugin(const std::string& name);
[[nodiscard]] WICK_API std::vector<PluginInfo> loaded_plugins();
/// Errors from `init` (one per file that failed).
[[nodiscard]] WICK_API std::vector<PluginLoadError> plugin_errors();
/// The directories `init` searches, in order.
[[nodiscard]] WICK_API std::vector<std::string> plugin_search_path();

}  // namespace wick
