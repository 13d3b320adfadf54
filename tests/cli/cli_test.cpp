// tests/cli/cli_test.cpp - the `wick` command end to end: eval output as
// PyTorch prints it (every golden print case), listings, JSON, exit codes,
// and a missing CPU backend.
/// \file
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/cli_util.h"
#include "wick/version.h"
#include "tests/support/test_paths.h"

namespace {

namespace fs = std::filesystem;

using wick::cli_test::quote;
using wick::cli_test::Result;
using wick::cli_test::run;

Result eval(const std::string& expr) { return run("eval " + quote(expr)); }

TEST(Cli, AcceptanceExpressions) {
  Result r = eval("torch.add(torch.tensor([1., 2.]), torch.tensor([3., 4.]), alpha=2)");
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "tensor([ 7., 10.])\n");
  r = eval("torch.matmul(torch.tensor([[1, 2], [3, 4]]), torch.tensor([[1], [1]]))");
  EXPECT_EQ(r.out, "tensor([[3],\n        [7]])\n");
  EXPECT_EQ(eval("torch.add(torch.tensor([1, 2]), 0.5)").out, "tensor([1.5000, 2.5000])\n");
  EXPECT_EQ(eval("torch.tensor(0.4)").out, "tensor(0.4000)\n");
}

TEST(Cli, PythonNumbersAndOperators) {
  EXPECT_EQ(eval("0.4").out, "0.4\n");
  EXPECT_EQ(eval("1/3").out, "0.3333333333333333\n");
  EXPECT_EQ(eval("3").out, "3\n");
  EXPECT_EQ(eval("True").out, "True\n");
  EXPECT_EQ(eval("torch.tensor([1., 2.]) * 2 + 1").out, "tensor([3., 5.])\n");
  EXPECT_EQ(eval("2 - torch.tensor([1, 2])").out, "tensor([1, 0])\n");
  EXPECT_EQ(eval("-torch.tensor([1., 2.]) @ torch.tensor([1., 1.])").out, "tensor(-3.)\n");
  EXPECT_EQ(eval("torch.tensor([1, 2]) < 2").out, "tensor([ True, False])\n");
  EXPECT_EQ(eval("torch.ones(2, 3).sum(1)").out, "tensor([3., 3.])\n");
  EXPECT_EQ(eval("torch.arange(6).reshape(2, 3).t().contiguous().view(-1)").out, "tensor([0, 3, 1, 4, 2, 5])\n");
  // In-place twins (Note [In-place twins]): self's dtype is kept, or the call refused.
  EXPECT_EQ(eval("torch.tensor([0., 1.]).exp_()").out, "tensor([1.0000, 2.7183])\n");
  EXPECT_EQ(eval("torch.tensor([1., 2., 3.]).gt_(1.5)").out, "tensor([0., 1., 1.])\n");
  EXPECT_EQ(eval("torch.arange(6).reshape(2, 3).t_().clamp_(max=3)").out,
            "tensor([[0, 3],\n        [1, 3],\n        [2, 3]])\n");
  Result r = eval("torch.tensor([1, 2]).exp_()");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out,
            "RuntimeError: exp_: result type Float can't be cast to the desired output type Long\n"
            "  in torch.Tensor.exp_(self=Tensor(shape=[2], dtype=int64))\n");
}

TEST(Cli, EveryGoldenPrintCase) {
  std::ifstream f(wick_test::reference_dir() + "/golden/print.json");
  ASSERT_TRUE(f.good());
  nlohmann::json golden = nlohmann::json::parse(f);
  int checked = 0;
  for (const auto& c : golden["cases"]) {
    Result r = eval(c["expr"].get<std::string>());
    EXPECT_EQ(r.code, 0) << c["expr"];
    EXPECT_EQ(r.out, c["repr"].get<std::string>() + "\n") << c["expr"];
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(golden["cases"].size()));
  EXPECT_GE(checked, 26);
}

TEST(Cli, JsonOutput) {
  Result r = run("eval --json " + quote("torch.tensor([[1, 2], [3, 4]])"));
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "{\"dtype\":\"int64\",\"shape\":[2,2],\"data\":[[1,2],[3,4]]}\n");
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["dtype"], "int64");
  EXPECT_EQ(j["shape"], nlohmann::json::array({2, 2}));
  EXPECT_EQ(j["data"], nlohmann::json::parse("[[1, 2], [3, 4]]"));
  r = run("ops overridable --json --namespace torch.Tensor");
  auto list = nlohmann::json::parse(r.out);
  EXPECT_NE(std::find(list.begin(), list.end(), "torch.Tensor.__add__"), list.end());
  r = run("plugins list --json");
  auto plugins = nlohmann::json::parse(r.out);
  ASSERT_FALSE(plugins["plugins"].empty());
  r = run("keys --json");
  auto keys = nlohmann::json::parse(r.out);
  EXPECT_EQ(keys[0]["name"], "CompositeImplicit");
  r = run("ops show --json torch.add");
  auto show = nlohmann::json::parse(r.out);
  EXPECT_EQ(show["signature"], "(input, other, *, alpha=1, out=None)");
  EXPECT_EQ(show["overloads"][0]["dispatch"][0]["key"], "Autograd");
  EXPECT_EQ(show["overloads"][0]["dispatch"].back()["provider"], "cpu");
}

TEST(Cli, Listings) {
  Result r = run("ops overridable --namespace torch.Tensor");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("torch.Tensor.__add__\n"), std::string::npos);
  EXPECT_NE(r.out.find("torch.Tensor.add\n"), std::string::npos);
  EXPECT_EQ(r.out.find("torch.zeros"), std::string::npos);
  r = run("ops ignored");
  EXPECT_NE(r.out.find("torch.zeros\n"), std::string::npos);
  EXPECT_EQ(run("ops signature torch.add").out, "(input, other, *, alpha=1, out=None)\n");
  r = run("plugins list");
  EXPECT_NE(r.out.find("cpu 0.1.0 (backend) "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("libwick_cpu.so"), std::string::npos);
  // What each plugin registered.
  EXPECT_NE(r.out.find("  operators (2): extending_autograd.linear, extending_autograd.mul_constant\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  autograd formulas (1): extending_autograd.mul_constant\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  types (7): ScalarTensor, ScalarTensorFallback, MetadataTensor, LoggingTensor, SubTensor, "
                       "SubTensor2, OtherSubTensor\n"),
            std::string::npos)
      << r.out;
  auto listed = nlohmann::json::parse(run("plugins list --json").out);
  bool cpu_kernels = false;
  for (const auto& p : listed["plugins"])
    if (p["name"] == "cpu") cpu_kernels = p["registered"]["kernels"]["CPU"].size() > 10;
  EXPECT_TRUE(cpu_kernels) << listed.dump();
  r = run("ops show torch.add");
  EXPECT_NE(r.out.find("CPU"), std::string::npos);
  EXPECT_NE(r.out.find("cpu (elementwise.ops:"), std::string::npos) << r.out;
  r = run("keys");
  EXPECT_NE(r.out.find("Autograd"), std::string::npos);
}

// The note's __torch_function__ transcripts, end to end (tests/dispatch/extending_torch_test.cpp has them all).
TEST(Cli, NoteTranscripts) {
  EXPECT_EQ(eval("torch.mean(ScalarTensor(5, 2))").out, "0.4\n");
  EXPECT_EQ(eval("torch.add(ScalarTensor(2, 2), ScalarTensor(2, 2))").out, "ScalarTensor(N=2, value=4)\n");
  Result r = eval("torch.mul(ScalarTensor(2, 2), 3)");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out,
            "TypeError: no implementation found for 'torch.mul' on types that implement __torch_function__: "
            "[ScalarTensor]\n  in torch.mul(input=ScalarTensor(N=2, value=2), other=3)\n");
  EXPECT_EQ(eval("torch.add(torch.tensor([[1, 2], [1, 2]]), MetadataTensor([[1, 2], [3, 4]], "
                 "{\"owner\": \"Ministry of Silly Walks\"}))")
                .out,
            "Metadata:\n{'owner': 'Ministry of Silly Walks'}\n\ndata:\ntensor([[2, 4],\n        [4, 6]])\n");
  EXPECT_EQ(eval("type(torch.add(SubTensor2([0]), SubTensor([1])))").out, "<class 'SubTensor2'>\n");
  r = eval("torch.add(SubTensor([0]), OtherSubTensor([1]))");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out,
            "TypeError: no implementation found for 'torch.add' on types that implement __torch_function__: "
            "[SubTensor, OtherSubTensor]\n"
            "  in torch.add(input=SubTensor(shape=[1], dtype=float32), other=OtherSubTensor(shape=[1], dtype=float32))\n");
  EXPECT_EQ(run("eval --json " + quote("type(SubTensor([1])), {'a': [1, 2]}")).out, "[\"<class 'SubTensor'>\",{\"a\":[1,2]}]\n");
  r = run("demo");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find(">>> type(torch.add(SubTensor2([0]), SubTensor([1]))).__name__\n'SubTensor2'\n"), std::string::npos) << r.out;
}

TEST(Cli, LoggingTensorLogsThroughSpdlog) {
  Result r = run("eval " + quote("torch.add(LoggingTensor([1., 2.]), LoggingTensor([3., 4.]), alpha=2)"), wick_test::cli_path(),
                 true, "info");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("[info] func: add, args: (LoggingTensor([1., 2.]), LoggingTensor([3., 4.])), "
                       "kwargs: {'alpha': 2}\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("LoggingTensor([ 7., 10.])\n"), std::string::npos) << r.out;
  r = run("eval " + quote("LoggingTensor([1.]).neg()"), wick_test::cli_path(), true, "info");
  EXPECT_NE(r.out.find("[info] func: neg, args: (LoggingTensor([1.]),), kwargs: None\n"), std::string::npos) << r.out;
  // At the default level nothing is logged.
  EXPECT_EQ(run("eval " + quote("LoggingTensor([1.]).neg()"), wick_test::cli_path(), true, "warn").out,
            "LoggingTensor([-1.])\n");
}

TEST(Cli, OverridesApiListings) {
  Result r = run("ops overridable --namespace torch.nn.functional");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("torch.nn.functional.relu\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("torch.add"), std::string::npos) << r.out;
  auto functional = nlohmann::json::parse(run("ops overridable --json --namespace torch.nn.functional").out);
  EXPECT_NE(std::find(functional.begin(), functional.end(), "torch.nn.functional.relu"), functional.end());
  auto ignored = nlohmann::json::parse(run("ops ignored --json").out);
  EXPECT_NE(std::find(ignored.begin(), ignored.end(), "torch.zeros"), ignored.end());
  EXPECT_EQ(std::find(ignored.begin(), ignored.end(), "torch.add"), ignored.end());
  auto sig = nlohmann::json::parse(run("ops signature --json torch.add").out);
  EXPECT_EQ(sig["name"], "torch.add");
  EXPECT_EQ(sig["signature"], "(input, other, *, alpha=1, out=None)");
  // Plugin namespaces are listed too.
  EXPECT_NE(run("ops overridable").out.find("extending_autograd.linear\n"), std::string::npos);
  // wick's internal kernels (namespace aten) are not API: in no list, but their tables can be shown.
  EXPECT_EQ(run("ops overridable").out.find("aten."), std::string::npos);
  EXPECT_EQ(run("ops ignored").out.find("aten."), std::string::npos);
  auto conv = nlohmann::json::parse(run("ops show --json aten.convolution2d").out);
  EXPECT_EQ(conv["overridable"], false);
}

TEST(Cli, ErrorsAndExitCodes) {
  Result r = eval("torch.add(torch.tensor([1.]), 'x')");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "TypeError: add(): argument 'other' (position 2) must be Tensor, not str\n");
  r = eval("torch.add(torch.tensor([1., 2., 3.]), torch.tensor([1., 2.]))");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out.rfind("RuntimeError: ", 0), 0u) << r.out;
  r = eval("torch.add(1,,2)");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out.rfind("SyntaxError: ", 0), 0u) << r.out;
  r = eval("torch.nope(1)");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(run("ops signature torch.nope").code, 1);
  EXPECT_EQ(run("no-such-command").code, 2);
  EXPECT_EQ(run("").code, 2);
}

TEST(Cli, PluginsInspectAndCheck) {
  Result r = run("plugins inspect " + quote(wick_test::cpu_backend_path()));
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("name:            cpu"), std::string::npos) << r.out;
  r = run("plugins check " + quote(wick_test::plugin_dir()));
  EXPECT_EQ(r.code, 1);  // the directory holds deliberately broken plugins
  EXPECT_NE(r.out.find("ok      "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAILED  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("plugin ABI version 99, this host supports " WICK_STR(WICK_PLUGIN_ABI_VERSION)), std::string::npos) << r.out;
  r = run("plugins inspect /nonexistent.so");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out.rfind("PluginError: /nonexistent.so: no such plugin file", 0), 0u) << r.out;
}

// "With the CPU backend moved away": a copy of the install whose backend
// directory is empty. The host must fail cleanly, naming op, key and dirs.
TEST(Cli, MissingCpuBackendFailsCleanly) {
  fs::path root = fs::temp_directory_path() / ("wick_cli_nobackend_" + std::to_string(::getpid()));
  fs::create_directories(root / "bin");
  fs::create_directories(root / "lib" / "wick" / "backends");
  fs::path cli = fs::path(wick_test::cli_path());
  fs::path lib_dir = cli.parent_path().parent_path() / "lib";
  fs::copy_file(cli, root / "bin" / "wick");
  for (const auto& e : fs::directory_iterator(lib_dir))
    if (e.path().filename().string().rfind("libwick.so", 0) == 0)
      fs::copy(e.path(), root / "lib" / e.path().filename(), fs::copy_options::copy_symlinks);
  const std::string binary = (root / "bin" / "wick").string();
  Result list = run("plugins list", binary);
  EXPECT_EQ(list.code, 0);
  EXPECT_EQ(list.out.find("libwick_cpu.so"), std::string::npos) << list.out;
  Result r = run("eval " + quote("torch.neg(torch.tensor([1.]))"), binary);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out.rfind("NotImplementedError: torch.tensor: no kernel for dispatch key CPU", 0), 0u) << r.out;
  EXPECT_NE(r.out.find((root / "lib" / "wick" / "backends").string()), std::string::npos) << r.out;
  fs::remove_all(root);
}

}  // namespace
