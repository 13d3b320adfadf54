// tests/dispatch/subscript_test.cpp - x[key] and x[key] = value as the operators torch.Tensor.__getitem__ / __setitem__.
/// \file
/// The key is a boxed value (wick/subscript.h): ints, slices, None, Ellipsis,
/// tensors, lists and tuples of them, read as PyTorch 1.13 reads x[key]
/// (Note [Reading a subscript key]). A tensor-like overrides both; `wick
/// eval` subscripts tensors through them. Values and messages are PyTorch's.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/autograd/test_util.h"
#include "tools/wick/eval.h"
#include "wick/library.h"
#include "wick/override.h"
#include "wick/subscript.h"

namespace wick {
namespace {

class Subscript : public testing::AutogradTest {};

Value tuple(std::vector<Value> items) { return Value::list(std::move(items), /*tuple=*/true); }

Tensor getitem(const Tensor& x, const Value& key) {
  return call("torch.Tensor.__getitem__", {Value(x), key}).to_tensor();
}

std::string eval_text(std::string_view expr, const eval::Scope& scope = {}) {
  return eval::format(eval::evaluate(expr, scope));
}

TEST_F(Subscript, SliceAndEllipsisAreValuesWithPythonsRepr) {
  EXPECT_EQ(make_slice(1, std::nullopt, 2).repr(), "slice(1, None, 2)");
  EXPECT_EQ(make_slice(std::nullopt, 3).repr(), "slice(None, 3, None)");
  EXPECT_EQ(make_slice(1, 2).type_name(), "slice");
  EXPECT_EQ(ellipsis().repr(), "Ellipsis");
  EXPECT_EQ(ellipsis().type_name(), "ellipsis");
  EXPECT_TRUE(is_ellipsis(ellipsis()));
  EXPECT_FALSE(is_ellipsis(Value()));
  ASSERT_NE(as_slice(make_slice(-1, std::nullopt)), nullptr);
  EXPECT_EQ(as_slice(make_slice(-1, std::nullopt))->start(), -1);
  EXPECT_EQ(as_slice(Value(3)), nullptr);
  EXPECT_EQ(tuple({make_slice(1, 2), ellipsis(), Value()}).repr(), "(slice(1, 2, None), Ellipsis, None)");
  // In eval they are written as in Python.
  EXPECT_EQ(eval_text("slice(1, None, 2)"), "slice(1, None, 2)");
  EXPECT_EQ(eval_text("slice(4)"), "slice(None, 4, None)");
  EXPECT_EQ(eval_text("..."), "Ellipsis");
  EXPECT_EQ(eval_text("Ellipsis"), "Ellipsis");
  EXPECT_EQ(eval_text("[1, 2, 3, 4][slice(None, None, -2)]"), "[4, 2]");
  WICK_EXPECT_THROW_MSG((void)eval::evaluate("slice()"), TypeError, "slice expected at least 1 argument, got 0");
  WICK_EXPECT_THROW_MSG((void)eval::evaluate("slice(1.5, 2)"), TypeError,
                        "slice indices must be integers or None or have an __index__ method");
}

TEST_F(Subscript, KeysReadAsPyTorchReadsThem) {
  const Tensor x = arange(12, ScalarType::kFloat32).reshape({3, 4});
  // Basic entries give views.
  const Tensor row = getitem(x, Value(1));
  EXPECT_EQ(row.repr(), "tensor([4., 5., 6., 7.])");
  EXPECT_TRUE(row.storage().get() == x.storage().get());
  EXPECT_EQ(getitem(x, Value(-1)).repr(), "tensor([ 8.,  9., 10., 11.])");
  EXPECT_EQ(getitem(x, tuple({make_slice(1, std::nullopt, 2), Value(), ellipsis()})).repr(),
            "tensor([[[4., 5., 6., 7.]]])");
  EXPECT_EQ(getitem(x, tuple({ellipsis(), Value(1)})).repr(), "tensor([1., 5., 9.])");
  EXPECT_EQ(getitem(x, tuple({})).sizes().vec(), (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(getitem(x, tuple({Value(0)})).repr(), "tensor([0., 1., 2., 3.])");  // x[(0,)] is x[0]
  EXPECT_EQ(getitem(x, Value(full({}, 1, ScalarType::kInt64))).repr(), "tensor([4., 5., 6., 7.])");
  EXPECT_EQ(getitem(x, tuple({Value(true)})).sizes().vec(), (std::vector<std::int64_t>{1, 3, 4}));
  // A list of ints (or floats) is one index tensor; a list holding a list,
  // a slice or None is a tuple of entries.
  EXPECT_EQ(getitem(x, Value(std::vector<std::int64_t>{0, 2})).repr(),
            "tensor([[ 0.,  1.,  2.,  3.],\n        [ 8.,  9., 10., 11.]])");
  EXPECT_EQ(getitem(x, Value(std::vector<double>{1.0, 2.0})).sizes().vec(), (std::vector<std::int64_t>{2, 4}));
  EXPECT_EQ(getitem(x, Value::list({Value(std::vector<std::int64_t>{0, 1}), Value(std::vector<std::int64_t>{1, 0})}))
                .repr(),
            "tensor([1., 4.])");
  EXPECT_EQ(getitem(x, Value::list({Value(0), make_slice(1, 3)})).repr(), "tensor([1., 2.])");
  EXPECT_EQ(getitem(x, Value::list({Value(0), Value()})).repr(), "tensor([[0., 1., 2., 3.]])");
  EXPECT_EQ(getitem(x, Value::list({Value(true), Value(false), Value(true)})).sizes().vec(),
            (std::vector<std::int64_t>{2, 4}));
  EXPECT_EQ(getitem(x, Value::list({})).sizes().vec(), (std::vector<std::int64_t>{0, 4}));
  // Index tensors and masks give copies.
  const Tensor picked = getitem(x, tuple({make_slice(1, 2), Value(std::vector<std::int64_t>{0, 3})}));
  EXPECT_EQ(picked.repr(), "tensor([[4., 7.]])");
  EXPECT_FALSE(picked.storage().get() == x.storage().get());
  EXPECT_EQ(getitem(x, Value(gt(x, 8.0))).repr(), "tensor([ 9., 10., 11.])");
}

TEST_F(Subscript, BadKeysGetPyTorchsErrors) {
  const Tensor x = arange(12, ScalarType::kFloat32).reshape({3, 4});
  WICK_EXPECT_THROW_MSG(getitem(x, Value(1.5)), IndexError,
                        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                        "indices (got float)");
  WICK_EXPECT_THROW_MSG(getitem(x, Value::dict({{"a", Value(1)}})), IndexError, "(got dict)");
  WICK_EXPECT_THROW_MSG(getitem(x, Value("a")), TypeError, "new(): invalid data type 'str'");
  WICK_EXPECT_THROW_MSG(getitem(x, make_slice(std::nullopt, std::nullopt, -1)), ValueError,
                        "step must be greater than zero");
  WICK_EXPECT_THROW_MSG(getitem(x, make_slice(std::nullopt, std::nullopt, 0)), ValueError, "slice step cannot be zero");
  WICK_EXPECT_THROW_MSG(getitem(x, tuple({Value(0), Value(0), Value(0)})), IndexError,
                        "too many indices for tensor of dimension 2");
  WICK_EXPECT_THROW_MSG(getitem(x, Value(5)), IndexError, "index 5 is out of bounds for dimension 0 with size 3");
  WICK_EXPECT_THROW_MSG(getitem(x, tuple({ellipsis(), ellipsis(), Value(0)})), IndexError,
                        "an index can only have a single ellipsis ('...')");
  WICK_EXPECT_THROW_MSG(getitem(x, Value(full({1}, 1.0))), IndexError,
                        "tensors used as indices must be long, byte or bool tensors");
  // x[key] = value refuses what PyTorch refuses, and leaves x as it was.
  Tensor y = zeros({2, 3});
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.__setitem__", {Value(y), Value(0), Value::list({Value(1), Value(2)})}),
                        TypeError, "can't assign a list to a torch.FloatTensor");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.__setitem__", {Value(y), Value(0), Value()}), TypeError,
                        "can't assign a NoneType to a torch.FloatTensor");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.__setitem__", {Value(y), Value(0), Value(std::complex<double>(1, 2))}),
                        RuntimeError, "value cannot be converted to type float without overflow");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.__setitem__", {Value(y), Value(0), Value(ones({2}))}), RuntimeError,
                        "The expanded size of the tensor (3) must match the existing size (2)");
  EXPECT_EQ(y.repr(), "tensor([[0., 0., 0.],\n        [0., 0., 0.]])");
}

TEST_F(Subscript, SetitemWritesWhereGetitemReads) {
  Tensor x = zeros({3, 4});
  const auto version = x.version();
  EXPECT_TRUE(call("torch.Tensor.__setitem__", {Value(x), Value(0), Value(1.5)}).is_none());
  EXPECT_GT(x.version(), version);
  call("torch.Tensor.__setitem__", {Value(x), tuple({make_slice(std::nullopt, std::nullopt), Value(3)}), Value(2)});
  call("torch.Tensor.__setitem__", {Value(x), Value(std::vector<std::int64_t>{1, 2}),
                                     Value(arange(4, ScalarType::kFloat32).neg())});
  call("torch.Tensor.__setitem__", {Value(x), Value(gt(x, 1.6)), Value(full({}, 9.0))});
  EXPECT_EQ(x.repr(),
            "tensor([[ 1.5000,  1.5000,  1.5000,  9.0000],\n"
            "        [-0.0000, -1.0000, -2.0000, -3.0000],\n"
            "        [-0.0000, -1.0000, -2.0000, -3.0000]])");
  // An integer tensor truncates a float, as PyTorch's copy does.
  Tensor n = zeros({3}, ScalarType::kInt64);
  call("torch.Tensor.__setitem__", {Value(n), Value(0), Value(1.7)});
  EXPECT_EQ(n.repr(), "tensor([1, 0, 0])");
}

TEST_F(Subscript, GradientsFlowThroughReadsAndWrites) {
  const Tensor w = arange(6, ScalarType::kFloat64).reshape({2, 3}).requires_grad_();
  const Tensor picked = getitem(w, tuple({Value(std::vector<std::int64_t>{1, 1}), make_slice(1, std::nullopt)}));
  sum(picked).backward();
  EXPECT_EQ(w.grad().repr(), "tensor([[0., 0., 0.],\n        [0., 2., 2.]], dtype=torch.float64)");
  // Writing a value that requires grad into a copy records the write.
  const Tensor v = full({3}, 2.0, ScalarType::kFloat64).requires_grad_();
  Tensor target = zeros({2, 3}, ScalarType::kFloat64);
  call("torch.Tensor.__setitem__", {Value(target), Value(0), Value(v)});
  EXPECT_TRUE(target.requires_grad());
  EXPECT_FALSE(target.is_leaf());
  sum(mul(target, target)).backward();
  EXPECT_EQ(v.grad().repr(), "tensor([4., 4., 4.], dtype=torch.float64)");
  // The same through a slice and an index tensor, the written rows only.
  const Tensor u = full({2, 1}, 3.0, ScalarType::kFloat64).requires_grad_();
  Tensor out = zeros({4, 2}, ScalarType::kFloat64);
  call("torch.Tensor.__setitem__", {Value(out), tuple({make_slice(1, 3)}), Value(u)});
  call("torch.Tensor.__setitem__", {Value(out), Value(std::vector<std::int64_t>{3}), Value(u.select(0, 0))});
  EXPECT_EQ(out.detach().repr(), "tensor([[0., 0.],\n        [3., 3.],\n        [3., 3.],\n        [3., 3.]], dtype=torch.float64)");
  sum(out).backward();
  EXPECT_EQ(u.grad().repr(), "tensor([[4.],\n        [2.]], dtype=torch.float64)");
}

/// A tensor-like that answers x[key] itself, as a Python class with __torch_function__ answers Tensor.__getitem__.
class Indexed final : public TensorLike {
 public:
  explicit Indexed(const TypeInfo& type) : TensorLike(type) {}
  [[nodiscard]] std::string repr() const override { return "Indexed()"; }
};

const TypeInfo& indexed_type(std::vector<std::string>* keys) {
  static Library lib("subscript_test");
  static std::vector<std::string>* log = nullptr;
  log = keys;
  static const TypeInfo& t = lib.register_type({.name = "TIndexed", .handler = [](const TorchFunctionCall& c) -> Value {
    if (c.op_name() != "torch.Tensor.__getitem__") return Value(NotImplemented);
    if (log != nullptr) log->push_back(c.args[1].repr());
    return Value(42);
  }});
  return t;
}

TEST_F(Subscript, ATensorLikeOverridesGetitemAndEvalAsksIt) {
  std::vector<std::string> keys;
  const TypeInfo& type = indexed_type(&keys);
  const Value s(std::shared_ptr<Object>(std::make_shared<Indexed>(type)));
  const eval::Scope scope{{"s", s}, {"x", Value(arange(6, ScalarType::kFloat32).reshape({2, 3}))}};
  EXPECT_EQ(eval_text("s[1:, ..., None]", scope), "42");
  EXPECT_EQ(eval_text("s[0]", scope), "42");
  EXPECT_EQ(eval_text("s[[0, 1]]", scope), "42");
  EXPECT_EQ(keys, (std::vector<std::string>{"(slice(1, None, None), Ellipsis, None)", "0", "[0, 1]"}));
  // A plain tensor through eval: the same operator, PyTorch's results.
  EXPECT_EQ(eval_text("x[:, ::2]", scope), "tensor([[0., 2.],\n        [3., 5.]])");
  EXPECT_EQ(eval_text("x[..., -1]", scope), "tensor([2., 5.])");
  EXPECT_EQ(eval_text("x[[1, 0], [2, 2]]", scope), "tensor([5., 2.])");
  EXPECT_EQ(eval_text("x.__getitem__((slice(None, None, 2), 1))", scope), "tensor([1.])");
  EXPECT_EQ(eval_text("x.__setitem__(0, 7)", scope), "None");
  EXPECT_EQ(eval_text("x[0]", scope), "tensor([7., 7., 7.])");
  indexed_type(nullptr);
}

TEST_F(Subscript, SubclassesKeepTheirType) {
  static Library lib("subscript_subclass_test");
  static const TypeInfo& t = lib.register_type({.name = "TSubscriptSub", .parent = "Tensor"});
  const Tensor x = as_subclass(ones({2, 3}), &t);
  const Value r = call("torch.Tensor.__getitem__", {Value(x), Value(0)});
  ASSERT_NE(type_of(r), nullptr);
  EXPECT_EQ(type_of(r)->name(), "TSubscriptSub");
}

}  // namespace
}  // namespace wick
