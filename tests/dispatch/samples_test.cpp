// tests/dispatch/samples_test.cpp - the sample calls of operator definitions, the lookup variants borrow them by, and
// the opcheck rules that depend on them.
/// \file
/// Note [Sample syntax] and Note [Sample lookup] in wick/opcheck.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "wick/catalog.h"
#include "wick/cuda.h"
#include "wick/library.h"
#include "wick/loader.h"
#include "wick/opcheck.h"
#include "wick/ops.h"

namespace wick {
namespace {

class Samples : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

// The status and message of one check of `op`.
CheckResult check_of(const std::string& op, const std::string& check) {
  for (const CheckResult& r : opcheck(op))
    if (r.op == op && r.check == check) return r;
  ADD_FAILURE() << "no " << check << " check for " << op;
  return {};
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST_F(Samples, ZeroDimIndexTensorsNestedListsAndBools) {
  const Sample s = parse_sample("T[4], L(2), B(True), L[2], [[1, 2], [3.5, 4]], [True, 0.5]");
  ASSERT_EQ(s.args.size(), 6u);
  const Tensor l0 = std::get<Value>(s.args[1]).to_tensor();
  EXPECT_EQ(l0.dim(), 0);
  EXPECT_EQ(l0.dtype(), ScalarType::kInt64);
  EXPECT_EQ(l0.item<std::int64_t>(), 2);
  EXPECT_EQ(std::get<Value>(s.args[2]).to_tensor().dtype(), ScalarType::kBool);
  EXPECT_EQ(std::get<Value>(s.args[3]).to_tensor().dim(), 1);  // L[2] is the list [2]
  EXPECT_TRUE(std::get<Value>(s.args[4]).is_list());
  EXPECT_TRUE(std::get<Value>(s.args[5]).is_list());
  EXPECT_THROW((void)parse_sample("T[2], L(2"), ValueError);
}

TEST_F(Samples, VariantsBorrowAlongTheLookupChain) {
  EXPECT_EQ(sample_lookup_chain("torch.Tensor.__ipow__"),
            (std::vector<std::string>{"torch.Tensor.__ipow__", "torch.Tensor.pow_", "torch.Tensor.pow", "torch.pow"}));
  EXPECT_EQ(sample_lookup_chain("torch.add.out"), (std::vector<std::string>{"torch.add.out", "torch.add"}));
  // A separately defined in-place method: its method twin, then the function.
  EXPECT_EQ(sample_lookup_chain("torch.Tensor.add_"),
            (std::vector<std::string>{"torch.Tensor.add_", "torch.Tensor.add", "torch.add"}));
  EXPECT_EQ(sample_lookup_chain("torch.Tensor.max.dim"),
            (std::vector<std::string>{"torch.Tensor.max.dim", "torch.max.dim"}));
  // Definitions with samples of their own stop there.
  EXPECT_EQ(samples_for("torch.Tensor.copy_").front().text, "T[2, 3], T[3]");
  EXPECT_EQ(samples_for("torch.Tensor.__pow__").size(), samples_for("torch.pow").size());
}

TEST_F(Samples, InPlaceVariantsBorrowTagsAndDropSamplesThatBroadcastSelf) {
  EXPECT_TRUE(has(tags_for("torch.Tensor.acos_"), "domain=unit"));
  EXPECT_TRUE(has(tags_for("torch.Tensor.__ipow__"), "domain=positive"));
  // addmm's samples with a broadcast self (shape (4) or (2, 1)) cannot run
  // in place; the ones whose self is the product's shape (2, 4) can.
  const std::vector<Sample> own = samples_for("torch.addmm");
  const std::vector<Sample> borrowed = samples_for("torch.Tensor.addmm_");
  ASSERT_GT(own.size(), borrowed.size());
  ASSERT_FALSE(borrowed.empty());
  for (const Sample& s : borrowed)
    EXPECT_EQ(std::get<SampleTensor>(s.args[0]).shape, (std::vector<std::int64_t>{2, 4}));
  // The in-place views keep their samples: a view has self's elements.
  EXPECT_EQ(samples_for("torch.Tensor.unsqueeze_").size(), samples_for("torch.unsqueeze").size());
}

// The built-in catalog (plugins are `wick opcheck --all`'s, tests/cli).
TEST_F(Samples, EveryBuiltInOperatorHasASample) {
  for (const CatalogEntry& e : catalog_entries()) {
    if (!e.qualified_name.starts_with("torch.") && !e.qualified_name.starts_with("aten.")) continue;
    for (const std::string& op : e.overloads) EXPECT_FALSE(samples_for(op).empty()) << op;
  }
}

TEST_F(Samples, ChecksThatCannotApplySayWhy) {
  const CheckResult meta = check_of("torch.Tensor.cpu", "meta");
  EXPECT_EQ(meta.status, CheckStatus::kSkipped);
  EXPECT_NE(meta.message.find("device_copy"), std::string::npos) << meta.message;
  if (!cuda::is_available()) {
    const CheckResult r = check_of("torch.Tensor.cuda", "aliasing");
    EXPECT_EQ(r.status, CheckStatus::kSkipped);
    EXPECT_EQ(r.message, "needs a cuda device, and none is available");
  }
  const CheckResult zeros = check_of("torch.zeros_like", "autograd");
  EXPECT_EQ(zeros.status, CheckStatus::kPassed) << zeros.message;
  EXPECT_EQ(check_of("torch.zeros", "autograd").message, "no input tensor to differentiate");
}

// Kernels for the operators of the aliasing tests below.
Tensor copy_of(const Tensor& self) { return self.clone(); }
Tensor self_itself(const Tensor& self) { return self; }
Tensor leaves_stats(const Tensor& self, const std::optional<Tensor>& /*stats*/) { return self.clone(); }

TEST_F(Samples, AliasingRules) {
  Library defs("testsamples");
  DefOptions plain;
  plain.samples = "T[2, 3]";
  DefOptions may_alias = plain;
  may_alias.tags = "may_alias";
  DefOptions with_stats;
  with_stats.samples = "T[2, 3], R[3]";
  defs.def("view_copy(Tensor(a) self) -> Tensor(a)", plain)
      .def("maybe_view(Tensor(a) self) -> Tensor(a)", may_alias)
      .def("returns_self(Tensor self) -> Tensor", plain)
      .def("returns_self_maybe(Tensor self) -> Tensor", may_alias)
      .def("stats(Tensor self, Tensor(a!)? stats) -> Tensor", with_stats);
  Library cpu("testsamples", DispatchKey::kCPU);
  cpu.impl("view_copy", &copy_of)
      .impl("maybe_view", &copy_of)
      .impl("returns_self", &self_itself)
      .impl("returns_self_maybe", &self_itself)
      .impl("stats", &leaves_stats);
  // A result marked as a view must share self's storage, unless may_alias.
  EXPECT_EQ(check_of("testsamples.view_copy", "aliasing").status, CheckStatus::kFailed);
  EXPECT_EQ(check_of("testsamples.maybe_view", "aliasing").status, CheckStatus::kPassed);
  // An unmarked result that is self: only with may_alias.
  const CheckResult self_result = check_of("testsamples.returns_self", "aliasing");
  EXPECT_EQ(self_result.status, CheckStatus::kFailed);
  EXPECT_NE(self_result.message.find("shares storage with argument 'self'"), std::string::npos);
  EXPECT_EQ(check_of("testsamples.returns_self_maybe", "aliasing").status, CheckStatus::kPassed);
  // An optional written argument may stay untouched.
  EXPECT_EQ(check_of("testsamples.stats", "aliasing").status, CheckStatus::kPassed);
}

}  // namespace
}  // namespace wick
