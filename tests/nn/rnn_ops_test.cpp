// tests/nn/rnn_ops_test.cpp - torch.lstm, gru, rnn_tanh, rnn_relu (padded and packed) and the cells as operators.
/// \file
/// Properties that hold whatever the values (PyTorch 1.13's values and
/// messages are checked by the differential test and the module reference
/// cases): a packed batch computes what each of its sequences computes
/// alone, batch_first is a transpose, the modules call these operators, the
/// gradients reach every input, and PyTorch's checks come first.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "tests/autograd/test_util.h"
#include "wick/nn_rnn.h"

namespace wick::testing {
namespace {

class RnnOps : public AutogradTest {};

void expect_close(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.sizes().vec(), b.sizes().vec());
  EXPECT_TRUE(allclose(a, b, 1e-12, 1e-12)) << "max difference " << max(abs(sub(a, b))).item<double>();
}

// Two layers, both directions, with biases: 16 parameters for LSTM (4 per layer and direction).
std::vector<Tensor> lstm_params(std::int64_t in, std::int64_t hidden) {
  std::vector<Tensor> p;
  for (std::int64_t layer = 0; layer < 2; ++layer) {
    for (int dir = 0; dir < 2; ++dir) {
      const std::int64_t width = layer == 0 ? in : 2 * hidden;
      for (const auto& shape : std::vector<std::vector<std::int64_t>>{
               {4 * hidden, width}, {4 * hidden, hidden}, {4 * hidden}, {4 * hidden}}) {
        p.push_back(mul(drandn(shape, false), wrap_scalar(Scalar(0.4))));
      }
    }
  }
  return p;
}

TEST_F(RnnOps, APackedBatchComputesWhatEachSequenceComputesAlone) {
  manual_seed(7);
  const std::int64_t in = 3;
  const std::int64_t hidden = 4;
  const std::vector<Tensor> params = lstm_params(in, hidden);
  // Three sequences of lengths 4, 2 and 1, packed time-major: batch sizes 3, 2, 1, 1.
  const std::vector<std::int64_t> lengths = {4, 2, 1};
  std::vector<Tensor> seqs;
  for (const std::int64_t n : lengths) seqs.push_back(drandn({n, in}, false));
  const Tensor h0 = drandn({4, 3, hidden}, false);
  const Tensor c0 = drandn({4, 3, hidden}, false);
  std::vector<Tensor> rows;
  for (std::int64_t t = 0; t < 4; ++t) {
    for (std::size_t b = 0; b < seqs.size(); ++b) {
      if (t < lengths[b]) rows.push_back(seqs[b].narrow(0, t, 1));
    }
  }
  const Tensor data = cat(rows, 0);
  const Tensor batch_sizes = tensor(Value::list({Value(3), Value(2), Value(1), Value(1)}), ScalarType::kInt64);
  const auto [packed_out, h_n, c_n] = lstm(data, batch_sizes, {h0, c0}, params, true, 2, 0.0, false, true);
  ASSERT_EQ(packed_out.sizes().vec(), (std::vector<std::int64_t>{7, 2 * hidden}));
  std::int64_t row = 0;
  std::vector<std::int64_t> offsets(4);
  for (std::int64_t t = 0; t < 4; ++t) {
    offsets[t] = row;
    for (const std::int64_t n : lengths) row += t < n ? 1 : 0;
  }
  for (std::size_t b = 0; b < seqs.size(); ++b) {
    const auto i = static_cast<std::int64_t>(b);
    const auto [out, h, c] = lstm(unsqueeze(seqs[b], 1), {h0.narrow(1, i, 1), c0.narrow(1, i, 1)}, params, true, 2,
                                  0.0, false, true, false);
    for (std::int64_t t = 0; t < lengths[b]; ++t) expect_close(packed_out.narrow(0, offsets[t] + i, 1), out.select(0, t));
    expect_close(h_n.narrow(1, i, 1), h);
    expect_close(c_n.narrow(1, i, 1), c);
  }
}

TEST_F(RnnOps, BatchFirstIsATranspose) {
  manual_seed(3);
  const Tensor x = drandn({2, 5, 3}, false);  // batch first
  const Tensor h0 = drandn({1, 2, 4}, false);
  const std::vector<Tensor> params = {drandn({12, 3}, false), drandn({12, 4}, false), drandn({12}, false), drandn({12}, false)};
  const auto [a, ha] = gru(x, h0, params, true, 1, 0.0, false, false, true);
  const auto [b, hb] = gru(x.transpose(0, 1), h0, params, true, 1, 0.0, false, false, false);
  expect_close(a, b.transpose(0, 1));
  expect_close(ha, hb);
}

TEST_F(RnnOps, TheModulesCallTheOperators) {
  manual_seed(5);
  // float32 modules: the same operations on the same values give the same bits.
  nn::RNN rnn(nn::RNNOptions(3, 4).nonlinearity("relu").num_layers(2));
  const Tensor x = randn({6, 2, 3});
  const auto [out, h] = rnn(x);
  std::vector<Tensor> params;
  for (const auto& w : rnn->all_weights) params.insert(params.end(), {w.w_ih, w.w_hh, w.b_ih, w.b_hh});
  const auto [want, want_h] = rnn_relu(x, zeros({2, 2, 4}), params, true, 2, 0.0, true, false, false);
  expect_close(out, want);
  expect_close(h, want_h);
  nn::GRUCell cell(nn::GRUCellOptions(3, 4));
  const Tensor hx = randn({2, 4});
  expect_close(cell(x.select(0, 0), hx),
               gru_cell(x.select(0, 0), hx, cell->weight_ih, cell->weight_hh, cell->bias_ih, cell->bias_hh));
}

TEST_F(RnnOps, GradientsReachEveryInput) {
  manual_seed(11);
  const Tensor x = drandn({3, 2, 3}, false).requires_grad_(true);
  const Tensor h0 = drandn({1, 2, 2}, false).requires_grad_(true);
  const Tensor c0 = drandn({1, 2, 4}, false).requires_grad_(true);
  // Projections: h is 2 wide, c 4.
  std::vector<Tensor> params = {drandn({16, 3}, false), drandn({16, 2}, false), drandn({16}, false), drandn({16}, false), drandn({2, 4}, false)};
  for (Tensor& p : params) p.requires_grad_(true);
  const auto [out, h, c] = lstm(x, {h0, c0}, params, true, 1, 0.0, false, false, false);
  std::vector<Tensor> inputs = {x, h0, c0};
  inputs.insert(inputs.end(), params.begin(), params.end());
  const auto grads = autograd::grad({add(sum(out), add(sum(h), sum(c)))}, inputs);
  for (std::size_t i = 0; i < grads.size(); ++i) {
    ASSERT_TRUE(grads[i].defined()) << i;
    EXPECT_GT(sum(abs(grads[i])).item<double>(), 0) << i;
  }
}

TEST_F(RnnOps, PyTorchsChecksComeFirst) {
  const Tensor x = ones({3, 2, 4});
  const Tensor h = zeros({1, 2, 5});
  const std::vector<Tensor> two = {ones({20, 4}), ones({20, 5})};
  expect_error_containing([&] { (void)lstm(x, {h}, two, false, 1, 0.0, false, false, false); }, "lstm expects two hidden states");
  expect_error_containing([&] { (void)lstm(x, {h, h}, {ones({20, 4}), ones({20, 5}), ones({20})}, true, 1, 0.0, false, false, false); },
                 "got an incorrect number of RNN parameters");
  expect_error_containing([&] { (void)lstm(x, {h, h}, two, false, 1, 0.0, false, true, false); },
                 "Odd number of params or hiddens given to a bidirectional RNN");
  expect_error_containing([&] { (void)lstm(x, {h, h}, two, false, 2, 0.0, false, false, false); },
                 "Expected more hidden states in stacked_rnn");
  expect_error_containing([&] { (void)gru(ones({5, 4}), tensor(Value::list({Value(2), Value(1), Value(2)}), ScalarType::kInt64),
                                 h, {ones({15, 4}), ones({15, 5})}, false, 1, 0.0, false, false); },
                 "output with shape [1, 5] doesn't match the broadcast shape [2, 5]");
  expect_error_containing([&] { (void)lstm_cell(ones({2, 3}), {zeros({2, 5}), zeros({2, 5})}, ones({20, 4}), ones({20, 5})); },
                 "input has inconsistent input_size: got 3 expected 4");
  expect_error_containing([&] { (void)rnn_tanh_cell(ones({2, 4}), zeros({3, 5}), ones({5, 4}), ones({5, 5})); },
                 "Input batch size 2 doesn't match hidden0 batch size 3");
}

}  // namespace
}  // namespace wick::testing
