// plugins/loader/loader.cpp - finding, checking, loading, unloading and reloading plugins.
/// \file
/// A plugin file is checked (trust and allowlist, ELF headers), opened with
/// Boost.DLL (RTLD_NOW | RTLD_LOCAL, so an undefined symbol fails at load
/// time and names the symbol), its descriptor is checked (ABI version, SDK
/// version, ABI fingerprint), and its `init` runs against a fresh
/// Registrar: if init fails, the registrar is destroyed, rolling back
/// everything the plugin registered. Libraries a plugin opens for itself go
/// through the same checks (`load_plugin_library`).
///
/// Note [Unloading unmaps]
/// A reload must run the new build, and the allowlist must judge the code
/// that runs. But glibc keeps a library mapped after its last dlclose when
/// a thread that is still running constructed one of its thread_local
/// objects with a destructor (the destructor must run when that thread
/// exits), when a lookup bound one of its STB_GNU_UNIQUE symbols (GCC's
/// binding for static locals of inline functions and static members of
/// templates with default visibility; wick_add_plugin compiles with
/// -fno-gnu-unique), when it is marked NODELETE, or while something else
/// has it open. dlopen of the same path then returns the old mapping: the
/// old code runs, whatever the file holds now. So after closing a plugin's
/// files the loader checks that each is gone (mapping.h). One that is not is
/// reported (UnloadResult, a warning) and remembered with its identity
/// (device, inode, size, modification time, and its SHA-256 when the
/// allowlist computed it); until the process ends a file at that path with
/// other contents is refused, as is one at the path of a loaded plugin.
/// `WICK_PLUGIN` itself keeps no thread_local, so plugins built with it
/// unload unless their own code pins them.
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
#include "plugins/loader/mapping.h"
#include "wick/error.h"
#include "wick/log.h"
#include "wick/override.h"
#include "wick/plugin.h"

namespace wick {

/// Makes the CheckedLibrary views the loader hands to plugins.
class LoaderAccess {
 public:
  static std::unique_ptr<CheckedLibrary> make(std::string path, void* handle) {
    return std::unique_ptr<CheckedLibrary>(new CheckedLibrary(std::move(path), handle));
  }
};

namespace {

namespace fs = std::filesystem;

/// A file the loader opened: what it checked, and how to recognise it later.
struct OpenedFile {
  std::string path;  ///< canonical; the name dlopen was given
  detail::FileIdentity identity;
  std::string sha256;  ///< when the allowlist computed it
  bool keep_mapped = false;
  boost::dll::shared_library library;
};

struct LoadedPlugin {
  PluginInfo info;
  OpenedFile file;
  const PluginDescriptor* descriptor = nullptr;  // lives in `file.library`
  /// Opened by init through load_plugin_library, in order, with the views it got.
  std::vector<OpenedFile> libraries;
  std::vector<std::unique_ptr<CheckedLibrary>> views;
  std::unique_ptr<Registrar> registrar;

  // The registrations (whose kernels point into the libraries) go first,
  // then the libraries newest first, then the plugin's own file.
  ~LoadedPlugin() {
    registrar.reset();
    while (!libraries.empty()) libraries.pop_back();
  }
};

/// A file whose code stayed mapped after the loader closed it.
struct Lingering {
  std::string path;
  detail::FileIdentity identity;
  std::string sha256;
  std::string owner;  ///< "plugin 'x' 1.0"
};

struct LoaderState {
  std::mutex mutex;
  std::vector<std::unique_ptr<LoadedPlugin>> plugins;
  std::vector<PluginLoadError> errors;
  std::vector<Lingering> lingering;
  bool initialised = false;
};

LoaderState& state() {
  // Never destroyed: plugins stay loaded until the process exits.
  static LoaderState* s = new LoaderState();
  return *s;
}

/// The plugin whose init runs on this thread (load_plugin_library's caller).
thread_local LoadedPlugin* t_initialising = nullptr;

fs::path libwick_dir() {
  // The directory holding libwick itself; the defaults are relative to it.
  return fs::path(boost::dll::this_line_location().parent_path().string()).lexically_normal();
}

std::string fail(const std::string& path, const std::string& what) { return path + ": " + what; }

std::string owner_of(const LoadedPlugin& p) { return "plugin '" + p.info.name + "' " + p.info.version; }

// Refuses `trusted` (the file at `path`) when an earlier build at its path is
// still in the process: loaded, or unloaded but not unmapped.
void check_not_shadowed(LoaderState& s, const std::string& path, const detail::TrustedFile& trusted,
                        const detail::FileIdentity& now) {
  auto differs = [&](const detail::FileIdentity& then, const std::string& then_sha256) {
    return then != now || (!then_sha256.empty() && !trusted.sha256.empty() && then_sha256 != trusted.sha256);
  };
  std::erase_if(s.lingering, [](const Lingering& l) { return !detail::is_mapped(l.identity, l.path); });
  for (const Lingering& l : s.lingering)
    if (l.path == trusted.path && differs(l.identity, l.sha256))
      throw PluginError(fail(path, "refused: an earlier build of this file (" + l.owner +
                                       ") is still mapped in this process, and dlopen would run it instead of this "
                                       "file (Note [Unloading unmaps]); restart the process to load the new build"));
  for (const auto& p : s.plugins) {
    if (p->file.path == trusted.path && differs(p->file.identity, p->file.sha256))
      throw PluginError(fail(path, "refused: an earlier build of this file is loaded as " + owner_of(*p) +
                                       "; unload it first, or reload it (wick plugins reload " + p->info.name + ")"));
    for (const OpenedFile& f : p->libraries)
      if (f.path == trusted.path && differs(f.identity, f.sha256))
        throw PluginError(fail(path, "refused: an earlier build of this file is loaded for " + owner_of(*p) +
                                         "; unload that plugin first"));
  }
}

// The checks every file gets before dlopen sees it: it exists, its owner and
// permissions, the allowlist, its ELF headers, no other build in the process.
detail::TrustedFile check_file(LoaderState& s, const std::string& path, const char* kind,
                               detail::FileIdentity* identity = nullptr) {
  std::error_code fs_ec;
  if (!fs::is_regular_file(path, fs_ec)) throw PluginError(fail(path, std::string("no such ") + kind));
  detail::TrustedFile trusted = detail::check_trust(path, kind);
  detail::check_elf_file(trusted.path, path);
  const std::optional<detail::FileIdentity> now = detail::identity_of(trusted.path);
  if (!now) throw PluginError(fail(path, "cannot read the file"));
  check_not_shadowed(s, path, trusted, *now);
  if (identity != nullptr) *identity = *now;
  return trusted;
}

// Checks and opens `path`; PluginError naming it when refused or unloadable.
OpenedFile open_file(LoaderState& s, const std::string& path, const char* kind) {
  OpenedFile f;
  detail::TrustedFile trusted = check_file(s, path, kind, &f.identity);
  f.path = trusted.path;
  f.sha256 = std::move(trusted.sha256);
  boost::system::error_code ec;
  f.library.load(f.path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, ec);
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
  return f;
}

// Whether some loaded plugin has the file `id` open (so it stays mapped, rightly).
bool open_elsewhere(const LoaderState& s, const detail::FileIdentity& id) {
  for (const auto& p : s.plugins) {
    if (p->file.identity.same_file(id)) return true;
    for (const OpenedFile& f : p->libraries)
      if (f.identity.same_file(id)) return true;
  }
  return false;
}

// Closes everything `p` opened (Note [Unloading unmaps]) and checks that it
// is gone; remembers what stayed mapped, and returns why for what should
// not have (not libraries kept mapped on purpose). `p` must no longer be in
// `s.plugins`.
std::string close_plugin(LoaderState& s, std::unique_ptr<LoadedPlugin> p) {
  struct Closed {
    std::string path;
    detail::FileIdentity identity;
    std::string sha256;
    bool keep_mapped;
  };
  std::vector<Closed> closed;
  closed.push_back({p->file.path, p->file.identity, p->file.sha256, false});
  for (const OpenedFile& f : p->libraries) closed.push_back({f.path, f.identity, f.sha256, f.keep_mapped});
  const std::string owner = owner_of(*p);
  p.reset();
  std::string report;
  for (const Closed& c : closed) {
    if (open_elsewhere(s, c.identity) || !detail::is_mapped(c.identity, c.path)) continue;
    std::erase_if(s.lingering, [&](const Lingering& l) { return l.path == c.path; });
    s.lingering.push_back(Lingering{c.path, c.identity, c.sha256, owner});
    if (c.keep_mapped) {
      logging::debug(c.path, " stays mapped, as ", owner, " asked (keep_mapped)");
      continue;
    }
    std::string why = c.path +
                      " is still mapped after dlclose: glibc keeps a library when a thread that is still running used "
                      "one of its thread_local objects with a destructor, when it defines STB_GNU_UNIQUE symbols";
    const std::optional<detail::FileIdentity> now = detail::identity_of(c.path);
    if (now && now->same_file(c.identity)) {
      const std::vector<std::string> unique = detail::unique_symbols(c.path, 3);
      if (!unique.empty()) {
        why += " (it has some: ";
        for (std::size_t i = 0; i < unique.size(); ++i) why += (i ? ", " : "") + unique[i];
        why += "; build it with -fno-gnu-unique, as wick_add_plugin does)";
      }
    }
    why += ", when it is marked NODELETE, or while something else has it open";
    report += (report.empty() ? "" : "; ") + why;
  }
  if (!report.empty())
    report += ". Its code stays in this process until it exits; a changed file at that path is refused until then";
  return report;
}

std::unique_ptr<LoadedPlugin> open_plugin(LoaderState& s, const std::string& path, const std::string& kind) {
  auto p = std::make_unique<LoadedPlugin>();
  p->file = open_file(s, path, "plugin file");
  try {
    if (!p->file.library.has(WICK_PLUGIN_ENTRY_POINT_NAME))
      throw PluginError(fail(path, "no entry point '" WICK_PLUGIN_ENTRY_POINT_NAME "' (is this a wick plugin?)"));
    auto entry = p->file.library.get<const PluginDescriptor*()>(WICK_PLUGIN_ENTRY_POINT_NAME);
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
    auto str = [](const char* c) { return std::string(c != nullptr ? c : ""); };
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
  } catch (PluginError& e) {
    if (std::string stays = close_plugin(s, std::move(p)); !stays.empty()) e.add_note(stays);
    throw;
  }
  return p;
}

PluginInfo load_locked(LoaderState& s, const std::string& path, const std::string& kind) {
  register_builtins();
  auto p = open_plugin(s, path, kind);
  for (const auto& other : s.plugins)
    if (other->info.name == p->info.name) {
      PluginError e(fail(path, "a plugin named '" + p->info.name + "' is already loaded from " + other->info.path));
      if (std::string stays = close_plugin(s, std::move(p)); !stays.empty()) e.add_note(stays);
      throw e;
    }
  p->registrar = std::make_unique<Registrar>(p->info.name);
  const char* err = nullptr;
  {
    struct Initialising {
      explicit Initialising(LoadedPlugin* p) { t_initialising = p; }
      ~Initialising() { t_initialising = nullptr; }
      Initialising(const Initialising&) = delete;
      Initialising& operator=(const Initialising&) = delete;
    } scope(p.get());
    err = p->descriptor->init(p->registrar.get());
  }
  if (err != nullptr) {
    PluginError e(
        fail(path, "init of plugin '" + p->info.name + "' failed: " + err + " (its registrations were rolled back)"));
    // Closing rolls back everything init registered, then unmaps.
    if (std::string stays = close_plugin(s, std::move(p)); !stays.empty()) e.add_note(stays);
    throw e;
  }
  logging::info("loaded ", kind, " '", p->info.name, "' ", p->info.version, " from ", p->info.path);
  PluginInfo info = p->info;
  s.plugins.push_back(std::move(p));
  return info;
}

std::vector<std::unique_ptr<LoadedPlugin>>::iterator find_loaded(LoaderState& s, const std::string& name,
                                                                 const char* what) {
  auto it = std::find_if(s.plugins.begin(), s.plugins.end(), [&](const auto& p) { return p->info.name == name; });
  WICK_CHECK(it != s.plugins.end(), PluginError, what, ": no plugin named '", name, "' is loaded");
  return it;
}

UnloadResult unload_locked(LoaderState& s, std::vector<std::unique_ptr<LoadedPlugin>>::iterator it) {
  const std::string name = (*it)->info.name;
  // Its types' code must outlive their instances (Note [Live instances]).
  // Close the types first, so that no new instance appears between the
  // count and the unloading; reopen them if some are alive.
  std::vector<const TypeInfo*> types;
  for (const std::string& type_name : (*it)->registrar->registrations().types)
    if (const TypeInfo* t = find_type(type_name)) types.push_back(t);
  for (const TypeInfo* t : types) set_type_open(*t, false);
  // Types below its types, from any plugin, count too: their instances may
  // be objects its constructors made, and they call its handlers.
  std::vector<const TypeInfo*> counted = types;
  for (const std::string& type_name : registered_types())
    if (const TypeInfo* t = find_type(type_name);
        t != nullptr && std::find(counted.begin(), counted.end(), t) == counted.end())
      for (const TypeInfo* own : types)
        if (t->is_subclass_of(*own)) {
          counted.push_back(t);
          break;
        }
  std::string alive;
  for (const TypeInfo* t : counted)
    if (const std::int64_t n = t->live_instances(); n > 0)
      alive += detail::str_cat(alive.empty() ? "" : ", ", t->name(), ": ", n);
  if (!alive.empty()) {
    for (const TypeInfo* t : types) set_type_open(*t, true);
    const std::string message = detail::str_cat("cannot unload plugin '", name, "' (", (*it)->info.path,
                                                "): instances of its types are alive (", alive, "); drop them first");
    logging::warn(message);
    throw PluginError(message);
  }
  UnloadResult result{name, (*it)->info.path, true, {}};
  std::unique_ptr<LoadedPlugin> p = std::move(*it);
  s.plugins.erase(it);
  result.message = close_plugin(s, std::move(p));
  result.unmapped = result.message.empty();
  if (result.unmapped) {
    logging::info("unloaded plugin '", name, "'; its code is unmapped");
  } else {
    logging::warn("unloaded plugin '", name, "', but ", result.message);
  }
  return result;
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

// The plugin whose init calls load_plugin_library / check_plugin_library.
LoadedPlugin& initialising(const Registrar& registrar, const std::string& path, const char* what) {
  LoadedPlugin* p = t_initialising;
  WICK_CHECK(p != nullptr && p->registrar.get() == &registrar, PluginError, path, ": ", what,
             " is for a plugin's init, with the registrar init was given");
  return *p;
}

// `path` as the plugin means it: relative ones from its file's directory.
std::string beside(const LoadedPlugin& p, const std::string& path) {
  const fs::path given(path);
  return given.is_absolute() ? path : (fs::path(p.file.path).parent_path() / given).lexically_normal().string();
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
  const std::size_t defaults = 2;  // the backend and plugin directories of the install
  std::size_t index = 0;
  for (const auto& [dir, kind] : search_dirs()) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      // The install's own directories may be absent; a directory the user named should not be.
      if (index++ < defaults) {
        logging::debug("plugin directory ", dir, " does not exist; skipped");
      } else {
        logging::warn("WICK_PLUGIN_PATH names ", dir, ", which is not a directory", ec ? " (" + ec.message() + ")" : "",
                      "; skipped");
      }
      continue;
    }
    ++index;
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

PluginInfo inspect_plugin(const std::string& path) {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  auto p = open_plugin(s, path, "plugin");
  PluginInfo info = p->info;
  if (std::string stays = close_plugin(s, std::move(p)); !stays.empty())
    logging::warn("inspected ", path, ", but ", stays);
  return info;
}

UnloadResult unload_plugin(const std::string& name) {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  return unload_locked(s, find_loaded(s, name, "unload_plugin"));
}

PluginInfo reload_plugin(const std::string& name) {
  auto& s = state();
  std::lock_guard lock(s.mutex);
  auto it = find_loaded(s, name, "reload_plugin");
  const std::string path = (*it)->info.path;
  const std::string kind = (*it)->info.kind;
  const std::string old_version = (*it)->info.version;
  try {
    // Refused before anything is unloaded: the file's owner and permissions,
    // the allowlist and its ELF headers (another build at this path is the
    // point of a reload, so that check waits for the unload).
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) throw PluginError(fail(path, "no such plugin file"));
    detail::check_elf_file(detail::check_trust(path, "plugin file").path, path);
  } catch (PluginError& e) {
    e.add_note("reload of plugin '" + name + "' refused; version " + old_version + " stays loaded");
    logging::warn("not reloaded: ", e.what());
    throw;
  }
  const UnloadResult unloaded = unload_locked(s, it);
  try {
    PluginInfo info = load_locked(s, path, kind);
    logging::info("reloaded plugin '", name, "': ", old_version, " -> ", info.version);
    return info;
  } catch (PluginError& e) {
    e.add_note("plugin '" + name + "' " + old_version + " was unloaded" +
               (unloaded.unmapped ? "" : " but its code stays mapped: " + unloaded.message));
    logging::warn("not reloaded: ", e.what());
    throw;
  }
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

// --- libraries a plugin loads ------------------------------------------------------

void* CheckedLibrary::symbol(const std::string& name) const {
  void* address = ::dlsym(handle_, name.c_str());
  WICK_CHECK(address != nullptr, PluginError, path_, ": no symbol '", name, "'");
  return address;
}

// Called from init, on the thread of load_locked, which holds the state's mutex.
const CheckedLibrary& load_plugin_library(Registrar& registrar, const std::string& path, PluginLibraryOptions options) {
  LoadedPlugin& p = initialising(registrar, path, "load_plugin_library");
  OpenedFile f = open_file(state(), beside(p, path), "library");
  f.keep_mapped = options.keep_mapped;
  if (options.keep_mapped) {
    // Promotes the loaded object to NODELETE (dlopen(3), RTLD_NOLOAD).
    void* again = ::dlopen(f.path.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    if (again != nullptr) ::dlclose(again);
  }
  logging::info(p.info.name, ": loaded ", f.path);
  p.views.push_back(LoaderAccess::make(f.path, f.library.native()));
  p.libraries.push_back(std::move(f));
  return *p.views.back();
}

void check_plugin_library(Registrar& registrar, const std::string& path) {
  LoadedPlugin& p = initialising(registrar, path, "check_plugin_library");
  (void)check_file(state(), beside(p, path), "library");
}

void keep_library_mapped(Registrar& registrar, const void* address) {
  Dl_info where{};
  const bool found = ::dladdr(address, &where) != 0 && where.dli_fname != nullptr;
  LoadedPlugin& p = initialising(registrar, found ? where.dli_fname : "(no library)", "keep_library_mapped");
  WICK_CHECK(found, PluginError, p.info.name, ": keep_library_mapped: the address lies in no loaded library");
  const std::string file = where.dli_fname;
  const std::optional<detail::FileIdentity> id = detail::identity_of(file);
  WICK_CHECK(!id || !id->same_file(p.file.identity), PluginError, p.info.name,
             ": keep_library_mapped: the address lies in the plugin itself, which must stay unloadable");
  // Promotes the loaded object to NODELETE (dlopen(3), RTLD_NOLOAD).
  void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  WICK_CHECK(handle != nullptr, PluginError, p.info.name, ": keep_library_mapped: ", file, " is not loaded");
  ::dlclose(handle);
  logging::debug(p.info.name, ": ", file, " stays mapped until the process ends");
}

}  // namespace wick
