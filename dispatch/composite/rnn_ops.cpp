// dispatch/composite/rnn_ops.cpp - CompositeImplicit kernels of torch.lstm, gru, rnn_tanh, rnn_relu and their cells.
/// \file
/// Note [Recurrent layers]
/// ~~~~~~~~~~~~~~~~~~~~~~~
/// The layers behind nn.RNN, nn.LSTM and nn.GRU, as PyTorch 1.13's CPU
/// computes them, so that values, gradients and messages agree:
/// - Each layer and direction first maps its whole input at once (x W_ih^T
///   + b_ih for every step: one GEMM), then walks the steps. A step adds
///   the hidden gates h W_hh^T + b_hh first and the input gates second, as
///   PyTorch's cells do (in place there: a packed batch that grows between
///   steps fails with its in-place message here too), then applies the
///   cell: tanh or relu; LSTM's c' = sigmoid(f) c + sigmoid(i) tanh(g),
///   h' = sigmoid(o) tanh(c'), projected by W_hr when there are
///   projections (h_0 narrower than c_0); GRU's r and z from the sums of
///   the first two thirds, n = tanh(i_n + r h_n), h' = (h - n) z + n.
/// - The reverse direction walks backwards and stores each step's h at its
///   own time; its output is concatenated after the forward one's.
/// - A packed sequence (data, batch_sizes) narrows the hidden state as the
///   batch shrinks, keeping the finished rows for h_n (and, backwards, adds
///   their initial rows as the batch grows).
/// - dropout applies to each layer's output but the last's, when train.
/// - Checks, in PyTorch's order: LSTM's two hidden states, the devices of
///   the hidden states and parameters, the number of parameters (4 per
///   layer and direction with biases, 2 without, one more with
///   projections), pairs for a bidirectional stack, then as many hidden
///   states and weight groups as layers ("Expected more hidden states in
///   stacked_rnn"). Everything else is the parts' own errors (linear's
///   "mat1 and mat2 shapes cannot be multiplied"), as in PyTorch. The cells
///   check the input's and hidden states' sizes against the weights.
/// Every operation goes through the dispatcher, so autograd records the
/// graph: no backward is written here. The per-step slices of the input
/// gates come from one TimeSteps node (Note [Time steps of a sequence]).
#include <algorithm>
#include <optional>
#include <tuple>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/autograd_function.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using T = const Tensor&;
using Tensors = const std::vector<Tensor>&;
using OptTensor = const std::optional<Tensor>&;
using I64 = std::int64_t;

enum class Cell { kTanh, kRelu, kLstm, kGru };

// One layer's and direction's weights (b_ih, b_hh and w_hr may be undefined).
struct Weights {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
};

// h, and LSTM's c.
struct Hidden {
  Tensor h, c;
};

std::optional<Tensor> opt(T t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; }

// Note [Time steps of a sequence]
// The input projections of every time step are one GEMM over the sequence;
// each step then reads its slice. Sliced with select, each slice's backward
// would place its gradient into zeros of the whole sequence, and the engine
// would add those T sequence-sized tensors up: quadratic in the length. Cut
// by TimeSteps, the T step gradients are stacked into one tensor instead.
struct TimeSteps : autograd::Function<TimeSteps> {
  static std::vector<Tensor> forward(autograd::AutogradContext* /*ctx*/, const Tensor& seq) { return seq.unbind(0); }
  static autograd::tensor_list backward(autograd::AutogradContext* /*ctx*/, autograd::tensor_list grads) {
    return {stack(grads, 0)};
  }
  static autograd::tensor_list jvp(autograd::AutogradContext* /*ctx*/, autograd::tensor_list tangents) {
    return tangents[0].unbind(0);
  }
};

// PyTorch adds the input gates into the hidden gates in place: the sum must
// have the hidden gates' shape.
void check_adds_into(T hidden_gates, T input_gates) {
  const DimVector shape = broadcast_shapes(hidden_gates.sizes(), input_gates.sizes(), "torch.add");
  WICK_CHECK(IntArrayRef(shape) == hidden_gates.sizes(), RuntimeError, "output with shape ",
             format_shape(hidden_gates.sizes()), " doesn't match the broadcast shape ", format_shape(shape));
}

// PyTorch's LSTM and GRU cells apply sigmoid_ in place to their gates,
// which an integer dtype cannot hold (its RNN cells' tanh and relu are not
// in place: integers go on there).
void check_gates_hold_floats(T gates) {
  const ScalarType t = gates.dtype();
  WICK_CHECK(is_floating(t) || is_complex(t), RuntimeError, "result type ",
             type_title(kDefaultFloat), " can't be cast to the desired output type ",
             type_title(t));
}

// One step: `input_gates` is x W_ih^T + b_ih.
Hidden step(Cell cell, T input_gates, const Hidden& hx, const Weights& w) {
  const Tensor hidden_gates = nn::functional::linear(hx.h, w.w_hh, opt(w.b_hh));
  if (cell == Cell::kLstm || cell == Cell::kGru) check_gates_hold_floats(hidden_gates);
  switch (cell) {
    case Cell::kTanh:
    case Cell::kRelu: {
      check_adds_into(hidden_gates, input_gates);
      const Tensor sum = add(hidden_gates, input_gates);
      return {cell == Cell::kTanh ? tanh(sum) : relu(sum), Tensor()};
    }
    case Cell::kLstm: {
      check_adds_into(hidden_gates, input_gates);
      const std::vector<Tensor> g = chunk(add(hidden_gates, input_gates), 4, 1);
      const Tensor c = add(mul(sigmoid(g[1]), hx.c), mul(sigmoid(g[0]), tanh(g[2])));
      const Tensor h = mul(sigmoid(g[3]), tanh(c));
      return {w.w_hr.defined() ? nn::functional::linear(h, w.w_hr, std::nullopt) : h, c};
    }
    case Cell::kGru: {
      const std::vector<Tensor> i = chunk(input_gates, 3, 1);
      const std::vector<Tensor> g = chunk(hidden_gates, 3, 1);
      check_adds_into(g[0], i[0]);
      const Tensor r = sigmoid(add(g[0], i[0]));
      const Tensor z = sigmoid(add(g[1], i[1]));
      const Tensor n = tanh(add(i[2], mul(g[2], r)));
      return {add(mul(sub(hx.h, n), z), n), Tensor()};
    }
  }
  return hx;
}

// --- checks and parameters --------------------------------------------------------------------

// PyTorch's check_attributes: hidden states, then parameters, on the input's device.
void check_devices(T input, const std::vector<Tensor>& hiddens, Tensors params) {
  const auto check = [&](const char* name, T t) {
    if (!t.defined()) return;
    WICK_CHECK(t.device() == input.device(), RuntimeError, "Input and ", name,
               " tensors are not at the same device, found input tensor at ", input.device().str(), " and ", name,
               " tensor at ", t.device().str());
  };
  for (T h : hiddens) check("hidden", h);
  for (T p : params) check("parameter", p);
}

// params as weight groups: w_ih, w_hh, [b_ih, b_hh], [w_hr].
std::vector<Weights> gather(Tensors params, bool has_biases, bool projections) {
  const std::size_t group = (has_biases ? 4 : 2) + (projections ? 1 : 0);
  WICK_CHECK(params.size() % group == 0, RuntimeError, "got an incorrect number of RNN parameters");
  std::vector<Weights> out;
  for (std::size_t i = 0; i < params.size(); i += group) {
    Weights w{params[i], params[i + 1], Tensor(), Tensor(), Tensor()};
    if (has_biases) {
      w.b_ih = params[i + 2];
      w.b_hh = params[i + 3];
    }
    if (projections) w.w_hr = params[i + group - 1];
    out.push_back(std::move(w));
  }
  return out;
}

// --- layers ------------------------------------------------------------------------------------

struct LayerOutput {
  Tensor output;
  Hidden last;
};

// One direction over a padded sequence (time first).
LayerOutput padded_direction(Cell cell, T input, Hidden h, const Weights& w, bool reverse) {
  const std::vector<Tensor> gates = TimeSteps::apply(nn::functional::linear(input, w.w_ih, opt(w.b_ih)));
  const std::size_t steps = gates.size();
  std::vector<Tensor> outs(steps);
  for (std::size_t s = 0; s < steps; ++s) {
    const std::size_t t = reverse ? steps - 1 - s : s;
    h = step(cell, gates[t], h, w);
    outs[t] = h.h;
  }
  return {stack(outs, 0), h};
}

Hidden narrow_hidden(const Hidden& h, I64 start, I64 length) {
  return {h.h.narrow(0, start, length), h.c.defined() ? h.c.narrow(0, start, length) : Tensor()};
}

Hidden cat_hidden(const std::vector<Hidden>& parts) {
  std::vector<Tensor> hs, cs;
  for (const Hidden& p : parts) {
    hs.push_back(p.h);
    if (p.c.defined()) cs.push_back(p.c);
  }
  return {cat(hs, 0), cs.empty() ? Tensor() : cat(cs, 0)};
}

// One direction over a packed sequence: the batch shrinks step by step
// (forwards, the finished rows are kept for the final state; backwards, the
// rows that start are added from the initial state).
LayerOutput packed_direction(Cell cell, T data, const std::vector<I64>& batch_sizes, const Hidden& h0,
                             const Weights& w, bool reverse) {
  const Tensor gates = nn::functional::linear(data, w.w_ih, opt(w.b_ih));
  const std::size_t steps = batch_sizes.size();
  std::vector<Tensor> outs;
  if (!reverse) {
    std::vector<Hidden> finished;
    Hidden h = h0;
    I64 offset = 0;
    I64 last = batch_sizes[0];
    for (std::size_t i = 0; i < steps; ++i) {
      const I64 batch = batch_sizes[i];
      const Tensor step_gates = gates.narrow(0, offset, batch);
      offset = checked_add(offset, batch, "batch_sizes");
      if (last - batch > 0) {
        finished.push_back(narrow_hidden(h, batch, last - batch));
        h = narrow_hidden(h, 0, batch);
      }
      last = batch;
      h = step(cell, step_gates, h, w);
      outs.push_back(h.h);
    }
    finished.push_back(h);
    std::reverse(finished.begin(), finished.end());
    return {cat(outs, 0), cat_hidden(finished)};
  }
  I64 offset = gates.size(0);
  I64 last = batch_sizes[steps - 1];
  Hidden h = narrow_hidden(h0, 0, last);
  for (std::size_t s = 0; s < steps; ++s) {
    const std::size_t i = steps - 1 - s;
    const I64 batch = batch_sizes[i];
    if (batch - last > 0) h = cat_hidden({h, narrow_hidden(h0, last, batch - last)});
    const Tensor step_gates = gates.narrow(0, offset - batch, batch);
    offset -= batch;
    last = batch;
    h = step(cell, step_gates, h, w);
    outs.push_back(h.h);
  }
  std::reverse(outs.begin(), outs.end());
  return {cat(outs, 0), h};
}

struct StackResult {
  Tensor output, h_n, c_n;
};

// Every layer, each direction, dropout between layers: PyTorch's apply_layer_stack.
StackResult run_stack(Cell cell, Tensor input, const std::vector<I64>* batch_sizes, T hx, T cx,
                      Tensors params, bool has_biases, I64 num_layers, double dropout, bool train,
                      bool bidirectional) {
  const bool lstm = cell == Cell::kLstm;
  check_devices(input, lstm ? std::vector<Tensor>{hx, cx} : std::vector<Tensor>{hx}, params);
  const bool projections = lstm && hx.size(2) != cx.size(2);
  const std::vector<Weights> weights = gather(params, has_biases, projections);
  const std::vector<Tensor> layer_h = hx.unbind(0);
  const std::vector<Tensor> layer_c = lstm ? cx.unbind(0) : std::vector<Tensor>{};
  const std::size_t dirs = bidirectional ? 2 : 1;
  if (bidirectional) {
    WICK_CHECK(layer_h.size() % 2 == 0 && weights.size() % 2 == 0, RuntimeError,
               "Odd number of params or hiddens given to a bidirectional RNN");
  }
  WICK_CHECK(num_layers == static_cast<I64>(layer_h.size() / dirs), RuntimeError,
             "Expected more hidden states in stacked_rnn");
  WICK_CHECK(num_layers == static_cast<I64>(weights.size() / dirs), RuntimeError,
             "Expected more weights in stacked_rnn");
  WICK_CHECK(!lstm || layer_c.size() == layer_h.size(), RuntimeError, "Expected more hidden states in stacked_rnn");
  std::vector<Tensor> h_n, c_n;
  Tensor layer_input = std::move(input);
  for (I64 layer = 0; layer < num_layers; ++layer) {
    std::vector<Tensor> outputs;
    for (std::size_t dir = 0; dir < dirs; ++dir) {
      const std::size_t index = static_cast<std::size_t>(layer) * dirs + dir;
      const Hidden h0{layer_h[index], lstm ? layer_c[index] : Tensor()};
      const LayerOutput r = batch_sizes != nullptr
                                ? packed_direction(cell, layer_input, *batch_sizes, h0, weights[index], dir == 1)
                                : padded_direction(cell, layer_input, h0, weights[index], dir == 1);
      outputs.push_back(r.output);
      h_n.push_back(r.last.h);
      if (lstm) c_n.push_back(r.last.c);
    }
    layer_input = dirs == 2 ? cat(outputs, outputs[0].dim() - 1) : outputs[0];
    if (dropout != 0 && train && layer + 1 < num_layers) layer_input = wick::dropout(layer_input, dropout, true);
  }
  return {layer_input, stack(h_n, 0), lstm ? stack(c_n, 0) : Tensor()};
}

// A packed sequence's batch sizes: int64 on the host, at least one step.
std::vector<I64> packed_batch_sizes(T batch_sizes) {
  WICK_CHECK(batch_sizes.dtype() == ScalarType::kInt64, RuntimeError, "expected scalar type Long but found ",
             type_title(batch_sizes.dtype()));
  WICK_CHECK(batch_sizes.size(0) > 0, IndexError, "index 0 is out of bounds for dimension 0 with size 0");
  return host_int64s(batch_sizes);
}

// --- the operators ------------------------------------------------------------------------------

std::tuple<Tensor, Tensor, Tensor> lstm_kernel(T input, Tensors hx, Tensors params, bool has_biases, I64 num_layers,
                                               double dropout, bool train, bool bidirectional, bool batch_first) {
  WICK_CHECK(hx.size() == 2, RuntimeError, "lstm expects two hidden states");
  const Tensor x = batch_first ? input.transpose(0, 1) : input;
  StackResult r = run_stack(Cell::kLstm, x, nullptr, hx[0], hx[1], params, has_biases, num_layers, dropout, train,
                            bidirectional);
  if (batch_first) r.output = r.output.transpose(0, 1);
  return {r.output, r.h_n, r.c_n};
}

std::tuple<Tensor, Tensor, Tensor> lstm_data_kernel(T data, T batch_sizes, Tensors hx, Tensors params,
                                                    bool has_biases, I64 num_layers, double dropout, bool train,
                                                    bool bidirectional) {
  WICK_CHECK(hx.size() == 2, RuntimeError, "lstm expects two hidden states");
  const std::vector<I64> sizes = packed_batch_sizes(batch_sizes);
  const StackResult r = run_stack(Cell::kLstm, data, &sizes, hx[0], hx[1], params, has_biases, num_layers, dropout,
                                  train, bidirectional);
  return {r.output, r.h_n, r.c_n};
}

template <Cell kCell>
std::tuple<Tensor, Tensor> rnn_kernel(T input, T hx, Tensors params, bool has_biases, I64 num_layers, double dropout,
                                      bool train, bool bidirectional, bool batch_first) {
  const Tensor x = batch_first ? input.transpose(0, 1) : input;
  StackResult r =
      run_stack(kCell, x, nullptr, hx, Tensor(), params, has_biases, num_layers, dropout, train, bidirectional);
  if (batch_first) r.output = r.output.transpose(0, 1);
  return {r.output, r.h_n};
}

template <Cell kCell>
std::tuple<Tensor, Tensor> rnn_data_kernel(T data, T batch_sizes, T hx, Tensors params, bool has_biases,
                                           I64 num_layers, double dropout, bool train, bool bidirectional) {
  const std::vector<I64> sizes = packed_batch_sizes(batch_sizes);
  const StackResult r =
      run_stack(kCell, data, &sizes, hx, Tensor(), params, has_biases, num_layers, dropout, train, bidirectional);
  return {r.output, r.h_n};
}

// The cells' checks (PyTorch's check_rnn_cell_forward_input and _hidden).
void check_cell_input(T input, I64 input_size) {
  WICK_CHECK(input.size(1) == input_size, RuntimeError, "input has inconsistent input_size: got ", input.size(1),
             " expected ", input_size);
}
// Every state is "hidden0" in PyTorch 1.13's messages, LSTM's c too.
void check_cell_hidden(T input, T hx, I64 hidden_size) {
  WICK_CHECK(input.size(0) == hx.size(0), RuntimeError, "Input batch size ", input.size(0),
             " doesn't match hidden0 batch size ", hx.size(0));
  WICK_CHECK(hx.size(1) == hidden_size, RuntimeError, "hidden0 has inconsistent hidden_size: got ", hx.size(1),
             ", expected ", hidden_size);
}

Weights cell_weights(T w_ih, T w_hh, OptTensor b_ih, OptTensor b_hh) {
  return {w_ih, w_hh, b_ih.value_or(Tensor()), b_hh.value_or(Tensor()), Tensor()};
}

std::tuple<Tensor, Tensor> lstm_cell_kernel(T input, Tensors hx, T w_ih, T w_hh, OptTensor b_ih, OptTensor b_hh) {
  WICK_CHECK(hx.size() == 2, RuntimeError, "lstm_cell expects two hidden states");
  check_cell_input(input, w_ih.size(1));
  check_cell_hidden(input, hx[0], w_hh.size(1));
  check_cell_hidden(input, hx[1], w_hh.size(1));
  const Weights w = cell_weights(w_ih, w_hh, b_ih, b_hh);
  const Hidden h = step(Cell::kLstm, nn::functional::linear(input, w_ih, b_ih), {hx[0], hx[1]}, w);
  return {h.h, h.c};
}

template <Cell kCell>
Tensor cell_kernel(T input, T hx, T w_ih, T w_hh, OptTensor b_ih, OptTensor b_hh) {
  check_cell_input(input, w_ih.size(1));
  check_cell_hidden(input, hx, w_hh.size(1));
  const Weights w = cell_weights(w_ih, w_hh, b_ih, b_hh);
  return step(kCell, nn::functional::linear(input, w_ih, b_ih), {hx, Tensor()}, w).h;
}

}  // namespace

void register_rnn_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto torch = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  torch->impl("lstm", &lstm_kernel)
      .impl("lstm.data", &lstm_data_kernel)
      .impl("gru", &rnn_kernel<Cell::kGru>)
      .impl("gru.data", &rnn_data_kernel<Cell::kGru>)
      .impl("rnn_tanh", &rnn_kernel<Cell::kTanh>)
      .impl("rnn_tanh.data", &rnn_data_kernel<Cell::kTanh>)
      .impl("rnn_relu", &rnn_kernel<Cell::kRelu>)
      .impl("rnn_relu.data", &rnn_data_kernel<Cell::kRelu>)
      .impl("lstm_cell", &lstm_cell_kernel)
      .impl("gru_cell", &cell_kernel<Cell::kGru>)
      .impl("rnn_tanh_cell", &cell_kernel<Cell::kTanh>)
      .impl("rnn_relu_cell", &cell_kernel<Cell::kRelu>);
  out.push_back(std::move(torch));
}

}  // namespace wick
