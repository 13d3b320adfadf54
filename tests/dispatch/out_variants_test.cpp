// tests/dispatch/out_variants_test.cpp - out= of operators without a meta function, and out= by plain name.
/// \file
/// Note [Out variants of composite operators] (dispatch/composite/out_ops.cpp):
/// torch.matmul, torch.stack, torch.linalg.vector_norm, ... take out= as
/// PyTorch's do, with the out= rules of the structured operators.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tests/autograd/test_util.h"
#include "wick/catalog.h"
#include "wick/dispatcher.h"

namespace wick::testing {
namespace {

class OutVariants : public AutogradTest {};

Tensor matrix(std::int64_t rows, std::int64_t cols, double start = -1.5) {
  return linspace(start, start + 0.25 * static_cast<double>(rows * cols), rows * cols).reshape({rows, cols});
}

TEST_F(OutVariants, ACompositeWritesItsResultIntoOutAndReturnsIt) {
  const Tensor a = matrix(2, 3);
  const Tensor b = matrix(3, 4, 0.5);
  Tensor out = empty({0});
  const std::uint32_t version = out.version();
  Tensor& r = matmul_out(out, a, b);
  EXPECT_EQ(r.impl(), out.impl());
  EXPECT_EQ(out.sizes().vec(), (std::vector<std::int64_t>{2, 4}));
  expect_near(out, values(matmul(a, b)), 1e-6);
  EXPECT_GT(out.version(), version);
  // Through the boxed API, as torch.stack([a, a], 1, out=o) and torch.linalg.vector_norm(..., out=o).
  Tensor stacked = empty({0});
  (void)call("torch.stack", {Value::list({Value(a), Value(a)}), Value(1)}, {{"out", Value(stacked)}});
  EXPECT_EQ(stacked.sizes().vec(), (std::vector<std::int64_t>{2, 2, 3}));
  expect_near(stacked, values(stack({a, a}, 1)));
  Tensor norm = empty({0}, ScalarType::kFloat64);
  (void)call("torch.linalg.vector_norm", {Value(a)}, {{"out", Value(norm)}});
  expect_near(norm, values(call("torch.linalg.vector_norm", {Value(a)}).to_tensor()), 1e-6);
}

TEST_F(OutVariants, ACompositeFollowsTheOutRulesOfTheStructuredOperators) {
  const Tensor a = matrix(2, 3);
  const Tensor b = matrix(3, 2);
  // A wider dtype takes the result, converted; a narrower kind is refused.
  Tensor wide = zeros({2, 2}, ScalarType::kFloat64);
  matmul_out(wide, a, b);
  expect_near(wide, values(matmul(a, b)), 1e-6);
  Tensor ints = zeros({2, 2}, ScalarType::kInt64);
  WICK_EXPECT_THROW_MSG(matmul_out(ints, a, b), RuntimeError,
                        "torch.matmul: result type Float can't be cast to the desired output type Long");
  // An out of another shape is resized, unless it is also an input.
  Tensor same_storage = matrix(2, 3);
  WICK_EXPECT_THROW_MSG(matmul_out(same_storage, same_storage, matrix(3, 2)), RuntimeError,
                        "output with shape [2, 3] doesn't match the broadcast shape [2, 2]");
  Tensor square = matrix(3, 3);
  Tensor product = matmul(square, square);
  Tensor target = square.clone();
  matmul_out(target, target, square);  // same shape: written after the result is computed
  expect_near(target, values(product), 1e-6);
}

TEST_F(OutVariants, ACompositeRefusesOutWhenTheGraphIsRecorded) {
  Tensor a = matrix(2, 3);
  a.requires_grad_(true);
  Tensor out = empty({0});
  WICK_EXPECT_THROW_MSG(matmul_out(out, a, matrix(3, 2)), RuntimeError,
                        "matmul(): functions with out=... arguments don't support automatic differentiation, but "
                        "one of the arguments requires grad.");
  {
    autograd::AutoGradMode off(false);
    matmul_out(out, a, matrix(3, 2));
  }
  EXPECT_FALSE(out.requires_grad());
  // A structured out= says the same, naming the operator as PyTorch does.
  WICK_EXPECT_THROW_MSG(add_out(out, a, a), RuntimeError,
                        "add(): functions with out=... arguments don't support automatic differentiation");
}

TEST_F(OutVariants, OutByPlainNamePicksTheOutVariantTheArgumentsFit) {
  const Tensor x = matrix(2, 3);
  Tensor o = empty({0});
  (void)call("torch.all", {Value(x), Value(1)}, {{"out", Value(o)}});  // torch.all.dim_out
  EXPECT_EQ(o.sizes().vec(), (std::vector<std::int64_t>{2}));
  (void)call("torch.max", {Value(x), Value(matrix(1, 3))}, {{"out", Value(o)}});  // torch.max.other_out
  expect_near(o, values(maximum(x, matrix(1, 3))));
  (void)call("torch.std", {Value(x), Value(std::vector<std::int64_t>{1})}, {{"out", Value(o)}});
  expect_near(o, values(call("torch.std", {Value(x), Value(std::vector<std::int64_t>{1})}).to_tensor()), 1e-6);
  // out=None is no out; an operator without out= says so.
  EXPECT_EQ(call("torch.max", {Value(x), Value(matrix(1, 3))}, {{"out", Value()}}).to_tensor().sizes().vec(),
            (std::vector<std::int64_t>{2, 3}));
  WICK_EXPECT_THROW_MSG((void)call("torch.t", {Value(x)}, {{"out", Value(o)}}), TypeError,
                        "t() got an unexpected keyword argument 'out'");
}

// Every out= variant of the catalog is listed with its functional's signature
// (python_signatures merges them) and has a kernel on every backend key the
// functional has (a composite serves them all).
TEST_F(OutVariants, EveryOutVariantBelongsToAFunctionalWithTheSameArguments) {
  std::size_t checked = 0;
  for (const CatalogEntry& e : catalog_entries()) {
    for (const std::string& full : e.overloads) {
      const bool out = full.ends_with(".out") || full.ends_with("_out");
      if (!out || e.ns.rfind("torch", 0) != 0) continue;
      const std::string functional = full.substr(0, full.size() - 4);
      const FunctionSchema& mine = find_op(full).schema();
      const FunctionSchema& theirs = find_op(functional).schema();
      ASSERT_EQ(mine.arguments.size(), theirs.arguments.size() + 1) << full;
      EXPECT_EQ(mine.arguments.back().name, "out") << full;
      const auto rows = dispatch_table(full);
      const bool has_cpu =
          std::any_of(rows.begin(), rows.end(), [](const DispatchTableRow& r) { return r.key == DispatchKey::kCPU; });
      EXPECT_TRUE(has_cpu) << full << " has no CPU kernel";
      ++checked;
    }
  }
  EXPECT_GT(checked, 90u);
}

}  // namespace
}  // namespace wick::testing
