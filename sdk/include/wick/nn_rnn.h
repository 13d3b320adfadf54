// wick/nn_rnn.h - RNN, LSTM, GRU and RNNCell, LSTMCell, GRUCell.
/// \file
///   nn::LSTM lstm(nn::LSTMOptions(10, 20).num_layers(2).batch_first(true).bidirectional(true));
///   auto [output, state] = lstm(x);                 // x (N, L, 10)
///   auto [h_n, c_n] = state;                        // (4, N, 20) each
///
/// Built from linear maps and gates through the typed API, so autograd
/// works through them. Shapes, parameter names (weight_ih_l0,
/// weight_hh_l1_reverse, bias_ih_l0, weight_hr_l0 with proj_size) and the
/// initialisation (every tensor uniform(-1/sqrt(hidden_size), 1/sqrt(hidden_size)))
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
#include "wick/tensor.h"

namespace wick::nn {

struct RNNOptions {
  RNNOptions(std::int64_t input_size, std::int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  WICK_ARG(std::int64_t, input_size);
  WICK_ARG(std::int64_t, hidden_size);
  WICK_ARG(std::int64_t, num_layers) = 1;
  /// "tanh" or "relu".
  WICK_ARG(std::string, nonlinearity) = "tanh";
  WICK_ARG(bool, bias) = true;
  WICK_ARG(bool, batch_first) = false;
  WICK_ARG(double, dropout) = 0.0;
  WICK_ARG(bool, bidirectional) = false;
};

struct LSTMOptions {
  LSTMOptions(std::int64_t input_size, std::int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  WICK_ARG(std::int64_t, input_size);
  WICK_ARG(std::int64_t, hidden_size);
  WICK_ARG(std::int64_t, num_layers) = 1;
  WICK_ARG(bool, bias) = true;
  WICK_ARG(bool, batch_first) = false;
  WICK_ARG(double, dropout) = 0.0;
  WICK_ARG(bool, bidirectional) = false;
  /// > 0: h is projected to this size by weight_hr (smaller than hidden_size).
  WICK_ARG(std::int64_t, proj_size) = 0;
};

struct GRUOptions {
  GRUOptions(std::int64_t input_size, std::int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  WICK_ARG(std::int64_t, input_size);
  WICK_ARG(std::int64_t, hidden_size);
  WICK_ARG(std::int64_t, num_layers) = 1;
  WICK_ARG(bool, bias) = true;
  WICK_ARG(bool, batch_first) = false;
  WICK_ARG(double, dropout) = 0.0;
  WICK_ARG(bool, bidirectional) = false;
};

/// What the three recurrent modules share (kept in the module as `config`).
struct RNNConfig {
  enum class Mode { kRnnTanh, kRnnRelu, kLstm, kGru };
  Mode mode = Mode::kRnnTanh;
  std::int64_t input_size = 0, hidden_size = 0, num_layers = 1, proj_size = 0;
  bool bias = true, batch_first = false, bidirectional = false;
  double dropout = 0.0;
};

/// The weights of one layer and direction, in PyTorch's order; b_ih, b_hh
/// undefined without bias, w_hr undefined without projection.
struct RNNLayerWeights {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
};

/// h_n of RNN and GRU, (h_n, c_n) of LSTM.
class WICK_API RNNImpl : public Callable<RNNImpl> {
 public:
  using Options = RNNOptions;
  explicit RNNImpl(const RNNOptions& options);
  void reset_parameters();
  /// (output, h_n); hx (num_layers * num_directions, N, hidden_size), zeros when undefined.
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = Tensor());
  [[nodiscard]] std::string extra_repr() const override;
  RNNOptions options;
  /// Per layer, then direction.
  std::vector<RNNLayerWeights> all_weights;

 private:
  RNNConfig config_;
};
WICK_MODULE(RNN);

class WICK_API LSTMImpl : public Callable<LSTMImpl> {
 public:
  using Options = LSTMOptions;
  explicit LSTMImpl(const LSTMOptions& options);
  void reset_parameters();
  /// (output, (h_n, c_n)); hx = (h_0, c_0), zeros when undefined.
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(const Tensor& input,
                                                         const std::tuple<Tensor, Tensor>& hx = {});
  [[nodiscard]] std::string extra_repr() const override;
  LSTMOptions options;
  std::vector<RNNLayerWeights> all_weights;

 private:
  RNNConfig config_;
};
WICK_MODULE(LSTM);

class WICK_API GRUImpl : public Callable<GRUImpl> {
 public:
  using Options = GRUOptions;
  explicit GRUImpl(const GRUOptions& options);
  void reset_parameters();
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = Tensor());
  [[nodiscard]] std::string extra_repr() const override;
  GRUOptions options;
  std::vector<RNNLayerWeights> all_weights;

 private:
  RNNConfig config_;
};
WICK_MODULE(GRU);

// --- cells ------------------------------------------------------------------------------------

struct RNNCellOptions {
  RNNCellOptions(std::int64_t input_size, std::int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  WICK_ARG(std::int64_t, input_size);
  WICK_ARG(std::int64_t, hidden_size);
  WICK_ARG(bool, bias) = true;
  WICK_ARG(std::string, nonlinearity) = "tanh";
};

struct CellOptions {
  CellOptions(std::int64_t input_size, std::int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  WICK_ARG(std::int64_t, input_size);
  WICK_ARG(std::int64_t, hidden_size);
  WICK_ARG(bool, bias) = true;
};
using LSTMCellOptions = CellOptions;
using GRUCellOptions = CellOptions;

/// One step: input (N, input_size) or (input_size), hx zeros when undefined.
class WICK_API RNNCellImpl : public Callable<RNNCellImpl> {
 public:
  using Options = RNNCellOptions;
  explicit RNNCellImpl(const RNNCellOptions& options);
  void reset_parameters();
  Tensor forward(const Tensor& input, const Tensor& hx = Tensor());
  [[nodiscard]] std::string extra_repr() const override;
  RNNCellOptions options;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;
};
WICK_MODULE(RNNCell);

class WICK_API LSTMCellImpl : public Callable<LSTMCellImpl> {
 public:
  using Options = LSTMCellOptions;
  explicit LSTMCellImpl(const LSTMCellOptions& options);
  void reset_parameters();
  /// (h', c').
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const std::tuple<Tensor, Tensor>& hx = {});
  [[nodiscard]] std::string extra_repr() const override;
  LSTMCellOptions options;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;
};
WICK_MODULE(LSTMCell);

class WICK_API GRUCellImpl : public Callable<GRUCellImpl> {
 public:
  using Options = GRUCellOptions;
  explicit GRUCellImpl(const GRUCellOptions& options);
  void reset_parameters();
  Tensor forward(const Tensor& input, const Tensor& hx = Tensor());
  [[nodiscard]] std::string extra_repr() const override;
  GRUCellOptions options;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;
};
WICK_MODULE(GRUCell);

}  // namespace wick::nn
