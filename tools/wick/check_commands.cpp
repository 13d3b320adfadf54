// tools/wick/check_commands.cpp - `wick opcheck` and `wick test-backend`.
/// \file
#include "check_commands.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "wick/catalog.h"
#include "wick/dispatch_key.h"
#include "wick/dispatcher.h"
#include "wick/error.h"
#include "wick/loader.h"
#include "wick/opcheck.h"

namespace wick::cli {
namespace {

const char* status_name(CheckStatus s) {
  switch (s) {
    case CheckStatus::kPassed:
      return "ok";
    case CheckStatus::kFailed:
      return "FAILED";
    case CheckStatus::kSkipped:
      return "skipped";
  }
  return "?";
}

// Prints the results and returns the exit code.
int report(const char* command, const std::vector<CheckResult>& results, bool as_json) {
  std::size_t passed = 0;
  std::size_t failed = 0;
  std::size_t skipped = 0;
  std::set<std::string> ops;
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const CheckResult& r : results) {
    ops.insert(r.op);
    passed += r.status == CheckStatus::kPassed;
    failed += r.status == CheckStatus::kFailed;
    skipped += r.status == CheckStatus::kSkipped;
    if (as_json) {
      j.push_back({{"op", r.op}, {"check", r.check}, {"status", status_name(r.status)}, {"message", r.message}});
    } else {
      std::cout << r.op << " " << r.check << " " << status_name(r.status);
      if (!r.message.empty()) std::cout << ": " << r.message;
      std::cout << "\n";
    }
  }
  if (as_json) {
    std::cout << j.dump() << "\n";
  } else {
    std::cout << command << ": " << ops.size() << " operators, " << passed << " checks passed, " << failed
              << " failed, " << skipped << " skipped\n";
  }
  return failed == 0 ? 0 : 1;
}

// What a loaded plugin registered (load_plugin's PluginInfo does not say).
Registrations registrations_of(const std::string& name) {
  for (const PluginInfo& p : loaded_plugins())
    if (p.name == name) return p.registrations;
  return {};
}

// The plugin at `file`: the one already loaded from it (from the search
// path, say), else loaded now.
PluginInfo plugin_at(const std::string& file, const char* kind) {
  std::error_code ec;
  const std::filesystem::path wanted = std::filesystem::weakly_canonical(file, ec);
  for (const PluginInfo& p : loaded_plugins())
    if (!ec && std::filesystem::weakly_canonical(p.path, ec) == wanted && !ec) return p;
  return load_plugin(file, kind);
}

}  // namespace

int opcheck(const std::vector<std::string>& ops, bool all, const std::string& plugin, bool as_json) {
  std::vector<std::string> names = ops;
  if (all) {
    for (const CatalogEntry& e : catalog_entries()) names.push_back(e.qualified_name);
  }
  if (!plugin.empty()) {
    // The plugin's operators, unless some are named; each name once (its
    // overloads are checked with it).
    const PluginInfo info = plugin_at(plugin, "plugin");
    if (ops.empty()) {
      std::set<std::string> seen;
      for (const std::string& op : registrations_of(info.name).operators) {
        const std::string qualified = find_op(op).qualified_name();
        if (seen.insert(qualified).second) names.push_back(qualified);
      }
    }
  }
  WICK_CHECK(!names.empty(), ValueError, "opcheck: name operators, or give --all or --plugin FILE");
  std::vector<CheckResult> results;
  for (const std::string& name : names) {
    std::vector<CheckResult> r = wick::opcheck(name);
    results.insert(results.end(), r.begin(), r.end());
  }
  return report("opcheck", results, as_json);
}

int test_backend(const std::string& file, bool as_json) {
  const PluginInfo info = plugin_at(file, "backend");
  std::set<DispatchKey> keys;
  for (const auto& [op, key_name] : registrations_of(info.name).kernels) {
    const DispatchKey key = parse_dispatch_key(key_name);
    if (is_backend_key(key) && key != DispatchKey::kCPU) keys.insert(key);
  }
  WICK_CHECK(keys.size() == 1, ValueError, "test-backend: ", file, " registers kernels for ", keys.size(),
             " backends other than the CPU; expected one");
  return report("test-backend", wick::test_backend(*keys.begin()), as_json);
}

}  // namespace wick::cli
