// core/frontend/nn_rnn.cpp - RNN, LSTM, GRU and their cells over torch.lstm, gru, rnn_tanh, rnn_relu and the cells.
/// \file
/// The modules own the parameters and do what PyTorch's Python modules do
/// (unbatched inputs, default states, their shape checks), then call the
/// catalog operators, which compute the layers (Note [Recurrent layers] in
/// dispatch/composite/rnn_ops.cpp): so a tensor-like can override them and
/// every backend runs them.
#include "wick/nn_rnn.h"

#include <cmath>
#include <utility>

#include "core/frontend/nn_repr.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"

namespace wick::nn {

using detail::py;
using Mode = RNNConfig::Mode;
using utils::rnn::PackedSequence;

namespace {

std::optional<Tensor> opt(const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; }

std::int64_t gate_count(Mode m) { return m == Mode::kLstm ? 4 : m == Mode::kGru ? 3 : 1; }

const char* mode_name(Mode m) { return m == Mode::kLstm ? "LSTM" : m == Mode::kGru ? "GRU" : "RNN"; }

Mode rnn_mode(const std::string& nonlinearity) {
  if (nonlinearity == "tanh") return Mode::kRnnTanh;
  WICK_CHECK(nonlinearity == "relu", ValueError, "Unknown nonlinearity '", nonlinearity, "'");
  return Mode::kRnnRelu;
}

// Options to config, with PyTorch's RNNBase checks.
template <class O>
RNNConfig make_config(Mode mode, const O& o, std::int64_t proj_size) {
  WICK_CHECK(o.dropout() >= 0 && o.dropout() <= 1, ValueError,
             "dropout should be a number in range [0, 1] representing the probability of an element being zeroed");
  WICK_CHECK(o.hidden_size() > 0, ValueError, "hidden_size must be greater than zero");
  WICK_CHECK(o.num_layers() > 0, ValueError, "num_layers must be greater than zero");
  WICK_CHECK(proj_size >= 0, ValueError, "proj_size should be a positive integer or zero to disable projections");
  WICK_CHECK(proj_size < o.hidden_size(), ValueError, "proj_size has to be smaller than hidden_size");
  RNNConfig c;
  c.mode = mode;
  c.input_size = o.input_size();
  c.hidden_size = o.hidden_size();
  c.num_layers = o.num_layers();
  c.proj_size = proj_size;
  c.bias = o.bias();
  c.batch_first = o.batch_first();
  c.bidirectional = o.bidirectional();
  c.dropout = o.dropout();
  return c;
}

std::vector<RNNLayerWeights> register_weights(Module& m, const RNNConfig& c) {
  const std::int64_t gates = gate_count(c.mode) * c.hidden_size;
  const std::int64_t real_hidden = c.proj_size > 0 ? c.proj_size : c.hidden_size;
  const std::int64_t dirs = c.bidirectional ? 2 : 1;
  std::vector<RNNLayerWeights> out;
  for (std::int64_t layer = 0; layer < c.num_layers; ++layer) {
    for (std::int64_t dir = 0; dir < dirs; ++dir) {
      const std::int64_t in = layer == 0 ? c.input_size : real_hidden * dirs;
      const std::string suffix = "_l" + std::to_string(layer) + (dir == 1 ? "_reverse" : "");
      RNNLayerWeights w;
      w.w_ih = m.register_parameter("weight_ih" + suffix, empty({gates, in}));
      w.w_hh = m.register_parameter("weight_hh" + suffix, empty({gates, real_hidden}));
      if (c.bias) {
        w.b_ih = m.register_parameter("bias_ih" + suffix, empty({gates}));
        w.b_hh = m.register_parameter("bias_hh" + suffix, empty({gates}));
      }
      if (c.proj_size > 0) w.w_hr = m.register_parameter("weight_hr" + suffix, empty({c.proj_size, c.hidden_size}));
      out.push_back(std::move(w));
    }
  }
  return out;
}

void uniform_all(const std::vector<Tensor>& tensors, std::int64_t hidden_size) {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(hidden_size));
  for (const Tensor& t : tensors) {
    if (t.defined()) init::uniform_(t, -stdv, stdv);
  }
}

void reset_weights(const std::vector<RNNLayerWeights>& weights, std::int64_t hidden_size) {
  for (const RNNLayerWeights& w : weights) uniform_all({w.w_ih, w.w_hh, w.b_ih, w.b_hh, w.w_hr}, hidden_size);
}

std::string rnn_repr(const RNNConfig& c) {
  std::string s = py(c.input_size) + ", " + py(c.hidden_size);
  if (c.proj_size != 0) s += ", proj_size=" + py(c.proj_size);
  if (c.num_layers != 1) s += ", num_layers=" + py(c.num_layers);
  if (!c.bias) s += ", bias=False";
  if (c.batch_first) s += ", batch_first=True";
  if (c.dropout != 0) s += ", dropout=" + py(c.dropout);
  if (c.bidirectional) s += ", bidirectional=True";
  return s;
}

std::string shape_tuple(const std::vector<std::int64_t>& s) { return detail::py_tuple(s); }

std::string shape_list(const Tensor& t) {
  std::string out = "[";
  for (std::int64_t i = 0; i < t.dim(); ++i) out += (i > 0 ? ", " : "") + std::to_string(t.size(i));
  return out + "]";
}

struct RunResult {
  Tensor output, h_n, c_n;
};

// The initial states checked against (or made for) a batch of `batch`
// sequences, with PyTorch's messages ("Expected hidden[0] size (1, 2, 4), got [1, 3, 4]").
void prepare_states(const RNNConfig& c, const Tensor& input, std::int64_t batch, Tensor& h0, Tensor& c0) {
  const bool lstm = c.mode == Mode::kLstm;
  const std::int64_t dirs = c.bidirectional ? 2 : 1;
  const std::int64_t real_hidden = c.proj_size > 0 ? c.proj_size : c.hidden_size;
  const std::vector<std::int64_t> h_shape = {c.num_layers * dirs, batch, real_hidden};
  const std::vector<std::int64_t> c_shape = {c.num_layers * dirs, batch, c.hidden_size};
  if (h0.defined()) {
    WICK_CHECK(h0.sizes().vec() == h_shape, RuntimeError, "Expected hidden", lstm ? "[0]" : "", " size ",
               shape_tuple(h_shape), ", got ", shape_list(h0));
  } else {
    h0 = zeros(h_shape, input.dtype(), input.device());
  }
  if (lstm) {
    if (c0.defined()) {
      WICK_CHECK(c0.sizes().vec() == c_shape, RuntimeError, "Expected hidden[1] size ", shape_tuple(c_shape),
                 ", got ", shape_list(c0));
    } else {
      c0 = zeros(c_shape, input.dtype(), input.device());
    }
  }
}

// The layers, by the catalog operator of the module's cell: torch.lstm and
// the others, or their .data overloads for a packed batch (`batch_sizes`).
RunResult call_layers(const RNNConfig& c, const std::vector<RNNLayerWeights>& weights, const Tensor& input,
                      const Tensor& batch_sizes, const Tensor& h0, const Tensor& c0, bool training) {
  std::vector<Tensor> params;
  for (const RNNLayerWeights& w : weights) {
    for (const Tensor& t : {w.w_ih, w.w_hh, w.b_ih, w.b_hh, w.w_hr}) {
      if (t.defined()) params.push_back(t);
    }
  }
  const bool packed = batch_sizes.defined();
  const auto run_op = [&](auto op, auto hx) {
    return packed ? op(input, batch_sizes, hx, params, c.bias, c.num_layers, c.dropout, training, c.bidirectional)
                  : op(input, hx, params, c.bias, c.num_layers, c.dropout, training, c.bidirectional, false);
  };
  RunResult r;
  switch (c.mode) {
    case Mode::kLstm:
      std::tie(r.output, r.h_n, r.c_n) = run_op(
          [](auto&&... a) { return wick::lstm(std::forward<decltype(a)>(a)...); }, std::vector<Tensor>{h0, c0});
      break;
    case Mode::kGru:
      std::tie(r.output, r.h_n) = run_op([](auto&&... a) { return wick::gru(std::forward<decltype(a)>(a)...); }, h0);
      break;
    case Mode::kRnnTanh:
      std::tie(r.output, r.h_n) =
          run_op([](auto&&... a) { return wick::rnn_tanh(std::forward<decltype(a)>(a)...); }, h0);
      break;
    case Mode::kRnnRelu:
      std::tie(r.output, r.h_n) =
          run_op([](auto&&... a) { return wick::rnn_relu(std::forward<decltype(a)>(a)...); }, h0);
      break;
  }
  return r;
}

// PyTorch's RNNBase.forward: shapes checked, batch dims arranged, every layer run.
RunResult run(const RNNConfig& c, const std::vector<RNNLayerWeights>& weights, Tensor input, Tensor h0, Tensor c0,
              bool training) {
  const bool lstm = c.mode == Mode::kLstm;
  WICK_CHECK(input.dim() == 2 || input.dim() == 3, ValueError, mode_name(c.mode),
             ": Expected input to be 2-D or 3-D but received ", input.dim(), "-D tensor");
  const bool batched = input.dim() == 3;
  const std::int64_t batch_dim = c.batch_first ? 0 : 1;
  for (Tensor* s : {&h0, &c0}) {
    if (!s->defined()) continue;
    if (batched) {
      WICK_CHECK(s->dim() == 3, RuntimeError, "For batched 3-D input, hx should also be 3-D but got ", s->dim(),
                 "-D tensor");
    } else {
      WICK_CHECK(s->dim() == 2, RuntimeError, "For unbatched 2-D input, hx should also be 2-D but got ", s->dim(),
                 "-D tensor");
      *s = unsqueeze(*s, 1);
    }
  }
  if (!batched) input = unsqueeze(input, batch_dim);
  if (c.batch_first) input = input.transpose(0, 1);
  WICK_CHECK(input.size(-1) == c.input_size, RuntimeError, "input.size(-1) must be equal to input_size. Expected ",
             c.input_size, ", got ", input.size(-1));
  prepare_states(c, input, input.size(1), h0, c0);
  RunResult r = call_layers(c, weights, input, Tensor(), h0, c0, training);
  if (c.batch_first) r.output = r.output.transpose(0, 1);
  if (!batched) {
    r.output = squeeze(r.output, batch_dim);
    r.h_n = squeeze(r.h_n, 1);
    if (lstm) r.c_n = squeeze(r.c_n, 1);
  }
  return r;
}

// The states of a sorted batch in the order `permutation` gives (PyTorch's permute_hidden).
Tensor permute_states(const Tensor& t, const Tensor& permutation) {
  return t.defined() && permutation.defined() ? t.index_select(1, permutation) : t;
}

// PyTorch's RNNBase.forward of a PackedSequence: the states given in the
// batch's order are put in the packed (sorted) order, and back.
RunResult run_packed(const RNNConfig& c, const std::vector<RNNLayerWeights>& weights, const PackedSequence& packed,
                     Tensor h0, Tensor c0, bool training) {
  const Tensor& input = packed.data();
  WICK_CHECK(input.defined(), ValueError, mode_name(c.mode), ": the PackedSequence holds no data");
  const Tensor batch_sizes = packed.batch_sizes().to(ScalarType::kInt64);
  WICK_CHECK(batch_sizes.dim() == 1 && batch_sizes.numel() > 0, RuntimeError, mode_name(c.mode),
             ": a PackedSequence's batch_sizes must be 1-D and not empty");
  const std::int64_t max_batch = batch_sizes.select(0, 0).item<std::int64_t>();
  h0 = permute_states(h0, packed.sorted_indices());
  c0 = permute_states(c0, packed.sorted_indices());
  WICK_CHECK(input.dim() == 2, RuntimeError, "input must have 2 dimensions, got ", input.dim());
  WICK_CHECK(input.size(-1) == c.input_size, RuntimeError, "input.size(-1) must be equal to input_size. Expected ",
             c.input_size, ", got ", input.size(-1));
  prepare_states(c, input, max_batch, h0, c0);
  RunResult r = call_layers(c, weights, input, batch_sizes, h0, c0, training);
  r.h_n = permute_states(r.h_n, packed.unsorted_indices());
  r.c_n = permute_states(r.c_n, packed.unsorted_indices());
  return r;
}

PackedSequence repack(const PackedSequence& like, const Tensor& data) {
  return {data, like.batch_sizes(), like.sorted_indices(), like.unsorted_indices()};
}

}  // namespace

// --- RNN, LSTM, GRU -----------------------------------------------------------------------------

RNNImpl::RNNImpl(const RNNOptions& opts)
    : options(opts), config_(make_config(rnn_mode(opts.nonlinearity()), opts, 0)) {
  all_weights = register_weights(*this, config_);
  reset_parameters();
}
void RNNImpl::reset_parameters() { reset_weights(all_weights, config_.hidden_size); }
std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, const Tensor& hx) {
  RunResult r = run(config_, all_weights, input, hx, Tensor(), is_training());
  return {r.output, r.h_n};
}
std::tuple<PackedSequence, Tensor> RNNImpl::forward_with_packed_input(const PackedSequence& input, const Tensor& hx) {
  RunResult r = run_packed(config_, all_weights, input, hx, Tensor(), is_training());
  return {repack(input, r.output), r.h_n};
}
std::string RNNImpl::extra_repr() const { return rnn_repr(config_); }

LSTMImpl::LSTMImpl(const LSTMOptions& opts)
    : options(opts), config_(make_config(Mode::kLstm, opts, opts.proj_size())) {
  all_weights = register_weights(*this, config_);
  reset_parameters();
}
void LSTMImpl::reset_parameters() { reset_weights(all_weights, config_.hidden_size); }
std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(const Tensor& input,
                                                                 const std::tuple<Tensor, Tensor>& hx) {
  RunResult r = run(config_, all_weights, input, std::get<0>(hx), std::get<1>(hx), is_training());
  return {r.output, {r.h_n, r.c_n}};
}
std::tuple<PackedSequence, std::tuple<Tensor, Tensor>> LSTMImpl::forward_with_packed_input(
    const PackedSequence& input, const std::tuple<Tensor, Tensor>& hx) {
  RunResult r = run_packed(config_, all_weights, input, std::get<0>(hx), std::get<1>(hx), is_training());
  return {repack(input, r.output), {r.h_n, r.c_n}};
}
std::string LSTMImpl::extra_repr() const { return rnn_repr(config_); }

GRUImpl::GRUImpl(const GRUOptions& opts) : options(opts), config_(make_config(Mode::kGru, opts, 0)) {
  all_weights = register_weights(*this, config_);
  reset_parameters();
}
void GRUImpl::reset_parameters() { reset_weights(all_weights, config_.hidden_size); }
std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, const Tensor& hx) {
  RunResult r = run(config_, all_weights, input, hx, Tensor(), is_training());
  return {r.output, r.h_n};
}
std::tuple<PackedSequence, Tensor> GRUImpl::forward_with_packed_input(const PackedSequence& input, const Tensor& hx) {
  RunResult r = run_packed(config_, all_weights, input, hx, Tensor(), is_training());
  return {repack(input, r.output), r.h_n};
}
std::string GRUImpl::extra_repr() const { return rnn_repr(config_); }

// --- cells ---------------------------------------------------------------------------------------

namespace {

struct CellWeights {
  Tensor* w_ih;
  Tensor* w_hh;
  Tensor* b_ih;
  Tensor* b_hh;
};

void register_cell(Module& m, CellWeights w, std::int64_t gates, std::int64_t in, std::int64_t hidden, bool bias) {
  *w.w_ih = m.register_parameter("weight_ih", empty({gates * hidden, in}));
  *w.w_hh = m.register_parameter("weight_hh", empty({gates * hidden, hidden}));
  *w.b_ih = m.register_parameter("bias_ih", bias ? empty({gates * hidden}) : Tensor());
  *w.b_hh = m.register_parameter("bias_hh", bias ? empty({gates * hidden}) : Tensor());
}

// The cell's input and states made batched (true when they were), then
// checked against the cell's sizes with PyTorch 1.13's errors: ValueError
// for a bad rank; RuntimeError for a width or a batch size that differs.
bool batch_cell_input(const char* name, Tensor& input, std::vector<Tensor*> states, std::int64_t input_size,
                      std::int64_t hidden_size) {
  WICK_CHECK(input.dim() == 1 || input.dim() == 2, ValueError, name, ": Expected input to be 1-D or 2-D but received ",
             input.dim(), "-D tensor");
  const bool batched = input.dim() == 2;
  if (!batched) {
    input = unsqueeze(input, 0);
    for (Tensor* s : states) {
      if (s->defined()) *s = unsqueeze(*s, 0);
    }
  }
  WICK_CHECK(input.size(1) == input_size, RuntimeError, "input has inconsistent input_size: got ", input.size(1),
             " expected ", input_size);
  for (const Tensor* s : states) {
    if (!s->defined()) continue;
    WICK_CHECK(s->dim() >= 1 && s->size(0) == input.size(0), RuntimeError, "Input batch size ", input.size(0),
               " doesn't match hidden0 batch size ", s->dim() >= 1 ? s->size(0) : 0);
    WICK_CHECK(s->dim() == 2, ValueError, name, ": Expected hidden to be ", batched ? "2-D" : "1-D", " but received ",
               s->dim() - (batched ? 0 : 1), "-D tensor");
    WICK_CHECK(s->size(1) == hidden_size, RuntimeError, "hidden0 has inconsistent hidden_size: got ", s->size(1),
               ", expected ", hidden_size);
  }
  return batched;
}

std::string cell_repr(const CellOptions& o) {
  return py(o.input_size()) + ", " + py(o.hidden_size()) + (o.bias() ? "" : ", bias=False");
}

}  // namespace

RNNCellImpl::RNNCellImpl(const RNNCellOptions& opts) : options(opts) {
  // As in PyTorch, an unknown nonlinearity is an error of forward(), not here.
  register_cell(*this, {&weight_ih, &weight_hh, &bias_ih, &bias_hh}, 1, options.input_size(), options.hidden_size(),
                options.bias());
  reset_parameters();
}
void RNNCellImpl::reset_parameters() {
  uniform_all({weight_ih, weight_hh, bias_ih, bias_hh}, options.hidden_size());
}
Tensor RNNCellImpl::forward(const Tensor& in, const Tensor& h0) {
  Tensor input = in, hx = h0;
  const bool batched = batch_cell_input("RNNCell", input, {&hx}, options.input_size(), options.hidden_size());
  const std::string& nonlinearity = options.nonlinearity();
  WICK_CHECK(nonlinearity == "tanh" || nonlinearity == "relu", RuntimeError, "Unknown nonlinearity: ", nonlinearity);
  if (!hx.defined()) hx = zeros({input.size(0), options.hidden_size()}, input.dtype(), input.device());
  const Tensor h = nonlinearity == "tanh" ? wick::rnn_tanh_cell(input, hx, weight_ih, weight_hh, opt(bias_ih), opt(bias_hh))
                                           : wick::rnn_relu_cell(input, hx, weight_ih, weight_hh, opt(bias_ih), opt(bias_hh));
  return batched ? h : squeeze(h, 0);
}
std::string RNNCellImpl::extra_repr() const {
  std::string s = py(options.input_size()) + ", " + py(options.hidden_size());
  if (!options.bias()) s += ", bias=False";
  if (options.nonlinearity() != "tanh") s += ", nonlinearity=" + options.nonlinearity();
  return s;
}

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& opts) : options(opts) {
  register_cell(*this, {&weight_ih, &weight_hh, &bias_ih, &bias_hh}, 4, options.input_size(), options.hidden_size(),
                options.bias());
  reset_parameters();
}
void LSTMCellImpl::reset_parameters() {
  uniform_all({weight_ih, weight_hh, bias_ih, bias_hh}, options.hidden_size());
}
std::tuple<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& in, const std::tuple<Tensor, Tensor>& hx) {
  Tensor input = in, h = std::get<0>(hx), cell = std::get<1>(hx);
  const bool batched = batch_cell_input("LSTMCell", input, {&h, &cell}, options.input_size(), options.hidden_size());
  if (!h.defined()) h = zeros({input.size(0), options.hidden_size()}, input.dtype(), input.device());
  if (!cell.defined()) cell = zeros({input.size(0), options.hidden_size()}, input.dtype(), input.device());
  std::tie(h, cell) = wick::lstm_cell(input, {h, cell}, weight_ih, weight_hh, opt(bias_ih), opt(bias_hh));
  if (!batched) return {squeeze(h, 0), squeeze(cell, 0)};
  return {h, cell};
}
std::string LSTMCellImpl::extra_repr() const { return cell_repr(options); }

GRUCellImpl::GRUCellImpl(const GRUCellOptions& opts) : options(opts) {
  register_cell(*this, {&weight_ih, &weight_hh, &bias_ih, &bias_hh}, 3, options.input_size(), options.hidden_size(),
                options.bias());
  reset_parameters();
}
void GRUCellImpl::reset_parameters() {
  uniform_all({weight_ih, weight_hh, bias_ih, bias_hh}, options.hidden_size());
}
Tensor GRUCellImpl::forward(const Tensor& in, const Tensor& h0) {
  Tensor input = in, hx = h0;
  const bool batched = batch_cell_input("GRUCell", input, {&hx}, options.input_size(), options.hidden_size());
  if (!hx.defined()) hx = zeros({input.size(0), options.hidden_size()}, input.dtype(), input.device());
  const Tensor h = wick::gru_cell(input, hx, weight_ih, weight_hh, opt(bias_ih), opt(bias_hh));
  return batched ? h : squeeze(h, 0);
}
std::string GRUCellImpl::extra_repr() const { return cell_repr(options); }

}  // namespace wick::nn
