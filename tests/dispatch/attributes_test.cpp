// tests/dispatch/attributes_test.cpp - the torch.Tensor properties and metadata methods as catalog operators.
/// \file
/// Note [Tensor metadata operators] (dispatch/ops/attributes.ops): x.shape,
/// x.dim(), len(x), float(x), x.detach() and the rest are operators a
/// tensor-like overrides one by one, and `wick eval` reads them through the
/// catalog. Expected values and messages are PyTorch 1.13's.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/autograd/test_util.h"
#include "tools/wick/eval.h"
#include "wick/autograd_values.h"
#include "wick/callable.h"
#include "wick/catalog.h"
#include "wick/layout.h"
#include "wick/library.h"
#include "wick/override.h"

namespace wick {
namespace {

class Attributes : public testing::AutogradTest {};

/// A tensor-like that answers the metadata operators itself (as a PyTorch
/// class with __torch_function__ answers Tensor.shape.__get__ and len()).
class Shaped final : public TensorLike {
 public:
  explicit Shaped(const TypeInfo& type) : TensorLike(type) {}
  [[nodiscard]] std::string repr() const override { return "Shaped()"; }
};

const TypeInfo& shaped_type(std::vector<std::string>* seen) {
  static Library lib("attributes_test");
  static std::vector<std::string>* log = nullptr;
  log = seen;
  static const TypeInfo& t = lib.register_type({.name = "TShaped", .handler = [](const TorchFunctionCall& c) -> Value {
                                                  const std::string op = c.op_name();
                                                  if (log != nullptr) log->push_back(op);
                                                  if (op == "torch.Tensor.shape" || op == "torch.Tensor.size")
                                                    return Value(std::vector<std::int64_t>{7, 5});
                                                  if (op == "torch.Tensor.__len__") return Value(7);
                                                  if (op == "torch.Tensor.__float__") return Value(0.25);
                                                  if (op == "torch.Tensor.__bool__") return Value(false);
                                                  if (op == "torch.Tensor.dtype") return Value(ScalarType::kFloat16);
                                                  return Value(NotImplemented);
                                                }});
  return t;
}

std::string eval_text(std::string_view expr, const eval::Scope& scope = {}) {
  return eval::format(eval::evaluate(expr, scope));
}

TEST_F(Attributes, PropertiesAreCatalogEntriesOfKindProperty) {
  std::size_t properties = 0;
  for (const CatalogEntry& e : catalog_entries()) {
    if (e.kind != "property") continue;
    ++properties;
    EXPECT_EQ(e.ns, "torch.Tensor") << e.qualified_name;
    EXPECT_TRUE(operator_info(e.qualified_name).property) << e.qualified_name;
  }
  EXPECT_GT(properties, 20u);
  for (const char* name : {"torch.Tensor.shape", "torch.Tensor.dtype", "torch.Tensor.T", "torch.Tensor.grad"}) {
    const auto overridable = overridable_functions("torch.Tensor");
    EXPECT_NE(std::find(overridable.begin(), overridable.end(), name), overridable.end()) << name;
    EXPECT_EQ(python_signature(name), "(self)");
  }
  // The testing override of a property takes the tensor and returns -1.
  const auto testing = get_testing_overrides();
  ASSERT_TRUE(testing.count("torch.Tensor.shape"));
  EXPECT_EQ(testing.at("torch.Tensor.shape").fn({Value(ones({2}))}, {}).to_int(), -1);
  // Methods stay methods.
  for (const CatalogEntry& e : catalog_entries()) {
    if (e.qualified_name == "torch.Tensor.dim" || e.qualified_name == "torch.Tensor.__len__") {
      EXPECT_EQ(e.kind, e.name == "dim" ? "method" : "dunder");
    }
  }
}

TEST_F(Attributes, BoxedCallsReadTheTensor) {
  const Tensor x = arange(6, ScalarType::kFloat32).reshape({2, 3});
  EXPECT_EQ(call("torch.Tensor.shape", {Value(x)}).to_int_list(), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(call("torch.Tensor.size", {Value(x), Value(-1)}).to_int(), 3);
  EXPECT_EQ(call("torch.Tensor.dim", {Value(x)}).to_int(), 2);
  EXPECT_EQ(call("torch.Tensor.ndimension", {Value(x)}).to_int(), 2);
  EXPECT_EQ(call("torch.numel", {Value(x)}).to_int(), 6);
  EXPECT_EQ(call("torch.Tensor.nelement", {Value(x)}).to_int(), 6);
  EXPECT_EQ(call("torch.Tensor.element_size", {Value(x.to(ScalarType::kFloat64))}).to_int(), 8);
  EXPECT_EQ(call("torch.Tensor.dtype", {Value(x)}).to_dtype(), ScalarType::kFloat32);
  EXPECT_EQ(call("torch.Tensor.get_device", {Value(x)}).to_int(), -1);
  EXPECT_TRUE(call("torch.Tensor.is_cpu", {Value(x)}).to_bool());
  EXPECT_FALSE(call("torch.Tensor.is_cuda", {Value(x)}).to_bool());
  EXPECT_FALSE(call("torch.Tensor.is_sparse", {Value(x)}).to_bool());
  EXPECT_EQ(call("torch.Tensor.names", {Value(x)}).repr(), "(None, None)");
  EXPECT_TRUE(call("torch.Tensor.is_set_to", {Value(x), Value(x.view({2, 3}))}).to_bool());
  EXPECT_FALSE(call("torch.Tensor.is_set_to", {Value(x), Value(x.t())}).to_bool());
  EXPECT_EQ(call("torch.Tensor.tolist", {Value(x)}).repr(), "[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]");
  EXPECT_EQ(call("torch.Tensor.T", {Value(x)}).to_tensor().sizes().vec(), (std::vector<std::int64_t>{3, 2}));
  EXPECT_TRUE(call("torch.Tensor.mT", {Value(x)}).to_tensor().storage().get() == x.storage().get());  // a view
  EXPECT_EQ(call("torch.Tensor.__len__", {Value(x)}).to_int(), 2);
  EXPECT_TRUE(call("torch.Tensor.__contains__", {Value(x), Value(4)}).to_bool());
  EXPECT_FALSE(call("torch.Tensor.__contains__", {Value(x), Value(4.5)}).to_bool());
  EXPECT_EQ(call("torch.Tensor.__reversed__", {Value(arange(3, ScalarType::kInt64))}).repr(), "tensor([2, 1, 0])");
  EXPECT_EQ(call("torch.Tensor.__int__", {Value(full({}, -2.7))}).to_int(), -2);
  EXPECT_EQ(call("torch.Tensor.__index__", {Value(full({1}, 3, ScalarType::kInt64))}).to_int(), 3);
  EXPECT_EQ(call("torch.Tensor.__complex__", {Value(full({}, 2.0))}).repr(), "(2+0j)");
  EXPECT_EQ(call("torch.Tensor.__rmatmul__", {Value(ones({3, 2})), Value(ones({4, 3}))}).to_tensor().sizes().vec(),
            (std::vector<std::int64_t>{4, 2}));
  // Meta tensors: the geometry is there, the values are not.
  const Tensor m = empty({4, 5}, ScalarType::kFloat32, Device(DeviceType::kMeta));
  EXPECT_EQ(call("torch.Tensor.shape", {Value(m)}).to_int_list(), (std::vector<std::int64_t>{4, 5}));
  EXPECT_TRUE(call("torch.Tensor.is_meta", {Value(m)}).to_bool());
  EXPECT_EQ(call("torch.Tensor.mT", {Value(m)}).to_tensor().sizes().vec(), (std::vector<std::int64_t>{5, 4}));
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.item", {Value(empty({1}, ScalarType::kFloat32, Device(DeviceType::kMeta)))}),
                        RuntimeError, "cannot be called on meta tensors");
}

TEST_F(Attributes, ErrorsArePyTorchs) {
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.__len__", {Value(full({}, 1.0))}), TypeError, "len() of a 0-d tensor");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.__index__", {Value(full({}, 2.5))}), TypeError,
                        "only integer tensors of a single element can be converted to an index");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.__float__", {Value(ones({2}))}), ValueError,
                        "only one element tensors can be converted to Python scalars");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.__int__", {Value(full({}, std::nan("")))}), ValueError,
                        "cannot convert float NaN to integer");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.__int__", {Value(full({}, INFINITY))}), OverflowError,
                        "cannot convert float infinity to integer");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.__int__", {Value(full({}, 1e30))}), OverflowError,
                        "does not fit in 64 bits");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.__float__", {Value(complex(full({}, 1.0), full({}, 2.0)))}), RuntimeError,
                        "value cannot be converted to type double without overflow");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.__bool__", {Value(ones({2}))}), RuntimeError,
                        "Boolean value of Tensor with more than one value is ambiguous");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.__contains__", {Value(ones({2})), Value("a")}), RuntimeError,
                        "Tensor.__contains__ only supports Tensor or scalar, but you passed in a <class 'str'>.");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.item", {Value(ones({2}))}), ValueError,
                        "only one element tensors can be converted to Python scalars");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.mT", {Value(ones({3}))}), RuntimeError,
                        "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.H", {Value(ones({2, 2, 2}))}), RuntimeError,
                        "Got 3-D tensor. For batches of matrices, consider using tensor.mH");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.size", {Value(ones({2, 3})), Value(5)}), IndexError,
                        "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.retain_grad", {Value(ones({2}))}), RuntimeError,
                        "can't retain_grad on Tensor that has requires_grad=False");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.requires_grad_", {Value(ones({2}, ScalarType::kInt64))}), RuntimeError,
                        "only Tensors of floating point dtype can require gradients");
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.backward", {Value(ones({2}))}), RuntimeError,
                        "element 0 of tensors does not require grad and does not have a grad_fn");
}

TEST_F(Attributes, AutogradThroughBoxedCalls) {
  const Tensor x = full({2}, 3.0);
  EXPECT_TRUE(call("torch.Tensor.requires_grad_", {Value(x)}).to_tensor().is_same(x));
  EXPECT_TRUE(call("torch.Tensor.requires_grad", {Value(x)}).to_bool());
  EXPECT_TRUE(call("torch.Tensor.is_leaf", {Value(x)}).to_bool());
  EXPECT_TRUE(call("torch.Tensor.grad", {Value(x)}).is_none());
  const Tensor y = mul(x, x);
  call("torch.Tensor.retain_grad", {Value(y)});
  EXPECT_TRUE(call("torch.Tensor.retains_grad", {Value(y)}).to_bool());
  EXPECT_FALSE(call("torch.Tensor.is_leaf", {Value(y)}).to_bool());
  const Tensor loss = sum(y);
  EXPECT_TRUE(call("torch.Tensor.backward", {Value(loss)}).is_none());
  EXPECT_EQ(call("torch.Tensor.grad", {Value(x)}).repr(), "tensor([6., 6.])");
  EXPECT_EQ(call("torch.Tensor.grad", {Value(y)}).repr(), "tensor([1., 1.])");
  // An explicit gradient, and a second backward through a kept graph.
  const Tensor z = mul(x, 2.0);
  call("torch.Tensor.backward", {Value(z), Value(full({2}, 0.5))}, {{"retain_graph", Value(true)}});
  EXPECT_EQ(x.grad().repr(), "tensor([7., 7.])");
  // detach and .data share the storage and leave the graph.
  const Tensor d = call("torch.detach", {Value(y)}).to_tensor();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.storage().get() == y.storage().get());
  EXPECT_FALSE(call("torch.Tensor.data", {Value(y)}).to_tensor().requires_grad());
  // inputs=: only those accumulate, a non-leaf too, and again on a second call.
  const Tensor a = full({2}, 2.0).requires_grad_();
  const Tensor b = full({2}, 3.0).requires_grad_();
  for (int k = 0; k < 2; ++k) {
    const Tensor ab = mul(a, b);
    call("torch.Tensor.backward", {Value(sum(mul(ab, 2.0)))}, {{"inputs", Value(std::vector<Tensor>{a, ab})}});
  }
  EXPECT_EQ(a.grad().repr(), "tensor([12., 12.])");
  EXPECT_FALSE(b.grad().defined());
  WICK_EXPECT_THROW_MSG(
      call("torch.Tensor.backward", {Value(sum(mul(a, b)))}, {{"inputs", Value(std::vector<Tensor>{})}}), RuntimeError,
      "'inputs' argument to backward() cannot be empty.");
  const Tensor w = mul(x, 1.0);
  call("torch.Tensor.detach_", {Value(w)});
  EXPECT_FALSE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
}

// grad_fn is the node itself as a Value (wick/autograd_values.h), None without history;
// layout is torch.strided, one object, equal to itself in eval.
TEST_F(Attributes, GradFnAndLayoutAreValues) {
  const Tensor x = full({2}, 3.0).requires_grad_();
  EXPECT_TRUE(call("torch.Tensor.grad_fn", {Value(x)}).is_none());
  EXPECT_TRUE(call("torch.Tensor.grad_fn", {Value(ones({2}))}).is_none());
  const Tensor y = mul(x, 2.0);
  const Value fn = call("torch.Tensor.grad_fn", {Value(y)});
  ASSERT_TRUE(fn.is_object());
  EXPECT_EQ(as_grad_fn(fn), y.grad_fn());
  EXPECT_EQ(as_grad_fn(call("torch.Tensor._grad_fn", {Value(y)})), y.grad_fn());
  EXPECT_EQ(fn.to_object()->type_name(), "MulBackward0");
  EXPECT_EQ(fn.repr().rfind("<MulBackward0 object at 0x", 0), 0U) << fn.repr();
  EXPECT_EQ(as_grad_fn(Value(1)), nullptr);
  const Tensor z = mul(x, 2.0);
  {
    const NoGradGuard no_grad;
    EXPECT_TRUE(call("torch.Tensor.grad_fn", {Value(mul(x, 2.0))}).is_none());
  }
  sum(z).backward();
  EXPECT_EQ(call("torch.Tensor._grad", {Value(x)}).repr(), "tensor([2., 2.])");
  const Value layout = call("torch.Tensor.layout", {Value(x)});
  EXPECT_EQ(layout.repr(), "torch.strided");
  EXPECT_EQ(layout.to_object(), strided_layout().to_object());
  const eval::Scope scope{{"y", Value(y)}};
  EXPECT_EQ(eval_text("type(y.grad_fn).__name__", scope), "'MulBackward0'");
  EXPECT_EQ(eval_text("y.layout == torch.strided", scope), "True");
  EXPECT_EQ(eval_text("y.detach().grad_fn", scope), "None");
}

// register_hook takes a wick::Callable and returns a handle that removes it;
// apply_/map_ call one per element, and a callable that throws leaves self as it was.
TEST_F(Attributes, CallablesAsArguments) {
  Tensor x = full({2}, 3.0).requires_grad_();
  int calls = 0;
  const Value twice(std::static_pointer_cast<Object>(std::make_shared<Callable>([&calls](const std::vector<Value>& a) {
    ++calls;
    return Value(mul(a[0].to_tensor(), 2.0));
  })));
  const Value handle = call("torch.Tensor.register_hook", {Value(x), twice});
  ASSERT_NE(as_hook_handle(handle), nullptr);
  EXPECT_EQ(handle.repr().rfind("<torch.utils.hooks.RemovableHandle object at 0x", 0), 0U) << handle.repr();
  sum(mul(x, x)).backward();
  EXPECT_EQ(x.grad().repr(), "tensor([12., 12.])");
  EXPECT_EQ(calls, 1);
  as_hook_handle(handle)->remove();
  x.mutable_grad() = Tensor();
  sum(mul(x, x)).backward();
  EXPECT_EQ(x.grad().repr(), "tensor([6., 6.])");
  EXPECT_EQ(calls, 1);
  // Not callable: accepted, and refused when the gradient arrives, as in PyTorch.
  const Tensor y = full({2}, 1.0).requires_grad_();
  (void)call("torch.Tensor.register_hook", {Value(y), Value(3)});
  WICK_EXPECT_THROW_MSG(sum(y).backward(), TypeError, "'int' object is not callable");

  Tensor z = arange(Scalar(4.0));
  int seen = 0;
  const Value fails(std::static_pointer_cast<Object>(std::make_shared<Callable>([&seen](const std::vector<Value>& a) {
    WICK_CHECK(++seen < 3, ValueError, "no more");
    return Value(a[0].to_double() + 10.0);
  })));
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.apply_", {Value(z), fails}), ValueError, "no more");
  EXPECT_EQ(z.repr(), "tensor([0., 1., 2., 3.])");
  const Value add(std::static_pointer_cast<Object>(std::make_shared<Callable>(
      [](const std::vector<Value>& a) { return Value(a[0].to_double() + 10.0 * a[1].to_double()); })));
  EXPECT_TRUE(call("torch.Tensor.map_", {Value(z), Value(full({1}, 2.0)), add}).to_tensor().is_same(z));
  EXPECT_EQ(z.repr(), "tensor([20., 21., 22., 23.])");
  EXPECT_EQ(z.version() > 0, true);
  const eval::Scope scope{{"z", Value(z)}};
  EXPECT_EQ(eval_text("z.apply_(abs)", scope), "tensor([20., 21., 22., 23.])");
  EXPECT_EQ(eval_text("torch.tensor([[1, -2], [3, -4]]).map2_(torch.tensor([0, 5]), torch.tensor(2), max)", scope),
            "tensor([[2, 5],\n        [3, 5]])");
}

TEST_F(Attributes, ATensorLikeOverridesThemAndEvalAsksIt) {
  std::vector<std::string> seen;
  const TypeInfo& type = shaped_type(&seen);
  const Value s(std::shared_ptr<Object>(std::make_shared<Shaped>(type)));
  const eval::Scope scope{{"s", s}, {"x", Value(ones({2, 3}))}};
  EXPECT_EQ(eval_text("s.shape", scope), "torch.Size([7, 5])");
  EXPECT_EQ(eval_text("s.size()", scope), "torch.Size([7, 5])");
  EXPECT_EQ(eval_text("len(s)", scope), "7");
  EXPECT_EQ(eval_text("float(s)", scope), "0.25");
  EXPECT_EQ(eval_text("not s", scope), "True");
  EXPECT_EQ(eval_text("s.dtype", scope), "torch.float16");
  EXPECT_EQ(seen, (std::vector<std::string>{"torch.Tensor.shape", "torch.Tensor.size", "torch.Tensor.__len__",
                                            "torch.Tensor.__float__", "torch.Tensor.__bool__", "torch.Tensor.dtype"}));
  // What the tensor-like does not answer is PyTorch's TypeError naming the operator.
  WICK_EXPECT_THROW_MSG((void)eval::evaluate("s.ndim", scope), TypeError,
                        "no implementation found for 'torch.Tensor.ndim' on types that implement __torch_function__: "
                        "[TShaped]");
  // Plain tensors through eval.
  EXPECT_EQ(eval_text("x.shape", scope), "torch.Size([2, 3])");
  EXPECT_EQ(eval_text("x.mT.shape", scope), "torch.Size([3, 2])");
  EXPECT_EQ(eval_text("len(x)", scope), "2");
  EXPECT_EQ(eval_text("int(x[0, 0])", scope), "1");
  EXPECT_EQ(eval_text("x.is_leaf", scope), "True");
  shaped_type(nullptr);
}

TEST_F(Attributes, SubclassesKeepTheirTypeThroughDetach) {
  static Library lib("attributes_subclass_test");
  static const TypeInfo& t = lib.register_type({.name = "TDetachSub", .parent = "Tensor"});
  const Tensor x = as_subclass(ones({2}), &t);
  const Value d = call("torch.Tensor.detach", {Value(x)});
  ASSERT_NE(type_of(d), nullptr);
  EXPECT_EQ(type_of(d)->name(), "TDetachSub");
  EXPECT_EQ(call("torch.Tensor.shape", {Value(x)}).to_int_list(), (std::vector<std::int64_t>{2}));
}

DefOptions property_options() {
  DefOptions o;
  o.property = true;
  return o;
}

TEST_F(Attributes, APluginDefinesAPropertyOnItsTensors) {
  Library lib("attrs_plugin.Tensor");
  lib.def("halved(Tensor self) -> int", property_options());
  bool listed = false;
  for (const CatalogEntry& e : catalog_entries())
    if (e.qualified_name == "attrs_plugin.Tensor.halved") listed = e.kind == "property";
  EXPECT_TRUE(listed);
  Library other("attrs_plugin");
  WICK_EXPECT_THROW_MSG(other.def("bad(Tensor self) -> int", property_options()), ValueError,
                        "property 'attrs_plugin.bad': a property is defined in a Tensor namespace");
  WICK_EXPECT_THROW_MSG(lib.def("worse(Tensor self, int k) -> int", property_options()), ValueError,
                        "takes `Tensor self` only");
}

}  // namespace
}  // namespace wick
