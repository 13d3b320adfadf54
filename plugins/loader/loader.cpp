// plugins/loader/loader.cpp - finding, checking, loading and unloading plugins.
/// \file
/// A plugin file is opened with Boost.DLL (RTLD_NOW | RTLD_LOCAL, so an
/// undefined symbol fails at load time and names the symbol), its
/// descriptor is checked (ABI version, SDK version, ABI fingerprint), and its
/// `init` runs against a fresh Registrar: if init fails, the registrar is
/// destroyed, rolling back everything the plugin registered.
#include "wick/loader.h"

#include <dlfcn.h>

#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "plugins/loader/startup.h"
#include "dispatch/override_internal.h"
#include "plugins/loader/file_checks.h"
#include "wick/error.h"
#include "wick/log.h"
#include "wick/override.h"
#include "wick/plugin.h"

namespace wick {
namespace {

namespace fs = std::filesystem;

struct LoadedPlugin {
  PluginInfo info;
  // Declared before the registrar so that the registrar (whose kernels point
  // into the library) is destroyed first.
  boost::dll::shared_library library;
  const PluginDescriptor* descriptor = nullptr;  // lives in `library`
  std::unique_ptr<Registrar> registrar;
};

struct LoaderState {
  std::mutex mutex;
  std::vector<std::unique_ptr<LoadedPlugin>> plugins;
  std::vector<PluginLoadError> errors;
  bool initialised = false;
};

LoaderState& state() {
  // Never destroyed: plugins stay loaded until the process exits.
  static LoaderState* s = new LoaderState();
  return *s;
}

fs::path libwick_dir() {
  // The directory holding libwick itself; the defaults are relative to it.
  return fs::path(boost::dll::this_line_location().parent_path().string()).lexically_normal();
}

std::string fail(const std::string& path, const std::string& what) { return path + ": " + what; }

std::unique_ptr<LoadedPlugin> open_plugin(const std::string& path, const std::string& kind) {
  auto p = std::make_unique<LoadedPlugin>();
  std::error_code fs_ec;
  if (!fs::is_regular_file(path, fs_ec)) throw PluginError(fail(path, "no such plugin file"));
  const std::string checked = detail::check_trust(path);
  detail::check_elf_file(checked, path);
  boost::system::error_code ec;
  p->library.load(checked, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, ec);
  if (ec) {
    const char* why = dlerror();  // Boost.DLL leaves dlerror's text in place
    std::string detail = why != nullptr ? why : ec.message();
    (void)dlerror();  // releases glibc's per-thread message buffer
    // glibc: "<file>: undefined symbol: <name>". Name the symbol on its own.
    if (const auto at = detail.find("undefined symbol: "); at != std::string::npos) {
      const std::string symbol = detail.substr(at + 18);
      throw PluginError(fail(
          path, "undefined symbol '" + symbol + "' (the plugin needs a library or a wick build that is not here)"));
    }
    throw PluginError(fail(path, "cannot load as a shared library: " + detail));
  }
  if (!p->library.has(WICK_PLUGIN_ENTRY_POINT_NAME))
    throw PluginError(fail(path, "no entry point '" WICK_PLUGIN_ENTRY_POINT_NAME "' (is this a wick plugin?)"));
  auto entry = p->library.get<const PluginDescriptor*()>(WICK_PLUGIN_ENTRY_POINT_NAME);
  const PluginDescriptor* d = entry();
  if (d == nullptr) throw PluginError(fail(path, "the entry point returned no descriptor"));
  p->descriptor = d;
  if (d->abi_version != WICK_PLUGIN_ABI_VERSION) {
    const bool newer = d->abi_version > WICK_PLUGIN_ABI_VERSION;
    throw PluginError(fail(
        path, detail::str_cat("plugin ABI version ", d->abi_version, ", this host supports ", WICK_PLUGIN_ABI_VERSION,
                              newer ? " (the plugin is newer: update wick)"
                                    : " (the plugin is older: rebuild it against SDK " WICK_SDK_VERSION ")")));
  }
  auto str = [](const char* s) { return std::string(s != nullptr ? s : ""); };
  if (str(d->abi_fingerprint) != WICK_ABI_FINGERPRINT)
    throw PluginError(fail(path, "ABI fingerprint mismatch: plugin built with '" + str(d->abi_fingerprint) +
                                     "', host expects '" WICK_ABI_FINGERPRINT "'"));
  if (str(d->sdk_version) != WICK_SDK_VERSION)
    throw PluginError(fail(path, "SDK version mismatch: plugin built against SDK " + str(d->sdk_version) +
                                     ", host is SDK " WICK_SDK_VERSION));
  if (d->init == nullptr || str(d->name).empty())
    throw PluginError(fail(path, "malformed descriptor (no name or no init)"));
  std::error_code abs_ec;
  fs::path abs = fs::absolute(path, abs_ec);
  p->info = PluginInfo{str(d->name),
                       str(d->version),
                       (abs_ec ? fs::path(path) : abs).lexically_normal().string(),
                       str(d->sdk_version),
                       str(d->abi_fingerprint),
                       kind,
                       {}};
  return p;
}

PluginInfo load_locked(LoaderState& s, const std::string& path, const std::string& kind) {
  register_builtins();
  auto p = open_plugin(path, kind);
  for (const auto& other : s.plugins)
    if (other->info.name == p->info.name)
      throw PluginError(fail(path, "a plugin named '" + p->info.name + "' is already loaded from " + other->info.path));
  p->registrar = std::make_unique<Registrar>(p->info.name);
  const char* err = p->descriptor->init(p->registrar.get());
  if (err != nullptr) {
    std::string message = err;
    p->registrar.reset();  // roll back everything init registered
    throw PluginError(fail(
        path, "init of plugin '" + p->info.name + "' failed: " + message + " (its registrations were rolled back)"));
  }
  logging::info("loaded ", kind, " '", p->info.name, "' ", p->info.version, " from ", p->info.path);
  PluginInfo info = p->info;
  s.plugins.push_back(std::move(p));
  return info;
}

std::vector<std::pair<std::string, std::string>> search_dirs() {
  std::vector<std::pair<std::string, std::string>> dirs;
  const fs::path base = libwick_dir();
  dirs.emplace_back((base / WICK_BACKEND_SUBDIR).string(), "backend");
  dirs.emplace_back((base / WICK_PLUGIN_SUBDIR).string(), "plugin");
  if (const char* env = std::getenv("WICK_PLUGIN_PATH"); env != nullptr) {
    std::string_view rest = env;
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      std::string_view dir = rest.substr(0, colon);
      if (!dir.empty()) dirs.emplace_back(std::string(dir), "plugin");
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  return dirs;
}

}  // namespace

std::vector<std::string> plugin_search_path() {
  std::vector<std::string> out;
  for (auto& [dir, kind] : search_dirs()) out.push_back(dir);
  return out;
}

void init() {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  if (s.initialised) return;
  s.initialised = true;
  register_builtins();
  for (const auto& [dir, kind] : search_dirs()) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      logging::debug("plugin directory ", dir, " does not exist; skipped");
      continue;
    }
    std::vector<std::string> files;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
      if (it->path().extension() == ".so") files.push_back(it->path().string());
    if (ec) {
      logging::warn("cannot list plugin directory ", dir, ": ", ec.message());
      s.errors.push_back(PluginLoadError{dir, "cannot list directory: " + ec.message()});
    }
    std::sort(files.begin(), files.end());
    for (const std::string& file : files) {
      try {
        load_locked(s, file, kind);
      } catch (const std::exception& e) {  // never let one file stop the others
        logging::warn("not loaded: ", e.what());
        s.errors.push_back(PluginLoadError{file, e.what()});
      }
    }
  }
}

PluginInfo load_plugin(const std::string& path, const std::string& kind) {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  try {
    return load_locked(s, path, kind);
  } catch (const std::exception& e) {
    logging::warn("not loaded: ", e.what());
    throw;
  }
}

PluginInfo inspect_plugin(const std::string& path) { return open_plugin(path, "plugin")->info; }

void unload_plugin(const std::string& name) {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  auto it = std::find_if(s.plugins.begin(), s.plugins.end(), [&](const auto& p) { return p->info.name == name; });
  WICK_CHECK(it != s.plugins.end(), PluginError, "unload_plugin: no plugin named '", name, "' is loaded");
  // Its types' code must outlive their instances (Note [Live instances]).
  // Close the types first, so that no new instance appears between the
  // count and the unloading; reopen them if some are alive.
  std::vector<const TypeInfo*> types;
  for (const std::string& type_name : (*it)->registrar->registrations().types)
    if (const TypeInfo* t = find_type(type_name)) types.push_back(t);
  for (const TypeInfo* t : types) set_type_open(*t, false);
  std::string alive;
  for (const TypeInfo* t : types)
    if (const std::int64_t n = t->live_instances(); n > 0)
      alive += detail::str_cat(alive.empty() ? "" : ", ", t->name(), ": ", n);
  if (!alive.empty()) {
    for (const TypeInfo* t : types) set_type_open(*t, true);
    const std::string message = detail::str_cat("cannot unload plugin '", name, "' (", (*it)->info.path,
                                                "): instances of its types are alive (", alive, "); drop them first");
    logging::warn(message);
    throw PluginError(message);
  }
  (*it)->registrar.reset();
  s.plugins.erase(it);
  logging::info("unloaded plugin '", name, "'");
}

std::vector<PluginInfo> loaded_plugins() {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  std::vector<PluginInfo> out;
  for (const auto& p : s.plugins) {
    out.push_back(p->info);
    out.back().registrations = p->registrar->registrations();
  }
  return out;
}

std::vector<PluginLoadError> plugin_errors() {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  return s.errors;
}

}  // namespace wick
