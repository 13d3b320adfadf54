// wick/loader.h - finding, loading, unloading and listing plugins (host side), and libraries a plugin loads.
/// \file
/// `wick::init()` loads every `.so` in the default backend and plugin
/// directories of the install (found relative to libwick itself), then each
/// directory of `WICK_PLUGIN_PATH` (colon-separated). A file that fails to
/// load is reported (logged and kept in `plugin_errors()`) and the rest go
/// on; nothing is loaded from the working directory implicitly.
///
///   wick::init();
///   for (const auto& p : wick::loaded_plugins()) std::cout << p.name << " " << p.path << "\n";
///   wick::PluginInfo v2 = wick::reload_plugin("myplugin");   // after rebuilding it
///
/// A plugin that needs another library of its own opens it through the
/// loader, so that the same checks (ownership, ELF, allowlist) apply to it:
///
///   WICK_PLUGIN("myops", "1.0.0", registrar) {
///     const wick::CheckedLibrary& lib = wick::load_plugin_library(registrar, "myops/libkernels.so");
///     auto* add_kernels = lib.function<const char*(wick::Registrar*)>("myops_add_kernels");
///     ...
///   }
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "wick/export.h"
#include "wick/library.h"

namespace wick {

class Registrar;

/// What a plugin's descriptor says about it, and what loading it registered.
struct PluginInfo {
  std::string name; ///< the plugin's name (its descriptor's)
  std::string version; ///< the plugin's own version string
  std::string path; ///< the file it was loaded from
  std::string sdk_version; ///< the wick SDK version it was built against
  std::string abi_fingerprint; ///< the ABI fingerprint of the SDK headers it was built with (checked against the host's)
  /// "backend" (from a backend directory) or "plugin".
  std::string kind;
  /// What it registered (empty for `inspect_plugin`, which does not run `init`).
  Registrations registrations;
};

/// A plugin file that `init` could not load.
struct PluginLoadError {
  std::string path; ///< the file
  std::string message; ///< why it was refused, as load_plugin's PluginError says
};

/// What `unload_plugin` did with the plugin's code (Note [Unloading
/// unmaps], plugins/loader/loader.cpp).
struct UnloadResult {
  std::string name; ///< the plugin's name
  std::string path; ///< the file it was loaded from
  /// True when the plugin's file, and every library it opened through
  /// `load_plugin_library` without `keep_mapped`, is gone from the process.
  bool unmapped = true;
  /// When not: which file is still mapped and what may keep it. Until the
  /// process ends, a changed file at that path is refused.
  std::string message;
};

/// Loads the default directories and WICK_PLUGIN_PATH once per process
/// (later calls do nothing). Never throws for a bad plugin file. A
/// WICK_PLUGIN_PATH directory that does not exist is logged as a warning.
WICK_API void init();
/// Loads one plugin file; throws PluginError with a message naming the file.
/// Refused as well: a file at a path whose earlier build is still mapped
/// (an unload that could not unmap it) and whose contents changed since.
WICK_API PluginInfo load_plugin(const std::string& path, const std::string& kind = "plugin");
/// Opens a plugin file and checks its descriptor without running `init`.
/// Opening it runs its static initialisers and entry point, so only inspect
/// files you would load. Throws PluginError naming the file and the problem.
WICK_API PluginInfo inspect_plugin(const std::string& path);
/// Unloads a plugin by name, removing everything it registered, then closes
/// its library and checks that its code is gone from the process; when it is
/// not, the result says so (and the warning is logged). PluginError when no
/// plugin has that name, and while instances of its types are alive
/// (nothing is removed then). The caller must make sure no other thread is
/// running the plugin's code, and that no autograd graph still holds its
/// custom Functions' nodes.
WICK_API UnloadResult unload_plugin(const std::string& name);
/// Unloads the plugin `name` and loads the file at its path again, so that
/// a rebuilt file takes its place. The file is checked (ownership, ELF,
/// allowlist) first: if it is refused, the loaded build stays and the
/// PluginError says why. If the old build could not be unmapped and the
/// file changed, the new build is refused (PluginError) and the plugin
/// stays unloaded.
WICK_API PluginInfo reload_plugin(const std::string& name);
/// Every plugin loaded now, in load order.
[[nodiscard]] WICK_API std::vector<PluginInfo> loaded_plugins();
/// Errors from `init` (one per file that failed).
[[nodiscard]] WICK_API std::vector<PluginLoadError> plugin_errors();
/// The directories `init` searches, in order.
[[nodiscard]] WICK_API std::vector<std::string> plugin_search_path();

// --- libraries a plugin loads --------------------------------------------------

/// A shared library opened for a plugin by `load_plugin_library`. The loader
/// owns it: it is closed when the plugin is unloaded (after the plugin's
/// registrations are gone) or when its `init` fails.
class WICK_API CheckedLibrary final {
 public:
  CheckedLibrary(const CheckedLibrary&) = delete;
  CheckedLibrary& operator=(const CheckedLibrary&) = delete;
  /// The canonical path of the file that was checked and opened.
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  /// The address of the exported symbol `name`; PluginError naming the
  /// library and the symbol when it has none.
  [[nodiscard]] void* symbol(const std::string& name) const;
  /// `symbol(name)` as a pointer to a function of type `Fn`.
  template <typename Fn>
  [[nodiscard]] Fn* function(const std::string& name) const {
    return reinterpret_cast<Fn*>(symbol(name));
  }

 private:
  friend class LoaderAccess;
  CheckedLibrary(std::string path, void* handle) noexcept : path_(std::move(path)), handle_(handle) {}
  std::string path_;
  void* handle_;
};

/// Options of `load_plugin_library`.
struct PluginLibraryOptions {
  /// Never unmap the library (RTLD_NODELETE), for libraries that pull in
  /// others which cannot be unloaded (the CUDA libraries). A reload then
  /// refuses a changed file at that path, as for a plugin that stays mapped.
  bool keep_mapped = false;
};

/// Runs the loader's checks on a library the plugin being loaded needs
/// (ownership and permissions, the allowlist, the ELF headers) and opens it
/// (RTLD_NOW | RTLD_LOCAL). A relative `path` is taken from the plugin
/// file's directory. Callable only from a plugin's `init`, with the
/// registrar it was given; PluginError naming the file otherwise, and when
/// the file is refused or cannot be opened (the plugin's registrations are
/// then rolled back, as for any error in `init`).
WICK_API const CheckedLibrary& load_plugin_library(Registrar& registrar, const std::string& path,
                                                   PluginLibraryOptions options = {});
/// The same checks without opening the file, for a library the plugin will
/// open later in `init` or not at all (the CUDA backend checks its kernel
/// library before it looks for a device, so that a refusal shows on hosts
/// without one). PluginError naming the file when it is refused.
WICK_API void check_plugin_library(Registrar& registrar, const std::string& path);

/// Keeps the library that holds `address`, a dependency of the plugin being
/// loaded, mapped until the process ends, so that unloading the plugin does
/// not unmap code that other threads still run: the OpenMP runtime, whose
/// worker threads outlive every parallel loop, is one. Callable only from a
/// plugin's `init`; PluginError when `address` lies in no library, or in the
/// plugin's own file.
WICK_API void keep_library_mapped(Registrar& registrar, const void* address);

}  // namespace wick
