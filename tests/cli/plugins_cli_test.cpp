// tests/cli/plugins_cli_test.cpp - `wick plugins ...` and `wick shell` end to end: refusals a user can see,
// loading, unloading and reloading in one process, and what the shipped plugins leave behind.
/// \file
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "plugins/loader/digest.h"
#include "tests/cli/cli_util.h"
#include "tests/support/test_paths.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;

using wick::cli_test::quote;
using wick::cli_test::Result;
using wick::cli_test::run;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

fs::path build_lib_dir() { return fs::path(wick_test::cli_path()).parent_path().parent_path() / "lib"; }

/// A directory only its owner can write, removed with the object.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& stem) {
    static int n = 0;
    path = fs::temp_directory_path() / (stem + "_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::create_directories(path);
    fs::permissions(path, fs::perms::group_write | fs::perms::others_write, fs::perm_options::remove);
  }
  ~TempDir() { fs::remove_all(path); }
};

/// An allowlist of every library under the build's backend and plugin
/// directories (the CUDA kernel library included), except `leave_out`.
void write_allowlist(const fs::path& list, const std::string& leave_out = "") {
  std::ofstream out(list);
  for (const char* dir : {"wick/backends", "wick/plugins"}) {
    if (!fs::is_directory(build_lib_dir() / dir)) continue;
    for (const auto& e : fs::recursive_directory_iterator(build_lib_dir() / dir))
      if (e.path().extension() == ".so" && e.path().filename() != leave_out)
        out << wick::detail::sha256_file_hex(e.path().string()) << "  " << e.path().string() << "\n";
  }
}

// Issue 17, item 2: a plugin refused on the search path shows in
// `plugins list` (exit code 1) and in the errors of what it would have
// provided; a WICK_PLUGIN_PATH directory that does not exist is a warning.
TEST(CliPlugins, RefusalsAreVisible) {
  TempDir dir("wick_cli_refusals");
  fs::create_directories(dir.path / "plugins");
  fs::permissions(dir.path / "plugins", fs::perms::group_write | fs::perms::others_write, fs::perm_options::remove);
  const fs::path plugin = dir.path / "plugins" / "libwick_test_good.so";
  fs::copy_file(wick_test::plugin_dir() + "/libwick_test_good.so", plugin);
  const fs::path list = dir.path / "allowlist";
  write_allowlist(list);
  const std::string env =
      "WICK_PLUGIN_ALLOWLIST=" + quote(list.string()) + " WICK_PLUGIN_PATH=" + quote((dir.path / "plugins").string());
  const std::string refusal = plugin.string() + ": refused: not on the allowlist " + list.string();

  Result r = run("plugins list", wick_test::cli_path(), true, "error", env);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(contains(r.out, "cpu 0.1.0 (backend) ")) << r.out;
  EXPECT_TRUE(contains(r.out, "failed: " + refusal)) << r.out;

  r = run("eval " + quote("testplug.twice(torch.ones(2))"), wick_test::cli_path(), true, "off", env);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(
      r.out.starts_with("NameError: name 'testplug' is not defined\n"
                        "a plugin file on the search path was not loaded, which may be why:\n  " +
                        refusal))
      << r.out;

  // The allowlist of the README's first recipe, without the backends: the
  // CPU backend is refused, and the error says so rather than "installed?".
  write_allowlist(list, "libwick_cpu.so");
  r = run("eval " + quote("torch.neg(torch.tensor([1.]))"), wick_test::cli_path(), true, "off",
          "WICK_PLUGIN_ALLOWLIST=" + quote(list.string()));
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(r.out.starts_with("NotImplementedError: torch.tensor: no kernel for dispatch key CPU")) << r.out;
  EXPECT_TRUE(contains(r.out, "This plugin file was found but not loaded: " +
                                  fs::canonical(wick_test::cpu_backend_path()).string() + ": refused: not on the allowlist"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "Is the backend plugin installed?")) << r.out;

  r = run("plugins list", wick_test::cli_path(), true, "warn", "WICK_PLUGIN_PATH=" + quote((dir.path / "nope").string()));
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "WICK_PLUGIN_PATH names " + (dir.path / "nope").string() + ", which is not a directory"))
      << r.out;
}

TEST(CliPlugins, HelpSaysOpeningAFileRunsItsStaticInitialisers) {
  for (const char* command : {"plugins inspect --help", "plugins check --help"}) {
    const Result r = run(command);
    EXPECT_EQ(r.code, 0);
    EXPECT_TRUE(contains(r.out, "static initialisers")) << r.out;
    EXPECT_FALSE(contains(r.out, "without loading it")) << r.out;
  }
}

/// A `wick shell` driven line by line through pipes.
class Shell {
 public:
  explicit Shell(const std::vector<std::string>& env) {
    int in[2];
    int out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) return;
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    ::posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    ::posix_spawn_file_actions_adddup2(&actions, out[1], STDERR_FILENO);
    std::vector<std::string> vars = {"WICK_LOG_LEVEL=error"};
    for (char** e = environ; *e != nullptr; ++e)
      if (!std::string(*e).starts_with("WICK_")) vars.emplace_back(*e);
    vars.insert(vars.end(), env.begin(), env.end());
    std::vector<char*> envp;
    for (std::string& v : vars) envp.push_back(v.data());
    envp.push_back(nullptr);
    std::string binary = wick_test::cli_path();
    std::string shell = "shell";
    char* argv[] = {binary.data(), shell.data(), nullptr};
    if (::posix_spawn(&pid_, binary.c_str(), &actions, nullptr, argv, envp.data()) != 0) pid_ = -1;
    ::posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~Shell() {
    if (to_ >= 0) ::close(to_);
    if (from_ >= 0) ::close(from_);
    if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
  }
  Shell(const Shell&) = delete;
  Shell& operator=(const Shell&) = delete;

  /// Runs one line and returns what it printed (a marker eval ends it).
  std::string command(const std::string& line) {
    const std::string text = line + "\neval \"'--end--'\"\n";
    if (::write(to_, text.data(), text.size()) != static_cast<ssize_t>(text.size())) return "<write failed>";
    const std::string marker = "'--end--'\n";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (buffer_.find(marker) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      pollfd ready{from_, POLLIN, 0};
      if (::poll(&ready, 1, 1000) == 0) continue;
      char buf[4096];
      const ssize_t n = ::read(from_, buf, sizeof buf);
      if (n <= 0) break;
      buffer_.append(buf, static_cast<std::size_t>(n));
    }
    const std::size_t at = buffer_.find(marker);
    if (at == std::string::npos) return "<no output: " + buffer_ + ">";
    std::string out = buffer_.substr(0, at);
    buffer_.erase(0, at + marker.size());
    return out;
  }
  /// Closes its input and returns its exit code.
  int finish() {
    ::close(to_);
    to_ = -1;
    int status = 0;
    if (pid_ <= 0 || ::waitpid(pid_, &status, 0) != pid_) return -1;
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1;
  int from_ = -1;
  std::string buffer_;
};

void install_build(const fs::path& path, int version) {
  const fs::path tmp = path.string() + ".new";
  fs::copy_file(wick_test::plugin_dir() + "/libwick_test_reload_v" + std::to_string(version) + ".so", tmp,
                fs::copy_options::overwrite_existing);
  fs::rename(tmp, path);
}

// Issue 17, item 5: in one process, a plugin rebuilt three times is loaded,
// reloaded, unloaded and loaded again, each time running the new build;
// the allowlist judges each build.
TEST(CliPlugins, ShellLoadsReloadsAndUnloadsInOneProcess) {
  TempDir dir("wick_cli_shell");
  const fs::path path = dir.path / "libwick_test_reload.so";
  const fs::path list = dir.path / "allowlist";
  auto allow = [&](int version) {
    write_allowlist(list);
    std::ofstream(list, std::ios::app) << wick::detail::sha256_file_hex(wick_test::plugin_dir() +
                                                                        "/libwick_test_reload_v" +
                                                                        std::to_string(version) + ".so")
                                       << "  " << path.string() << "\n";
  };
  install_build(path, 1);
  allow(1);
  Shell shell({"WICK_PLUGIN_ALLOWLIST=" + list.string()});
  const std::string version_expr = "eval 'testreload.version(torch.ones(1))'";
  EXPECT_EQ(shell.command("plugins load " + quote(path.string())), "loaded test_reload 1.0.1 (plugin) " +
                                                                       path.string() +
                                                                       "\n  operators (1): testreload.version\n"
                                                                       "  kernels (1): CPU 1\n");
  EXPECT_EQ(shell.command(version_expr), "tensor([1.])\n");

  install_build(path, 2);  // rebuilt, not yet listed: refused, build 1 stays
  std::string out = shell.command("plugins reload test_reload");
  EXPECT_TRUE(contains(out, "PluginError: " + path.string() + ": refused: not on the allowlist")) << out;
  EXPECT_TRUE(contains(out, "reload of plugin 'test_reload' refused; version 1.0.1 stays loaded")) << out;
  EXPECT_EQ(shell.command(version_expr), "tensor([1.])\n");
  allow(2);
  out = shell.command("plugins reload test_reload");
  EXPECT_TRUE(out.starts_with("reloaded test_reload 1.0.1 -> 1.0.2 (plugin) " + path.string() + "\n")) << out;
  EXPECT_EQ(shell.command(version_expr), "tensor([2.])\n");

  install_build(path, 3);
  allow(3);
  EXPECT_EQ(shell.command("plugins unload test_reload"),
            "unloaded test_reload 1.0.2 (" + path.string() + "); its code is unmapped\n");
  EXPECT_TRUE(shell.command(version_expr).starts_with("NameError: name 'testreload' is not defined"));
  EXPECT_TRUE(shell.command("plugins load " + quote(path.string())).starts_with("loaded test_reload 1.0.3 "));
  EXPECT_EQ(shell.command(version_expr), "tensor([3.])\n");
  // Lines are split as sh splits them; an unclosed quote is a usage error.
  EXPECT_EQ(shell.command("eval \"torch.tensor([1., 2.]) * 2\""), "tensor([2., 4.])\n");
  EXPECT_TRUE(shell.command("eval 'torch.ones(1)").starts_with("SyntaxError: unclosed quote"));
  EXPECT_TRUE(shell.command("shell").starts_with("A subcommand is required"));  // no shell inside a shell
  EXPECT_EQ(shell.finish(), 2);                                                 // the worst exit code of its commands
}

// What the shipped plugins leave behind: each is exercised, unloaded (its
// code must be unmapped), loaded again from its file and exercised again,
// in one `wick shell`. The CPU backend's OpenMP threads outlive it (Note
// [OpenMP outlives the backend]).
TEST(CliPlugins, ShippedPluginsUnloadAndLoadAgain) {
  const fs::path backends = build_lib_dir() / "wick" / "backends";
  const fs::path plugins = build_lib_dir() / "wick" / "plugins";
  struct Shipped {
    std::string name;
    fs::path file;
    std::string kind;
    std::string expr;
    std::string expected;
  };
  std::vector<Shipped> shipped = {
      {"cpu", backends / "libwick_cpu.so", "backend",
       // GEMM through OpenBLAS and long loops on OpenMP's threads; exact in float32
       "torch.mm(torch.ones(64, 64), torch.ones(64, 64)).sum() + torch.ones(1000000).mul(2).sum()",
       "tensor(2262144.)\n"},
      {"extending_autograd", plugins / "libwick_extending_autograd.so", "plugin",
       "extending_autograd.mul_constant(torch.ones(2), 3.0)", "tensor([3., 3.])\n"},
      {"extending_torch", plugins / "libwick_extending_torch.so", "plugin",
       "torch.add(ScalarTensor(2, 2), ScalarTensor(2, 2))", "ScalarTensor(N=2, value=4)\n"},
  };
#ifdef WICK_CUDA_BACKEND_BUILT
  shipped.push_back({"cuda", backends / "libwick_cuda.so", "backend", "torch.ones(1).sum()", "tensor(1.)\n"});
#endif
  Shell shell({});
  for (const Shipped& s : shipped) {
    EXPECT_EQ(shell.command("eval " + quote(s.expr)), s.expected) << s.name;
    const std::string path = fs::canonical(s.file).string();
    EXPECT_EQ(shell.command("plugins unload " + s.name),
              "unloaded " + s.name + " 0.1.0 (" + path + "); its code is unmapped\n");
    EXPECT_TRUE(shell.command("plugins load --kind " + s.kind + " " + quote(path))
                    .starts_with("loaded " + s.name + " 0.1.0 (" + s.kind + ") " + path + "\n"))
        << s.name;
    EXPECT_EQ(shell.command("eval " + quote(s.expr)), s.expected) << s.name;
  }
  EXPECT_EQ(shell.finish(), 0);
}

}  // namespace
