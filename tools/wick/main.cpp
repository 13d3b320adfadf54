// tools/wick/main.cpp - the `wick` command line: plugins, keys, ops, eval, opcheck, test-backend, demo, shell.
/// \file
/// Exit codes: 0 success, 1 an error from wick (printed as "TypeError: ..."),
/// 2 command-line misuse.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "check_commands.h"
#include "eval.h"
#include "plugin_commands.h"
#include "run_command.h"
#include "wick/catalog.h"
#include "wick/dispatch_key.h"
#include "wick/dispatcher.h"
#include "wick/error.h"
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
  json j = {{"name", qualified},
            {"signature", wick::python_signature(qualified)},
            {"signatures", wick::python_signatures(qualified)},
            {"overloads", json::array()}};
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
  if (j["signatures"].size() > 1) {
    std::cout << "  signatures:\n";
    for (const auto& sig : j["signatures"]) std::cout << "    " << sig.get<std::string>() << "\n";
  }
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
  (void)wick::cli::plugins_list(false);  // a failed plugin is listed; the demo goes on
  const char* exprs[] = {
      "torch.add(torch.tensor([1., 2.]), torch.tensor([3., 4.]), alpha=2)",
      "torch.matmul(torch.tensor([[1, 2], [3, 4]]), torch.tensor([[1], [1]]))",
      "(torch.arange(6.).reshape(2, 3) * 2 + 1).sum(1)",
      "torch.add(torch.tensor([1, 2]), 0.5)",
      "torch.add(ScalarTensor(2, 2), torch.tensor([[1, 1], [1, 1]]))",
      "type(torch.add(SubTensor2([0]), SubTensor([1]))).__name__",
  };
  for (const char* e : exprs) {
    std::cout << "\n>>> " << e << "\n";
    eval(e, false);
  }
  return 0;
}

// `wick eval -x` would read the expression as an option: for eval, anything
// that is not one of its own flags is the expression (as after `--`).
std::vector<std::string> eval_args_as_positional(std::vector<std::string> args) {
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

int run_shell();

// Runs one command line (`args` without the program name) in this process
// and returns its exit code. `in_shell`: a line of `wick shell`, which
// cannot start another shell.
int run(std::vector<std::string> args, bool in_shell) {
  CLI::App app{in_shell ? "a wick command (wick shell)" : "wick: operator dispatch with pluggable backends"};
  app.require_subcommand(1);
  bool as_json = false;

  auto* plugins = app.add_subcommand("plugins", "List, inspect, check, load, unload or reload plugins");
  plugins->require_subcommand(1);
  auto* plist =
      plugins->add_subcommand("list", "Loaded plugins and the files that failed to load (exit code 1 when any did)");
  plist->add_flag("--json", as_json, "JSON output");
  std::string file;
  auto* inspect = plugins->add_subcommand(
      "inspect",
      "Open a plugin file and read its descriptor without running its init (opening it does run its "
      "static initialisers: inspect only files you would load)");
  inspect->add_option("FILE", file, "plugin .so")->required();
  inspect->add_flag("--json", as_json, "JSON output");
  std::string dir;
  auto* check = plugins->add_subcommand(
      "check",
      "Open and check every plugin file in a directory as the loader would, without running their init "
      "(opening a file runs its static initialisers)");
  check->add_option("DIR", dir, "directory of .so files")->required();
  check->add_flag("--json", as_json, "JSON output");
  std::string kind = "plugin";
  auto* load = plugins->add_subcommand("load", "Load a plugin file into this process (see wick shell)");
  load->add_option("FILE", file, "plugin .so")->required();
  load->add_option("--kind", kind, "plugin or backend")->check(CLI::IsMember({"plugin", "backend"}));
  load->add_flag("--json", as_json, "JSON output");
  std::string name;
  auto* unload = plugins->add_subcommand(
      "unload", "Unload a plugin and check that its code is gone from the process (exit code 1 when it is not)");
  unload->add_option("NAME", name, "plugin name")->required();
  unload->add_flag("--json", as_json, "JSON output");
  auto* reload = plugins->add_subcommand(
      "reload", "Unload a plugin and load the file at its path again, so that a rebuilt file takes its place");
  reload->add_option("NAME", name, "plugin name")->required();
  reload->add_flag("--json", as_json, "JSON output");

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

  std::vector<std::string> check_ops;
  bool check_all = false;
  std::string check_plugin;
  auto* opcheck_cmd = app.add_subcommand(
      "opcheck",
      "Check operators against their definitions: the schema prints back, out=/in-place arguments are the ones "
      "mutated, the meta function agrees with the kernel, differentiable operators pass gradcheck and "
      "gradgradcheck (exit code 1 on any failure)");
  opcheck_cmd->add_option("OP", check_ops, "operators (\"torch.add\", or an overload: \"torch.add.out\")");
  opcheck_cmd->add_flag("--all", check_all, "every catalog operator");
  opcheck_cmd->add_option("--plugin", check_plugin, "load this plugin file and check the operators it defines");
  opcheck_cmd->add_flag("--json", as_json, "JSON output");
  std::string backend_file;
  auto* test_backend_cmd = app.add_subcommand(
      "test-backend",
      "Load a backend plugin and compare every kernel it registers with the CPU's on the operators' samples: "
      "values, dtypes, and errors (exit code 1 on any difference)");
  test_backend_cmd->add_option("PLUGIN", backend_file, "the backend plugin file")->required();
  test_backend_cmd->add_flag("--json", as_json, "JSON output");

  auto* demo_cmd = app.add_subcommand("demo", "Load the default plugins and evaluate a few expressions");
  if (!in_shell) {
    // Handled before parsing (its options end at the program): Note [wick run].
    app.add_subcommand("run",
                       "Start the ranks of a distributed program, as torchrun: wick run --nproc-per-node N "
                       "[--nnodes M --node-rank K --master-addr A --master-port P] program args...");
  }
  CLI::App* shell_cmd = nullptr;
  if (!in_shell)
    shell_cmd = app.add_subcommand(
        "shell",
        "Read wick commands from standard input, one per line, and run them in this one process, so that "
        "plugins loaded, unloaded or reloaded stay so for the next line");

  if (!in_shell && !args.empty() && args[0] == "run") return wick::cli::run_distributed({args.begin() + 1, args.end()});
  try {
    args = eval_args_as_positional(std::move(args));
    std::reverse(args.begin(), args.end());  // CLI11 takes them in reverse order
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  try {
    wick::init();
    if (plist->parsed()) return wick::cli::plugins_list(as_json);
    if (inspect->parsed()) return wick::cli::plugins_inspect(file, as_json);
    if (check->parsed()) return wick::cli::plugins_check(dir, as_json);
    if (load->parsed()) return wick::cli::plugins_load(file, kind, as_json);
    if (unload->parsed()) return wick::cli::plugins_unload(name, as_json);
    if (reload->parsed()) return wick::cli::plugins_reload(name, as_json);
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
    if (opcheck_cmd->parsed()) return wick::cli::opcheck(check_ops, check_all, check_plugin, as_json);
    if (test_backend_cmd->parsed()) return wick::cli::test_backend(backend_file, as_json);
    if (demo_cmd->parsed()) return demo();
    if (shell_cmd != nullptr && shell_cmd->parsed()) return run_shell();
  } catch (const wick::Error& e) {
    std::cerr << e.type_name() << ": " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "RuntimeError: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

// A line split into words as a POSIX shell splits it: blanks separate words,
// '...' is literal, "..." keeps blanks and takes \" and \\, a backslash
// outside quotes escapes the next character. nullopt for an unclosed quote.
std::optional<std::vector<std::string>> split_words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      const std::size_t close = line.find('\'', i + 1);
      if (close == std::string::npos) return std::nullopt;
      word += line.substr(i + 1, close - i - 1);
      i = close;
    } else if (c == '"') {
      for (++i;; ++i) {
        if (i >= line.size()) return std::nullopt;
        if (line[i] == '"') break;
        if (line[i] == '\\' && i + 1 < line.size() && (line[i + 1] == '"' || line[i + 1] == '\\')) ++i;
        word += line[i];
      }
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

// Note [wick shell]
// Loading, unloading and reloading plugins matter in a process that lives
// on: `wick shell` reads commands from standard input, one per line, as
// they would follow `wick` on a command line (quoted as in sh), and runs
// each in this one process: `plugins reload myplugin` after a rebuild, then
// `eval ...` runs the new build. Blank lines and lines starting with '#' are
// skipped; `exit` or the end of the input ends the session. Each command's
// output is flushed when it ends, so a program driving the shell through a
// pipe can wait for it. The exit code is the highest of the commands'.
int run_shell() {
  const bool interactive = ::isatty(STDIN_FILENO) != 0;
  int worst = 0;
  std::string line;
  while (true) {
    if (interactive) std::cout << "wick> " << std::flush;
    if (!std::getline(std::cin, line)) break;
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    const std::optional<std::vector<std::string>> words = split_words(line);
    int code = 2;
    if (!words) {
      std::cerr << "SyntaxError: unclosed quote in: " << line << "\n";
    } else if (words->size() == 1 && (words->front() == "exit" || words->front() == "quit")) {
      break;
    } else {
      code = run(*words, /*in_shell=*/true);
    }
    worst = std::max(worst, code);
    std::cout << std::flush;
    std::cerr << std::flush;
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) { return run(std::vector<std::string>(argv + 1, argv + argc), /*in_shell=*/false); }
