// wick/nn_rnn.h - RNN, LSTM, GRU and RNNCell, LSTMCell, GRUCell.
/// \file
///   nn::LSTM lstm(nn::LSTMOptions(10, 20).num_layers(2).batch_first(true).bidirectional(true));
///   auto [output, state] = lstm(x);                 // x (N, L, 10)
///   auto [h_n, c_n] = state;                        // (4, N, 20) each
///
/// Their layers are the catalog operators torch.lstm, gru, rnn_tanh and
/// rnn_relu, and the cells lstm_cell and the others (Note [Recurrent
/// layers] in dispatch/composite/rnn_ops.cpp), so autograd works through
/// them and a tensor-like can override them. Packed batches
/// (wick/nn_rnn_utils.h) go through forward_with_packed_input, as in
/// libtorch. Shapes, parameter names (weight_ih_l0, weight_hh_l1_reverse,
/// bias_ih_l0, weight_hr_l0 with proj_size) and the initialisation (every
/// tensor uniform(-1/sqrt(hidden_size), 1/sqrt(hidden_size)))
/// are PyTorch's. Inputs are (L, N, H_in), (N, L, H_in) with batch_first,
/// or unbatched (L, H_in); a missing initial state is zeros. Dropout is
/// applied to the outputs of every layer but the last, in training mode.
/// Errors: ValueError "LSTM: Expected input to be 2-D or 3-D but received
/// 4-D tensor", RuntimeError "input.size(-1) must be equal to input_size.
/// Expected 10, got 3" and "Expected hidden size (1, 2, 4), got [1, 3, 4]".
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "wick/export.h"
#include "wick/nn.h"
#include "wick/nn_options.h"
#include "wick/nn_rnn_utils.h"
#include "wick/tensor.h"

namespace wick::nn {

/// Options of nn::RNN (an Elman RNN with tanh or relu); checked when the module is built.
struct RNNOptions {
  /// The two required sizes; the other options keep their defaults.
  RNNOptions(std::int64_t input_size, std::int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  /// Features of each input step (H_in); must match input.size(-1) at forward.
  WICK_ARG(std::int64_t, input_size);
  /// Features of the hidden state. ValueError "hidden_size must be greater than zero" when <= 0.
  WICK_ARG(std::int64_t, hidden_size);
  /// Stacked layers (default 1). ValueError "num_layers must be greater than zero" when <= 0.
  WICK_ARG(std::int64_t, num_layers) = 1;
  /// "tanh" or "relu".
  /// ValueError "Unknown nonlinearity 'x'" for anything else (when the module is built).
  WICK_ARG(std::string, nonlinearity) = "tanh";
  /// Whether each layer has the biases b_ih and b_hh (default true).
  WICK_ARG(bool, bias) = true;
  /// Inputs and outputs are (N, L, H) instead of (L, N, H) (default false); h_n is not affected.
  WICK_ARG(bool, batch_first) = false;
  /// Dropout probability on the outputs of each layer but the last, in training mode (default 0).
  /// ValueError "dropout should be a number in range [0, 1] ..." outside [0, 1].
  WICK_ARG(double, dropout) = 0.0;
  /// Runs a second, reversed direction and concatenates both outputs (default false).
  WICK_ARG(bool, bidirectional) = false;
};

/// Options of nn::LSTM; checked when the module is built.
struct LSTMOptions {
  /// The two required sizes; the other options keep their defaults.
  LSTMOptions(std::int64_t input_size, std::int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  /// Features of each input step (H_in); must match input.size(-1) at forward.
  WICK_ARG(std::int64_t, input_size);
  /// Features of the cell state (and of h without projection). ValueError
  /// "hidden_size must be greater than zero" when <= 0.
  WICK_ARG(std::int64_t, hidden_size);
  /// Stacked layers (default 1). ValueError "num_layers must be greater than zero" when <= 0.
  WICK_ARG(std::int64_t, num_layers) = 1;
  /// Whether each layer has the biases b_ih and b_hh (default true).
  WICK_ARG(bool, bias) = true;
  /// Inputs and outputs are (N, L, H) instead of (L, N, H) (default false); h_n and c_n are not affected.
  WICK_ARG(bool, batch_first) = false;
  /// Dropout probability on the outputs of each layer but the last, in training mode (default 0).
  /// ValueError "dropout should be a number in range [0, 1] ..." outside [0, 1].
  WICK_ARG(double, dropout) = 0.0;
  /// Runs a second, reversed direction and concatenates both outputs (default false).
  WICK_ARG(bool, bidirectional) = false;
  /// > 0: h is projected to this size by weight_hr (smaller than hidden_size).
  /// ValueError "proj_size should be a positive integer or zero to disable projections"
  /// when < 0, "proj_size has to be smaller than hidden_size" when >= hidden_size.
  WICK_ARG(std::int64_t, proj_size) = 0;
};

/// Options of nn::GRU; checked when the module is built.
struct GRUOptions {
  /// The two required sizes; the other options keep their defaults.
  GRUOptions(std::int64_t input_size, std::int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  /// Features of each input step (H_in); must match input.size(-1) at forward.
  WICK_ARG(std::int64_t, input_size);
  /// Features of the hidden state. ValueError "hidden_size must be greater than zero" when <= 0.
  WICK_ARG(std::int64_t, hidden_size);
  /// Stacked layers (default 1). ValueError "num_layers must be greater than zero" when <= 0.
  WICK_ARG(std::int64_t, num_layers) = 1;
  /// Whether each layer has the biases b_ih and b_hh (default true).
  WICK_ARG(bool, bias) = true;
  /// Inputs and outputs are (N, L, H) instead of (L, N, H) (default false); h_n is not affected.
  WICK_ARG(bool, batch_first) = false;
  /// Dropout probability on the outputs of each layer but the last, in training mode (default 0).
  /// ValueError "dropout should be a number in range [0, 1] ..." outside [0, 1].
  WICK_ARG(double, dropout) = 0.0;
  /// Runs a second, reversed direction and concatenates both outputs (default false).
  WICK_ARG(bool, bidirectional) = false;
};

/// What the three recurrent modules share (kept in the module as `config`).
struct RNNConfig {
  /// The cell: RNN with tanh or relu, LSTM or GRU (kRnnTanh by default).
  enum class Mode { kRnnTanh, kRnnRelu, kLstm, kGru };
  /// Which cell the module runs.
  Mode mode = Mode::kRnnTanh;
  /// \var hidden_size
  /// Features of the hidden (LSTM: cell) state.
  /// \var num_layers
  /// Stacked layers.
  /// \var proj_size
  /// LSTM's projection size; 0 without projection (and for RNN, GRU).

  /// Features of each input step.
  std::int64_t input_size = 0, hidden_size = 0, num_layers = 1, proj_size = 0;
  /// \var batch_first
  /// Inputs and outputs are (N, L, H).

  /// Whether the layers have biases.
  bool bias = true, batch_first = false, bidirectional = false;  ///< whether there is a reversed direction
  /// Dropout probability between layers, in training mode.
  double dropout = 0.0;
};

/// The weights of one layer and direction, in PyTorch's order; b_ih, b_hh
/// undefined without bias, w_hr undefined without projection.
struct RNNLayerWeights {
  /// \var w_hh
  /// weight_hh: (gates * hidden_size, hidden_size or proj_size).
  /// \var b_ih
  /// bias_ih: (gates * hidden_size), undefined without bias.
  /// \var b_hh
  /// bias_hh: (gates * hidden_size), undefined without bias.

  /// weight_ih: (gates * hidden_size, input features); gates is 1 (RNN), 4 (LSTM) or 3 (GRU).
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;  ///< weight_hr: (proj_size, hidden_size), undefined without projection
};

/// nn::RNN's module: an Elman RNN, h' = tanh or relu(x W_ih^T + b_ih + h W_hh^T + b_hh).
/// The final state it returns:
/// h_n of RNN and GRU, (h_n, c_n) of LSTM.
class WICK_API RNNImpl : public Callable<RNNImpl> {
 public:
  /// The options type the holder nn::RNN builds from.
  using Options = RNNOptions;
  /// Registers and initialises the weights. ValueError for bad options (see RNNOptions).
  explicit RNNImpl(const RNNOptions& options);
  /// Refills every weight and bias uniformly in (-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
  void reset_parameters();
  /// (output, h_n); hx (num_layers * num_directions, N, hidden_size), zeros when undefined.
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = Tensor());
  /// forward of a packed batch (wick/nn_rnn_utils.h): (packed output, h_n), hx and h_n in the batch's
  /// original order. RuntimeError "input must have 2 dimensions, got 3" for data that is not 2-D.
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(const utils::rnn::PackedSequence& input,
                                                                          const Tensor& hx = Tensor());
  /// "10, 20, num_layers=2, ...": the options that differ from their defaults.
  [[nodiscard]] std::string extra_repr() const override;
  /// The options it was built with (changing them later does not rebuild the module).
  RNNOptions options;
  /// Per layer, then direction.
  std::vector<RNNLayerWeights> all_weights;

 private:
  RNNConfig config_;
};
/// nn::RNN, the holder of an RNNImpl: `nn::RNN(10, 20)` or `nn::RNN(nn::RNNOptions(10, 20))`.
WICK_MODULE(RNN);

/// nn::LSTM's module: a long short-term memory RNN with optional projection (proj_size).
class WICK_API LSTMImpl : public Callable<LSTMImpl> {
 public:
  /// The options type the holder nn::LSTM builds from.
  using Options = LSTMOptions;
  /// Registers and initialises the weights. ValueError for bad options (see LSTMOptions).
  explicit LSTMImpl(const LSTMOptions& options);
  /// Refills every weight and bias uniformly in (-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
  void reset_parameters();
  /// (output, (h_n, c_n)); hx = (h_0, c_0), zeros when undefined.
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(const Tensor& input,
                                                         const std::tuple<Tensor, Tensor>& hx = {});
  /// forward of a packed batch (wick/nn_rnn_utils.h): (packed output, (h_n, c_n)), the states in
  /// the batch's original order.
  std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> forward_with_packed_input(
      const utils::rnn::PackedSequence& input, const std::tuple<Tensor, Tensor>& hx = {});
  /// "10, 20, proj_size=5, ...": the options that differ from their defaults.
  [[nodiscard]] std::string extra_repr() const override;
  /// The options it was built with (changing them later does not rebuild the module).
  LSTMOptions options;
  /// Per layer, then direction.
  std::vector<RNNLayerWeights> all_weights;

 private:
  RNNConfig config_;
};
/// nn::LSTM, the holder of an LSTMImpl: `nn::LSTM(10, 20)` or `nn::LSTM(nn::LSTMOptions(10, 20))`.
WICK_MODULE(LSTM);

/// nn::GRU's module: a gated recurrent unit RNN; h_n as RNNImpl.
class WICK_API GRUImpl : public Callable<GRUImpl> {
 public:
  /// The options type the holder nn::GRU builds from.
  using Options = GRUOptions;
  /// Registers and initialises the weights. ValueError for bad options (see GRUOptions).
  explicit GRUImpl(const GRUOptions& options);
  /// Refills every weight and bias uniformly in (-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
  void reset_parameters();
  /// (output, h_n); hx (num_layers * num_directions, N, hidden_size), zeros when undefined.
  /// Errors as RNNImpl::forward (with "GRU:").
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = Tensor());
  /// forward of a packed batch, as RNNImpl::forward_with_packed_input.
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(const utils::rnn::PackedSequence& input,
                                                                          const Tensor& hx = Tensor());
  /// "10, 20, num_layers=2, ...": the options that differ from their defaults.
  [[nodiscard]] std::string extra_repr() const override;
  /// The options it was built with (changing them later does not rebuild the module).
  GRUOptions options;
  /// Per layer, then direction.
  std::vector<RNNLayerWeights> all_weights;

 private:
  RNNConfig config_;
};
/// nn::GRU, the holder of a GRUImpl: `nn::GRU(10, 20)` or `nn::GRU(nn::GRUOptions(10, 20))`.
WICK_MODULE(GRU);

// --- cells ------------------------------------------------------------------------------------

/// Options of nn::RNNCell.
struct RNNCellOptions {
  /// The two required sizes; the other options keep their defaults.
  RNNCellOptions(std::int64_t input_size, std::int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  /// Features of the input.
  WICK_ARG(std::int64_t, input_size);
  /// Features of the hidden state.
  WICK_ARG(std::int64_t, hidden_size);
  /// Whether the cell has the biases bias_ih and bias_hh (default true).
  WICK_ARG(bool, bias) = true;
  /// "tanh" (default) or "relu"; anything else builds, and forward() raises RuntimeError "Unknown nonlinearity: x".
  WICK_ARG(std::string, nonlinearity) = "tanh";
};

/// Options of nn::LSTMCell and nn::GRUCell.
struct CellOptions {
  /// The two required sizes; bias keeps its default.
  CellOptions(std::int64_t input_size, std::int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  /// Features of the input.
  WICK_ARG(std::int64_t, input_size);
  /// Features of the hidden (and LSTM cell) state.
  WICK_ARG(std::int64_t, hidden_size);
  /// Whether the cell has the biases bias_ih and bias_hh (default true).
  WICK_ARG(bool, bias) = true;
};
/// Options of nn::LSTMCell.
using LSTMCellOptions = CellOptions;
/// Options of nn::GRUCell.
using GRUCellOptions = CellOptions;

/// One step: input (N, input_size) or (input_size), hx zeros when undefined.
class WICK_API RNNCellImpl : public Callable<RNNCellImpl> {
 public:
  /// The options type the holder nn::RNNCell builds from.
  using Options = RNNCellOptions;
  /// Registers weight_ih, weight_hh (and bias_ih, bias_hh with bias) and initialises them.
  explicit RNNCellImpl(const RNNCellOptions& options);
  /// Refills every weight and bias uniformly in (-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
  void reset_parameters();
  /// h' = tanh or relu(input W_ih^T + b_ih + hx W_hh^T + b_hh), shaped like hx.
  /// ValueError "RNNCell: Expected input to be 1-D or 2-D but received 3-D tensor"; RuntimeError, as in
  /// PyTorch, for "input has inconsistent input_size: got 5 expected 3", "Input batch size 2 doesn't match
  /// hidden0 batch size 3", "hidden0 has inconsistent hidden_size: got 5, expected 4" and "Unknown nonlinearity: x".
  Tensor forward(const Tensor& input, const Tensor& hx = Tensor());
  /// "10, 20" plus ", bias=False" and ", nonlinearity=relu" when they differ from the defaults.
  [[nodiscard]] std::string extra_repr() const override;
  /// The options it was built with.
  RNNCellOptions options;
  /// \var weight_hh
  /// (hidden_size, hidden_size).
  /// \var bias_ih
  /// (hidden_size); undefined without bias.

  /// (hidden_size, input_size).
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;  ///< (hidden_size); undefined without bias
};
/// nn::RNNCell, the holder of an RNNCellImpl: `nn::RNNCell(10, 20)`.
WICK_MODULE(RNNCell);

/// One LSTM step: input (N, input_size) or (input_size); h and c zeros when undefined.
class WICK_API LSTMCellImpl : public Callable<LSTMCellImpl> {
 public:
  /// The options type the holder nn::LSTMCell builds from.
  using Options = LSTMCellOptions;
  /// Registers weight_ih, weight_hh (and bias_ih, bias_hh with bias) and initialises them.
  explicit LSTMCellImpl(const LSTMCellOptions& options);
  /// Refills every weight and bias uniformly in (-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
  void reset_parameters();
  /// ValueError "LSTMCell: Expected input to be 1-D or 2-D but received 3-D tensor"; the width and
  /// batch-size RuntimeErrors of RNNCellImpl::forward, for h and c alike. (h', c').
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const std::tuple<Tensor, Tensor>& hx = {});
  /// "10, 20" plus ", bias=False" without bias.
  [[nodiscard]] std::string extra_repr() const override;
  /// The options it was built with.
  LSTMCellOptions options;
  /// \var weight_hh
  /// (4 * hidden_size, hidden_size).
  /// \var bias_ih
  /// (4 * hidden_size); undefined without bias.

  /// (4 * hidden_size, input_size): the input, forget, cell and output gates.
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;  ///< (4 * hidden_size); undefined without bias
};
/// nn::LSTMCell, the holder of an LSTMCellImpl: `nn::LSTMCell(10, 20)`.
WICK_MODULE(LSTMCell);

/// One GRU step: input (N, input_size) or (input_size), hx zeros when undefined.
class WICK_API GRUCellImpl : public Callable<GRUCellImpl> {
 public:
  /// The options type the holder nn::GRUCell builds from.
  using Options = GRUCellOptions;
  /// Registers weight_ih, weight_hh (and bias_ih, bias_hh with bias) and initialises them.
  explicit GRUCellImpl(const GRUCellOptions& options);
  /// Refills every weight and bias uniformly in (-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
  void reset_parameters();
  /// h', shaped like hx. ValueError "GRUCell: Expected input to be 1-D or 2-D but received 3-D tensor";
  /// the width and batch-size RuntimeErrors of RNNCellImpl::forward.
  Tensor forward(const Tensor& input, const Tensor& hx = Tensor());
  /// "10, 20" plus ", bias=False" without bias.
  [[nodiscard]] std::string extra_repr() const override;
  /// The options it was built with.
  GRUCellOptions options;
  /// \var weight_hh
  /// (3 * hidden_size, hidden_size).
  /// \var bias_ih
  /// (3 * hidden_size); undefined without bias.

  /// (3 * hidden_size, input_size): the reset, update and new gates.
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;  ///< (3 * hidden_size); undefined without bias
};
/// nn::GRUCell, the holder of a GRUCellImpl: `nn::GRUCell(10, 20)`.
WICK_MODULE(GRUCell);

}  // namespace wick::nn
