// tests/isolation.cpp - every test leaves the process as it found it.
/// \file
/// Note [Each test leaves the registry as it found it]
/// wick_tests runs every suite in one process (and ctest runs each test in
/// its own), so a test that leaves a plugin loaded, a shipped one unloaded
/// or an allocator replaced breaks tests that run after
/// it, in an order that depends on the host. On a GPU host one test removed
/// the real CUDA allocator and every CUDA test after it failed (issue 22).
/// This listener snapshots that state before each test and compares it
/// after: a difference fails the test that made it, naming what it left,
/// and the state is put back so that the tests after it still run as they
/// would alone. (Types a test registers for the whole process, in a static
/// library such as the override tests' fixture, are not counted: they are
/// meant to stay.)
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "wick/device.h"
#include "wick/error.h"
#include "wick/loader.h"
#include "wick/storage.h"

namespace wick::testing {
namespace {

struct Snapshot {
  std::map<std::string, PluginInfo> plugins;  // by name
  Allocator* cuda_allocator = nullptr;
};

Allocator* allocator_or_null(DeviceType type) {
  try {
    return &get_allocator(type);
  } catch (const RuntimeError&) {
    return nullptr;
  }
}

Snapshot take() {
  Snapshot s;
  for (PluginInfo& p : loaded_plugins()) s.plugins.emplace(p.name, std::move(p));
  s.cuda_allocator = allocator_or_null(DeviceType::kCUDA);
  return s;
}

class Isolation final : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo& /*test*/) override {
    init();  // what the tests' own init() would load is not theirs to undo
    before_ = take();
  }

  void OnTestEnd(const ::testing::TestInfo& test) override {
    const Snapshot after = take();
    std::string left;
    for (const auto& [name, p] : after.plugins) {
      if (before_.plugins.contains(name)) continue;
      left += "\n  plugin '" + name + "' left loaded (" + p.path + ")";
      try {
        (void)unload_plugin(name);
      } catch (const Error& e) {
        left += std::string(": could not unload it: ") + e.what();
      }
    }
    for (const auto& [name, p] : before_.plugins) {
      if (after.plugins.contains(name)) continue;
      left += "\n  plugin '" + name + "' left unloaded";
      try {
        (void)load_plugin(p.path, p.kind);
      } catch (const Error& e) {
        left += std::string(": could not load it again: ") + e.what();
      }
    }
    if (after.cuda_allocator != before_.cuda_allocator) {
      left += "\n  the CUDA allocator replaced";
      set_allocator(DeviceType::kCUDA, before_.cuda_allocator);
    }
    EXPECT_TRUE(left.empty()) << test.test_suite_name() << "." << test.name() << " changed the process for the tests after it (put back):" << left;
  }

  Snapshot before_;
};

// Installed before main() runs the tests (gtest_main): the listener list
// takes ownership.
[[maybe_unused]] const bool kInstalled = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new Isolation);
  return true;
}();

}  // namespace
}  // namespace wick::testing
