// tests/cli/check_commands_test.cpp - `wick opcheck` and `wick test-backend` end to end.
/// \file
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/cli_util.h"
#include "tests/support/test_paths.h"

namespace {

using wick::cli_test::Result;
using wick::cli_test::run;

std::string plugin(const std::string& stem) { return wick_test::plugin_dir() + "/libwick_test_" + stem + ".so"; }

bool has_line(const std::string& out, const std::string& line) {
  return ("\n" + out).find("\n" + line + "\n") != std::string::npos;
}

TEST(CliChecks, OpcheckPassesOperatorsWithMetaFunctionsAndFormulas) {
  const Result r = run("opcheck torch.add torch.exp torch.where torch.Tensor.exp_ torch.eq");
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* line : {"torch.add schema ok", "torch.add aliasing ok", "torch.add meta ok", "torch.add autograd ok",
                           "torch.add.out aliasing ok", "torch.add.out meta ok", "torch.where meta ok",
                           "torch.Tensor.exp_ aliasing ok", "torch.eq autograd skipped: no floating result"}) {
    EXPECT_TRUE(has_line(r.out, line)) << line << "\n" << r.out;
  }
}

// Every operator of the catalog and of the bundled plugins against its
// definition: a regression in a kernel, a meta function, a formula or a
// schema shows here. A check that cannot apply is skipped with its reason
// (Note [Sample syntax]); an operator without samples is a failure.
TEST(CliChecks, OpcheckAllPasses) {
  const Result r = run("opcheck --all");
  EXPECT_EQ(r.code, 0) << r.out;
  std::size_t start = 0;
  while (start < r.out.size()) {
    const std::size_t end = std::min(r.out.find('\n', start), r.out.size());
    const std::string line = r.out.substr(start, end - start);
    EXPECT_EQ(line.find(" FAILED"), std::string::npos) << line;
    EXPECT_EQ(line.find("no sample"), std::string::npos) << line;
    start = end + 1;
  }
  EXPECT_NE(r.out.find("opcheck: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" 0 failed, "), std::string::npos) << r.out;
}

TEST(CliChecks, OpcheckJsonAndUnknownOperators) {
  const Result r = run("opcheck torch.neg --json");
  EXPECT_EQ(r.code, 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 8u);  // torch.neg and torch.neg.out, four checks each
  EXPECT_EQ(j[0]["op"], "torch.neg");
  EXPECT_EQ(j[0]["check"], "schema");
  EXPECT_EQ(j[0]["status"], "ok");
  const Result bad = run("opcheck torch.nope");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.out.find("unknown operator 'torch.nope'"), std::string::npos) << bad.out;
}

// testdefined.scale has only its definition, a meta function and a CPU
// impl: its checks are clean. testdefined.offset has a plain CPU kernel and
// no meta function, which the meta check reports.
TEST(CliChecks, OpcheckOfAPluginDefinedOnce) {
  const Result clean = run("opcheck testdefined.scale testdefined.Tensor.scale --plugin " + plugin("defined"));
  EXPECT_EQ(clean.code, 0) << clean.out;
  for (const char* line :
       {"testdefined.scale schema ok", "testdefined.scale aliasing ok", "testdefined.scale meta ok",
        "testdefined.scale.out aliasing ok", "testdefined.scale.out meta ok", "testdefined.Tensor.scale meta ok"}) {
    EXPECT_TRUE(has_line(clean.out, line)) << line << "\n" << clean.out;
  }
  EXPECT_NE(clean.out.find("testdefined.scale autograd ok: no formula"), std::string::npos) << clean.out;
  const Result all = run("opcheck --plugin " + plugin("defined"));
  EXPECT_EQ(all.code, 1) << all.out;
  EXPECT_NE(all.out.find("testdefined.offset meta FAILED: sample ((from the schema)): on meta tensors: "
                         "NotImplementedError: testdefined.offset: no kernel for dispatch key Meta"),
            std::string::npos)
      << all.out;
  EXPECT_TRUE(has_line(all.out, "opcheck: 5 operators, 18 checks passed, 1 failed, 1 skipped")) << all.out;
}

TEST(CliChecks, TestBackendCatchesTheWrongKernel) {
  const Result r = run("test-backend " + plugin("wrong_backend"));
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_TRUE(has_line(r.out, "torch.add backend ok")) << r.out;
  EXPECT_TRUE(has_line(r.out, "torch.neg backend ok")) << r.out;
  EXPECT_TRUE(has_line(r.out, "torch.Tensor.copy_ backend ok")) << r.out;
  EXPECT_NE(r.out.find("torch.mul backend FAILED: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the values differ from the CPU's"), std::string::npos) << r.out;
  EXPECT_TRUE(has_line(r.out, "torch.neg.out backend ok")) << r.out;
  EXPECT_TRUE(has_line(r.out, "test-backend: 7 operators, 5 checks passed, 2 failed, 0 skipped")) << r.out;
}

}  // namespace
