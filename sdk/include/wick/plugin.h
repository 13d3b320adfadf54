// wick/plugin.h - writing a plugin: the entry point, the descriptor, the registrar.
/// \file
/// A plugin is a shared library with one `extern "C"` entry point,
/// `wick_plugin_descriptor`, written by the `WICK_PLUGIN` macro. It returns a
/// plain struct whose first field is the plugin ABI version; the host checks
/// it, the SDK version and the ABI fingerprint before calling `init`.
///
///   #include <wick/plugin.h>
///   WICK_PLUGIN("myops", "1.0.0", registrar) {
///     registrar.library("myops").def("twice(Tensor self) -> Tensor");
///     registrar.library("myops", wick::DispatchKey::kCPU).impl("twice", &twice_cpu);
///   }
///
/// Everything registered through `registrar` is one transaction: if the body
/// throws, all of it is rolled back and the host reports the error. No
/// exception crosses the library boundary (the macro catches them).
///
/// A plugin can be unloaded and reloaded (`wick::reload_plugin`) only if
/// glibc can unmap it: keep no `thread_local` with a destructor on a thread
/// that outlives the plugin (the macro keeps none), let static objects take
/// back what they lent (log sinks, loggers, callbacks) when they are
/// destroyed, and open libraries of your own with `wick::load_plugin_library`
/// (wick/loader.h). The loader checks after an unload and reports a plugin
/// that stays mapped (Note [Unloading unmaps], plugins/loader/loader.cpp).
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "wick/definitions.h"
#include "wick/device_runtime.h"
#include "wick/export.h"
#include "wick/library.h"
#include "wick/version.h"

namespace wick {

/// Collects a plugin's registrations; destroying it (or `clear`) removes them.
class WICK_API Registrar final {
 public:
  /// A registrar for the plugin `owner` (its name, which every registration's source carries).
  explicit Registrar(std::string owner);
  ~Registrar();
  Registrar(const Registrar&) = delete;
  Registrar& operator=(const Registrar&) = delete;

  /// A registration block owned by this registrar (see Library).
  Library& library(std::string ns, std::optional<DispatchKey> key = std::nullopt,
                   SourceLocation loc = SourceLocation::current());
  /// Defines every operator of a generated definition table (wick/definitions.h),
  /// in blocks owned by this registrar.
  void define(const CatalogTable& table);
  /// Registers a backend device type ("xla") and returns its dispatch key.
  DispatchKey register_backend(std::string_view device_type_name);
  /// Installs `runtime` and its allocator for device type `type` until this
  /// registrar is cleared (wick/device_runtime.h); PluginError when the type
  /// already has one. `runtime` must outlive the registration.
  void register_device_runtime(DeviceType type, DeviceRuntime& runtime);
  /// Runs `undo` when this registrar is cleared (after its libraries, newest
  /// first): how registries outside the dispatcher take back what a plugin
  /// gave them (wick::distributed::register_engine). `undo` must not throw.
  void on_clear(std::function<void()> undo);
  /// The owner name given at construction.
  [[nodiscard]] const std::string& owner() const noexcept { return owner_; }
  /// Everything registered through this registrar's blocks.
  [[nodiscard]] Registrations registrations() const;
  /// Rolls back everything registered so far, newest first.
  void clear() noexcept;

 private:
  std::string owner_;
  std::vector<std::unique_ptr<Library>> libraries_;
  std::vector<DeviceType> runtimes_;
  std::vector<std::function<void()>> undo_;
};

extern "C" {
/// What `wick_plugin_descriptor` returns. Field order is part of the ABI:
/// `abi_version` stays first forever.
struct PluginDescriptor {
  std::uint32_t abi_version; ///< WICK_PLUGIN_ABI_VERSION of the SDK the plugin was built with; the loader refuses any other
  const char* name; ///< the plugin's name (unique among loaded plugins)
  const char* version; ///< the plugin's own version string
  const char* sdk_version; ///< WICK_SDK_VERSION it was built with
  const char* abi_fingerprint; ///< WICK_ABI_FINGERPRINT it was built with (compiler, standard library, C++ version); the loader refuses a mismatch
  /// Registers the plugin's content; returns nullptr on success or an error
  /// message (owned by the plugin, valid until the next call).
  const char* (*init)(Registrar* registrar);
};
}

}  // namespace wick

/// The name of the function a plugin exports (`extern "C"`) to return its PluginDescriptor.
#define WICK_PLUGIN_ENTRY_POINT wick_plugin_descriptor
/// WICK_PLUGIN_ENTRY_POINT as a string, for dlsym.
#define WICK_PLUGIN_ENTRY_POINT_NAME "wick_plugin_descriptor"

/// Defines the plugin entry point; the braces that follow are the body of
/// `init`, with `REGISTRAR` naming the `wick::Registrar&`.
#define WICK_PLUGIN(NAME, VERSION, REGISTRAR)                                                                     \
  static void wick_plugin_init_body(::wick::Registrar& REGISTRAR);                                                \
  static const char* wick_plugin_init_entry(::wick::Registrar* r) noexcept {                                      \
    static std::string error; /* not thread_local: Note [Unloading unmaps] */                                     \
    try {                                                                                                         \
      wick_plugin_init_body(*r);                                                                                  \
      return nullptr;                                                                                             \
    } catch (const std::exception& e) {                                                                           \
      error = e.what();                                                                                           \
    } catch (...) {                                                                                               \
      error = "unknown exception";                                                                                \
    }                                                                                                             \
    return error.c_str();                                                                                         \
  }                                                                                                               \
  /* declared first: plugins may build with -Wmissing-declarations */                                             \
  WICK_PLUGIN_EXPORT const ::wick::PluginDescriptor* WICK_PLUGIN_ENTRY_POINT();                                   \
  WICK_PLUGIN_EXPORT const ::wick::PluginDescriptor* WICK_PLUGIN_ENTRY_POINT() {                                  \
    static const ::wick::PluginDescriptor descriptor{                                                             \
        WICK_PLUGIN_ABI_VERSION, NAME, VERSION, WICK_SDK_VERSION, WICK_ABI_FINGERPRINT, &wick_plugin_init_entry}; \
    return &descriptor;                                                                                           \
  }                                                                                                               \
  static void wick_plugin_init_body(::wick::Registrar& REGISTRAR)
