// core/frontend/nn_rnn_utils.cpp - packed sequences: pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence.
/// \file
/// PyTorch 1.13's packing, built from differentiable operators (narrow,
/// cat, stack, full) so that gradients reach the padded input: the data is
/// the input's (time, batch) blocks between consecutive distinct lengths,
/// each flattened time-major; unpacking stacks each step's rows padded to
/// the batch.
#include "wick/nn_rnn_utils.h"

#include <algorithm>

#include "wick/checked.h"
#include "wick/error.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick::nn::utils::rnn {

namespace {

using I64 = std::int64_t;

// The values of an int64 tensor, read on the host.
std::vector<I64> int64s(const Tensor& t) {
  const Tensor c = t.to(Device()).contiguous();
  const auto* p = c.data_ptr<I64>();
  return {p, p + c.numel()};
}

// A (n, *rest) block of padding_value like `like`.
Tensor padding(I64 n, const Tensor& like, double padding_value) {
  std::vector<I64> shape = like.sizes().vec();
  shape[0] = n;
  return full(shape, Scalar(padding_value), like.dtype(), like.device());
}

}  // namespace

PackedSequence::PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices, Tensor unsorted_indices)
    : data_(std::move(data)),
      batch_sizes_(std::move(batch_sizes)),
      sorted_indices_(std::move(sorted_indices)),
      unsorted_indices_(std::move(unsorted_indices)) {
  if (!unsorted_indices_.defined()) unsorted_indices_ = invert_permutation(sorted_indices_);
}

PackedSequence PackedSequence::to(ScalarType dtype) const {
  return {data_.to(dtype), batch_sizes_, sorted_indices_, unsorted_indices_};
}

PackedSequence PackedSequence::to(const Device& device) const {
  const auto move = [&](const Tensor& t) { return t.defined() ? t.to(device) : t; };
  return {move(data_), batch_sizes_, move(sorted_indices_), move(unsorted_indices_)};
}

bool PackedSequence::is_cuda() const { return data_.defined() && data_.device().type() == DeviceType::kCUDA; }

Tensor invert_permutation(const Tensor& permutation) {
  if (!permutation.defined()) return permutation;
  Tensor out = empty_like(permutation);
  out.scatter_(0, permutation, arange(Scalar(permutation.numel()), std::nullopt, 1, ScalarType::kInt64, permutation.device()));
  return out;
}

PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first, bool enforce_sorted) {
  lengths = lengths.to(ScalarType::kInt64).to(Device());
  Tensor sorted_indices;
  if (!enforce_sorted) {
    std::tie(lengths, sorted_indices) = sort(lengths, -1, /*descending=*/true);
    sorted_indices = sorted_indices.to(input.device());
    input = input.index_select(batch_first ? 0 : 1, sorted_indices);
  }
  // PyTorch's _pack_padded_sequence, in its order of checks.
  if (batch_first) input = input.transpose(0, 1);
  WICK_CHECK(lengths.dim() == 1, RuntimeError, "'lengths' argument should be a 1D CPU int64 tensor, but got ",
             lengths.dim(), "D cpu Long tensor");
  const I64 batch = input.size(1);
  const std::vector<I64> len = int64s(lengths);
  WICK_CHECK(input.numel() > 0, RuntimeError, "Cannot pack empty tensors.");
  WICK_CHECK(static_cast<I64>(len.size()) == batch, RuntimeError,
             "Expected `len(lengths)` to be equal to batch_size, but got ", len.size(), " (batch_size=", batch, ")");
  WICK_CHECK(len.back() > 0, RuntimeError,
             "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0");
  for (std::size_t i = 1; i < len.size(); ++i) {
    WICK_CHECK(len[i] <= len[i - 1], RuntimeError,
               "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
               "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
               "if you do not need ONNX exportability.");
  }
  WICK_CHECK(len.front() <= (I64{1} << 40), RuntimeError, "pack_padded_sequence: a length of ", len.front(),
             " is more than a sequence can hold");
  std::vector<I64> step_shape = input.sizes().vec();
  step_shape.erase(step_shape.begin());
  step_shape[0] = -1;
  const I64 steps = input.size(0);
  std::vector<Tensor> blocks;
  std::vector<I64> batch_sizes;
  I64 previous = 0;
  // From the shortest sequence up: between two distinct lengths, the
  // sequences at least that long run (PyTorch slices past the end to nothing).
  for (I64 i = 0; i < batch; ++i) {
    const I64 length = len[static_cast<std::size_t>(batch - 1 - i)];
    if (length <= previous) continue;
    const I64 running = batch - i;
    const I64 start = std::min(previous, steps);
    const I64 stop = std::min(length, steps);
    blocks.push_back(input.narrow(0, start, stop - start).narrow(1, 0, running).contiguous().view(step_shape));
    batch_sizes.insert(batch_sizes.end(), static_cast<std::size_t>(length - previous), running);
    previous = length;
  }
  std::vector<Value> values(batch_sizes.begin(), batch_sizes.end());
  return {cat(blocks, 0), tensor(Value::list(values), ScalarType::kInt64), sorted_indices, Tensor()};
}

std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first, double padding_value,
                                               std::optional<std::int64_t> total_length) {
  const std::vector<I64> batch_sizes = int64s(sequence.batch_sizes().to(ScalarType::kInt64));
  I64 max_length = static_cast<I64>(batch_sizes.size());
  if (total_length) {
    WICK_CHECK(*total_length >= max_length, ValueError,
               "Expected total_length to be at least the length of the longest sequence in input, but got "
               "total_length=",
               *total_length, " and max sequence length being ", max_length);
    max_length = *total_length;
  }
  const Tensor& data = sequence.data();
  WICK_CHECK(!batch_sizes.empty(), RuntimeError, "pad_packed_sequence: batch_sizes is empty");
  const I64 batch = batch_sizes.front();
  std::vector<Tensor> steps;
  std::vector<I64> lengths(static_cast<std::size_t>(batch), 0);
  I64 offset = 0;
  for (std::size_t t = 0; t < batch_sizes.size(); ++t) {
    const I64 running = batch_sizes[t];
    WICK_CHECK(running > 0 && running <= batch, RuntimeError,
               "pad_packed_sequence: batch_sizes must not increase, and be above 0; got ", running, " after ", batch);
    Tensor rows = data.narrow(0, offset, running);
    offset = checked_add(offset, running, "pad_packed_sequence");
    if (running < batch) rows = cat({rows, padding(batch - running, rows, padding_value)}, 0);
    steps.push_back(rows);
    for (I64 b = 0; b < running; ++b) lengths[static_cast<std::size_t>(b)] = static_cast<I64>(t) + 1;
  }
  Tensor padded = stack(steps, 0);
  if (max_length > static_cast<I64>(steps.size())) {
    padded = cat({padded, padding(max_length - static_cast<I64>(steps.size()), padded, padding_value)}, 0);
  }
  if (batch_first) padded = padded.transpose(0, 1);
  std::vector<Value> values(lengths.begin(), lengths.end());
  Tensor out_lengths = tensor(Value::list(values), ScalarType::kInt64);
  if (sequence.unsorted_indices().defined()) {
    padded = padded.index_select(batch_first ? 0 : 1, sequence.unsorted_indices());
    out_lengths = out_lengths.index_select(0, sequence.unsorted_indices().to(Device()));
  }
  return {padded, out_lengths};
}

Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first, double padding_value) {
  WICK_CHECK(!sequences.empty(), RuntimeError, "received an empty list of sequences");
  I64 longest = 0;
  for (const Tensor& s : sequences) longest = std::max(longest, s.size(0));
  // PyTorch copies each sequence into its place: the trailing shape is the
  // first sequence's, and the others broadcast to it.
  std::vector<I64> trailing = sequences.front().sizes().vec();
  std::vector<Tensor> padded;
  for (const Tensor& s : sequences) {
    trailing[0] = s.size(0);
    const DimVector shape = broadcast_shapes(trailing, s.sizes(), "pad_sequence");
    WICK_CHECK(IntArrayRef(shape) == IntArrayRef(trailing), RuntimeError, "output with shape ",
               format_shape(trailing), " doesn't match the broadcast shape ", format_shape(shape));
    const Tensor e = s.expand(trailing);
    padded.push_back(e.size(0) < longest ? cat({e, padding(longest - e.size(0), e, padding_value)}, 0) : e);
  }
  return stack(padded, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted) {
  std::vector<Value> lengths;
  for (const Tensor& s : sequences) lengths.emplace_back(s.size(0));
  return pack_padded_sequence(pad_sequence(sequences), tensor(Value::list(lengths), ScalarType::kInt64), false,
                              enforce_sorted);
}

}  // namespace wick::nn::utils::rnn
