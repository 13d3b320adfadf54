// tests/nn/module_test.cpp - nn::Module: registration, listing, mode, conversion, zero_grad,
// state_dict, printing and forward hooks; nn::Parameter.
/// \file
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <tuple>

#include "tests/autograd/test_util.h"
#include "wick/nn.h"

namespace wick::testing {
namespace {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

std::vector<std::string> names_of(const NamedTensors& named) {
  std::vector<std::string> out;
  for (const auto& entry : named) out.push_back(entry.first);
  return out;
}

class Linear : public nn::Callable<Linear> {
 public:
  Linear(std::int64_t in, std::int64_t out, bool bias = true) : in_(in), out_(out) {
    weight = register_parameter("weight", empty({out, in}, ScalarType::kFloat64));
    nn::init::kaiming_uniform_(weight, std::sqrt(5.0));
    this->bias = register_parameter("bias", bias ? zeros({out}, ScalarType::kFloat64) : Tensor());
  }
  Tensor forward(const Tensor& x) {
    Tensor y = x.matmul(weight.t());
    return bias.defined() ? y + bias : y;
  }
  [[nodiscard]] std::string extra_repr() const override {
    return "input_features=" + std::to_string(in_) + ", output_features=" + std::to_string(out_) +
           ", bias=" + (bias.defined() ? "True" : "False");
  }
  Tensor weight, bias;

 private:
  std::int64_t in_, out_;
};

struct ReLU : nn::Callable<ReLU> {
  Tensor forward(const Tensor& x) { return x.relu(); }
};

struct Tanh : nn::Callable<Tanh> {
  Tensor forward(const Tensor& x) { return wick::tanh(x); }
};

struct Sequential : nn::Module {
  void push_back(std::shared_ptr<Module> m) { register_module(std::to_string(size_++), std::move(m)); }

 private:
  int size_ = 0;
};

struct Net : nn::Callable<Net> {
  Net() {
    fc1 = register_module("fc1", std::make_shared<Linear>(4, 3));
    act = register_module("act", std::make_shared<ReLU>());
    seq = register_module("seq", std::make_shared<Sequential>());
    seq->push_back(std::make_shared<Tanh>());
  }
  Tensor forward(const Tensor& x) { return (*act)((*fc1)(x)); }
  std::shared_ptr<Linear> fc1;
  std::shared_ptr<ReLU> act;
  std::shared_ptr<Sequential> seq;
};

class Module : public AutogradTest {};

TEST_F(Module, RegistrationOrderAndNestedNames) {
  auto net = std::make_shared<Net>();
  net->seq->push_back(std::make_shared<Linear>(3, 2, false));
  net->register_buffer("steps", zeros({1}, ScalarType::kInt64));
  net->register_buffer("cache", zeros({2}), /*persistent=*/false);

  EXPECT_EQ(names_of(net->named_parameters()),
            (std::vector<std::string>{"fc1.weight", "fc1.bias", "seq.1.weight"}));
  EXPECT_TRUE(net->named_parameters(/*recurse=*/false).empty());
  EXPECT_EQ(names_of(net->fc1->named_parameters(false)), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(names_of(net->named_buffers()), (std::vector<std::string>{"steps", "cache"}));
  EXPECT_EQ(net->buffers().size(), 2u);

  std::vector<Tensor> params = net->parameters();
  ASSERT_EQ(params.size(), 3u);
  EXPECT_TRUE(params[0].is_same(net->fc1->weight));
  for (const Tensor& p : params) {
    EXPECT_TRUE(p.requires_grad());
    EXPECT_TRUE(p.is_leaf());
  }

  std::vector<std::string> child_names;
  for (const auto& [name, child] : net->named_children()) child_names.push_back(name);
  EXPECT_EQ(child_names, (std::vector<std::string>{"fc1", "act", "seq"}));
  EXPECT_EQ(net->children()[0].get(), net->fc1.get());

  std::vector<std::string> module_names;
  for (const auto& [name, m] : net->named_modules()) module_names.push_back(name);
  EXPECT_EQ(module_names, (std::vector<std::string>{"", "fc1", "act", "seq", "seq.0", "seq.1"}));
  auto modules = net->modules();
  ASSERT_EQ(modules.size(), 6u);
  EXPECT_EQ(modules[0].get(), net.get());
  EXPECT_EQ(modules[0].use_count(), net.use_count());  // owning when held by a shared_ptr

  EXPECT_TRUE(net->parameter("fc1.weight").is_same(net->fc1->weight));
  EXPECT_TRUE(net->parameter("seq.1.weight").defined());
  EXPECT_TRUE(net->buffer("steps").defined());
  EXPECT_EQ(net->buffer("cache").dtype(), ScalarType::kFloat32);
}

TEST_F(Module, StackModuleListsItselfWithoutOwning) {
  Linear lin(2, 2);
  auto modules = lin.modules();
  ASSERT_EQ(modules.size(), 1u);
  EXPECT_EQ(modules[0].get(), &lin);
  EXPECT_EQ(modules[0].use_count(), 0);
}

TEST_F(Module, AbsentOptionalParameter) {
  Linear lin(4, 3, /*bias=*/false);
  EXPECT_EQ(names_of(lin.named_parameters()), (std::vector<std::string>{"weight"}));
  EXPECT_EQ(lin.parameters().size(), 1u);
  EXPECT_FALSE(lin.parameter("bias").defined());
  EXPECT_EQ(names_of(lin.state_dict()), (std::vector<std::string>{"weight"}));
  // The name stays taken.
  WICK_EXPECT_THROW_MSG(lin.register_buffer("bias", zeros({3})), ValueError, "attribute 'bias' already exists");
  // An absent buffer is skipped the same way.
  lin.register_buffer("mask", Tensor());
  EXPECT_TRUE(lin.buffers().empty());
  EXPECT_FALSE(lin.buffer("mask").defined());
}

TEST_F(Module, NameErrors) {
  Linear lin(2, 2);
  EXPECT_EQ(error_of([&] { lin.register_parameter("weight", zeros({1})); }), "attribute 'weight' already exists");
  EXPECT_EQ(error_of([&] { lin.register_buffer("weight", zeros({1})); }), "attribute 'weight' already exists");
  EXPECT_EQ(error_of([&] { lin.register_module("bias", std::make_shared<ReLU>()); }),
            "attribute 'bias' already exists");
  lin.register_module("act", std::make_shared<ReLU>());
  EXPECT_EQ(error_of([&] { lin.register_parameter("act", zeros({1})); }), "attribute 'act' already exists");
  EXPECT_EQ(error_of([&] { lin.register_parameter("", zeros({1})); }), "parameter name can't be empty string \"\"");
  EXPECT_EQ(error_of([&] { lin.register_parameter("a.b", zeros({1})); }),
            "parameter name can't contain \".\", got: a.b");
  EXPECT_EQ(error_of([&] { lin.register_buffer("a.b", zeros({1})); }), "buffer name can't contain \".\", got: a.b");
  EXPECT_EQ(error_of([&] { lin.register_module("", std::make_shared<ReLU>()); }),
            "module name can't be empty string \"\"");
  lin.register_parameter("x", zeros({1}));  // a new name is fine
  EXPECT_EQ(error_of([&] { (void)lin.parameter("nope"); }), "'Linear' object has no parameter 'nope'");
  EXPECT_EQ(error_of([&] { (void)lin.buffer("weight"); }), "'Linear' object has no buffer 'weight'");
  EXPECT_EQ(error_of([&] { (void)lin.parameter("fc9.weight"); }), "'Linear' object has no submodule 'fc9'");
  EXPECT_THROW((void)lin.parameter("nope"), ValueError);
  // Failed registrations registered nothing.
  EXPECT_EQ(names_of(lin.named_parameters()), (std::vector<std::string>{"weight", "bias", "x"}));
}

TEST_F(Module, RegisterParameterDetachesHistory) {
  nn::Module m;
  Tensor leaf = vec({1, 2});
  Tensor& stored = m.register_parameter("leaf", leaf);
  EXPECT_TRUE(stored.is_same(leaf));  // a leaf keeps its identity
  EXPECT_TRUE(leaf.requires_grad());

  Tensor x = vec({1, 2}).requires_grad_();
  Tensor y = x * 2;
  Tensor p = m.register_parameter("derived", y);
  EXPECT_FALSE(p.is_same(y));
  EXPECT_TRUE(p.is_leaf());
  EXPECT_TRUE(p.requires_grad());
  expect_near(p, {2, 4});

  Tensor frozen = m.register_parameter("frozen", vec({1}), /*requires_grad=*/false);
  EXPECT_FALSE(frozen.requires_grad());
  Tensor ints = m.register_parameter("ints", zeros({2}, ScalarType::kInt64));
  EXPECT_FALSE(ints.requires_grad());
  EXPECT_EQ(m.parameters().size(), 4u);
}

TEST_F(Module, ParameterIsADetachedLeafAlias) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor y = x * 3;
  nn::Parameter p(y);
  EXPECT_TRUE(p.tensor().is_leaf());
  EXPECT_TRUE(p.tensor().requires_grad());
  EXPECT_EQ(p.tensor().data_ptr(), y.data_ptr());  // shares storage
  Tensor t = p;
  EXPECT_TRUE(t.is_same(p.tensor()));
  EXPECT_FALSE(nn::Parameter(vec({1}), false).tensor().requires_grad());
  EXPECT_FALSE(nn::Parameter(zeros({1}, ScalarType::kInt64)).tensor().requires_grad());
  WICK_EXPECT_THROW_MSG(nn::Parameter(Tensor()), RuntimeError, "undefined");

  nn::Module m;
  m.register_parameter("p", p);
  EXPECT_TRUE(m.parameter("p").is_same(p.tensor()));
}

TEST_F(Module, SharedParametersAndModulesListedOnce) {
  auto shared = std::make_shared<Linear>(2, 2);
  nn::Module m;
  m.register_module("a", shared);
  m.register_module("b", shared);
  m.register_parameter("tied", shared->weight);
  EXPECT_EQ(names_of(m.named_parameters()), (std::vector<std::string>{"tied", "a.bias"}));
  EXPECT_EQ(m.named_children().size(), 1u);
  EXPECT_EQ(m.modules().size(), 2u);
  // state_dict keeps every name, like PyTorch.
  EXPECT_EQ(names_of(m.state_dict()), (std::vector<std::string>{"tied", "a.weight", "a.bias", "b.weight", "b.bias"}));
}

TEST_F(Module, TrainEvalRecurse) {
  auto net = std::make_shared<Net>();
  EXPECT_TRUE(net->is_training());
  net->eval();
  for (const auto& m : net->modules()) EXPECT_FALSE(m->is_training());
  net->seq->train();
  EXPECT_FALSE(net->is_training());
  EXPECT_TRUE(net->seq->is_training());
  EXPECT_TRUE(net->seq->children()[0]->is_training());
  net->train();
  for (const auto& m : net->modules()) EXPECT_TRUE(m->is_training());
}

TEST_F(Module, ToDtypeKeepsIdentityAndConvertsBuffersAndGrads) {
  auto net = std::make_shared<Net>();
  net->fc1->to(ScalarType::kFloat32);
  Tensor w = net->fc1->weight;
  TensorImpl* impl = w.impl();
  const std::vector<double> before = values(w);
  Tensor running = net->register_buffer("running", vec({1.5, 2.5}, ScalarType::kFloat32));
  Tensor count = net->register_buffer("count", zeros({1}, ScalarType::kInt64));
  (net->forward(ones({2, 4})).sum()).backward();
  ASSERT_TRUE(w.grad().defined());
  EXPECT_EQ(w.grad().dtype(), ScalarType::kFloat32);
  Tensor grad = w.grad();

  nn::Module& same = net->to(ScalarType::kFloat64);
  EXPECT_EQ(&same, net.get());
  EXPECT_EQ(w.impl(), impl);
  EXPECT_TRUE(net->parameter("fc1.weight").is_same(w));
  EXPECT_EQ(w.dtype(), ScalarType::kFloat64);
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
  expect_near(w, before, 1e-6);
  EXPECT_EQ(net->fc1->bias.dtype(), ScalarType::kFloat64);
  EXPECT_EQ(running.dtype(), ScalarType::kFloat64);
  expect_near(running, {1.5, 2.5});
  EXPECT_EQ(count.dtype(), ScalarType::kInt64);  // integer buffers are left alone
  EXPECT_TRUE(w.grad().is_same(grad));
  EXPECT_EQ(grad.dtype(), ScalarType::kFloat64);

  // The converted model still trains.
  net->zero_grad(true);
  (net->forward(ones({1, 4}, ScalarType::kFloat64)).sum()).backward();
  EXPECT_EQ(w.grad().dtype(), ScalarType::kFloat64);

  EXPECT_EQ(error_of([&] { net->to(ScalarType::kInt64); }),
            "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.int64");
}

TEST_F(Module, ToSameDeviceIsANoOp) {
  Linear lin(2, 3);
  void* data = lin.weight.data_ptr();
  lin.to(Device(DeviceType::kCPU));
  EXPECT_EQ(lin.weight.data_ptr(), data);
  lin.to(Device(DeviceType::kCPU, 0));
  EXPECT_EQ(lin.weight.data_ptr(), data);
}

TEST_F(Module, ZeroGradInPlaceOrToNone) {
  Linear lin(3, 2);
  lin(vec({1, 2, 3}).view({1, 3})).sum().backward();
  Tensor g = lin.weight.grad();
  ASSERT_TRUE(g.defined());
  lin.zero_grad();
  EXPECT_TRUE(lin.weight.grad().is_same(g));  // zeroed in place
  expect_near(g, std::vector<double>(6, 0.0));
  expect_near(lin.bias.grad(), {0, 0});
  lin(vec({1, 1, 1}).view({1, 3})).sum().backward();
  expect_near(lin.bias.grad(), {1, 1});

  lin.zero_grad(/*set_to_none=*/true);
  EXPECT_FALSE(lin.weight.grad().defined());
  EXPECT_FALSE(lin.bias.grad().defined());
  lin.zero_grad();  // no gradients: nothing to do
  EXPECT_FALSE(lin.weight.grad().defined());
}

TEST_F(Module, StateDictRoundTrip) {
  auto a = std::make_shared<Net>();
  a->register_buffer("steps", full({1}, 7, ScalarType::kInt64));
  a->register_buffer("scratch", zeros({2}), /*persistent=*/false);
  auto b = std::make_shared<Net>();
  b->register_buffer("steps", zeros({1}, ScalarType::kInt64));
  b->register_buffer("scratch", ones({2}), /*persistent=*/false);

  NamedTensors sd = a->state_dict();
  EXPECT_EQ(names_of(sd), (std::vector<std::string>{"steps", "fc1.weight", "fc1.bias"}));
  for (const auto& [name, t] : sd) EXPECT_FALSE(t.requires_grad()) << name;
  EXPECT_EQ(sd[1].second.data_ptr(), a->fc1->weight.data_ptr());  // detached alias

  Tensor bw = b->fc1->weight;
  nn::IncompatibleKeys keys = b->load_state_dict(sd);
  EXPECT_TRUE(keys.missing_keys.empty());
  EXPECT_TRUE(keys.unexpected_keys.empty());
  EXPECT_TRUE(b->fc1->weight.is_same(bw));  // copied in place
  EXPECT_NE(bw.data_ptr(), a->fc1->weight.data_ptr());
  expect_near(bw, values(a->fc1->weight));
  expect_near(b->fc1->bias, values(a->fc1->bias));
  expect_near(b->buffer("steps"), {7});
  expect_near(b->buffer("scratch"), {1, 1});  // non-persistent: untouched
  EXPECT_TRUE(bw.requires_grad());
  EXPECT_TRUE(bw.is_leaf());

  // Loading converts dtypes, like copy_.
  NamedTensors f32;
  for (const auto& [name, t] : sd) f32.emplace_back(name, t.to(name == "steps" ? ScalarType::kInt32 : ScalarType::kFloat32));
  b->load_state_dict(f32);
  EXPECT_EQ(bw.dtype(), ScalarType::kFloat64);
  expect_near(bw, values(a->fc1->weight), 1e-6);
}

TEST_F(Module, LoadStateDictErrorsChangeNothing) {
  Linear lin(4, 3);
  const std::vector<double> w_before = values(lin.weight);
  const std::vector<double> b_before = values(lin.bias);
  const Tensor new_w = ones({3, 4}, ScalarType::kFloat64);

  EXPECT_EQ(error_of([&] { lin.load_state_dict({{"weight", new_w}}); }),
            "Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: \"bias\". ");
  EXPECT_EQ(error_of([&] { lin.load_state_dict({{"weight", new_w}, {"bias", zeros({3})}, {"foo", zeros({1})}}); }),
            "Error(s) in loading state_dict for Linear:\n\tUnexpected key(s) in state_dict: \"foo\". ");
  EXPECT_EQ(error_of([&] { lin.load_state_dict({{"foo", zeros({1})}, {"weight", new_w}, {"bar.x", zeros({1})}}); }),
            "Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: \"bias\". "
            "\n\tUnexpected key(s) in state_dict: \"foo\", \"bar.x\". ");
  EXPECT_EQ(error_of([&] { lin.load_state_dict({{"weight", ones({3, 5})}, {"bias", zeros({3})}}); }),
            "Error(s) in loading state_dict for Linear:\n\tsize mismatch for weight: copying a param with shape "
            "torch.Size([3, 5]) from checkpoint, the shape in current model is torch.Size([3, 4]).");
  // Size mismatches are errors even when not strict, after the key lists when strict.
  EXPECT_EQ(error_of([&] { lin.load_state_dict({{"weight", ones({3, 5})}}, /*strict=*/false); }),
            "Error(s) in loading state_dict for Linear:\n\tsize mismatch for weight: copying a param with shape "
            "torch.Size([3, 5]) from checkpoint, the shape in current model is torch.Size([3, 4]).");
  EXPECT_EQ(error_of([&] { lin.load_state_dict({{"weight", ones({3, 5})}, {"x", ones({1})}}); }),
            "Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: \"bias\". "
            "\n\tUnexpected key(s) in state_dict: \"x\". \n\tsize mismatch for weight: copying a param with shape "
            "torch.Size([3, 5]) from checkpoint, the shape in current model is torch.Size([3, 4]).");
  EXPECT_THROW(lin.load_state_dict({{"weight", new_w}}), RuntimeError);
  WICK_EXPECT_THROW_MSG(lin.load_state_dict({{"weight", Tensor()}, {"bias", zeros({3})}}), RuntimeError,
                        "While copying the parameter named \"weight\", expected torch.Tensor");
  expect_near(lin.weight, w_before);
  expect_near(lin.bias, b_before);

  // Not strict: what matches is loaded, the rest is reported.
  nn::IncompatibleKeys keys = lin.load_state_dict({{"weight", new_w}, {"extra", zeros({1})}}, /*strict=*/false);
  EXPECT_EQ(keys.missing_keys, (std::vector<std::string>{"bias"}));
  EXPECT_EQ(keys.unexpected_keys, (std::vector<std::string>{"extra"}));
  expect_near(lin.weight, std::vector<double>(12, 1.0));
  expect_near(lin.bias, b_before);
}

TEST_F(Module, LoadStateDictNestedKeys) {
  auto net = std::make_shared<Net>();
  NamedTensors sd = net->state_dict();
  sd.emplace_back("fc1.extra", zeros({1}));
  sd.emplace_back("seq.0.w", zeros({1}));
  EXPECT_EQ(error_of([&] { net->load_state_dict(sd); }),
            "Error(s) in loading state_dict for Net:\n\tUnexpected key(s) in state_dict: \"fc1.extra\", \"seq.0.w\". ");
  sd.erase(sd.begin());  // fc1.weight
  EXPECT_EQ(error_of([&] { net->load_state_dict(sd, /*strict=*/true); }),
            "Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: \"fc1.weight\". "
            "\n\tUnexpected key(s) in state_dict: \"fc1.extra\", \"seq.0.w\". ");
}

struct Multi : nn::Module {
  [[nodiscard]] std::string extra_repr() const override { return "a=1\nb=2"; }
};

struct Scaled : nn::Module {
  Scaled() { register_module("inner", std::make_shared<Linear>(2, 2, false)); }
  [[nodiscard]] std::string extra_repr() const override { return "scale=2.0"; }
};

TEST_F(Module, PrintsTheModuleTree) {
  auto net = std::make_shared<Net>();
  EXPECT_EQ(net->repr(),
            "Net(\n"
            "  (fc1): Linear(input_features=4, output_features=3, bias=True)\n"
            "  (act): ReLU()\n"
            "  (seq): Sequential(\n"
            "    (0): Tanh()\n"
            "  )\n"
            ")");
  auto inner = std::make_shared<Sequential>();
  inner->push_back(std::make_shared<Scaled>());
  inner->push_back(std::make_shared<Multi>());
  net->seq->push_back(inner);
  net->register_module("none", std::shared_ptr<nn::Module>());
  std::ostringstream os;
  os << *net;
  EXPECT_EQ(os.str(),
            "Net(\n"
            "  (fc1): Linear(input_features=4, output_features=3, bias=True)\n"
            "  (act): ReLU()\n"
            "  (seq): Sequential(\n"
            "    (0): Tanh()\n"
            "    (1): Sequential(\n"
            "      (0): Scaled(\n"
            "        scale=2.0\n"
            "        (inner): Linear(input_features=2, output_features=2, bias=False)\n"
            "      )\n"
            "      (1): Multi(\n"
            "        a=1\n"
            "        b=2\n"
            "      )\n"
            "    )\n"
            "  )\n"
            "  (none): None\n"
            ")");
  EXPECT_EQ(nn::Module().repr(), "Module()");
  EXPECT_EQ(Linear(1, 1).name(), "Linear");
}

TEST_F(Module, ForwardPreHookReplacesInputs) {
  Linear lin(2, 1);
  nn::init::ones_(lin.weight);
  std::vector<std::string> seen;
  auto handle = lin.register_forward_pre_hook(
      [&](nn::Module& m, const std::vector<Value>& in) -> std::optional<std::vector<Value>> {
        seen.push_back(m.name());
        return std::vector<Value>{in.at(0).to_tensor() * 10};
      });
  // A hook that returns nothing keeps the inputs it got.
  auto observer = lin.register_forward_pre_hook(
      [&](nn::Module&, const std::vector<Value>& in) -> std::optional<std::vector<Value>> {
        seen.push_back(in.at(0).to_tensor().repr());
        return std::nullopt;
      });
  Tensor x = vec({1, 2}).view({1, 2});
  expect_near(lin(x), {30});
  EXPECT_EQ(seen, (std::vector<std::string>{"Linear", "tensor([[10., 20.]], dtype=torch.float64)"}));
  handle.remove();
  expect_near(lin(x), {3});
  handle.remove();  // twice is fine
  observer.remove();
  EXPECT_FALSE(lin.has_forward_hooks());
  expect_near(lin(x), {3});
  EXPECT_EQ(seen.size(), 3u);
}

TEST_F(Module, ForwardHookReplacesOutput) {
  auto net = std::make_shared<Net>();
  Tensor x = ones({1, 4}, ScalarType::kFloat64);
  const std::vector<double> plain = values((*net)(x));
  Tensor hook_input;
  auto handle = net->register_forward_hook(
      [&](nn::Module&, const std::vector<Value>& in, const Value& out) -> std::optional<Value> {
        hook_input = in.at(0).to_tensor();
        return Value(out.to_tensor() + 100);
      });
  auto second = net->register_forward_hook(
      [](nn::Module&, const std::vector<Value>&, const Value& out) -> std::optional<Value> {
        return Value(out.to_tensor() * 2);  // sees the first hook's result
      });
  std::vector<double> want = plain;
  for (double& v : want) v = (v + 100) * 2;
  Tensor y = (*net)(x);
  expect_near(y, want);
  EXPECT_TRUE(hook_input.is_same(x));
  // Gradients flow through what the hooks computed.
  EXPECT_TRUE(y.requires_grad());
  handle.remove();
  second.remove();
  expect_near((*net)(x), plain);
}

TEST_F(Module, HooksOnSubmodulesRunInsideForward) {
  auto net = std::make_shared<Net>();
  int calls = 0;
  auto h = net->fc1->register_forward_hook(
      [&](nn::Module&, const std::vector<Value>&, const Value& out) -> std::optional<Value> {
        ++calls;
        return Value(out.to_tensor() * 0);
      });
  Tensor y = (*net)(ones({2, 4}, ScalarType::kFloat64));
  EXPECT_EQ(calls, 1);
  expect_near(y, std::vector<double>(6, 0.0));
}

TEST_F(Module, HandleOutlivesModule) {
  autograd::RemovableHandle handle;
  {
    auto lin = std::make_shared<Linear>(1, 1);
    handle = lin->register_forward_hook(
        [](nn::Module&, const std::vector<Value>&, const Value&) -> std::optional<Value> { return std::nullopt; });
  }
  handle.remove();  // the module is gone: a no-op
  SUCCEED();
}

// forward with non-tensor arguments, a default argument, and an overload.
struct Mixed : nn::Callable<Mixed> {
  Tensor forward(const Tensor& x, double scale, std::int64_t shift = 0, bool negate = false) {
    Tensor y = x * scale + static_cast<double>(shift);
    return negate ? -y : y;
  }
};

struct Overloaded : nn::Callable<Overloaded> {
  Tensor forward(const Tensor& x) { return x + 1; }
  Tensor forward(const Tensor& x, const Tensor& y) { return x + y; }
};

struct Pair : nn::Callable<Pair> {
  std::tuple<Tensor, double> forward(const Tensor& x) { return {x * 2, 3.5}; }
};

TEST_F(Module, HookedCallsUnboxIntoForwardsParameterTypes) {
  Mixed m;
  Tensor x = vec({1, 2});
  expect_near(m(x, 2), {2, 4});  // no hooks: a direct call
  std::vector<std::string> kinds;
  auto h = m.register_forward_pre_hook(
      [&](nn::Module&, const std::vector<Value>& in) -> std::optional<std::vector<Value>> {
        for (const Value& v : in) kinds.push_back(v.type_name());
        std::vector<Value> out = in;
        out[1] = Value(3);  // an int where forward takes a double
        return out;
      });
  expect_near(m(x, 2.0), {3, 6});
  expect_near(m(x, 2.0, 1), {4, 7});
  expect_near(m(x, 2.0, std::int64_t{1}, true), {-4, -7});
  EXPECT_EQ(kinds, (std::vector<std::string>{"Tensor", "float", "Tensor", "float", "int", "Tensor", "float", "int",
                                             "bool"}));
  h.remove();

  auto bad = m.register_forward_pre_hook(
      [](nn::Module&, const std::vector<Value>& in) -> std::optional<std::vector<Value>> {
        return std::vector<Value>{in[0]};
      });
  EXPECT_EQ(error_of([&] { (void)m(x, 2.0); }),
            "Mixed.forward() takes 2 argument(s) but the forward pre-hooks returned 1");
  bad.remove();
  auto wrong_kind = m.register_forward_pre_hook(
      [](nn::Module&, const std::vector<Value>& in) -> std::optional<std::vector<Value>> {
        return std::vector<Value>{in[1], in[0]};
      });
  EXPECT_THROW((void)m(x, 2.0), TypeError);
  wrong_kind.remove();

  Overloaded o;
  auto swap = o.register_forward_pre_hook(
      [](nn::Module&, const std::vector<Value>& in) -> std::optional<std::vector<Value>> {
        std::vector<Value> out(in.rbegin(), in.rend());
        return out;
      });
  expect_near(o(x), {2, 3});
  expect_near(o(x, vec({10, 20})), {11, 22});

  Pair p;
  auto post = p.register_forward_hook([](nn::Module&, const std::vector<Value>&, const Value& out) -> std::optional<Value> {
    EXPECT_TRUE(out.is_tuple());
    return Value::list({Value(out.items()[0].to_tensor() + 1), Value(1.25)}, /*tuple=*/true);
  });
  auto [t, d] = p(x);
  expect_near(t, {3, 5});
  EXPECT_EQ(d, 1.25);
}

TEST_F(Module, ApplyVisitsChildrenFirst) {
  auto net = std::make_shared<Net>();
  std::vector<std::string> order;
  net->apply([&](nn::Module& m) { order.push_back(m.name()); });
  EXPECT_EQ(order, (std::vector<std::string>{"Linear", "ReLU", "Tanh", "Sequential", "Net"}));
}

}  // namespace
}  // namespace wick::testing
