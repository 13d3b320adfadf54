// tests/nn/modules_recurrent_test.cpp - RNN, LSTM, GRU, their cells, MultiheadAttention and the Transformer layers.
/// \file
/// Their reference cases (built here, compared in modules_reference_test.cpp)
/// and the checks the reference cases do not cover: errors, gradients, dropout.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/autograd/test_util.h"
#include "tests/nn/module_cases.h"

namespace wick::testing {

namespace {

// (output, h_n) or (output, (h_n, c_n)) flattened, as the generator records them.
std::vector<Tensor> flat(const std::tuple<Tensor, Tensor>& r) { return {std::get<0>(r), std::get<1>(r)}; }
std::vector<Tensor> flat(const std::tuple<Tensor, std::tuple<Tensor, Tensor>>& r) {
  return {std::get<0>(r), std::get<0>(std::get<1>(r)), std::get<1>(std::get<1>(r))};
}

template <class H>
ModuleCase recurrent(H h) {
  return {h.ptr(), [h](const std::vector<Tensor>& in) {
            if (in.size() == 1) return flat(h(in[0]));
            if constexpr (std::is_same_v<typename H::ContainedType, nn::LSTMImpl>) {
              return flat(h(in[0], std::make_tuple(in.at(1), in.at(2))));
            } else {
              return flat(h(in[0], in.at(1)));
            }
          }};
}

}  // namespace

void add_recurrent_cases(std::map<std::string, std::function<ModuleCase()>>& c) {
  namespace n = wick::nn;
  c["rnn_tanh"] = [] { return recurrent(n::RNN(3, 4)); };
  c["rnn_relu_2l_bi_bf"] = [] {
    return recurrent(
        n::RNN(n::RNNOptions(3, 4).num_layers(2).nonlinearity("relu").bidirectional(true).batch_first(true)));
  };
  c["lstm"] = [] { return recurrent(n::LSTM(3, 4)); };
  c["lstm_2l_bi_nobias"] = [] {
    return recurrent(n::LSTM(n::LSTMOptions(3, 4).num_layers(2).bidirectional(true).bias(false).batch_first(true)));
  };
  c["lstm_proj"] = [] { return recurrent(n::LSTM(n::LSTMOptions(3, 4).proj_size(2))); };
  c["lstm_unbatched"] = [] { return recurrent(n::LSTM(n::LSTMOptions(3, 4).num_layers(2))); };
  c["gru"] = [] { return recurrent(n::GRU(3, 4)); };
  c["gru_2l_bi"] = [] { return recurrent(n::GRU(n::GRUOptions(3, 4).num_layers(2).bidirectional(true))); };
  c["rnncell"] = [] { return binary(n::RNNCell(3, 4)); };
  c["rnncell_relu"] = [] { return unary(n::RNNCell(n::RNNCellOptions(3, 4).bias(false).nonlinearity("relu"))); };
  c["lstmcell"] = [] {
    n::LSTMCell cell(3, 4);
    return ModuleCase{cell.ptr(), [cell](const std::vector<Tensor>& in) {
                        auto [h, c] = cell(in.at(0), std::make_tuple(in.at(1), in.at(2)));
                        return std::vector<Tensor>{h, c};
                      }};
  };
  c["grucell"] = [] { return binary(n::GRUCell(3, 4)); };
  c["grucell_unbatched"] = [] { return unary(n::GRUCell(3, 4)); };
  c["mha"] = [] {
    n::MultiheadAttention m(4, 2);
    return ModuleCase{m.ptr(), [m](const std::vector<Tensor>& in) { return flat(m(in.at(0), in.at(1), in.at(2))); }};
  };
  c["mha_kdim_bf"] = [] {
    n::MultiheadAttention m(n::MultiheadAttentionOptions(4, 2).kdim(3).vdim(5).batch_first(true));
    return ModuleCase{m.ptr(), [m](const std::vector<Tensor>& in) { return flat(m(in.at(0), in.at(1), in.at(2))); }};
  };
  c["encoder_layer"] = [] {
    return unary(n::TransformerEncoderLayer(n::TransformerEncoderLayerOptions(4, 2).dim_feedforward(8).dropout(0.0)));
  };
  c["encoder_layer_gelu_nf_bf"] = [] {
    return unary(n::TransformerEncoderLayer(n::TransformerEncoderLayerOptions(4, 2)
                                                .dim_feedforward(6)
                                                .dropout(0.0)
                                                .activation("gelu")
                                                .norm_first(true)
                                                .batch_first(true)));
  };
  c["transformer_encoder"] = [] {
    return unary(n::TransformerEncoder(
        n::TransformerEncoderOptions(n::TransformerEncoderLayerOptions(4, 2).dim_feedforward(8).dropout(0.0), 2)
            .norm(n::LayerNorm(n::LayerNormOptions({4})))));
  };
  c["transformer_decoder"] = [] {
    n::TransformerDecoderLayer layer(n::TransformerDecoderLayerOptions(4, 2).dim_feedforward(8).dropout(0.0));
    return binary(n::TransformerDecoder(layer, 2));
  };
  c["transformer_masked"] = [] {
    n::Transformer t(n::TransformerOptions(4, 2, 1, 1).dim_feedforward(8).dropout(0.0).batch_first(true));
    return ModuleCase{t.ptr(), [t](const std::vector<Tensor>& in) {
                        const Tensor mask = n::TransformerImpl::generate_square_subsequent_mask(3).to(ScalarType::kFloat64);
                        return std::vector<Tensor>{t(in.at(0), in.at(1), std::nullopt, mask)};
                      }};
  };
  c["decoder_layer"] = [] {
    return binary(n::TransformerDecoderLayer(n::TransformerDecoderLayerOptions(4, 2).dim_feedforward(8).dropout(0.0)));
  };
}

}  // namespace wick::testing
