// tests/nn/packed_sequence_test.cpp - PackedSequence, pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence.
/// \file
/// PyTorch 1.13's packings of a small batch (values printed by PyTorch for
/// the same calls), the round trip, sorting and its undoing, the errors,
/// gradients, and the recurrent modules' packed forward against running
/// each sequence alone.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "tests/autograd/test_util.h"
#include "wick/nn_rnn.h"
#include "wick/nn_rnn_utils.h"

namespace wick::testing {
namespace {

namespace rnn = nn::utils::rnn;

class PackedSequenceTest : public AutogradTest {};

Tensor ints(std::vector<std::int64_t> v) {
  std::vector<Value> items(v.begin(), v.end());
  return tensor(Value::list(items), ScalarType::kInt64);
}

std::vector<std::int64_t> int_values(const Tensor& t) {
  const Tensor c = t.to(ScalarType::kInt64).contiguous();
  return {c.data_ptr<std::int64_t>(), c.data_ptr<std::int64_t>() + c.numel()};
}

// (T=4, B=3, 2): element (t, b, k) is 6t + 2b + k.
Tensor padded() { return arange(Scalar(24.0)).reshape({4, 3, 2}); }

TEST_F(PackedSequenceTest, PacksAsPyTorch) {
  const rnn::PackedSequence p = rnn::pack_padded_sequence(padded(), ints({4, 2, 1}));
  EXPECT_EQ(values(p.data()), (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 18, 19}));
  EXPECT_EQ(int_values(p.batch_sizes()), (std::vector<std::int64_t>{3, 2, 1, 1}));
  EXPECT_FALSE(p.sorted_indices().defined());
  // Unsorted lengths, sorted first: the order is recorded and undone.
  const rnn::PackedSequence q = rnn::pack_padded_sequence(padded(), ints({2, 4, 1}), false, false);
  EXPECT_EQ(values(q.data()), (std::vector<double>{2, 3, 0, 1, 4, 5, 8, 9, 6, 7, 14, 15, 20, 21}));
  EXPECT_EQ(int_values(q.sorted_indices()), (std::vector<std::int64_t>{1, 0, 2}));
  EXPECT_EQ(int_values(q.unsorted_indices()), (std::vector<std::int64_t>{1, 0, 2}));
  const auto [out, lengths] = rnn::pad_packed_sequence(q);
  EXPECT_EQ(int_values(lengths), (std::vector<std::int64_t>{2, 4, 1}));
  EXPECT_EQ(values(out), (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0, 14, 15, 0, 0, 0, 0, 20, 21, 0, 0}));
}

TEST_F(PackedSequenceTest, PadsWithTotalLengthBatchFirstAndPaddingValue) {
  const rnn::PackedSequence p = rnn::pack_padded_sequence(padded(), ints({4, 2, 1}));
  const auto [out, lengths] = rnn::pad_packed_sequence(p, true, -1, 5);
  EXPECT_EQ(out.sizes().vec(), (std::vector<std::int64_t>{3, 5, 2}));
  EXPECT_EQ(values(out.select(0, 1)), (std::vector<double>{2, 3, 8, 9, -1, -1, -1, -1, -1, -1}));
  EXPECT_EQ(int_values(lengths), (std::vector<std::int64_t>{4, 2, 1}));
  const Tensor s = rnn::pad_sequence({ones({2, 3}), full({4, 3}, Scalar(2.0))}, true, -1);
  EXPECT_EQ(s.sizes().vec(), (std::vector<std::int64_t>{2, 4, 3}));
  EXPECT_EQ(values(s.select(0, 0)), (std::vector<double>{1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1}));
  const rnn::PackedSequence ps = rnn::pack_sequence({ones({2, 3}), full({4, 3}, Scalar(2.0))}, false);
  EXPECT_EQ(int_values(ps.batch_sizes()), (std::vector<std::int64_t>{2, 2, 1, 1}));
  EXPECT_EQ(int_values(ps.sorted_indices()), (std::vector<std::int64_t>{1, 0}));
}

TEST_F(PackedSequenceTest, ErrorsArePyTorchs) {
  expect_error_containing([] { (void)rnn::pack_padded_sequence(padded(), ints({2, 4, 1})); },
                 "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True.");
  expect_error_containing([] { (void)rnn::pack_padded_sequence(padded(), ints({4, 2})); },
                 "Expected `len(lengths)` to be equal to batch_size, but got 2 (batch_size=3)");
  expect_error_containing([] { (void)rnn::pack_padded_sequence(padded(), ints({4, 2, 0})); },
                 "Length of all samples has to be greater than 0");
  expect_error_containing([] { (void)rnn::pack_padded_sequence(padded().narrow(0, 0, 0), ints({})); },
                 "Cannot pack empty tensors.");
  expect_error_containing([] { (void)rnn::pad_packed_sequence(rnn::pack_padded_sequence(padded(), ints({4, 2, 1})), false, 0, 3); },
                 "Expected total_length to be at least the length of the longest sequence in input, but got "
                 "total_length=3 and max sequence length being 4");
  expect_error_containing([] { (void)rnn::pad_sequence({}); }, "received an empty list of sequences");
  expect_error_containing([] { (void)rnn::pad_sequence({ones({2, 3}), ones({4, 2})}); },
                 "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
}

TEST_F(PackedSequenceTest, GradientsReachThePaddedInputOnlyWhereItIsRead) {
  const Tensor x = randn({4, 3, 2}, ScalarType::kFloat64).requires_grad_(true);
  const rnn::PackedSequence p = rnn::pack_padded_sequence(x, ints({4, 2, 1}));
  const auto [out, lengths] = rnn::pad_packed_sequence(p);
  const Tensor g = autograd::grad({sum(out)}, {x})[0];
  // Ones where a sequence has an element, zeros in the padding.
  EXPECT_EQ(values(g.select(2, 0)), (std::vector<double>{1, 1, 1, 1, 1, 0, 1, 0, 0, 1, 0, 0}));
}

TEST_F(PackedSequenceTest, ModulesRunEachSequenceForItsOwnLength) {
  manual_seed(2);
  nn::LSTM lstm(nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true).batch_first(true));
  nn::GRU gru(nn::GRUOptions(2, 3));
  const Tensor x = randn({3, 4, 2});  // batch first: 3 sequences of at most 4 steps
  const std::vector<std::int64_t> lengths = {2, 4, 1};
  const rnn::PackedSequence p = rnn::pack_padded_sequence(x, ints(lengths), true, false);
  const Tensor h0 = randn({4, 3, 3});
  const Tensor c0 = randn({4, 3, 3});
  const auto [out, state] = lstm->forward_with_packed_input(p, {h0, c0});
  const auto [padded_out, out_lengths] = rnn::pad_packed_sequence(out, true);
  EXPECT_EQ(int_values(out_lengths), (std::vector<std::int64_t>{2, 4, 1}));
  const auto [gru_out, gru_h] = gru->forward_with_packed_input(p);
  for (std::int64_t b = 0; b < 3; ++b) {
    const Tensor alone = x.narrow(0, b, 1).narrow(1, 0, lengths[static_cast<std::size_t>(b)]);
    const auto [want, want_state] = lstm(alone, std::make_tuple(h0.narrow(1, b, 1), c0.narrow(1, b, 1)));
    EXPECT_TRUE(allclose(padded_out.narrow(0, b, 1).narrow(1, 0, lengths[static_cast<std::size_t>(b)]), want, 1e-5,
                         1e-6));
    EXPECT_TRUE(allclose(std::get<0>(state).narrow(1, b, 1), std::get<0>(want_state), 1e-5, 1e-6));
    EXPECT_TRUE(allclose(std::get<1>(state).narrow(1, b, 1), std::get<1>(want_state), 1e-5, 1e-6));
    const auto [gru_want, gru_want_h] = gru(alone.transpose(0, 1));
    EXPECT_TRUE(allclose(gru_h.narrow(1, b, 1), gru_want_h, 1e-5, 1e-6));
  }
  expect_error_containing([&] { (void)gru->forward_with_packed_input(rnn::PackedSequence(ones({2, 3, 2}), ints({1, 1}))); },
                 "input must have 2 dimensions, got 3");
  const rnn::PackedSequence sorted = rnn::pack_padded_sequence(x, ints({4, 2, 1}), true);
  expect_error_containing([&] { (void)gru->forward_with_packed_input(sorted, zeros({1, 2, 3})); },
                 "Expected hidden size (1, 3, 3), got [1, 2, 3]");
}

}  // namespace
}  // namespace wick::testing
