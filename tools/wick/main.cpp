// tools/wick/main.cpp - the `wick` command line: plugins, keys, ops, eval, demo.
/// \file
/// Exit codes: 0 success, 1 an error from wick (printed as "TypeError: ..."),
/// 2 command-line misuse.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "wick/catalog.h"
#include "wick/dispatch_key.h"
#include "wick/dispatcher.h"
#include "wick/error.h"
#include "eval.h"
#include "wick/loader.h"

namespace {

using json = nlohmann::ordered_json;

void print_json(const json& j) { std::cout << j.dump() << "\n"; }

void print_list(const std::vector<std::string>& items, bool as_json) {
  if (as_json) {
    print_json(items);
    return;
  }
  for (const auto& i : items) std::cout << i << "\n";
}

// A plugin's registrations as JSON: kernels grouped by key ("Autograd" ones
// are also listed as formulas).
json registrations_json(const wick::Registrations& r) {
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

// "a, b, c" (the first `max` and a count of the rest).
std::string name_list(const std::vector<std::string>& names, std::size_t max = 8) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < max; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > max) out += ", ... (" + std::to_string(names.size() - max) + " more)";
  return out;
}

void print_registrations(const wick::Registrations& r) {
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

void plugins_list(bool as_json) {
  const auto plugins = wick::loaded_plugins();
  const auto errors = wick::plugin_errors();
  if (as_json) {
    json j = {{"plugins", json::array()}, {"errors", json::array()}, {"search_path", wick::plugin_search_path()}};
    for (const auto& p : plugins)
      j["plugins"].push_back({{"name", p.name},
                              {"version", p.version},
                              {"kind", p.kind},
                              {"path", p.path},
                              {"sdk_version", p.sdk_version},
                              {"registered", registrations_json(p.registrations)}});
    for (const auto& e : errors) j["errors"].push_back({{"path", e.path}, {"message", e.message}});
    print_json(j);
    return;
  }
  if (plugins.empty()) std::cout << "no plugins loaded\n";
  for (const auto& p : plugins) {
    std::cout << p.name << " " << p.version << " (" << p.kind << ") " << p.path << "\n";
    print_registrations(p.registrations);
  }
  for (const auto& e : errors) std::cout << "failed: " << e.message << "\n";
}

void plugins_inspect(const std::string& file, bool as_json) {
  wick::PluginInfo p = wick::inspect_plugin(file);
  if (as_json) {
    print_json({{"name", p.name},
                {"version", p.version},
                {"path", p.path},
                {"sdk_version", p.sdk_version},
                {"abi_fingerprint", p.abi_fingerprint}});
    return;
  }
  std::cout << "name:            " << p.name << "\nversion:         " << p.version << "\npath:            " << p.path
            << "\nsdk version:     " << p.sdk_version << "\nabi fingerprint: " << p.abi_fingerprint << "\n";
}

// Checks every .so in `dir` the way the loader would (shared library, entry
// point, ABI, SDK, fingerprint) without running any plugin's init.
int plugins_check(const std::string& dir, bool as_json) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw wick::ValueError("plugins check: '" + dir + "' is not a directory");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".so") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  json j = json::array();
  int bad = 0;
  for (const auto& f : files) {
    try {
      wick::PluginInfo p = wick::inspect_plugin(f);
      j.push_back({{"path", f}, {"ok", true}, {"name", p.name}, {"version", p.version}});
    } catch (const wick::Error& e) {
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

void keys(bool as_json) {
  json j = json::array();
  for (int k = wick::kNumDispatchKeys - 1; k >= 0; --k) {
    auto key = static_cast<wick::DispatchKey>(k);
    std::string name = wick::dispatch_key_name(key);
    if (name.starts_with("Key")) continue;  // unused slot
    std::string kind = key == wick::DispatchKey::kCompositeImplicit ? "alias"
                       : wick::is_backend_key(key)                  ? "backend"
                                                                    : "functionality";
    j.push_back({{"name", name}, {"priority", k}, {"kind", kind}});
  }
  if (as_json) {
    print_json(j);
    return;
  }
  std::cout << "dispatch keys, highest priority first:\n";
  for (const auto& e : j)
    std::printf("  %-18s bit %2d  %s\n", e["name"].get<std::string>().c_str(), e["priority"].get<int>(),
                e["kind"].get<std::string>().c_str());
}

void ops_show(const std::string& name, bool as_json) {
  std::string qualified = wick::find_op(name).qualified_name();
  json j = {{"name", qualified}, {"signature", wick::python_signature(qualified)}, {"overloads", json::array()}};
  for (const auto& c : wick::catalog_entries()) {
    if (c.qualified_name != qualified) continue;
    j["kind"] = c.kind;
    j["overridable"] = !c.ignored && !wick::is_internal_namespace(c.ns);
    if (!c.alias_of.empty()) j["alias_of"] = c.alias_of;
    for (const auto& o : c.overloads) {
      json ov = {{"name", o}, {"schema", wick::find_op(o).schema().str()}, {"dispatch", json::array()}};
      for (const auto& row : wick::dispatch_table(o))
        ov["dispatch"].push_back({{"key", wick::dispatch_key_name(row.key)},
                                  {"source", row.source},
                                  {"provider", row.provider},
                                  {"location", row.location}});
      j["overloads"].push_back(ov);
    }
  }
  if (as_json) {
    print_json(j);
    return;
  }
  std::cout << j["name"].get<std::string>() << j["signature"].get<std::string>() << "\n";
  std::cout << "  kind: " << j.value("kind", "") << (j.value("overridable", true) ? ", overridable" : ", ignored");
  if (j.contains("alias_of")) std::cout << ", alias of " << j["alias_of"].get<std::string>();
  std::cout << "\n";
  for (const auto& ov : j["overloads"]) {
    std::cout << "  " << ov["name"].get<std::string>() << ": " << ov["schema"].get<std::string>() << "\n";
    if (ov["dispatch"].empty()) std::cout << "    (no kernels)\n";
    for (const auto& row : ov["dispatch"])
      std::printf("    %-18s %-10s %s (%s)\n", row["key"].get<std::string>().c_str(),
                  row["source"].get<std::string>().c_str(), row["provider"].get<std::string>().c_str(),
                  row["location"].get<std::string>().c_str());
  }
}

void eval(const std::string& expr, bool as_json) {
  wick::Value v = wick::eval::evaluate(expr);
  if (as_json) {
    print_json(wick::eval::to_json(v));
  } else {
    std::cout << wick::eval::format(v) << "\n";
  }
}

int demo() {
  std::cout << "== plugins ==\n";
  plugins_list(false);
  const char* exprs[] = {
      "torch.add(torch.tensor([1., 2.]), torch.tensor([3., 4.]), alpha=2)",
      "torch.matmul(torch.tensor([[1, 2], [3, 4]]), torch.tensor([[1], [1]]))",
      "(torch.arange(6.).reshape(2, 3) * 2 + 1).sum(1)",
      "torch.add(torch.tensor([1, 2]), 0.5)",
      "torch.add(ScalarTensor(2, 2), torch.tensor([[1, 1], [1, 1]]))",
      "type(torch.add(SubTensor2([0]), SubTensor([1])))",
  };
  for (const char* e : exprs) {
    std::cout << "\n>>> " << e << "\n";
    eval(e, false);
  }
  return 0;
}

}  // namespace

// `wick eval -x` would read the expression as an option: for eval, anything
// that is not one of its own flags is the expression (as after `--`).
std::vector<std::string> eval_args_as_positional(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] != "eval") return args;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (a.starts_with("-") && a != "--json" && a != "--help" && a != "-h") {
      args.insert(args.begin() + static_cast<std::ptrdiff_t>(i), "--");
      break;
    }
  }
  return args;
}

int main(int argc, char** argv) {
  CLI::App app{"wick: operator dispatch with pluggable backends"};
  app.require_subcommand(1);
  bool as_json = false;

  auto* plugins = app.add_subcommand("plugins", "List, inspect or check plugins");
  plugins->require_subcommand(1);
  auto* plist = plugins->add_subcommand("list", "Loaded plugins and load errors");
  plist->add_flag("--json", as_json, "JSON output");
  std::string file;
  auto* inspect = plugins->add_subcommand("inspect", "Read a plugin file's descriptor without loading it");
  inspect->add_option("FILE", file, "plugin .so")->required();
  inspect->add_flag("--json", as_json, "JSON output");

  std::string dir;
  auto* check = plugins->add_subcommand("check", "Check every plugin file in a directory without loading it");
  check->add_option("DIR", dir, "directory of .so files")->required();
  check->add_flag("--json", as_json, "JSON output");

  auto* keys_cmd = app.add_subcommand("keys", "Dispatch keys by priority");
  keys_cmd->add_flag("--json", as_json, "JSON output");

  auto* ops = app.add_subcommand("ops", "Query the operator catalog");
  ops->require_subcommand(1);
  std::string ns;
  std::string op_name;
  auto* overridable = ops->add_subcommand("overridable", "Overridable functions");
  overridable->add_option("--namespace", ns, "only this namespace (torch, torch.Tensor, ...)");
  overridable->add_flag("--json", as_json, "JSON output");
  auto* ignored = ops->add_subcommand("ignored", "Functions the override protocol ignores");
  ignored->add_option("--namespace", ns, "only this namespace");
  ignored->add_flag("--json", as_json, "JSON output");
  auto* signature = ops->add_subcommand("signature", "Python-style signature of an operator");
  signature->add_option("OP", op_name, "e.g. torch.add")->required();
  signature->add_flag("--json", as_json, "JSON output");
  auto* show = ops->add_subcommand("show", "Schema, dispatch table and kernel providers");
  show->add_option("OP", op_name, "e.g. torch.add")->required();
  show->add_flag("--json", as_json, "JSON output");

  std::string expr;
  auto* eval_cmd = app.add_subcommand("eval", "Evaluate a Python-like expression through the boxed API");
  eval_cmd->add_option("EXPR", expr, "e.g. \"torch.add(torch.tensor([1., 2.]), 3, alpha=2)\"")->required();
  eval_cmd->add_flag("--json", as_json, "JSON output");

  auto* demo_cmd = app.add_subcommand("demo", "Load the default plugins and evaluate a few expressions");

  try {
    std::vector<std::string> args = eval_args_as_positional(argc, argv);
    std::reverse(args.begin(), args.end());  // CLI11 takes them in reverse order
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  try {
    wick::init();
    if (plist->parsed()) plugins_list(as_json);
    if (inspect->parsed()) plugins_inspect(file, as_json);
    if (check->parsed()) return plugins_check(dir, as_json);
    if (keys_cmd->parsed()) keys(as_json);
    if (overridable->parsed()) print_list(wick::overridable_functions(ns), as_json);
    if (ignored->parsed()) print_list(wick::ignored_functions(ns), as_json);
    if (signature->parsed()) {
      std::string sig = wick::python_signature(op_name);
      if (as_json) {
        print_json({{"name", op_name}, {"signature", sig}});
      } else {
        std::cout << sig << "\n";
      }
    }
    if (show->parsed()) ops_show(op_name, as_json);
    if (eval_cmd->parsed()) eval(expr, as_json);
    if (demo_cmd->parsed()) return demo();
  } catch (const wick::Error& e) {
    std::cerr << e.type_name() << ": " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "RuntimeError: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
