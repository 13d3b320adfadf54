// tests/loader/loader_test.cpp - the loader against real plugin files, good and broken.
/// \file
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "plugins/loader/digest.h"
#include "wick/catalog.h"
#include "wick/dispatcher.h"
#include "wick/loader.h"
#include "wick/log.h"
#include "wick/ops.h"
#include "wick/override.h"
#include "wick/version.h"

namespace wick {
namespace {

std::string plugin_path(const std::string& stem) {
  return std::string(WICK_TEST_PLUGIN_DIR) + "/libwick_test_" + stem + ".so";
}

std::string load_error(const std::string& path) {
  try {
    load_plugin(path);
  } catch (const PluginError& e) {
    return e.what();
  }
  return "loaded";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(Loader, DefaultDirectoriesLoadTheCpuBackend) {
  init();
  auto plugins = loaded_plugins();
  auto it = std::find_if(plugins.begin(), plugins.end(), [](const PluginInfo& p) { return p.name == "cpu"; });
  ASSERT_NE(it, plugins.end());
  EXPECT_EQ(it->kind, "backend");
  EXPECT_TRUE(contains(it->path, "wick/backends/libwick_cpu.so")) << it->path;
  EXPECT_EQ(std::filesystem::canonical(it->path), std::filesystem::canonical(WICK_CPU_BACKEND_PATH));
  EXPECT_TRUE(plugin_errors().empty());
}

TEST(Loader, GoodPluginLoadsAndUnloadsCleanly) {
  init();
  PluginInfo info = load_plugin(plugin_path("good"));
  EXPECT_EQ(info.name, "test_good");
  EXPECT_EQ(info.version, "1.2.3");
  for (const PluginInfo& p : loaded_plugins()) {
    if (p.name != "test_good") continue;
    EXPECT_EQ(p.registrations.operators, std::vector<std::string>{"testplug.twice"});
    ASSERT_EQ(p.registrations.kernels.size(), 1u);
    EXPECT_EQ(p.registrations.kernels[0], (std::pair<std::string, std::string>{"testplug.twice", "CPU"}));
  }
  Value r = call("testplug.twice", {ones({2})});
  EXPECT_EQ(r.to_tensor().sum().item<double>(), 4.0);
  auto rows = dispatch_table("testplug.twice");
  ASSERT_EQ(rows.size(), 3u);  // the Autograd and Override fallbacks, and the plugin's CPU kernel
  EXPECT_EQ(rows[0].source, "fallback");
  EXPECT_EQ(rows[1].source, "fallback");
  EXPECT_EQ(rows[2].key, DispatchKey::kCPU);
  EXPECT_EQ(rows[2].provider, "test_good");
  // A second plugin of the same name is refused.
  EXPECT_TRUE(contains(load_error(plugin_path("good")), "a plugin named 'test_good' is already loaded"));
  unload_plugin("test_good");
  EXPECT_FALSE(try_find_op("testplug.twice").has_value());
  EXPECT_THROW(unload_plugin("test_good"), PluginError);
  // Reloading works, and so does loading a rebuilt version of the plugin:
  // its new kernel and formula take the old ones' places, and go with it.
  load_plugin(plugin_path("good"));
  EXPECT_TRUE(try_find_op("testplug.twice").has_value());
  unload_plugin("test_good");
  EXPECT_EQ(load_plugin(plugin_path("good_v2")).version, "2.0.0");
  EXPECT_EQ(call("testplug.twice", {ones({2})}).to_tensor().sum().item<double>(), 6.0);
  auto keys = [] {
    std::vector<DispatchKey> out;
    for (const auto& row : dispatch_table("testplug.twice"))
      if (row.provider == "test_good") out.push_back(row.key);
    return out;
  };
  EXPECT_EQ(keys(), (std::vector<DispatchKey>{DispatchKey::kAutograd, DispatchKey::kCPU}));
  unload_plugin("test_good");
  EXPECT_FALSE(try_find_op("testplug.twice").has_value());
  load_plugin(plugin_path("good"));
  EXPECT_EQ(keys(), (std::vector<DispatchKey>{DispatchKey::kCPU}));
  EXPECT_EQ(call("testplug.twice", {ones({2})}).to_tensor().sum().item<double>(), 4.0);
  unload_plugin("test_good");
}

TEST(Loader, ThrowingInitIsRolledBack) {
  init();
  std::string m = load_error(plugin_path("throwing_init"));
  EXPECT_TRUE(contains(m, "deliberate failure in init")) << m;
  EXPECT_TRUE(contains(m, "rolled back")) << m;
  EXPECT_TRUE(contains(m, "libwick_test_throwing_init.so")) << m;
  EXPECT_FALSE(try_find_op("testthrow.f").has_value());
  // The host goes on.
  EXPECT_EQ(neg(ones({1})).item<double>(), -1.0);
}

TEST(Loader, ConflictNamesBothPluginsAndRollsBack) {
  init();
  std::string m = load_error(plugin_path("conflict"));
  EXPECT_TRUE(contains(m, "conflicting kernels for torch.neg at CPU")) << m;
  EXPECT_TRUE(contains(m, "cpu (unary_ops.cpp:")) << m;
  EXPECT_TRUE(contains(m, "test_conflict (conflict.cpp:")) << m;
  EXPECT_FALSE(try_find_op("testconflict.g").has_value());
  EXPECT_EQ(neg(ones({1})).item<double>(), -1.0);
}

/// A temporary directory removed with the object.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("wick_loader_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter()++));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  static int& counter() {
    static int n = 0;
    return n;
  }
};

/// Each fault case: one message naming the file and the problem, nothing
/// registered, and the host and the other plugins go on working.
TEST(Loader, BrokenFilesGetOneSpecificMessageEach) {
  init();
  load_plugin(plugin_path("good"));
  auto others_still_work = [] {
    EXPECT_EQ(add(ones({1}), ones({1})).item<double>(), 2.0);
    EXPECT_EQ(call("testplug.twice", {ones({2})}).to_tensor().sum().item<double>(), 4.0);
  };
  struct Case {
    std::string file;
    std::string message;
  };
  TempDir dir;
  const auto garbage = dir.path / "libgarbage.so";
  std::ofstream(garbage) << "this is not an ELF file";
  const auto truncated = dir.path / "libtruncated.so";  // the first kilobyte of a real plugin
  {
    std::ifstream in(plugin_path("good"), std::ios::binary);
    std::string head(1024, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::ofstream(truncated, std::ios::binary).write(head.data(), static_cast<std::streamsize>(head.size()));
  }
  const auto wrapped = dir.path / "libwrapped.so";  // a whole plugin whose program header offset overflows
  {
    std::ifstream in(plugin_path("good"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (int i = 0; i < 8; ++i) bytes[32 + i] = static_cast<char>(0xff);  // e_phoff = 2^64 - 1
    std::ofstream(wrapped, std::ios::binary) << bytes;
  }
  const auto relocatable = dir.path / "librelocatable.so";  // an ELF object file, not a shared library
  {
    std::string head(64, '\0');
    std::ifstream(plugin_path("good"), std::ios::binary).read(head.data(), 64);
    head[16] = 1;  // e_type = ET_REL
    head[17] = 0;
    std::ofstream(relocatable, std::ios::binary) << head;
  }
  const Case cases[] = {
      {garbage.string(), "cannot load as a shared library: not an ELF file"},
      {truncated.string(),
       "cannot load as a shared library: truncated (the file has 1024 bytes; its section headers lie beyond them)"},
      {wrapped.string(), "its program headers lie beyond them"},
      {relocatable.string(), "cannot load as a shared library: an ELF file but not a shared library"},
      {"/nonexistent/libx.so", "no such plugin file"},
      {plugin_path("no_entry"), "no entry point 'wick_plugin_descriptor' (is this a wick plugin?)"},
      {plugin_path("bad_abi"), "plugin ABI version 99, this host supports " WICK_STR(
                                   WICK_PLUGIN_ABI_VERSION) " (the plugin is newer: update wick)"},
      {plugin_path("old_abi"),
       "plugin ABI version 1, this host supports " WICK_STR(
           WICK_PLUGIN_ABI_VERSION) " (the plugin is older: rebuild it against SDK " WICK_SDK_VERSION ")"},
      {plugin_path("bad_sdk"), "SDK version mismatch: plugin built against SDK 0.0.9, host is SDK " WICK_SDK_VERSION},
      {plugin_path("bad_fingerprint"), "ABI fingerprint mismatch: plugin built with 'msvc-19;msvcprt;cxx201703'"},
      {plugin_path("undefined_symbol"), "undefined symbol 'wick_test_symbol_nobody_defines'"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> logged;
    logging::ScopedSink sink([&](logging::Level, std::string_view m) { logged.emplace_back(m); });
    const std::string m = load_error(c.file);
    EXPECT_TRUE(contains(m, c.message)) << m;
    EXPECT_EQ(m.rfind(c.file + ": ", 0), 0u) << m;  // names the file first
    // The decision is logged with its reason.
    ASSERT_FALSE(logged.empty()) << c.file;
    EXPECT_TRUE(contains(logged.back(), "not loaded: " + c.file)) << logged.back();
    others_still_work();
  }
  // A second plugin of a name already loaded, from another file.
  const auto copy = dir.path / "libcopy_of_good.so";
  std::filesystem::copy_file(plugin_path("good"), copy);
  const std::string m = load_error(copy.string());
  EXPECT_TRUE(contains(m, "a plugin named 'test_good' is already loaded from ")) << m;
  EXPECT_TRUE(contains(m, "libwick_test_good.so")) << m;
  others_still_work();
  unload_plugin("test_good");
}

TEST(Loader, ExplicitReplacementWarns) {
  init();
  std::vector<std::string> warnings;
  {
    logging::ScopedSink sink([&](logging::Level level, std::string_view m) {
      if (level == logging::Level::kWarn) warnings.emplace_back(m);
    });
    load_plugin(plugin_path("replacing"));
  }
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(contains(warnings[0], "torch.neg at CPU: kernel of cpu (unary_ops.cpp:")) << warnings[0];
  EXPECT_TRUE(contains(warnings[0], "replaced by test_replacing (replacing.cpp:")) << warnings[0];
  EXPECT_EQ(neg(ones({1})).item<double>(), -2.0);  // the replacement runs
  unload_plugin("test_replacing");
  EXPECT_EQ(neg(ones({1})).item<double>(), -1.0);  // and the original is back
}

TEST(Loader, Sha256MatchesTheStandardVectors) {
  EXPECT_EQ(detail::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(detail::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(detail::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(detail::sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // A file, read in blocks, matches the same bytes hashed at once.
  std::ifstream in(plugin_path("good"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(detail::sha256_file_hex(plugin_path("good")), detail::sha256_hex(bytes));
}

/// Sets an environment variable for a scope.
struct ScopedEnv {
  std::string name;
  ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) { ::setenv(name.c_str(), value.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(name.c_str()); }
};

TEST(Loader, FilesOthersCanWriteAreRefused) {
  init();
  namespace fs = std::filesystem;
  TempDir dir;
  const fs::path file = dir.path / "libwick_test_good.so";
  fs::copy_file(plugin_path("good"), file);
  fs::permissions(file, fs::perms::others_write, fs::perm_options::add);
  std::string m = load_error(file.string());
  EXPECT_TRUE(
      contains(m, "refused: the plugin file " + fs::canonical(file).string() +
                      " is writable by every user (mode 0757); fix its permissions or set WICK_PLUGIN_INSECURE=1"))
      << m;
  fs::permissions(file, fs::perms::others_write, fs::perm_options::remove);
  fs::permissions(dir.path, fs::perms::group_write, fs::perm_options::add);
  m = load_error(file.string());
  EXPECT_TRUE(contains(m, "refused: the directory " + fs::canonical(dir.path).string() + " is writable by its group"))
      << m;
  {
    ScopedEnv insecure("WICK_PLUGIN_INSECURE", "1");
    std::vector<std::string> warnings;
    logging::ScopedSink sink([&](logging::Level level, std::string_view line) {
      if (level == logging::Level::kWarn) warnings.emplace_back(line);
    });
    EXPECT_EQ(load_plugin(file.string()).name, "test_good");
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_TRUE(contains(warnings[0], "loading although the directory")) << warnings[0];
    unload_plugin("test_good");
  }
  fs::permissions(dir.path, fs::perms::group_write, fs::perm_options::remove);
  EXPECT_EQ(load_plugin(file.string()).name, "test_good");
  unload_plugin("test_good");
}

TEST(Loader, AllowlistRestrictsLoadingToListedFiles) {
  init();
  TempDir dir;
  const std::string good = plugin_path("good");
  const std::string digest = detail::sha256_file_hex(good);
  const auto list = dir.path / "allowlist";
  std::ofstream(list) << "# plugins we trust\n"
                      << std::string(64, '0') << "  libwick_test_other.so\n"
                      << digest << " *libwick_test_good.so\n";
  ScopedEnv allow("WICK_PLUGIN_ALLOWLIST", list.string());
  EXPECT_EQ(load_plugin(good).name, "test_good");
  unload_plugin("test_good");
  const std::string m = load_error(plugin_path("replacing"));
  EXPECT_TRUE(contains(m, "refused: not on the allowlist " + list.string() + " (its SHA-256 is ")) << m;
  // The right digest under another name is not enough.
  const auto renamed = dir.path / "librenamed.so";
  std::filesystem::copy_file(good, renamed);
  EXPECT_TRUE(contains(load_error(renamed.string()), "not on the allowlist"));
  // A list that others could edit protects nothing.
  std::filesystem::permissions(list, std::filesystem::perms::others_write, std::filesystem::perm_options::add);
  EXPECT_TRUE(contains(load_error(good), "refused: the allowlist " + list.string() + " is writable by every user"));
  ScopedEnv missing("WICK_PLUGIN_ALLOWLIST", (dir.path / "nope").string());
  EXPECT_TRUE(contains(load_error(good), "cannot read the allowlist"));
}

/// Puts build `version` of the reload test plugin at `path` as a linker
/// would: written beside it, then renamed over it (a new file, a new inode).
void install_reload_build(const std::filesystem::path& path, int version) {
  const std::filesystem::path tmp = path.string() + ".new";
  std::filesystem::copy_file(plugin_path("reload_v" + std::to_string(version)), tmp,
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::rename(tmp, path);
}

double reload_kernel_result() { return call("testreload.version", {ones({1})}).to_tensor().item<double>(); }

TEST(Loader, ReloadRunsTheNewBuildThreeTimes) {
  init();
  TempDir dir;
  const std::filesystem::path path = dir.path / "libwick_test_reload.so";
  install_reload_build(path, 1);
  EXPECT_EQ(load_plugin(path.string()).version, "1.0.1");
  EXPECT_EQ(reload_kernel_result(), 1.0);
  for (int version = 2; version <= 3; ++version) {
    unload_plugin("test_reload");
    install_reload_build(path, version);
    EXPECT_EQ(load_plugin(path.string()).version, "1.0." + std::to_string(version));
    EXPECT_EQ(reload_kernel_result(), version);
  }
  unload_plugin("test_reload");
}

TEST(Loader, UnloadWaitsForTheInstancesOfItsTypes) {
  init();
  load_plugin(plugin_path("typed"));
  const TypeInfo* sub = find_type("TestTypedSub");
  const TypeInfo* thing = find_type("TestTypedThing");
  ASSERT_NE(sub, nullptr);
  ASSERT_NE(thing, nullptr);
  {
    Tensor a = new_instance(sub, {Value::list({1, 2})}).to_tensor();
    Tensor b = a.view({2, 1});  // a view is an instance too
    Value t = new_instance(thing, {});
    EXPECT_EQ(sub->live_instances(), 2);
    EXPECT_EQ(thing->live_instances(), 1);
    std::string m;
    try {
      unload_plugin("test_typed");
    } catch (const PluginError& e) {
      m = e.what();
    }
    EXPECT_TRUE(contains(m, "cannot unload plugin 'test_typed' (")) << m;
    EXPECT_TRUE(contains(m, "instances of its types are alive (TestTypedSub: 2, TestTypedThing: 1); drop them first"))
        << m;
    EXPECT_NE(find_type("TestTypedSub"), nullptr);  // nothing was removed
    Tensor c = b.mul(b);                            // and the plugin's types still work
    EXPECT_EQ(type_of(Value(c)), sub);
    EXPECT_TRUE(new_instance(thing, {}).is_object());  // reopened after the refusal
  }
  EXPECT_EQ(sub->live_instances(), 0);
  EXPECT_EQ(thing->live_instances(), 0);
  unload_plugin("test_typed");
  EXPECT_EQ(find_type("TestTypedSub"), nullptr);
  EXPECT_EQ(find_type("TestTypedThing"), nullptr);
  // Loaded again, its types are back.
  load_plugin(plugin_path("typed"));
  EXPECT_NE(find_type("TestTypedThing"), nullptr);
  unload_plugin("test_typed");
}

}  // namespace
}  // namespace wick
