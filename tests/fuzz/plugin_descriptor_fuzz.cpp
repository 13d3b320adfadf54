// tests/fuzz/plugin_descriptor_fuzz.cpp - libFuzzer target: the plugin loader's descriptor checks.
/// \file
/// Random bytes behind a valid entry point: the input goes to the test
/// plugin `plugin/descriptor_plugin.cpp` (through its exported
/// `wick_fuzz_set_input`), which decodes it into the descriptor it returns
/// and into registration commands for its `init`. Then `wick::load_plugin`
/// loads the real `.so`:
///   - only wick::Error (PluginError, and what a registration raised inside
///     init, reported as PluginError) may come out; no crash;
///   - on success the plugin is listed under its name, and is unloaded;
///   - afterwards the catalog (entries, overloads, schemas, every dispatch
///     table row with its provider) and the plugin list are exactly what
///     they were before: nothing leaks from a rolled-back or unloaded plugin
///     (checked after each input whose init ran).
/// The harness keeps its own dlopen handle on the plugin, so the library
/// (and the state behind its setter) stays mapped between loads.
#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "tests/fuzz/fuzz_util.h"
#include "tests/support/test_paths.h"
#include "wick/catalog.h"
#include "wick/device.h"
#include "wick/error.h"
#include "wick/loader.h"
#include "wick/log.h"

namespace {

// The descriptor plugin, beside this fuzzer's build: <build>/tests/fuzz/plugin
// (Note [Tests find their files from where they run]).
const std::string& plugin_path() {
  static const std::string path =
      (std::filesystem::path(wick_test::build_dir()) / "tests" / "fuzz" / "plugin" / WICK_FUZZ_PLUGIN_NAME).string();
  return path;
}

using wick::fuzz::fuzz_check;
using SetInput = void (*)(const std::uint8_t*, std::size_t);
using InitCalls = std::uint64_t (*)();

/// The operators whose dispatch tables the plugin's commands can reach:
/// those named like the plugin's command vocabulary
/// (plugin/descriptor_plugin.cpp, kOpNames) in any namespace.
bool reachable(const wick::CatalogEntry& e) {
  for (const char* name : {"f", "g", "h", "add", "relu", "nope", "zeros_fuzz"})
    if (e.name == name) return true;
  return false;
}

/// What a plugin can add to the catalog, printed: every entry with its
/// overloads, and the schema and dispatch table (with providers) of every
/// operator the commands can reach. (All tables each time would cost 30 ms.)
std::string catalog_snapshot() {
  std::string out;
  for (const wick::CatalogEntry& e : wick::catalog_entries()) {
    out += e.qualified_name + " " + e.kind + (e.ignored ? " ignored" : "") + " alias_of=" + e.alias_of + "\n";
    for (const std::string& o : e.overloads) {
      out += "  " + o + "\n";
      if (!reachable(e)) continue;
      out += "  " + wick::find_op(o).schema().str() + "\n";
      for (const wick::DispatchTableRow& row : wick::dispatch_table(o))
        out += "    " + wick::dispatch_key_name(row.key) + " " + row.source + " " + row.provider + " " + row.location +
               "\n";
    }
  }
  return out;
}

std::string plugins_snapshot() {
  std::string out;
  for (const wick::PluginInfo& p : wick::loaded_plugins()) out += p.name + " " + p.path + "\n";
  return out;
}

struct Harness {
  SetInput set_input = nullptr;
  InitCalls init_calls = nullptr;
  std::string catalog;
  std::string plugins;

  Harness() {
    // Every refused input would log a warning: keep the fuzzer's output readable.
    wick::logging::set_level(wick::logging::Level::kError);
    wick::init();
    // Device types stay registered for good (as in PyTorch), and each adds a
    // row to every dispatch table: register the one the plugin may ask for
    // up front, so that the snapshot below already has it.
    (void)wick::register_device_type("fuzzdev");
    void* handle = dlopen(plugin_path().c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) std::fprintf(stderr, "cannot open %s: %s\n", plugin_path().c_str(), dlerror());
    fuzz_check(handle != nullptr, "the descriptor test plugin must open");
    set_input = reinterpret_cast<SetInput>(dlsym(handle, "wick_fuzz_set_input"));
    init_calls = reinterpret_cast<InitCalls>(dlsym(handle, "wick_fuzz_init_calls"));
    fuzz_check(set_input != nullptr && init_calls != nullptr, "the descriptor test plugin exports its fuzz hooks");
    catalog = catalog_snapshot();
    plugins = plugins_snapshot();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Harness h;
  h.set_input(data, size);
  const std::uint64_t init_calls = h.init_calls();
  try {
    const wick::PluginInfo info = wick::load_plugin(plugin_path());
    bool listed = false;
    for (const wick::PluginInfo& p : wick::loaded_plugins()) listed = listed || p.name == info.name;
    fuzz_check(listed, "a loaded plugin is listed by loaded_plugins()");
    wick::unload_plugin(info.name);
  } catch (const wick::Error&) {
    // Refused or rolled back: what the checks below are about.
  } catch (const std::exception& e) {
    wick::fuzz::fuzz_unexpected(e, "load_plugin");
  }
  fuzz_check(plugins_snapshot() == h.plugins, "the plugin list is what it was before the input");
  // A descriptor refused before init registered nothing: the snapshot (the
  // slow part) is only needed once init has run.
  if (h.init_calls() == init_calls) return 0;
  const std::string after = catalog_snapshot();
  if (after != h.catalog) {
    std::size_t i = 0;
    while (i < after.size() && i < h.catalog.size() && after[i] == h.catalog[i]) ++i;
    const std::size_t from = i > 200 ? i - 200 : 0;
    std::fprintf(stderr, "before: ...%s\nafter: ...%s\n", h.catalog.substr(from, 400).c_str(),
                 after.substr(from, 400).c_str());
    fuzz_check(false, "the catalog is what it was before the input");
  }
  return 0;
}
