// tools/wick/plugin_commands.cpp - the `wick plugins ...` commands: list, inspect, check, load, unload, reload.
/// \file
#include "plugin_commands.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "wick/error.h"
#include "wick/loader.h"

namespace wick::cli {
namespace {

using json = nlohmann::ordered_json;

void print_json(const json& j) { std::cout << j.dump() << "\n"; }

// A plugin's registrations as JSON: kernels grouped by key ("Autograd" ones
// are also listed as formulas).
json registrations_json(const Registrations& r) {
  json kernels = json::object();
  json formulas = json::array();
  for (const auto& [op, key] : r.kernels) {
    kernels[key].push_back(op);
    if (key == "Autograd") formulas.push_back(op);
  }
  return {{"operators", r.operators},
          {"kernels", kernels},
          {"formulas", formulas},
          {"fallbacks", r.fallbacks},
          {"types", r.types}};
}

json plugin_json(const PluginInfo& p) {
  return {{"name", p.name}, {"version", p.version},         {"kind", p.kind},
          {"path", p.path}, {"sdk_version", p.sdk_version}, {"registered", registrations_json(p.registrations)}};
}

// "a, b, c" (the first `max` and a count of the rest).
std::string name_list(const std::vector<std::string>& names, std::size_t max = 8) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < max; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > max) out += ", ... (" + std::to_string(names.size() - max) + " more)";
  return out;
}

void print_registrations(const Registrations& r) {
  if (!r.operators.empty())
    std::cout << "  operators (" << r.operators.size() << "): " << name_list(r.operators) << "\n";
  if (!r.kernels.empty()) {
    std::vector<std::pair<std::string, int>> per_key;  // in first-registered order
    std::vector<std::string> formulas;
    for (const auto& kernel : r.kernels) {
      const std::string& key = kernel.second;
      auto it = std::find_if(per_key.begin(), per_key.end(), [&](const auto& kv) { return kv.first == key; });
      if (it == per_key.end())
        per_key.emplace_back(key, 1);
      else
        ++it->second;
      if (key == "Autograd") formulas.push_back(kernel.first);
    }
    std::cout << "  kernels (" << r.kernels.size() << "):";
    for (std::size_t i = 0; i < per_key.size(); ++i)
      std::cout << (i ? ", " : " ") << per_key[i].first << " " << per_key[i].second;
    std::cout << "\n";
    if (!formulas.empty())
      std::cout << "  autograd formulas (" << formulas.size() << "): " << name_list(formulas) << "\n";
  }
  if (!r.fallbacks.empty()) std::cout << "  fallbacks: " << name_list(r.fallbacks) << "\n";
  if (!r.types.empty()) std::cout << "  types (" << r.types.size() << "): " << name_list(r.types) << "\n";
}

void print_plugin(const PluginInfo& p) {
  std::cout << p.name << " " << p.version << " (" << p.kind << ") " << p.path << "\n";
  print_registrations(p.registrations);
}

// The loaded plugin `name` (with what it registered).
PluginInfo loaded(const std::string& name) {
  for (PluginInfo& p : loaded_plugins())
    if (p.name == name) return p;
  throw PluginError("no plugin named '" + name + "' is loaded");
}

}  // namespace

int plugins_list(bool as_json) {
  const auto plugins = loaded_plugins();
  const auto errors = plugin_errors();
  if (as_json) {
    json j = {{"plugins", json::array()}, {"errors", json::array()}, {"search_path", plugin_search_path()}};
    for (const auto& p : plugins) j["plugins"].push_back(plugin_json(p));
    for (const auto& e : errors) j["errors"].push_back({{"path", e.path}, {"message", e.message}});
    print_json(j);
  } else {
    if (plugins.empty()) std::cout << "no plugins loaded\n";
    for (const auto& p : plugins) print_plugin(p);
    for (const auto& e : errors) std::cout << "failed: " << e.message << "\n";
  }
  return errors.empty() ? 0 : 1;
}

int plugins_inspect(const std::string& file, bool as_json) {
  PluginInfo p = inspect_plugin(file);
  if (as_json) {
    print_json({{"name", p.name},
                {"version", p.version},
                {"path", p.path},
                {"sdk_version", p.sdk_version},
                {"abi_fingerprint", p.abi_fingerprint}});
    return 0;
  }
  std::cout << "name:            " << p.name << "\nversion:         " << p.version << "\npath:            " << p.path
            << "\nsdk version:     " << p.sdk_version << "\nabi fingerprint: " << p.abi_fingerprint << "\n";
  return 0;
}

int plugins_check(const std::string& dir, bool as_json) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw ValueError("plugins check: '" + dir + "' is not a directory");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".so") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  json j = json::array();
  int bad = 0;
  for (const auto& f : files) {
    try {
      PluginInfo p = inspect_plugin(f);
      j.push_back({{"path", f}, {"ok", true}, {"name", p.name}, {"version", p.version}});
    } catch (const Error& e) {
      ++bad;
      j.push_back({{"path", f}, {"ok", false}, {"error", e.what()}});
    }
  }
  if (as_json) {
    print_json(j);
  } else {
    for (const auto& r : j) {
      if (r["ok"].get<bool>()) {
        std::cout << "ok      " << r["path"].get<std::string>() << " (" << r["name"].get<std::string>() << " "
                  << r["version"].get<std::string>() << ")\n";
      } else {
        std::cout << "FAILED  " << r["error"].get<std::string>() << "\n";
      }
    }
    std::cout << files.size() - bad << " ok, " << bad << " failed\n";
  }
  return bad == 0 ? 0 : 1;
}

int plugins_load(const std::string& file, const std::string& kind, bool as_json) {
  const PluginInfo info = load_plugin(file, kind);
  const PluginInfo p = loaded(info.name);
  if (as_json) {
    print_json(plugin_json(p));
  } else {
    std::cout << "loaded ";
    print_plugin(p);
  }
  return 0;
}

int plugins_unload(const std::string& name, bool as_json) {
  const std::string version = loaded(name).version;
  const UnloadResult r = unload_plugin(name);
  if (as_json) {
    print_json(
        {{"name", r.name}, {"version", version}, {"path", r.path}, {"unmapped", r.unmapped}, {"message", r.message}});
  } else if (r.unmapped) {
    std::cout << "unloaded " << r.name << " " << version << " (" << r.path << "); its code is unmapped\n";
  } else {
    std::cout << "unloaded " << r.name << " " << version << " (" << r.path << "), but " << r.message << "\n";
  }
  return r.unmapped ? 0 : 1;
}

int plugins_reload(const std::string& name, bool as_json) {
  const std::string old_version = loaded(name).version;
  const PluginInfo info = reload_plugin(name);
  const PluginInfo p = loaded(info.name);
  if (as_json) {
    json j = plugin_json(p);
    j["previous_version"] = old_version;
    print_json(j);
  } else {
    std::cout << "reloaded " << p.name << " " << old_version << " -> " << p.version << " (" << p.kind << ") " << p.path
              << "\n";
    print_registrations(p.registrations);
  }
  return 0;
}

}  // namespace wick::cli
