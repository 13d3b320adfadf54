// tests/dispatch/extending_torch_test.cpp - the note's "Extending torch" transcripts, replayed on the
// bundled extending_torch plugin through C++ and through `wick eval`.
/// \file
/// The plugin is loaded by `wick::init()` from the build tree's plugin
/// directory; its types are reached by name (`find_type`, `new_instance`),
/// exactly as an application that only has the SDK headers would.
#include <gtest/gtest.h>

#include "tests/autograd/test_util.h"
#include "tools/wick/eval.h"
#include "wick/override.h"

namespace wick::testing {
namespace {

class ExtendingTorch : public AutogradTest {
 protected:
  void SetUp() override {
    AutogradTest::SetUp();
    ASSERT_NE(find_type("ScalarTensor"), nullptr) << "the bundled extending_torch plugin was not loaded by init()";
  }
};

/// `Name(args...)` as Python calls the class.
Value make(const char* type, std::vector<Value> args, const Kwargs& kwargs = {}) {
  return new_instance(find_type(type), args, kwargs);
}
Tensor make_tensor(const char* type, std::vector<Value> data) { return make(type, {Value::list(data)}).to_tensor(); }

/// What `wick eval EXPR` prints.
std::string eval(std::string_view expr) { return eval::format(eval::evaluate(expr)); }

std::string type_name(const Value& v) {
  const TypeInfo* t = type_of(v);
  return t != nullptr ? t->name() : v.type_name();
}

Tensor ones22() { return tensor(Value::list({Value::list({1, 1}), Value::list({1, 1})})); }

// --- ScalarTensor ------------------------------------------------------------------------

TEST_F(ExtendingTorch, ScalarTensorInCpp) {
  Value d = make("ScalarTensor", {5, 2});
  EXPECT_EQ(d.repr(), "ScalarTensor(N=5, value=2)");
  EXPECT_EQ(call("torch.mean", {d}).repr(), "0.4");
  Value s = make("ScalarTensor", {2, 2});
  EXPECT_EQ(call("torch.add", {s, s}).repr(), "ScalarTensor(N=2, value=4)");
  EXPECT_EQ(call("torch.add", {s, ones22()}).repr(), "tensor([[3., 1.],\n        [1., 3.]])");
  EXPECT_EQ(call("torch.add", {ones22(), s}).repr(), "tensor([[3., 1.],\n        [1., 3.]])");
  WICK_EXPECT_THROW_MSG(call("torch.add", {s, s}, {{"alpha", 2}}), TypeError,
                        "add() got an unexpected keyword argument 'alpha'");
  WICK_EXPECT_THROW_MSG(call("torch.mul", {s, 3}), TypeError,
                        "no implementation found for 'torch.mul' on types that implement __torch_function__: "
                        "[ScalarTensor]");
  WICK_EXPECT_THROW_MSG(call("torch.add", {s, make("ScalarTensor", {3, 1})}), ValueError, "Shape mismatch!");
  // Keywords bind as Python binds them; a float value stays a float.
  EXPECT_EQ(call("torch.add", {s}, {{"other", make("ScalarTensor", {2, 0.5})}}).repr(), "ScalarTensor(N=2, value=2.5)");
  EXPECT_EQ(call("torch.mean", {}, {{"input", make("ScalarTensor", {4, 2})}}).repr(), "0.5");
}

TEST_F(ExtendingTorch, ScalarTensorFallbackConverts) {
  Value s = make("ScalarTensorFallback", {2, 2});
  EXPECT_EQ(call("torch.mul", {s, s}).repr(), "tensor([[4., 0.],\n        [0., 4.]])");
  // What the table has still goes through the table.
  EXPECT_EQ(call("torch.add", {s, s}).repr(), "ScalarTensorFallback(N=2, value=4)");
  EXPECT_EQ(call("torch.mean", {make("ScalarTensorFallback", {5, 2})}).repr(), "0.4");
  // The typed-looking method and dunder entries are converted too.
  EXPECT_EQ(call("torch.Tensor.__mul__", {s, 3}).repr(), "tensor([[6., 0.],\n        [0., 6.]])");
  EXPECT_EQ(call("torch.neg", {s}).repr(), "tensor([[-2., -0.],\n        [-0., -2.]])");
}

TEST_F(ExtendingTorch, ScalarTensorThroughEval) {
  EXPECT_EQ(eval("ScalarTensor(5, 2)"), "ScalarTensor(N=5, value=2)");
  EXPECT_EQ(eval("torch.mean(ScalarTensor(5, 2))"), "0.4");
  EXPECT_EQ(eval("torch.add(ScalarTensor(2, 2), ScalarTensor(2, 2))"), "ScalarTensor(N=2, value=4)");
  EXPECT_EQ(eval("torch.add(ScalarTensor(2, 2), torch.tensor([[1, 1], [1, 1]]))"),
            "tensor([[3., 1.],\n        [1., 3.]])");
  WICK_EXPECT_THROW_MSG(eval("torch.add(ScalarTensor(2, 2), ScalarTensor(2, 2), alpha=2)"), TypeError,
                        "add() got an unexpected keyword argument 'alpha'");
  WICK_EXPECT_THROW_MSG(eval("torch.mul(ScalarTensor(2, 2), 3)"), TypeError,
                        "no implementation found for 'torch.mul' on types that implement __torch_function__: "
                        "[ScalarTensor]");
  EXPECT_EQ(eval("torch.mul(ScalarTensorFallback(2, 2), ScalarTensorFallback(2, 2))"),
            "tensor([[4., 0.],\n        [0., 4.]])");
  EXPECT_EQ(eval("ScalarTensorFallback(2, 2) * 2"), "tensor([[4., 0.],\n        [0., 4.]])");
  EXPECT_EQ(eval("type(ScalarTensor(2, 2))"), "<class 'ScalarTensor'>");
}

TEST_F(ExtendingTorch, ConstructorErrorsNameTheArgument) {
  WICK_EXPECT_THROW_MSG(make("ScalarTensor", {2}), TypeError,
                        "ScalarTensor() missing 1 required positional argument: 'value'");
  WICK_EXPECT_THROW_MSG(make("ScalarTensor", {2.0, 1}), TypeError,
                        "ScalarTensor(): argument 'N' must be int, not float");
  WICK_EXPECT_THROW_MSG(make("ScalarTensor", {-1, 1}), ValueError, "ScalarTensor(): argument 'N' must be non-negative");
  WICK_EXPECT_THROW_MSG(make("ScalarTensor", {2, "x"}), TypeError,
                        "ScalarTensor(): argument 'value' must be a number, not str");
  WICK_EXPECT_THROW_MSG(make("ScalarTensor", {1, 2, 3}), TypeError,
                        "ScalarTensor() takes 2 positional arguments but 3 were given");
  WICK_EXPECT_THROW_MSG(make("MetadataTensor", {Value::list({1})}, {{"metadata", 3}}), TypeError,
                        "MetadataTensor(): argument 'metadata' must be a dict or None, not int");
  WICK_EXPECT_THROW_MSG(make("SubTensor", {3.5}), TypeError,
                        "SubTensor(): argument 'data' must be a sequence (got float)");
  WICK_EXPECT_THROW_MSG(make("SubTensor", {Value::list({1})}, {{"dtype", ScalarType::kFloat64}}), TypeError,
                        "SubTensor() got an unexpected keyword argument 'dtype'");
  WICK_EXPECT_THROW_MSG(eval("SubTensor(2, -1)"), RuntimeError, "SubTensor(): negative dimension -1 (argument 2)");
  // A type's to_tensor given something else.
  for (const char* name : {"ScalarTensor", "MetadataTensor"}) {
    const TypeInfo& t = *find_type(name);
    WICK_EXPECT_THROW_MSG(t.to_tensor()(t, Value(1)), TypeError,
                          std::string(name) + ".to_tensor(): expected a " + name + ", not int");
  }
}

// --- MetadataTensor ------------------------------------------------------------------------

TEST_F(ExtendingTorch, MetadataTensorKeepsItsMetadata) {
  Value metadata = Value::dict({{"owner", "Ministry of Silly Walks"}});
  Value m = make("MetadataTensor", {Value::list({Value::list({1, 2}), Value::list({3, 4})})}, {{"metadata", metadata}});
  Tensor t = tensor(Value::list({Value::list({1, 2}), Value::list({1, 2})}));
  const std::string added = call("torch.add", {t, m}).repr();
  EXPECT_EQ(added,
            "Metadata:\n{'owner': 'Ministry of Silly Walks'}\n\ndata:\n"
            "tensor([[2, 4],\n        [4, 6]])");
  EXPECT_EQ(call("torch.mul", {t, m}).repr(),
            "Metadata:\n{'owner': 'Ministry of Silly Walks'}\n\ndata:\n"
            "tensor([[1, 4],\n        [3, 8]])");
  // Through any operator, and on and on: the result is a MetadataTensor again.
  Value r = call("torch.neg", {call("torch.Tensor.sum", {m}, {{"dim", 0}})});
  EXPECT_EQ(type_name(r), "MetadataTensor");
  EXPECT_EQ(r.repr(), "Metadata:\n{'owner': 'Ministry of Silly Walks'}\n\ndata:\ntensor([-4, -6])");
  // The first MetadataTensor's metadata wins.
  Value other = make("MetadataTensor", {Value::list({1, 1})}, {{"metadata", Value::dict({{"owner", "me"}})}});
  EXPECT_NE(call("torch.add", {other, m}).repr().find("{'owner': 'me'}"), std::string::npos);
}

TEST_F(ExtendingTorch, MetadataTensorThroughEval) {
  const std::string m = R"(MetadataTensor([[1, 2], [3, 4]], {"owner": "Ministry of Silly Walks"}))";
  EXPECT_EQ(eval("torch.add(torch.tensor([[1, 2], [1, 2]]), " + m + ")"),
            "Metadata:\n{'owner': 'Ministry of Silly Walks'}\n\ndata:\ntensor([[2, 4],\n        [4, 6]])");
  EXPECT_EQ(eval("torch.mul(torch.tensor([[1, 2], [1, 2]]), " + m + ")"),
            "Metadata:\n{'owner': 'Ministry of Silly Walks'}\n\ndata:\ntensor([[1, 4],\n        [3, 8]])");
  EXPECT_EQ(eval("MetadataTensor([1., 2.], metadata={'a': 1, 'b': [2, 3]}) * 2"),
            "Metadata:\n{'a': 1, 'b': [2, 3]}\n\ndata:\ntensor([2., 4.])");
  EXPECT_EQ(eval("MetadataTensor([1, 2], dtype=torch.float64)"),
            "Metadata:\nNone\n\ndata:\ntensor([1., 2.], dtype=torch.float64)");
}

// --- tensor subclasses ----------------------------------------------------------------------------

TEST_F(ExtendingTorch, SubclassesInCpp) {
  Tensor a = make_tensor("SubTensor", {0});
  EXPECT_EQ(a.repr(), "SubTensor([0.])");
  EXPECT_EQ(type_name(Value(add(a, make_tensor("SubTensor", {1})))), "SubTensor");
  EXPECT_EQ(type_name(Value(add(a, tensor(Value::list({1}))))), "SubTensor");
  EXPECT_EQ(type_name(Value(add(make_tensor("SubTensor2", {0}), a))), "SubTensor2");
  EXPECT_EQ(type_name(Value(add(make_tensor("SubTensor2", {0}), tensor(Value::list({1}))))), "SubTensor2");
  WICK_EXPECT_THROW_MSG(add(a, make_tensor("OtherSubTensor", {1})), TypeError,
                        "no implementation found for 'torch.add' on types that implement __torch_function__: "
                        "[SubTensor, OtherSubTensor]");
  // Methods and dunders of the typed API too, with the values of plain tensors.
  Tensor b = make_tensor("SubTensor2", {1, 2});
  Tensor c = b * b + 1;
  EXPECT_EQ(c.repr(), "SubTensor2([2., 5.])");
  EXPECT_EQ(make_tensor("SubTensor", {Value::list({1, 2}), Value::list({3, 4})}).repr(),
            "SubTensor([[1., 2.],\n           [3., 4.]])");
}

TEST_F(ExtendingTorch, SubclassesThroughEval) {
  EXPECT_EQ(eval("type(torch.add(SubTensor([0]), SubTensor([1])))"), "<class 'SubTensor'>");
  EXPECT_EQ(eval("type(torch.add(SubTensor([0]), SubTensor([1]))).__name__"), "'SubTensor'");
  EXPECT_EQ(eval("type(torch.add(SubTensor([0]), torch.tensor([1])))"), "<class 'SubTensor'>");
  EXPECT_EQ(eval("type(torch.add(SubTensor2([0]), SubTensor([1])))"), "<class 'SubTensor2'>");
  EXPECT_EQ(eval("type(torch.add(SubTensor2([0]), torch.tensor([1])))"), "<class 'SubTensor2'>");
  WICK_EXPECT_THROW_MSG(eval("torch.add(SubTensor([0]), OtherSubTensor([1]))"), TypeError,
                        "no implementation found for 'torch.add' on types that implement __torch_function__: "
                        "[SubTensor, OtherSubTensor]");
  EXPECT_EQ(eval("torch.add(SubTensor([2]), SubTensor([3]))"), "SubTensor([5.])");
  Value sized = eval::evaluate("SubTensor(2, 3)");  // torch.Tensor(2, 3): uninitialised, of that size
  EXPECT_EQ(type_name(sized), "SubTensor");
  EXPECT_EQ(sized.to_tensor().sizes().vec(), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(sized.to_tensor().dtype(), ScalarType::kFloat32);
  EXPECT_EQ(eval("type(SubTensor([1]).add(1)) == SubTensor"), "True");
  EXPECT_EQ(eval("type(torch.ones(1)) == SubTensor"), "False");
  EXPECT_EQ(eval("[type(SubTensor2([1]) + 1)] == [SubTensor2]"), "True");
}

TEST_F(ExtendingTorch, LoggingTensorDefersToSuper) {
  Tensor x = make_tensor("LoggingTensor", {1, 2});
  Tensor y = x + make_tensor("LoggingTensor", {3, 4});
  EXPECT_EQ(y.repr(), "LoggingTensor([4., 6.])");
  // Many operators, composites and autograd included: no recursion, right values.
  x.requires_grad_();
  Tensor z = matmul(x.reshape({1, 2}), x.reshape({2, 1})).sum();
  EXPECT_EQ(type_name(Value(z)), "LoggingTensor");
  z.backward();
  expect_near(x.grad(), {2, 4});
  EXPECT_EQ(eval("LoggingTensor([1., 2.]) * 2"), "LoggingTensor([2., 4.])");
}

TEST_F(ExtendingTorch, TypesComeAndGoWithThePlugin) {
  const auto types = registered_types();
  for (const char* name : {"ScalarTensor", "ScalarTensorFallback", "MetadataTensor", "LoggingTensor", "SubTensor",
                           "SubTensor2", "OtherSubTensor"}) {
    const TypeInfo* t = find_type(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(t->owner(), "extending_torch") << name;
    EXPECT_NE(std::find(types.begin(), types.end(), name), types.end()) << name;
  }
  EXPECT_EQ(find_type("SubTensor2")->parent(), find_type("SubTensor"));
  EXPECT_TRUE(find_type("SubTensor2")->is_subclass_of(*find_type("SubTensor")));
  EXPECT_FALSE(find_type("ScalarTensor")->is_tensor_subclass());
}

}  // namespace
}  // namespace wick::testing
