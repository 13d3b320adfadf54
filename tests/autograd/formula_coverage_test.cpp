// tests/autograd/formula_coverage_test.cpp - every differentiable catalog operator has a checked formula.
/// \file
/// Walks the `torch` catalog. Each operator with a tensor argument is called
/// through the boxed API on float64 inputs (an explicit sample in
/// formula_samples.cpp, or one generated from its schema). If its result is
/// floating point, its formula must pass gradcheck in backward and forward
/// mode and gradgradcheck; if it is boolean or integer, the operator is not
/// differentiable. An operator with no way to build a sample fails the
/// test: add a sample when you add an operator.
#include <algorithm>
#include <cstdio>

#include "tests/autograd/formula_samples.h"
#include "tests/autograd/test_util.h"
#include "wick/catalog.h"
#include "wick/cuda.h"

namespace wick::testing {
namespace {

class FormulaCoverage : public AutogradTest {};

TEST_F(FormulaCoverage, EveryDifferentiableOperatorPassesGradcheck) {
  std::size_t checked = 0;
  std::size_t non_differentiable = 0;
  std::vector<std::string> missing;
  for (const CatalogEntry& e : catalog_entries()) {
    if (e.ignored || e.ns.rfind("torch", 0) != 0) continue;
    // The collectives (tagged process_group) need a process group: tests/distributed runs them.
    const auto tags = operator_info(e.overloads.front()).tags;
    // Operators tagged device=cuda (Tensor.cuda, pin_memory) need a CUDA
    // device; where there is one they are checked here like any other.
    if (std::find(tags.begin(), tags.end(), "device=cuda") != tags.end() && !cuda::is_available()) continue;
    if (std::find(tags.begin(), tags.end(), "process_group") != tags.end()) continue;
    const FormulaCheck r = check_formula(e);
    for (const std::string& failure : r.failures) ADD_FAILURE() << failure;
    if (r.kind == FormulaCheck::Kind::kNoSample) missing.push_back(e.qualified_name);
    if (r.kind == FormulaCheck::Kind::kGradchecked) checked += r.samples;
    if (r.kind == FormulaCheck::Kind::kNonDifferentiable) non_differentiable += r.samples;
  }
  std::printf("gradchecked %zu samples; %zu samples have non-differentiable results\n", checked, non_differentiable);
  EXPECT_TRUE(missing.empty()) << "no gradcheck sample for " << ::testing::PrintToString(missing)
                               << ": add one to explicit_samples() in formula_samples.cpp";
  EXPECT_GT(checked, 60u);
  EXPECT_GT(non_differentiable, 10u);
}

}  // namespace
}  // namespace wick::testing
