// wick/nn_rnn_utils.h - packed sequences (torch.nn.utils.rnn): PackedSequence, pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence.
/// \file
/// A batch of sequences of different lengths, packed so that a recurrent
/// module runs each only for its own length:
///
///   namespace rnn = wick::nn::utils::rnn;
///   rnn::PackedSequence packed = rnn::pack_padded_sequence(x, lengths, /*batch_first=*/true,
///                                                          /*enforce_sorted=*/false);
///   auto [out, state] = lstm->forward_with_packed_input(packed);
///   auto [padded, out_lengths] = rnn::pad_packed_sequence(out, /*batch_first=*/true);
///
/// The data holds the steps' rows one after another (time-major: every
/// sequence's first element, then every second element, ...), the batch
/// sizes how many sequences are still running at each step. Sequences are
/// packed longest first; with enforce_sorted=false they are sorted first,
/// and sorted_indices/unsorted_indices record the order, which the modules
/// and pad_packed_sequence undo. Every step goes through the dispatcher, so
/// gradients flow from the packed data back to the padded input. Errors
/// are PyTorch 1.13's, with its words.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "wick/device.h"
#include "wick/dtype.h"
#include "wick/export.h"
#include "wick/tensor.h"

namespace wick::nn::utils::rnn {

/// Packed sequences: data (sum of lengths, *), batch_sizes (int64 on the
/// CPU, one per step, not increasing), and the sort order when the batch
/// was sorted by length (undefined otherwise).
class WICK_API PackedSequence {
 public:
  /// An empty packed sequence (data() undefined).
  PackedSequence() = default;
  /// From its parts; unsorted_indices is computed from sorted_indices when
  /// left undefined (the inverse permutation).
  PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices = Tensor(),
                 Tensor unsorted_indices = Tensor());
  /// The steps' rows, one after another.
  [[nodiscard]] const Tensor& data() const noexcept { return data_; }
  /// The number of sequences at each step (int64, CPU).
  [[nodiscard]] const Tensor& batch_sizes() const noexcept { return batch_sizes_; }
  /// Where each packed sequence came from in the original batch, or undefined.
  [[nodiscard]] const Tensor& sorted_indices() const noexcept { return sorted_indices_; }
  /// The inverse of sorted_indices, or undefined.
  [[nodiscard]] const Tensor& unsorted_indices() const noexcept { return unsorted_indices_; }
  /// The same sequences with data converted to `dtype` (batch_sizes and the indices unchanged).
  [[nodiscard]] PackedSequence to(ScalarType dtype) const;
  /// The same sequences with data and the indices on `device` (batch_sizes stays on the CPU).
  [[nodiscard]] PackedSequence to(const Device& device) const;
  /// Whether data is on a CUDA device.
  [[nodiscard]] bool is_cuda() const;

 private:
  Tensor data_, batch_sizes_, sorted_indices_, unsorted_indices_;
};

/// The inverse of a permutation (a 1-D int64 tensor): result[permutation[i]] = i.
/// Undefined for an undefined permutation.
[[nodiscard]] WICK_API Tensor invert_permutation(const Tensor& permutation);

/// Packs a padded batch: input (T, B, *), or (B, T, *) with batch_first;
/// lengths (B) of each sequence (converted to int64). With enforce_sorted
/// the lengths must not increase (RuntimeError "`lengths` array must be
/// sorted in decreasing order when `enforce_sorted` is True. ..."); without,
/// the batch is sorted by length first. RuntimeError for empty input
/// ("Cannot pack empty tensors."), a lengths count other than the batch
/// size ("Expected `len(lengths)` to be equal to batch_size, but got 2
/// (batch_size=3)"), a length <= 0, or lengths that are not 1-D.
[[nodiscard]] WICK_API PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first = false,
                                                           bool enforce_sorted = true);

/// Unpacks to (padded, lengths): padded (T, B, *) (or (B, T, *) with
/// batch_first), filled with padding_value past each sequence's end, T being
/// the longest length or total_length; lengths (B), int64 on the CPU, in
/// the original batch order. ValueError "Expected total_length to be at
/// least the length of the longest sequence in input, but got
/// total_length=3 and max sequence length being 4".
[[nodiscard]] WICK_API std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence,
                                                                      bool batch_first = false,
                                                                      double padding_value = 0.0,
                                                                      std::optional<std::int64_t> total_length =
                                                                          std::nullopt);

/// Pads sequences of shapes (L_i, *) to (max L, B, *), or (B, max L, *) with
/// batch_first, with padding_value. RuntimeError "received an empty list of
/// sequences"; the trailing shapes must agree.
[[nodiscard]] WICK_API Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first = false,
                                           double padding_value = 0.0);

/// pack_padded_sequence(pad_sequence(sequences), their lengths, false, enforce_sorted).
[[nodiscard]] WICK_API PackedSequence pack_sequence(const std::vector<Tensor>& sequences,
                                                    bool enforce_sorted = true);

}  // namespace wick::nn::utils::rnn
