// tests/nn/modules_test.cpp - the built-in modules' holders, containers, default initialisation,
// train/eval behaviour and errors (their PyTorch reference values are in modules_reference_test.cpp).
/// \file
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "tests/autograd/test_util.h"
#include "wick/nn_modules.h"

namespace wick::testing {
namespace {

namespace n = wick::nn;

class NnModules : public AutogradTest {};

// A user module in libtorch's spelling: NetImpl and its holder Net.
struct NetImpl : n::Callable<NetImpl> {
  NetImpl() {
    fc1 = register_module("fc1", n::Linear(4, 8));
    fc2 = register_module("fc2", n::Linear(n::LinearOptions(8, 2).bias(false)));
  }
  Tensor forward(const Tensor& x) { return fc2(relu(fc1->forward(x))); }
  n::Linear fc1{nullptr}, fc2{nullptr};
};
WICK_MODULE(Net);

double max_abs(const Tensor& t) {
  std::vector<double> v = values(t);
  double m = 0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

double std_of(const Tensor& t) {
  std::vector<double> v = values(t);
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  return std::sqrt(var / static_cast<double>(v.size() - 1));
}

// --- holders ----------------------------------------------------------------------------------

TEST_F(NnModules, HolderRegistersCallsAndConverts) {
  Net net;
  EXPECT_EQ(net->name(), "Net");
  EXPECT_EQ(net->repr(),
            "Net(\n  (fc1): Linear(in_features=4, out_features=8, bias=True)\n"
            "  (fc2): Linear(in_features=8, out_features=2, bias=False)\n)");
  std::vector<std::string> keys;
  for (const auto& [k, t] : net->named_parameters()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"fc1.weight", "fc1.bias", "fc2.weight"}));
  const Tensor x = randn({3, 4});
  const Tensor y = net(x);
  EXPECT_EQ(y.sizes().vec(), (std::vector<std::int64_t>{3, 2}));
  expect_near(net->fc1(x), values(net->fc1->forward(x)));
  // Conversions share the module.
  std::shared_ptr<n::LinearImpl> p = net->fc1;
  std::shared_ptr<n::Module> m = net->fc1;
  EXPECT_EQ(p.get(), net->fc1.get());
  EXPECT_EQ(m.get(), static_cast<n::Module*>(net->fc1.get()));
  n::Linear copy = net->fc1;
  EXPECT_EQ(copy.ptr(), net->fc1.ptr());
  std::shared_ptr<n::Module> as_module = net;
  EXPECT_EQ(as_module->named_children().size(), 2U);
}

TEST_F(NnModules, EmptyHolder) {
  n::Linear fc{nullptr};
  EXPECT_TRUE(fc.is_empty());
  EXPECT_FALSE(static_cast<bool>(fc));
  WICK_EXPECT_THROW_MSG(fc->forward(randn({1, 2})), RuntimeError, "Accessing empty ModuleHolder");
  fc = n::Linear(2, 3);
  EXPECT_FALSE(fc.is_empty());
  EXPECT_EQ(fc->weight.sizes().vec(), (std::vector<std::int64_t>{3, 2}));
}

TEST_F(NnModules, HolderCallRunsHooks) {
  n::Linear fc(2, 2);
  auto handle = fc->register_forward_hook([](n::Module&, const std::vector<Value>&, const Value& out) {
    return std::optional<Value>(Value(out.to_tensor() * 0));
  });
  const Tensor x = randn({1, 2});
  expect_near(fc(x), {0, 0});
  EXPECT_GT(max_abs(fc->forward(x)), 0);  // forward itself skips hooks
  handle.remove();
  expect_near(fc(x), values(fc->forward(x)));
}

TEST_F(NnModules, HooksSeeTupleOutputsOfRecurrentModules) {
  n::LSTM lstm(3, 4);
  int seen = 0;
  lstm->register_forward_pre_hook([&seen](n::Module&, const std::vector<Value>& inputs) {
    seen += static_cast<int>(inputs.size());
    return std::optional<std::vector<Value>>();
  });
  lstm->register_forward_hook([](n::Module&, const std::vector<Value>&, const Value& out) {
    EXPECT_EQ(out.items().size(), 2U);  // (output, (h_n, c_n))
    return std::optional<Value>();
  });
  const Tensor x = randn({5, 2, 3});
  auto [out, state] = lstm(x, std::make_tuple(zeros({1, 2, 4}), zeros({1, 2, 4})));
  auto [plain, plain_state] = lstm->forward(x);
  EXPECT_EQ(seen, 2);
  expect_near(out, values(plain));
  expect_near(std::get<1>(state), values(std::get<1>(plain_state)));
}

TEST_F(NnModules, OptionsChainAndReadBack) {
  auto opts = n::Conv2dOptions(3, 8, 3).stride(2).padding({1, 0}).bias(false);
  EXPECT_EQ(opts.stride().vec(), (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(opts.padding().values().vec(), (std::vector<std::int64_t>{1, 0}));
  EXPECT_FALSE(opts.bias());
  EXPECT_EQ(opts.kernel_size().vec(), (std::vector<std::int64_t>{3, 3}));
  WICK_EXPECT_THROW_MSG(n::ExpandingArray<2>({1, 2, 3}), ValueError, "expected 2 values but got 3");
  n::Conv2d conv(opts);
  EXPECT_EQ(conv->options.out_channels(), 8);
  EXPECT_FALSE(conv->bias.defined());
}

// --- containers -------------------------------------------------------------------------------

TEST_F(NnModules, SequentialApi) {
  n::Sequential seq(n::Linear(3, 4), n::ReLU());
  seq->push_back(n::Linear(4, 2));
  seq->push_back([](const Tensor& x) { return x * 2; });
  EXPECT_EQ(seq->size(), 4U);
  EXPECT_EQ(seq[3]->name(), "Functional");
  EXPECT_EQ(seq->ptr<n::LinearImpl>(-2)->options.out_features(), 2);
  EXPECT_EQ(seq->at<n::LinearImpl>(0).options.in_features(), 3);
  WICK_EXPECT_THROW_MSG(seq->ptr<n::LinearImpl>(1), TypeError, "entry 1 is a ReLU");
  WICK_EXPECT_THROW_MSG(seq->ptr(4), IndexError, "index 4 is out of range");
  const Tensor x = randn({5, 3});
  const Tensor manual = seq->at<n::LinearImpl>(2)(relu(seq->at<n::LinearImpl>(0)(x))) * 2;
  expect_near(seq(x), values(manual));
  EXPECT_EQ(seq->repr(),
            "Sequential(\n  (0): Linear(in_features=3, out_features=4, bias=True)\n  (1): ReLU()\n"
            "  (2): Linear(in_features=4, out_features=2, bias=True)\n  (3): Functional()\n)");
  n::Sequential empty;
  expect_near(empty(x), values(x));
  n::Sequential named;
  named->push_back("encoder", n::Linear(3, 3));
  EXPECT_EQ(named->named_parameters()[0].first, "encoder.weight");
  named->extend(*seq);
  EXPECT_EQ(named->size(), 5U);
  // train/eval reach every entry.
  seq->push_back(n::Dropout(0.5));
  seq->eval();
  EXPECT_FALSE(seq[4]->is_training());
}

TEST_F(NnModules, ListsAndDicts) {
  n::ModuleList list(n::Linear(2, 2), n::Tanh());
  list->push_back(n::ReLU());
  std::vector<std::string> names;
  for (const auto& m : *list) names.push_back(m->name());
  EXPECT_EQ(names, (std::vector<std::string>{"Linear", "Tanh", "ReLU"}));
  EXPECT_EQ(list->ptr<n::LinearImpl>(0)->options.in_features(), 2);
  n::ModuleDict dict;
  dict->insert("enc", n::Linear(2, 3));
  dict->insert("act", n::GELU());
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"enc", "act"}));
  EXPECT_TRUE(dict->contains("act"));
  EXPECT_EQ(dict->ptr<n::LinearImpl>("enc")->options.out_features(), 3);
  WICK_EXPECT_THROW_MSG((*dict)["nope"], ValueError, "ModuleDict has no key 'nope'");
  WICK_EXPECT_THROW_MSG(dict->insert("enc", n::ReLU()), ValueError, "attribute 'enc' already exists");
  n::ParameterList params;
  params->append(randn({2}));
  params->append(randn({3}));
  EXPECT_EQ(params->size(), 2U);
  EXPECT_EQ(params[-1].size(0), 3);
  EXPECT_TRUE(params[0].requires_grad());
  EXPECT_EQ(params->parameters().size(), 2U);
  n::ParameterDict pd;
  pd->insert("scale", ones({1}));
  EXPECT_EQ(pd->repr(), "ParameterDict(  (scale): Parameter containing: [torch.FloatTensor of size 1])");
  WICK_EXPECT_THROW_MSG((*pd)["x"], ValueError, "ParameterDict has no key 'x'");
}

// --- default initialisation ----------------------------------------------------------------------

TEST_F(NnModules, DefaultInitialisationMatchesPyTorchBounds) {
  n::Linear fc(100, 50);
  EXPECT_LE(max_abs(fc->weight), 0.1);
  EXPECT_GT(max_abs(fc->weight), 0.095);
  EXPECT_NEAR(std_of(fc->weight), 0.1 / std::sqrt(3.0), 0.004);  // uniform(-b, b): b / sqrt(3)
  EXPECT_LE(max_abs(fc->bias), 0.1);
  n::Conv2d conv(n::Conv2dOptions(4, 8, 3));  // fan_in 4 * 9
  EXPECT_LE(max_abs(conv->weight), 1.0 / 6.0);
  EXPECT_GT(max_abs(conv->weight), 0.15);
  EXPECT_LE(max_abs(conv->bias), 1.0 / 6.0);
  n::ConvTranspose2d convt(n::ConvTranspose2dOptions(4, 8, 3));  // fan_in from weight (4, 8, 3, 3): 72
  EXPECT_LE(max_abs(convt->weight), 1.0 / std::sqrt(72.0));
  n::Embedding emb(n::EmbeddingOptions(2000, 10).padding_idx(-1));
  EXPECT_EQ(emb->options.padding_idx(), 1999);
  EXPECT_NEAR(std_of(emb->weight), 1.0, 0.03);
  expect_near(emb->weight.select(0, 1999), std::vector<double>(10, 0.0));
  n::BatchNorm1d bn(3);
  expect_near(bn->weight, {1, 1, 1});
  expect_near(bn->bias, {0, 0, 0});
  expect_near(bn->running_var, {1, 1, 1});
  EXPECT_EQ(bn->num_batches_tracked.dtype(), ScalarType::kInt64);
  n::LSTM lstm(n::LSTMOptions(3, 16));
  for (const Tensor& p : lstm->parameters()) EXPECT_LE(max_abs(p), 0.25);
  n::MultiheadAttention mha(8, 2);  // xavier_uniform_ of (24, 8): sqrt(6 / 32)
  EXPECT_LE(max_abs(mha->in_proj_weight), std::sqrt(6.0 / 32.0));
  expect_near(mha->in_proj_bias, std::vector<double>(24, 0.0));
  expect_near(n::PReLU()->weight, {0.25});
  n::Linear again(100, 50);  // reset_parameters draws anew
  EXPECT_GT(max_abs(again->weight - fc->weight), 0);
}

// --- train and eval --------------------------------------------------------------------------------

TEST_F(NnModules, BatchNormUsesBatchStatisticsInTrainingAndRunningOnesInEval) {
  n::BatchNorm1d bn(2);
  bn->to(ScalarType::kFloat64);
  const Tensor x = vec({1, 10, 3, 20, 5, 30}).reshape({3, 2});
  const Tensor y = bn(x);
  expect_near(y.select(1, 0), {-std::sqrt(1.5), 0, std::sqrt(1.5)}, 1e-4);  // batch statistics (biased var)
  expect_near(bn->running_mean, {0.3, 2.0});                                // 0.9 * 0 + 0.1 * mean
  expect_near(bn->running_var, {0.9 + 0.1 * 4, 0.9 + 0.1 * 100});            // unbiased batch variance
  EXPECT_EQ(bn->num_batches_tracked.item<std::int64_t>(), 1);
  bn->eval();
  const Tensor z = bn(x);
  expect_near(z.select(1, 0), {(1 - 0.3) / std::sqrt(1.3 + 1e-5), (3 - 0.3) / std::sqrt(1.3 + 1e-5),
                               (5 - 0.3) / std::sqrt(1.3 + 1e-5)});
  EXPECT_EQ(bn->num_batches_tracked.item<std::int64_t>(), 1);  // eval leaves the statistics alone
  // momentum None: the running mean is the average of the batch means.
  n::BatchNorm1d cumulative(n::BatchNorm1dOptions(1).momentum(std::nullopt));
  cumulative->to(ScalarType::kFloat64);
  (void)cumulative(vec({1, 3}).reshape({2, 1}));
  (void)cumulative(vec({5, 7}).reshape({2, 1}));
  expect_near(cumulative->running_mean, {4.0});
  // Without running statistics, eval normalises with the batch's.
  n::BatchNorm1d untracked(n::BatchNorm1dOptions(1).track_running_stats(false));
  untracked->to(ScalarType::kFloat64);
  untracked->eval();
  EXPECT_EQ(untracked->state_dict().size(), 2U);
  expect_near(untracked(vec({1, 3}).reshape({2, 1})).select(1, 0), {-1, 1}, 1e-4);
}

TEST_F(NnModules, DropoutZeroesAndScalesOnlyInTraining) {
  n::Dropout drop(0.5);
  const Tensor x = ones({20000}, ScalarType::kFloat64);
  const std::vector<double> y = values(drop(x));
  const auto zeros_seen = std::count(y.begin(), y.end(), 0.0);
  EXPECT_NEAR(static_cast<double>(zeros_seen) / 20000.0, 0.5, 0.02);
  for (double v : y) EXPECT_TRUE(v == 0.0 || v == 2.0);
  drop->eval();
  expect_near(drop(x), values(x));
  n::Dropout2d channels(0.5);
  const Tensor img = ones({4, 50, 3, 3}, ScalarType::kFloat64);
  const Tensor out = channels(img);
  const Tensor per_channel = out.sum({2, 3});  // every channel is all zeros or all twos
  for (double v : values(per_channel)) EXPECT_TRUE(v == 0.0 || v == 18.0) << v;
  n::Dropout none(0.0);
  expect_near(none(x), values(x));
}

TEST_F(NnModules, RecurrentModulesBackpropagate) {
  n::LSTM lstm(n::LSTMOptions(3, 4).num_layers(2).dropout(0.5));
  const Tensor x = randn({5, 2, 3});
  auto [out, state] = lstm(x);
  EXPECT_EQ(out.sizes().vec(), (std::vector<std::int64_t>{5, 2, 4}));
  EXPECT_EQ(std::get<1>(state).sizes().vec(), (std::vector<std::int64_t>{2, 2, 4}));
  out.sum().backward();
  for (const auto& [name, p] : lstm->named_parameters()) {
    ASSERT_TRUE(p.grad().defined()) << name;
    EXPECT_GT(max_abs(p.grad()), 0) << name;
  }
  n::GRU gru(n::GRUOptions(3, 4).batch_first(true));
  auto [gout, h] = gru(randn({2, 5, 3}));
  EXPECT_EQ(gout.sizes().vec(), (std::vector<std::int64_t>{2, 5, 4}));
  EXPECT_EQ(h.sizes().vec(), (std::vector<std::int64_t>{1, 2, 4}));
}

TEST_F(NnModules, EmbeddingFromPretrained) {
  const Tensor table = vec({1, 2, 3, 4, 5, 6}).reshape({3, 2});
  n::Embedding frozen = n::Embedding::from_pretrained(table);
  EXPECT_FALSE(frozen->weight.requires_grad());
  expect_near(frozen(tensor(Value::list({Value(std::int64_t{2}), Value(std::int64_t{0})}), ScalarType::kInt64)),
              {5, 6, 1, 2});
  EXPECT_EQ(frozen->repr(), "Embedding(3, 2)");
  n::Embedding trainable = n::Embedding::from_pretrained(table, n::EmbeddingFromPretrainedOptions().freeze(false));
  EXPECT_TRUE(trainable->weight.requires_grad());
  WICK_EXPECT_THROW_MSG(n::Embedding::from_pretrained(randn({3})), AssertionError,
                        "Embeddings parameter is expected to be 2-dimensional");
}

TEST_F(NnModules, LossWeightsAreBuffers) {
  n::CrossEntropyLoss loss(n::CrossEntropyLossOptions().weight(ones({3})));
  EXPECT_EQ(loss->named_buffers().at(0).first, "weight");
  loss->to(ScalarType::kFloat64);
  EXPECT_EQ(loss->weight.dtype(), ScalarType::kFloat64);
  EXPECT_EQ(n::L1Loss()->state_dict().size(), 0U);
}

// --- errors -------------------------------------------------------------------------------------------

TEST_F(NnModules, BadOptionsAndInputsRaisePyTorchErrors) {
  WICK_EXPECT_THROW_MSG(n::Conv2d(n::Conv2dOptions(3, 4, 3).groups(2)), ValueError,
                        "in_channels must be divisible by groups");
  WICK_EXPECT_THROW_MSG(n::Conv2d(n::Conv2dOptions(4, 3, 3).groups(2)), ValueError,
                        "out_channels must be divisible by groups");
  WICK_EXPECT_THROW_MSG(n::Conv2d(n::Conv2dOptions(4, 4, 3).groups(0)), ValueError, "groups must be a positive integer");
  WICK_EXPECT_THROW_MSG(n::Conv1d(n::Conv1dOptions(1, 1, 3).padding("full")), ValueError,
                        "Invalid padding string 'full', should be one of {'valid', 'same'}");
  WICK_EXPECT_THROW_MSG(n::Conv1d(n::Conv1dOptions(1, 1, 3).padding("same").stride(2)), ValueError,
                        "padding='same' is not supported for strided convolutions");
  WICK_EXPECT_THROW_MSG(n::Conv1d(n::Conv1dOptions(1, 1, 3).padding_mode("mirror")), ValueError,
                        "but got padding_mode='mirror'");
  WICK_EXPECT_THROW_MSG(n::ConvTranspose2d(n::ConvTranspose2dOptions(1, 1, 3).padding_mode("reflect")), ValueError,
                        "Only \"zeros\" padding mode is supported for ConvTranspose2d");
  WICK_EXPECT_THROW_MSG(n::Dropout(1.5), ValueError, "dropout probability has to be between 0 and 1, but got 1.5");
  WICK_EXPECT_THROW_MSG(n::Embedding(n::EmbeddingOptions(3, 2).padding_idx(3)), AssertionError,
                        "Padding_idx must be within num_embeddings");
  WICK_EXPECT_THROW_MSG(n::GroupNorm(3, 4), ValueError, "num_channels must be divisible by num_groups");
  WICK_EXPECT_THROW_MSG(n::MultiMarginLoss(n::MultiMarginLossOptions().p(3)), ValueError,
                        "only p == 1 and p == 2 supported");
  WICK_EXPECT_THROW_MSG(n::MultiheadAttention(6, 4), AssertionError, "embed_dim must be divisible by num_heads");
  WICK_EXPECT_THROW_MSG(n::LSTM(n::LSTMOptions(3, 4).proj_size(4)), ValueError,
                        "proj_size has to be smaller than hidden_size");
  WICK_EXPECT_THROW_MSG(n::RNN(n::RNNOptions(3, 4).nonlinearity("sigmoid")), ValueError,
                        "Unknown nonlinearity 'sigmoid'");
  WICK_EXPECT_THROW_MSG(n::GRU(n::GRUOptions(3, 4).dropout(2)), ValueError, "dropout should be a number in range [0, 1]");
  WICK_EXPECT_THROW_MSG(n::TransformerEncoderLayer(n::TransformerEncoderLayerOptions(4, 2).activation("tanh")),
                        RuntimeError, "activation should be relu/gelu, not tanh");
  WICK_EXPECT_THROW_MSG(n::BatchNorm2d(3)(randn({2, 3, 4})), ValueError, "expected 4D input (got 3D input)");
  WICK_EXPECT_THROW_MSG(n::BatchNorm1d(3)(randn({2, 3, 4, 5})), ValueError, "expected 2D or 3D input (got 4D input)");
  WICK_EXPECT_THROW_MSG(n::InstanceNorm1d(n::InstanceNorm1dOptions(3).affine(true))(randn({2, 4, 5})), ValueError,
                        "expected input's size at dim=1 to match num_features (3), but got: 4.");
  WICK_EXPECT_THROW_MSG(n::LSTM(3, 4)(randn({1, 2, 3, 4})), ValueError,
                        "LSTM: Expected input to be 2-D or 3-D but received 4-D tensor");
  WICK_EXPECT_THROW_MSG(n::GRU(3, 4)(randn({5, 2, 7})), RuntimeError,
                        "input.size(-1) must be equal to input_size. Expected 3, got 7");
  WICK_EXPECT_THROW_MSG(n::RNN(3, 4)(randn({5, 2, 3}), randn({1, 3, 4})), RuntimeError,
                        "Expected hidden size (1, 2, 4), got [1, 3, 4]");
  WICK_EXPECT_THROW_MSG(n::GRUCell(3, 4)(randn({1, 2, 3})), ValueError,
                        "GRUCell: Expected input to be 1-D or 2-D but received 3-D tensor");
  // The cells check widths and batch sizes as PyTorch 1.13 does (messages from it).
  WICK_EXPECT_THROW_MSG(n::RNNCell(3, 4)(randn({2, 5})), RuntimeError, "input has inconsistent input_size: got 5 expected 3");
  WICK_EXPECT_THROW_MSG(n::GRUCell(3, 4)(randn({2, 3}), randn({2, 5})), RuntimeError,
                        "hidden0 has inconsistent hidden_size: got 5, expected 4");
  WICK_EXPECT_THROW_MSG(n::RNNCell(3, 4)(randn({2, 3}), randn({3, 4})), RuntimeError,
                        "Input batch size 2 doesn't match hidden0 batch size 3");
  WICK_EXPECT_THROW_MSG(n::LSTMCell(3, 4)(randn({2, 3}), std::make_tuple(randn({2, 4}), randn({3, 4}))), RuntimeError,
                        "Input batch size 2 doesn't match hidden0 batch size 3");
  WICK_EXPECT_THROW_MSG(n::LSTMCell(3, 4)(randn({3}), std::make_tuple(randn({4}), randn({5}))), RuntimeError,
                        "hidden0 has inconsistent hidden_size: got 5, expected 4");
  EXPECT_EQ(n::RNNCell(3, 4)(randn({3}), randn({4})).sizes().vec(), (std::vector<std::int64_t>{4}));
  // An unknown nonlinearity builds, and fails at forward, as in PyTorch.
  n::RNNCell odd(n::RNNCellOptions(3, 4).nonlinearity("foo"));
  WICK_EXPECT_THROW_MSG(odd(randn({2, 3})), RuntimeError, "Unknown nonlinearity: foo");
  WICK_EXPECT_THROW_MSG(n::Softmax2d()(randn({2, 3})), AssertionError,
                        "Softmax2d: expected input to be 3D or 4D, got 2D instead");
  WICK_EXPECT_THROW_MSG(n::Linear(4, 3)(randn({2, 5})), RuntimeError, "");
  WICK_EXPECT_THROW_MSG(n::MSELoss("avg")(randn({2}), randn({2})), ValueError, "avg is not a valid value for reduction");
}

}  // namespace
}  // namespace wick::testing
