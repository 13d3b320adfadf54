// tests/loader/loader_test.cpp - the loader against real plugin files, good and broken.
/// \file
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "plugins/loader/digest.h"
#include "tests/autograd/test_util.h"
#include "tests/support/test_paths.h"
#include "wick/autograd.h"
#include "wick/catalog.h"
#include "wick/dispatcher.h"
#include "wick/library.h"
#include "wick/loader.h"
#include "wick/log.h"
#include "wick/ops.h"
#include "wick/override.h"
#include "wick/plugin.h"
#include "wick/version.h"

namespace wick {
namespace {

std::string plugin_path(const std::string& stem) {
  return (std::filesystem::path(wick_test::plugin_dir()) / ("libwick_test_" + stem + ".so")).string();
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
  EXPECT_EQ(std::filesystem::canonical(it->path), std::filesystem::canonical(wick_test::cpu_backend_path()));
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
  EXPECT_TRUE(contains(m, "cpu (elementwise.ops:")) << m;
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

/// Sets an environment variable for a scope.
struct ScopedEnv {
  std::string name;
  ScopedEnv(std::string n, const std::string& value) : name(std::move(n)) { ::setenv(name.c_str(), value.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(name.c_str()); }
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
      {(dir.path / "missing" / "libx.so").string(), "no such plugin file"},  // in the test's own directory
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
  EXPECT_TRUE(contains(warnings[0], "torch.neg at CPU: kernel of cpu (elementwise.ops:")) << warnings[0];
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

// WICK_PLUGIN_INSECURE is a boolean: 1, true, yes, on (any case) allow what
// others could change; 0, false, no, off and empty are the default; any
// other value refuses every file, so that a typo is never read as "off".
TEST(Loader, InsecureFlagTakesBooleansAndRefusesAnythingElse) {
  init();
  namespace fs = std::filesystem;
  TempDir dir;
  const fs::path file = dir.path / "libwick_test_good.so";
  fs::copy_file(plugin_path("good"), file);
  fs::permissions(dir.path, fs::perms::group_write, fs::perm_options::add);
  for (const char* yes : {"1", "true", "TRUE", "Yes", "on", "On"}) {
    ScopedEnv insecure("WICK_PLUGIN_INSECURE", yes);
    EXPECT_EQ(load_plugin(file.string()).name, "test_good") << yes;
    unload_plugin("test_good");
  }
  for (const char* no : {"0", "false", "No", "OFF", ""}) {
    ScopedEnv insecure("WICK_PLUGIN_INSECURE", no);
    EXPECT_TRUE(contains(load_error(file.string()), "is writable by its group")) << no;
  }
  for (const char* bad : {"2", "maybe", "y", " 1"}) {
    ScopedEnv insecure("WICK_PLUGIN_INSECURE", bad);
    const std::string m = load_error(plugin_path("good"));  // a file that needs no exception is refused too
    EXPECT_TRUE(contains(m, std::string("refused: WICK_PLUGIN_INSECURE='") + bad +
                                "' is not a boolean (use 1, true, "
                                "yes or on"))
        << m;
  }
  fs::permissions(dir.path, fs::perms::group_write, fs::perm_options::remove);
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

/// Info-level log lines while it lives.
struct LogCapture {
  std::vector<std::string> lines;
  logging::Level was = logging::level();
  logging::ScopedSink sink{[this](logging::Level, std::string_view m) { lines.emplace_back(m); }};
  LogCapture() { logging::set_level(logging::Level::kInfo); }
  ~LogCapture() { logging::set_level(was); }
  [[nodiscard]] bool has(const std::string& part) const {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return contains(l, part); });
  }
};

// Issue 17: unloading unmaps, so that a reload runs the new build (Note
// [Unloading unmaps]). The plugin has thread-locals, static objects with
// destructors, a wick log sink and an spdlog logger with a sink of its own;
// it is rebuilt at one path three times and reloaded each time, by
// unload + load and by reload_plugin. (On the code before issue 17 the
// second load ran build 1 again.)
TEST(Loader, ReloadRunsTheNewBuildThreeTimes) {
  init();
  TempDir dir;
  const std::filesystem::path path = dir.path / "libwick_test_reload.so";
  install_reload_build(path, 1);
  EXPECT_EQ(load_plugin(path.string()).version, "1.0.1");
  EXPECT_EQ(reload_kernel_result(), 1.0);
  for (int version = 2; version <= 4; ++version) {
    const int build = version == 4 ? 1 : version;  // and back to the first build
    // Its kernel runs on this thread and on another, touching its thread-locals.
    double on_thread = 0;
    std::thread([&] { on_thread = reload_kernel_result(); }).join();
    EXPECT_EQ(on_thread, reload_kernel_result());
    LogCapture log;
    if (version == 3) {
      install_reload_build(path, build);
      EXPECT_EQ(reload_plugin("test_reload").version, "1.0.3");
    } else {
      const UnloadResult unloaded = unload_plugin("test_reload");
      EXPECT_TRUE(unloaded.unmapped) << unloaded.message;
      EXPECT_EQ(unloaded.message, "");
      EXPECT_EQ(unloaded.path, std::filesystem::canonical(path).string());
      EXPECT_FALSE(try_find_op("testreload.version").has_value());
      install_reload_build(path, build);
      EXPECT_EQ(load_plugin(path.string()).version, "1.0." + std::to_string(build));
    }
    // The old build's static destructors ran: the library was unmapped.
    EXPECT_TRUE(
        log.has("test_reload v" + std::to_string(version == 4 ? 3 : version - 1) + ": static objects destroyed"));
    EXPECT_EQ(reload_kernel_result(), build);
  }
  const UnloadResult last = unload_plugin("test_reload");
  EXPECT_TRUE(last.unmapped) << last.message;
}

// Each build is judged by the allowlist when it is loaded: a rebuilt file
// that is not listed is refused, and the build that was loaded stays.
TEST(Loader, ReloadHonoursTheAllowlistAtEachStep) {
  init();
  TempDir dir;
  const std::filesystem::path path = dir.path / "libwick_test_reload.so";
  const auto list = dir.path / "allowlist";
  auto allow = [&](int version) {
    std::ofstream(list) << detail::sha256_file_hex(plugin_path("reload_v" + std::to_string(version)))
                        << "  libwick_test_reload.so\n";
  };
  ScopedEnv env("WICK_PLUGIN_ALLOWLIST", list.string());
  install_reload_build(path, 1);
  allow(1);
  EXPECT_EQ(load_plugin(path.string()).version, "1.0.1");
  for (int version = 2; version <= 3; ++version) {
    install_reload_build(path, version);
    std::string refused;
    try {
      (void)reload_plugin("test_reload");
    } catch (const PluginError& e) {
      refused = e.what();
    }
    EXPECT_TRUE(contains(refused, "refused: not on the allowlist " + list.string())) << refused;
    EXPECT_TRUE(contains(refused, "reload of plugin 'test_reload' refused; version 1.0." + std::to_string(version - 1) +
                                      " stays loaded"))
        << refused;
    EXPECT_EQ(reload_kernel_result(), version - 1);  // the listed build still runs
    allow(version);
    EXPECT_EQ(reload_plugin("test_reload").version, "1.0." + std::to_string(version));
    EXPECT_EQ(reload_kernel_result(), version);
  }
  // The list names build 3 only: build 2 is refused by a plain load too.
  EXPECT_TRUE(unload_plugin("test_reload").unmapped);
  install_reload_build(path, 2);
  EXPECT_TRUE(contains(load_error(path.string()), "not on the allowlist"));
}

// A plugin whose code stays mapped after the unload is reported, and until
// the process ends a different file at its path is refused, since dlopen
// would hand back the old code.
TEST(Loader, PinnedPluginIsReportedAndItsPathGuarded) {
  init();
  TempDir dir;
  const std::filesystem::path path = dir.path / "libwick_test_pinned.so";
  std::filesystem::copy_file(plugin_path("pinned"), path);
  load_plugin(path.string());
  UnloadResult r = unload_plugin("test_pinned");
  EXPECT_FALSE(r.unmapped);
  const std::string canonical = std::filesystem::canonical(path).string();
  EXPECT_TRUE(contains(r.message, canonical + " is still mapped after dlclose")) << r.message;
  EXPECT_TRUE(contains(r.message, "thread_local objects with a destructor")) << r.message;
  EXPECT_TRUE(contains(r.message, "a changed file at that path is refused")) << r.message;
  // The same file loads again (it is the code that is mapped).
  EXPECT_EQ(load_plugin(path.string()).name, "test_pinned");
  EXPECT_EQ(call("testpinned.ident", {ones({1})}).to_tensor().item<double>(), 1.0);
  EXPECT_FALSE(unload_plugin("test_pinned").unmapped);
  // Another build at that path is refused.
  std::ofstream(path, std::ios::app | std::ios::binary) << "another build";
  const std::string m = load_error(path.string());
  EXPECT_TRUE(contains(m, path.string() + ": refused: an earlier build of this file (plugin 'test_pinned' 1.0.0) is "
                                          "still mapped in this process"))
      << m;
  EXPECT_TRUE(contains(m, "restart the process to load the new build")) << m;
  EXPECT_FALSE(try_find_op("testpinned.ident").has_value());
}

// While a plugin is loaded, another build at its path is refused (dlopen
// would return the loaded one); reload_plugin is the way to replace it.
TEST(Loader, AnotherBuildAtALoadedPathIsRefused) {
  init();
  TempDir dir;
  const std::filesystem::path path = dir.path / "libwick_test_reload.so";
  install_reload_build(path, 1);
  load_plugin(path.string());
  install_reload_build(path, 2);
  const std::string m = load_error(path.string());
  EXPECT_TRUE(contains(m,
                       "refused: an earlier build of this file is loaded as plugin 'test_reload' 1.0.1; unload it "
                       "first, or reload it (wick plugins reload test_reload)"))
      << m;
  EXPECT_EQ(reload_kernel_result(), 1.0);
  EXPECT_EQ(reload_plugin("test_reload").version, "1.0.2");
  EXPECT_EQ(reload_kernel_result(), 2.0);
  EXPECT_THROW((void)reload_plugin("no_such_plugin"), PluginError);
  unload_plugin("test_reload");
}

// Issue 17, item 6: a library a plugin opens for itself goes through the
// loader's checks (load_plugin_library), is closed with the plugin, and an
// allowlist without it refuses the plugin, naming the library.
TEST(Loader, PluginLibrariesGoThroughTheChecks) {
  init();
  const std::string helper =
      std::filesystem::canonical(std::filesystem::path(wick_test::plugin_dir()) / "helper" / "libwick_test_helper.so");
  {
    LogCapture log;
    EXPECT_EQ(load_plugin(plugin_path("uses_helper")).name, "test_uses_helper");
    EXPECT_TRUE(log.has("test_uses_helper: loaded " + helper)) << helper;
  }
  EXPECT_EQ(call("testhelper.scale", {ones({1})}).to_tensor().item<double>(), 7.0);
  const UnloadResult r = unload_plugin("test_uses_helper");
  EXPECT_TRUE(r.unmapped) << r.message;
  TempDir dir;
  const auto list = dir.path / "allowlist";
  ScopedEnv env("WICK_PLUGIN_ALLOWLIST", list.string());
  std::ofstream(list) << detail::sha256_file_hex(plugin_path("uses_helper")) << "  libwick_test_uses_helper.so\n";
  const std::string m = load_error(plugin_path("uses_helper"));
  EXPECT_TRUE(contains(
      m, "init of plugin 'test_uses_helper' failed: " + helper + ": refused: not on the allowlist " + list.string()))
      << m;
  EXPECT_FALSE(try_find_op("testhelper.scale").has_value());
  std::ofstream(list, std::ios::app) << detail::sha256_file_hex(helper) << "  " << helper << "\n";
  EXPECT_EQ(load_plugin(plugin_path("uses_helper")).name, "test_uses_helper");
  EXPECT_EQ(call("testhelper.scale", {ones({1})}).to_tensor().item<double>(), 7.0);
  EXPECT_TRUE(unload_plugin("test_uses_helper").unmapped);
  // Only a plugin's init may use it, with its own registrar.
  Registrar stranger("stranger");
  WICK_EXPECT_THROW_MSG((void)load_plugin_library(stranger, helper), PluginError,
                        "load_plugin_library is for a plugin's init, with the registrar init was given");
  WICK_EXPECT_THROW_MSG(check_plugin_library(stranger, helper), PluginError, "check_plugin_library is for");
  WICK_EXPECT_THROW_MSG(keep_library_mapped(stranger, reinterpret_cast<const void*>(&init)), PluginError,
                        "keep_library_mapped is for");
}

// A library opened with keep_mapped (as the CUDA backend opens its kernels)
// stays mapped after its plugin is unloaded, and that is not a failure.
TEST(Loader, KeptLibrariesStayMappedWithoutFailingTheUnload) {
  init();
  const std::string kept = std::filesystem::canonical(std::filesystem::path(wick_test::plugin_dir()) / "helper" /
                                                      "libwick_test_kept_helper.so");
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(load_plugin(plugin_path("keeps_helper")).name, "test_keeps_helper");
    EXPECT_EQ(call("testkeeps.scale", {ones({1})}).to_tensor().item<double>(), 7.0);
    const UnloadResult r = unload_plugin("test_keeps_helper");
    EXPECT_TRUE(r.unmapped) << r.message;
    EXPECT_EQ(r.message, "");
    void* still = ::dlopen(kept.c_str(), RTLD_NOW | RTLD_NOLOAD);
    EXPECT_NE(still, nullptr) << kept;
    if (still != nullptr) ::dlclose(still);
  }
}

// The SDK's template, exercised as its README shows, unloads completely;
// so do the bundled plugins (Cli.ShippedPluginsUnloadAndLoadAgain checks
// them and the CPU backend in a `wick shell` of their own).
TEST(Loader, TemplateUnloadsCompletely) {
  init();
  load_plugin(plugin_path("template"));
  {
    Tensor x = ones({2}).requires_grad_();
    Tensor y = call("myplugin.scale", {x, 3.0}).to_tensor();
    EXPECT_EQ(y.sum().item<double>(), 6.0);
    y.sum().backward();
    EXPECT_EQ(x.grad().sum().item<double>(), 6.0);
    EXPECT_EQ(call("torch.sum", {new_instance(find_type("Scaled"), {ones({3}), 2.0})}).to_tensor().item<double>(), 6.0);
  }
  const UnloadResult r = unload_plugin("myplugin");
  EXPECT_TRUE(r.unmapped) << r.message;
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
  {
    // A type below one of the plugin's, registered elsewhere, whose
    // instances the plugin's constructor makes: they count too.
    Library lib("loader_test_types");
    lib.register_type({.name = "TestTypedChildThing", .parent = "TestTypedThing"});
    Value child = new_instance(find_type("TestTypedChildThing"), {});
    std::string m;
    try {
      unload_plugin("test_typed");
    } catch (const PluginError& e) {
      m = e.what();
    }
    EXPECT_TRUE(contains(m, "instances of its types are alive (TestTypedChildThing: 1)")) << m;
  }
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
