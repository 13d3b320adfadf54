// tests/autograd/inplace_test.cpp - the in-place twins (exp_, clamp_, eq_, transpose_, ...): values, errors, autograd.
/// \file
/// Note [In-place twins] in dispatch/inplace_ops.cpp: torch.Tensor.X_ writes
/// torch.X's result into self. Checked here: values and dtypes, the cast and
/// broadcast errors PyTorch raises, self returned with its version bumped,
/// the leaf and saved-tensor errors, gradients through a twin on a non-leaf
/// and on a view, forward mode, the view twins' geometry, typed calls and
/// `wick eval`. The catalog-wide gradcheck of every twin is
/// formula_coverage_test.cpp's and operator_catalog_test.cpp's.
#include <cmath>

#include "tests/autograd/test_util.h"
#include "tools/wick/eval.h"
#include "wick/dispatcher.h"
#include "wick/forward_ad.h"

namespace wick::testing {
namespace {

class InplaceTwins : public AutogradTest {};

Tensor ivec(std::vector<std::int64_t> v) { return tensor(Value(std::move(v))); }
std::vector<std::int64_t> shape(const Tensor& t) { return t.sizes().vec(); }

// Calls an in-place method by name and checks it returned self, one version later.
Tensor call_inplace(const std::string& op, std::vector<Value> args, const Kwargs& kwargs = {}) {
  const Tensor self = args.at(0).to_tensor();
  const std::uint32_t version = self.version();
  Tensor r = call("torch.Tensor." + op, std::move(args), kwargs).to_tensor();
  EXPECT_TRUE(r.is_same(self)) << op << " did not return self";
  EXPECT_GT(self.version(), version) << op << " did not bump the version";
  return r;
}

TEST_F(InplaceTwins, WriteTheOperatorsResultIntoSelf) {
  Tensor x = vec({0, 1, -2});
  call_inplace("exp_", {x});
  expect_near(x, {1, std::exp(1.0), std::exp(-2.0)});
  Tensor c = vec({-3, 0.5, 3}, ScalarType::kFloat32);
  call_inplace("clamp_", {c}, {{"min", Value(-1)}, {"max", Value(1)}});
  EXPECT_EQ(c.dtype(), ScalarType::kFloat32);
  expect_near(c, {-1, 0.5, 1});
  Tensor p = vec({1, 2, 3}).reshape({1, 3}).expand({2, 3}).contiguous();
  call_inplace("pow_", {p, vec({2, 1, 0})});  // other broadcast to self
  expect_near(p, {1, 2, 1, 1, 2, 1});
  call_inplace("__ipow__", {p, Value(2)});
  expect_near(p, {1, 4, 1, 1, 4, 1});
  Tensor m = ivec({7, -7});
  call_inplace("__imod__", {m, Value(3)});
  expect_near(m, {1, 2});
  EXPECT_EQ(m.dtype(), ScalarType::kInt64);
  Tensor t = vec({1, 2, 3, 4, 5, 6, 7, 8, 9}).reshape({3, 3});
  call_inplace("tril_", {t, Value(-1)});
  expect_near(t, {0, 0, 0, 4, 0, 0, 7, 8, 0});
  Tensor f = vec({1, 2, 3});
  call_inplace("masked_fill_", {f, Value(tensor(Value::list({true, false, true}))), Value(9)});
  expect_near(f, {9, 2, 9});
  call_inplace("zero_", {f});
  expect_near(f, {0, 0, 0});
  Tensor s = vec({1, 2, 3});
  call_inplace("cumsum_", {s, Value(0)});
  expect_near(s, {1, 3, 6});
}

TEST_F(InplaceTwins, ComparisonsAndLogicalOpsKeepSelfsDtype) {
  Tensor x = vec({1, 2, 3}, ScalarType::kFloat32);
  call_inplace("lt_", {x, Value(2.5)});
  EXPECT_EQ(x.dtype(), ScalarType::kFloat32);
  expect_near(x, {1, 1, 0});
  call_inplace("logical_not_", {x});
  expect_near(x, {0, 0, 1});
  Tensor i = ivec({1, 2, 3});
  call_inplace("eq_", {i, ivec({1, 0, 3})});
  EXPECT_EQ(i.dtype(), ScalarType::kInt64);
  expect_near(i, {1, 0, 1});
}

TEST_F(InplaceTwins, ResultMustBeCastableToSelfsDtype) {
  Tensor i = ivec({1, 2});
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.exp_", {i}), RuntimeError,
                        "exp_: result type Float can't be cast to the desired output type Long");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.pow_", {i, Value(0.5)}), RuntimeError,
                        "pow_: result type Float can't be cast to the desired output type Long");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.atan2_", {i, i}), RuntimeError, "atan2_: result type Float");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.div_", {i, i}), RuntimeError,
                        "result type Float can't be cast to the desired output type Long");
  expect_near(i, {1, 2});  // untouched
  Tensor b = tensor(Value::list({true, false}));
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.clamp_", {b, Value(0)}), RuntimeError, "desired output type Bool");
  Tensor d = vec({1, 2}, ScalarType::kFloat32);
  call_inplace("atan2_", {d, vec({1, 1}, ScalarType::kFloat64)});  // Double into Float is fine
  EXPECT_EQ(d.dtype(), ScalarType::kFloat32);
}

TEST_F(InplaceTwins, SelfsShapeCannotChange) {
  Tensor x = vec({1, 2, 3});
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.atan2_", {x, ones({2, 3}, ScalarType::kFloat64)}), RuntimeError,
                        "atan2_: output with shape [3] doesn't match the broadcast shape [2, 3]");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.lerp_", {x, vec({1, 2, 3}), ones({2, 1}, ScalarType::kFloat64)}),
                        RuntimeError, "lerp_: output with shape [3] doesn't match the broadcast shape [2, 3]");
  expect_near(x, {1, 2, 3});
}

TEST_F(InplaceTwins, LeavesThatRequireGradAreRefused) {
  Tensor x = vec({1, 2}).requires_grad_();
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.exp_", {x}), RuntimeError,
                        "exp_: a leaf Variable that requires grad is being used in an in-place operation.");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.t_", {x}), RuntimeError, "t_: a leaf Variable that requires grad");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.zero_", {x}), RuntimeError, "zero_: a leaf Variable that requires grad");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.sin_", {x.narrow(0, 0, 1)}), RuntimeError,
                        "sin_: a view of a leaf Variable that requires grad");
  EXPECT_EQ(x.version(), 0u);
  {
    NoGradGuard no_grad;  // as in PyTorch: allowed without grad mode
    call_inplace("neg_", {x});
  }
  expect_near(x, {-1, -2});
}

TEST_F(InplaceTwins, GradientsFlowThroughANonLeaf) {
  Tensor x = vec({0.5, 1, 2}).requires_grad_();
  Tensor y = x * 2;
  call_inplace("exp_", {y});
  EXPECT_TRUE(y.requires_grad());
  y.sum().backward();
  expect_near(x.grad(), {2 * std::exp(1.0), 2 * std::exp(2.0), 2 * std::exp(4.0)});
  // Only `other` requires grad: self joins the graph.
  Tensor w = vec({1, 2, 3}).requires_grad_();
  Tensor z = vec({2, 2, 2});
  call_inplace("pow_", {z, w});
  EXPECT_TRUE(z.requires_grad());
  z.sum().backward();
  expect_near(w.grad(), {2 * std::log(2.0), 4 * std::log(2.0), 8 * std::log(2.0)});
  // pow saves its input: the twin computes on a copy, so writing self is harmless.
  Tensor a = vec({1, 2, 3}).requires_grad_();
  Tensor b = a * 1;
  call_inplace("pow_", {b, Value(3)});
  call_inplace("sigmoid_", {b});
  b.sum().backward();
  for (std::size_t k = 0; k < 3; ++k) {
    const double v = values(a)[k];
    const double s = 1 / (1 + std::exp(-v * v * v));
    EXPECT_NEAR(values(a.grad())[k], s * (1 - s) * 3 * v * v, 1e-9);
  }
}

TEST_F(InplaceTwins, OnAViewRewritesTheBasesHistory) {
  Tensor x = vec({1, 2, 3, 4}).requires_grad_();
  Tensor y = x * 1;
  call_inplace("square_", {y.narrow(0, 1, 2)});
  expect_near(y, {1, 4, 9, 4});
  y.sum().backward();
  expect_near(x.grad(), {1, 4, 6, 1});
}

TEST_F(InplaceTwins, ATensorSavedForBackwardCannotBeWritten) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor a = x * 1;
  Tensor s = sin(a).sum();  // SinBackward0 saves a
  call_inplace("exp_", {a});
  WICK_EXPECT_THROW_MSG(s.backward(), RuntimeError, "modified by an inplace operation");
  Tensor b = x * 1;
  Tensor r = (b * b).sum();
  call_inplace("transpose_", {b, Value(0), Value(0)});  // metadata only, still a write
  WICK_EXPECT_THROW_MSG(r.backward(), RuntimeError, "which is saved by MulBackward0");
}

TEST_F(InplaceTwins, ForwardModeCarriesTheTangent) {
  namespace fwAD = autograd::forward_ad;
  fwAD::dual_level level;
  Tensor x = fwAD::make_dual(vec({0.5, 1}), vec({1, 2}));
  Tensor y = x * 1;
  call_inplace("tanh_", {y});
  const Tensor dy = fwAD::tangent_of(y);
  ASSERT_TRUE(dy.defined());
  expect_near(dy, {1 / std::pow(std::cosh(0.5), 2), 2 / std::pow(std::cosh(1.0), 2)});
  Tensor m = fwAD::make_dual(vec({1, 2, 3, 4, 5, 6}).reshape({2, 3}), vec({1, 2, 3, 4, 5, 6}).reshape({2, 3}));
  Tensor v = m * 1;
  call_inplace("t_", {v});
  EXPECT_EQ(shape(fwAD::tangent_of(v)), (std::vector<std::int64_t>{3, 2}));
  expect_near(fwAD::tangent_of(v), {1, 4, 2, 5, 3, 6});
}

TEST_F(InplaceTwins, ViewTwinsChangeSelfsGeometry) {
  Tensor x = arange(6).reshape({2, 3});
  call_inplace("transpose_", {x, Value(0), Value(1)});
  EXPECT_EQ(shape(x), (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(x.strides().vec(), (std::vector<std::int64_t>{1, 3}));
  EXPECT_FALSE(x.is_contiguous());
  expect_near(x, {0, 3, 1, 4, 2, 5});
  call_inplace("t_", {x});
  EXPECT_EQ(shape(x), (std::vector<std::int64_t>{2, 3}));
  EXPECT_TRUE(x.is_contiguous());
  call_inplace("unsqueeze_", {x, Value(1)});
  EXPECT_EQ(shape(x), (std::vector<std::int64_t>{2, 1, 3}));
  call_inplace("squeeze_", {x});
  EXPECT_EQ(shape(x), (std::vector<std::int64_t>{2, 3}));
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.t_", {zeros({2, 2, 2})}), RuntimeError, "t() expects a tensor with <= 2");
  // Autograd: the view's node on self's old history.
  Tensor a = vec({1, 2, 3, 4, 5, 6}).reshape({2, 3}).requires_grad_();
  Tensor b = a * 1;
  call_inplace("t_", {b});
  EXPECT_EQ(b.grad_fn()->name(), "TBackward0");
  (b * vec({1, 10, 100, 1000, 10000, 100000}).reshape({3, 2})).sum().backward();
  expect_near(a.grad(), {1, 100, 10000, 10, 1000, 100000});
  Tensor c = (a * 1).narrow(0, 0, 1);
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.squeeze_", {c}), RuntimeError,
                        "squeeze_: an in-place view operation on a view of a tensor that requires grad");
}

TEST_F(InplaceTwins, TypedCallsAndEvalReachTheTwins) {
  auto op = find_op("torch.Tensor.sqrt_").typed<Tensor(const Tensor&)>();
  Tensor x = vec({4, 9});
  EXPECT_TRUE(op.call(x).is_same(x));
  expect_near(x, {2, 3});
  Tensor y = vec({0, 1}, ScalarType::kFloat32);
  const eval::Scope scope{{"y", Value(y)}};
  EXPECT_EQ(eval::format(eval::evaluate("y.exp_()", scope)), "tensor([1.0000, 2.7183])");
  expect_near(y, {1, std::exp(1.0)}, 1e-6);
  EXPECT_EQ(eval::format(eval::evaluate("torch.tensor([[1, 2], [3, 4]]).t_().relu_()")),
            "tensor([[1, 3],\n        [2, 4]])");
  WICK_EXPECT_THROW_MSG(eval::evaluate("torch.tensor([1, 2]).exp_()"), RuntimeError,
                        "result type Float can't be cast to the desired output type Long");
}

}  // namespace
}  // namespace wick::testing
