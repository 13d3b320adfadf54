// tools/wick/plugin_commands.h - the `wick plugins ...` commands (private to the CLI).
/// \file
/// Each prints to stdout (JSON with `as_json`) and returns the command's
/// exit code; wick errors propagate as exceptions, which main prints.
#pragma once

#include <string>

namespace wick::cli {

/// Loaded plugins, what each registered, and the files that failed to load
/// (1 when any did).
int plugins_list(bool as_json);
/// A plugin file's descriptor (opening it runs its static initialisers).
int plugins_inspect(const std::string& file, bool as_json);
/// Every .so in `dir`, opened and checked as the loader would without
/// running init (1 when any fails).
int plugins_check(const std::string& dir, bool as_json);
/// Loads `file` as a plugin of `kind` ("plugin" or "backend").
int plugins_load(const std::string& file, const std::string& kind, bool as_json);
/// Unloads the plugin `name` (1 when its code stays mapped).
int plugins_unload(const std::string& name, bool as_json);
/// Unloads the plugin `name` and loads the file at its path again.
int plugins_reload(const std::string& name, bool as_json);

}  // namespace wick::cli
