// tests/autograd/formula_samples.cpp - sample calls of catalog operators, and their formula check.
/// \file
/// The explicit samples (operators whose arguments cannot be generated from
/// the schema alone, or that deserve more than the generic case), the
/// generic sample, the inputs, and the gradcheck run over them.
#include "tests/autograd/formula_samples.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>

#include "wick/catalog.h"
#include "wick/gradcheck.h"
#include "wick/opcheck.h"
#include "wick/ops.h"
#include "wick/random.h"

namespace wick::testing {
namespace {

using autograd::tensor_list;

TensorArg t(std::vector<std::int64_t> shape) { return {std::move(shape)}; }
Value ints(std::vector<std::int64_t> v) { return Value(std::move(v)); }
Value i(std::int64_t v) { return Value(v); }
TensorListArg tl(std::vector<std::vector<std::int64_t>> shapes) { return {std::move(shapes)}; }
Value index(std::vector<std::int64_t> v, std::vector<std::int64_t> shape) {
  return Value(tensor(Value(std::move(v))).reshape(shape));
}

// torch.nn.functional and its torch.* twins (softmax, dropout, losses).
void add_nn_samples(std::map<std::string, std::vector<Sample>>& m) {
  const Value target(tensor(Value(std::vector<std::int64_t>{1, 3, -100})));
  const Value target3(tensor(Value(std::vector<std::int64_t>{0, 2, 1, -100, 1, 1, 0, 2})).reshape({2, 4}));
  const Value weight(add(rand({4}, ScalarType::kFloat64), wrap_scalar(Scalar(0.5))));
  // Positive per-column weights of (2, 3) inputs.
  const Value positive3(add(rand({3}, ScalarType::kFloat64), wrap_scalar(Scalar(0.5))));
  const Kwargs none = {{"reduction", Value("none")}};
  const Value sum_str("sum");
  const Kwargs sum = {{"reduction", sum_str}};
  m["softmax"] = {{{t({2, 3}), i(1)}}, {{t({2, 3, 2}), i(-2)}}, {{t({3}), i(0)}}};
  m["log_softmax"] = m["softmax"];
  m["gelu"] = {{{t({2, 3})}}, {{t({2, 3})}, {{"approximate", Value("tanh")}}}};
  m["linear"] = {{{t({2, 3}), t({4, 3}), t({4})}}, {{t({3}), t({2, 3})}}, {{t({2, 2, 3}), t({4, 3}), t({4})}}};
  // Deterministic cases only: gradcheck calls the function many times.
  m["dropout"] = {{{t({2, 3}), Value(1.0), Value(true)}}, {{t({2, 3}), Value(0.5), Value(false)}}};
  m["nll_loss"] = {{{t({3, 4}), target}},
                   {{t({3, 4}), target, weight}, sum},
                   {{t({3, 4}), target, weight}, none},
                   {{t({2, 3, 4}), target3}},
                   {{t({2, 3, 4}), target3}, none}};
  m["cross_entropy"] = {{{t({3, 4}), target}},
                        {{t({3, 4}), target, weight}, {{"label_smoothing", Value(0.2)}}},
                        {{t({3, 4}), target}, {{"label_smoothing", Value(0.2)}, {"reduction", Value("none")}}},
                        {{t({2, 3, 4}), target3}},
                        {{t({3, 4}), t({3, 4})}},
                        {{t({3, 4}), t({3, 4}), weight}, {{"label_smoothing", Value(0.3)}, {"reduction", sum_str}}}};
  m["mse_loss"] = {{{t({2, 3}), t({2, 3})}}, {{t({2, 3}), t({2, 3})}, none}};
  m["l1_loss"] = {{{t({2, 3}), t({2, 3})}}, {{t({2, 3}), t({2, 3})}, sum}};
  m["binary_cross_entropy"] = {{{t({2, 3}), t({2, 3})}}, {{t({2, 3}), t({2, 3}), positive3}, none}};
  const Kwargs with_pw = {{"pos_weight", positive3}};
  const Kwargs with_pw_sum = {{"pos_weight", positive3}, {"reduction", sum_str}};
  m["binary_cross_entropy_with_logits"] = {
      {{t({2, 3}), t({2, 3})}}, {{t({2, 3}), t({2, 3}), positive3}, with_pw}, {{t({2, 3}), t({2, 3})}, with_pw_sum}};
  // ATen's function: weight, pos_weight, then the reduction as an int (0 none, 1 mean, 2 sum).
  m["torch.binary_cross_entropy_with_logits"] = {
      {{t({2, 3}), t({2, 3})}},
      {{t({2, 3}), t({2, 3}), positive3, positive3, Value(1)}},
      {{t({2, 3}), t({2, 3})}, {{"pos_weight", positive3}, {"reduction", Value(2)}}}};
}

// The composed nn.functional operators of issue 20: distances, shuffles,
// the other losses (F's take `reduction` as a string, the torch.* twins as
// ATen's int: keyed by full name), dropouts, normalisations, interpolate and
// the transposed convolutions. Targets that must be +-1 or 0/1 are fixed.
void add_more_nn_samples(std::map<std::string, std::vector<Sample>>& m) {
  const auto fixed = [](std::vector<double> v, std::vector<std::int64_t> shape) {
    return Value(tensor(Value(std::move(v)), ScalarType::kFloat64).reshape(shape));
  };
  const Value signs23 = fixed({1, -1, 1, -1, 1, -1}, {2, 3});
  const Value signs4 = fixed({1, -1, -1, 1}, {4});
  const Value signs3 = fixed({1, -1, 1}, {3});
  const Value labels23 = fixed({1, 0, 1, 0, 0, 1}, {2, 3});
  const Value none("none");
  const Value sum("sum");
  m["cosine_similarity"] = {{{t({3, 4}), t({3, 4})}}, {{t({2, 3, 4}), t({3, 4}), i(2)}}};
  m["pairwise_distance"] = {{{t({3, 4}), t({3, 4})}}, {{t({3, 4}), t({4}), Value(3.0)}, {{"keepdim", Value(true)}}}};
  m["pdist"] = {{{t({4, 3})}}, {{t({3, 2}), Value(3.0)}}};
  m["pixel_shuffle"] = {{{t({1, 8, 2, 3}), i(2)}}};
  m["pixel_unshuffle"] = {{{t({1, 2, 4, 6}), i(2)}}};
  m["channel_shuffle"] = {{{t({2, 6, 2}), i(3)}}};
  m["native_channel_shuffle"] = m["channel_shuffle"];
  m["one_hot"] = {{{index({0, 2, 1, 3}, {2, 2})}}, {{index({1, 0}, {2}), i(3)}}};
  m["normalize"] = {{{t({3, 4})}}, {{t({2, 3, 4}), Value(1.0), i(-1)}}};
  m["softmin"] = {{{t({2, 3}), i(1)}}};
  // Deterministic dropouts only (training off, p of 0 or 1).
  m["torch.alpha_dropout"] = {{{t({2, 3}), Value(0.5), Value(false)}}};
  m["torch.feature_alpha_dropout"] = {{{t({2, 3, 2}), Value(0.5), Value(false)}}};
  m["torch.feature_dropout"] = {{{t({2, 3, 2}), Value(1.0), Value(true)}}};
  m["torch.nn.functional.alpha_dropout"] = {{{t({2, 3})}}, {{t({2, 3}), Value(0.0), Value(true)}}};
  m["torch.nn.functional.feature_alpha_dropout"] = {{{t({2, 3, 2})}}};
  m["dropout1d"] = {{{t({2, 3, 4}), Value(0.5), Value(false)}}, {{t({3, 4}), Value(1.0)}}};
  m["dropout2d"] = {{{t({2, 3, 2, 2}), Value(0.5), Value(false)}}, {{t({2, 3, 2, 2}), Value(1.0)}}};
  m["dropout3d"] = {{{t({2, 3, 2, 2, 1}), Value(0.5), Value(false)}}};
  m["huber_loss"] = {{{t({2, 3}), t({2, 3})}}, {{t({2, 3}), t({2, 3}), none, Value(0.5)}}};
  m["smooth_l1_loss"] = {{{t({2, 3}), t({2, 3})}}, {{t({2, 3}), t({2, 3})}, {{"reduction", sum}, {"beta", Value(0.5)}}}};
  m["soft_margin_loss"] = {{{t({2, 3}), signs23}}, {{t({2, 3}), t({2, 3})}, {{"reduction", none}}}};
  m["torch.nn.functional.kl_div"] = {{{t({2, 3}), t({2, 3})}, {{"reduction", Value("batchmean")}}},
                                     {{t({2, 3}), t({2, 3})}, {{"reduction", sum}, {"log_target", Value(true)}}}};
  m["torch.kl_div"] = {{{t({2, 3}), t({2, 3})}}, {{t({2, 3}), t({2, 3}), i(0)}, {{"log_target", Value(true)}}}};
  m["torch.nn.functional.hinge_embedding_loss"] = {{{t({2, 3}), signs23}},
                                                   {{t({2, 3}), signs23, Value(0.5)}, {{"reduction", none}}}};
  m["torch.hinge_embedding_loss"] = {{{t({2, 3}), signs23}}, {{t({2, 3}), signs23, Value(0.5), i(0)}}};
  m["torch.nn.functional.margin_ranking_loss"] = {{{t({4}), t({4}), signs4}},
                                                  {{t({4}), t({4}), signs4, Value(0.2)}, {{"reduction", sum}}}};
  m["torch.margin_ranking_loss"] = {{{t({4}), t({4}), signs4}}, {{t({4}), t({4}), signs4, Value(0.2), i(2)}}};
  m["torch.nn.functional.cosine_embedding_loss"] = {
      {{t({3, 4}), t({3, 4}), signs3}}, {{t({4}), t({4}), fixed({-1}, {})}, {{"margin", Value(0.1)}, {"reduction", none}}}};
  m["torch.cosine_embedding_loss"] = {{{t({3, 4}), t({3, 4}), signs3}}, {{t({3, 4}), t({3, 4}), signs3, Value(0.1), i(0)}}};
  m["torch.nn.functional.poisson_nll_loss"] = {{{t({2, 3}), t({2, 3})}},
                                               {{t({2, 3}), t({2, 3}), Value(false), Value(true)}, {{"reduction", sum}}}};
  m["torch.poisson_nll_loss"] = {{{t({2, 3}), t({2, 3}), Value(true), Value(false), Value(1e-8), i(1)}},
                                 {{t({2, 3}), t({2, 3}), Value(false), Value(true), Value(1e-8), i(0)}}};
  m["gaussian_nll_loss"] = {{{t({2, 3}), t({2, 3}), t({2, 3})}},
                            {{t({2, 3}), t({2, 3}), t({2, 1}), Value(true)}, {{"reduction", none}}}};
  m["torch.nn.functional.triplet_margin_loss"] = {
      {{t({3, 4}), t({3, 4}), t({3, 4})}},
      {{t({3, 4}), t({3, 4}), t({3, 4}), Value(0.5), Value(3.0)}, {{"swap", Value(true)}, {"reduction", none}}}};
  m["torch.triplet_margin_loss"] = {{{t({3, 4}), t({3, 4}), t({3, 4})}}};
  m["multilabel_soft_margin_loss"] = {{{t({2, 3}), labels23}}, {{t({2, 3}), labels23, t({3})}, {{"reduction", none}}}};
  m["local_response_norm"] = {{{t({2, 4, 3}), i(3)}}, {{t({1, 5, 2, 2}), i(2), Value(0.01), Value(0.5), Value(2.0)}}};
  m["lp_pool1d"] = {{{t({2, 3, 6}), Value(2.0), ints({3})}}};
  m["lp_pool2d"] = {{{t({1, 2, 4, 6}), Value(2.0), ints({2})}}, {{t({2, 5, 5}), Value(2.0), ints({2, 3}), ints({1})}}};
  const Value running_mean(randn({3}, ScalarType::kFloat64));
  const Value running_var(add(rand({3}, ScalarType::kFloat64), wrap_scalar(Scalar(0.5))));
  m["torch.nn.functional.instance_norm"] = {
      {{t({2, 3, 4}), Value(), Value(), t({3}), t({3})}},
      {{t({2, 3, 4}), running_mean, running_var}, {{"use_input_stats", Value(false)}}}};
  m["torch.instance_norm"] = {
      {{t({2, 3, 4}), t({3}), t({3}), Value(), Value(), Value(true), Value(0.1), Value(1e-5), Value(true)}}};
  const Value bilinear("bilinear");
  m["interpolate"] = {{{t({1, 2, 3, 4}), ints({5, 6})}, {{"mode", bilinear}}},
                      {{t({1, 2, 3, 4})}, {{"scale_factor", Value(2.0)}, {"mode", bilinear}, {"align_corners", Value(true)}}},
                      {{t({2, 1, 5}), i(3)}, {{"mode", Value("linear")}}},
                      {{t({1, 1, 3, 3})}, {{"scale_factor", Value(1.5)}, {"mode", Value("bicubic")}}},
                      {{t({1, 2, 3, 4}), ints({4, 7})}},
                      {{t({1, 1, 2, 3, 2}), ints({3, 4, 3})}, {{"mode", Value("trilinear")}}},
                      {{t({1, 2, 4, 6}), ints({2, 3})}, {{"mode", Value("area")}}}};
  m["conv_transpose1d"] = {
      {{t({2, 3, 5}), t({3, 2, 3}), t({2})}, {{"stride", ints({2})}, {"padding", ints({1})}, {"output_padding", ints({1})}}},
      {{t({4, 5}), t({4, 1, 2}), Value(), ints({1}), ints({0}), ints({0}), i(2)}}};
  m["conv_transpose2d"] = {{{t({1, 3, 4, 4}), t({3, 2, 4, 4}), t({2})}, {{"stride", ints({2})}, {"padding", ints({1})}}},
                           {{t({2, 4, 3, 2}), t({4, 1, 2, 3}), Value(), ints({2, 1}), ints({0, 1}), ints({1, 0}), i(2)}}};
}

// Normalisation, embedding, pad and the torch.linalg norms. torch.batch_norm
// and F.batch_norm order their arguments differently: keyed by full name.
void add_norm_samples(std::map<std::string, std::vector<Sample>>& m) {
  const Value running_mean(randn({2}, ScalarType::kFloat64));
  const Value running_var(add(rand({2}, ScalarType::kFloat64), wrap_scalar(Scalar(0.5))));
  const double inf = std::numeric_limits<double>::infinity();
  m["layer_norm"] = {{{t({2, 3, 4}), ints({4}), t({4}), t({4})}},
                     {{t({2, 3, 4}), ints({3, 4})}},
                     {{t({3, 4}), ints({4}), t({4})}, {{"eps", Value(0.1)}}}};
  m["group_norm"] = {{{t({2, 4, 3}), i(2), t({4}), t({4})}}, {{t({2, 6}), i(3)}}};
  m["torch.nn.functional.batch_norm"] = {{{t({3, 2, 2}), Value(), Value(), t({2}), t({2}), Value(true)}},
                                         {{t({4, 2}), Value(running_mean.to_tensor().clone()),
                                           Value(running_var.to_tensor().clone()), Value(), t({2}), Value(true)}},
                                         {{t({3, 2}), running_mean, running_var, t({2}), t({2})}}};
  m["torch.batch_norm"] = {
      {{t({3, 2, 2}), t({2}), t({2}), Value(), Value(), Value(true), Value(0.1), Value(1e-5), Value(true)}},
      {{t({3, 2}), t({2}), Value(), running_mean, running_var, Value(false), Value(0.1), Value(1e-5), Value(true)}}};
  const Value rows = index({0, 2, 1, 2}, {2, 2});
  // No padding_idx sample: as in PyTorch, that row's gradient is zero by
  // definition, not the true derivative (tests/backends/cpu_norm_test.cpp checks it).
  m["embedding"] = {{{rows, t({3, 4})}}, {{index({1}, {}), t({3, 2})}}};
  m["torch.embedding"] = {{{t({3, 4}), rows}}, {{t({3, 2}), index({1}, {})}}};  // ATen's order: weight first
  m["pad"] = {{{t({2, 3}), ints({1, 2})}},
              {{t({2, 3}), ints({-1, 1, 1, 0}), Value("constant"), Value(0.5)}},
              {{t({2, 3, 4}), ints({2, 1}), Value("reflect")}},
              {{t({2, 3, 4}), ints({1, 2, 0, 1}), Value("replicate")}}};
  m["constant_pad_nd"] = {{{t({2, 3}), ints({1, -1, 0, 2}), Value(1.5)}}};
  m["vector_norm"] = {{{t({2, 3})}},
                      {{t({2, 3}), Value(1), ints({1})}},
                      {{t({2, 3}), Value(inf), ints({0}), Value(true)}},
                      {{t({2, 3}), Value(-inf)}},
                      {{t({2, 3, 2}), Value(3.0), ints({0, 2})}}};
  m["matrix_norm"] = {{{t({2, 3})}},
                      {{t({2, 3, 3}), Value(1)}},
                      {{t({3, 3}), Value(-inf)}},
                      {{t({3, 4}), Value(-1), ints({1, 0}), Value(true)}},
                      {{t({3, 4}), Value(inf)}}};
}

// Convolution and pooling (torch.* and torch.nn.functional share names).
void add_conv_samples(std::map<std::string, std::vector<Sample>>& m) {
  const Kwargs strided = {{"stride", ints({2, 1})}, {"padding", ints({1, 0})}, {"groups", i(2)}};
  m["conv2d"] = {{{t({2, 4, 4, 5}), t({4, 2, 2, 3}), t({4})}, strided},
                 {{t({2, 4, 5}), t({3, 2, 3, 2})}, {{"padding", Value("same")}, {"dilation", i(2)}}}};
  m["conv1d"] = {{{t({2, 3, 6}), t({4, 3, 3}), t({4})}, {{"stride", i(2)}, {"padding", i(1)}}},
                 {{t({3, 6}), t({2, 3, 2})}, {{"padding", Value("same")}}}};
  const Kwargs pool = {{"stride", i(2)}, {"padding", i(1)}};
  m["max_pool2d"] = {{{t({1, 2, 5, 6}), i(3)}, pool}, {{t({2, 4, 5}), ints({2, 3})}, {{"dilation", i(2)}}}};
  m["max_pool2d_with_indices"] = {{{t({1, 2, 5, 6}), i(3)}, pool}};
  m["avg_pool2d"] = {{{t({1, 2, 5, 6}), i(3)}, {{"stride", i(2)}, {"padding", i(1)}, {"ceil_mode", Value(true)}}},
                     {{t({2, 5, 6}), ints({2, 3})}, {{"count_include_pad", Value(false)}, {"padding", i(1)}}},
                     {{t({2, 4, 4}), i(2)}, {{"divisor_override", i(3)}}}};
  m["avg_pool1d"] = {{{t({2, 2, 7}), i(3)}, pool}};
  m["adaptive_avg_pool2d"] = {{{t({2, 2, 5, 7}), ints({3, 4})}}, {{t({2, 4, 4}), i(3)}}};
  m["adaptive_avg_pool1d"] = {{{t({2, 2, 7}), ints({3})}}};
}

// The LU family and the other matrix functions (dispatch/ops/linalg.ops):
// square inputs, made invertible by their domain; int32 pivots for lu_solve.
// zeta and the incomplete gamma functions: PyTorch differentiates only their
// second argument, so the first is a constant (s > 1 for zeta; a > 0).
void add_special_samples(std::map<std::string, std::vector<Sample>>& m) {
  const Value s(add(rand({3}, ScalarType::kFloat64), wrap_scalar(Scalar(1.5))));
  const Value a(add(rand({2, 3}, ScalarType::kFloat64), wrap_scalar(Scalar(0.5))));
  m["torch.special.zeta"] = {{{s, t({2, 3})}}, {{Value(2.5), t({3})}}};
  m["torch.igamma"] = {{{a, t({2, 3})}}, {{a, t({3})}}};
  m["torch.igammac"] = m["torch.igamma"];
  m["igamma_"] = m["torch.igamma"];
  m["igammac_"] = m["torch.igamma"];
  // polygamma takes n first, its method self first; mvlgamma of p = 1 (p > 1 needs
  // inputs above (p - 1) / 2: the golden test checks p = 3 against PyTorch's gradient).
  m["torch.polygamma"] = {{{i(1), t({2, 3})}}, {{i(3), t({3})}}};
  m["torch.Tensor.polygamma"] = {{{t({2, 3}), i(2)}}};
  m["polygamma_"] = m["torch.Tensor.polygamma"];
  m["torch.mvlgamma"] = {{{t({2, 3}), i(1)}}};
  m["mvlgamma_"] = m["torch.mvlgamma"];
}

void add_linalg_samples(std::map<std::string, std::vector<Sample>>& m) {
  const auto pivots = [](std::vector<std::int64_t> v, std::vector<std::int64_t> shape) {
    return Value(index(std::move(v), std::move(shape)).to_tensor().to(ScalarType::kInt32));
  };
  const std::vector<Sample> square = {{{t({3, 3})}}, {{t({2, 2, 2})}}};
  for (const char* name : {"det", "slogdet", "logdet", "inverse", "inv", "inv_ex", "lu_factor", "lu_factor_ex"})
    m[name] = square;
  m["matrix_power"] = {{{t({3, 3}), i(3)}}, {{t({2, 2, 2}), i(0)}}, {{t({3, 3}), i(-2)}}, {{t({2, 2}), i(1)}}};
  m["torch.linalg.solve"] = {{{t({3, 3}), t({3, 2})}},
                             {{t({3, 3}), t({3})}},
                             {{t({2, 3, 3}), t({3, 4})}},
                             {{t({3, 3}), t({2, 3})}, {{"left", Value(false)}}}};
  m["torch.linalg.solve_ex"] = m["torch.linalg.solve"];
  m["torch.linalg.lu_solve"] = {{{t({3, 3}), pivots({3, 2, 3}, {3}), t({3, 2})}},
                                {{t({3, 3}), pivots({2, 3, 3}, {3}), t({2, 3})}, {{"left", Value(false)}}},
                                {{t({3, 3}), pivots({3, 3, 3}, {3}), t({3, 2})}, {{"adjoint", Value(true)}}},
                                {{t({3, 3}), pivots({1, 3, 3}, {3}), t({1, 3})},
                                 {{"left", Value(false)}, {"adjoint", Value(true)}}},
                                {{t({2, 3, 3}), pivots({3, 2, 3, 1, 3, 3}, {2, 3}), t({3, 1})}}};
  m["torch.linalg.solve_triangular"] = {
      {{t({3, 3}), t({3, 2})}, {{"upper", Value(true)}}},
      {{t({3, 3}), t({2, 3})}, {{"upper", Value(false)}, {"left", Value(false)}}},
      {{t({3, 3}), t({3, 2})}, {{"upper", Value(false)}, {"unitriangular", Value(true)}}},
      {{t({2, 3, 3}), t({1, 3})}, {{"upper", Value(true)}, {"left", Value(false)}}}};
  m["torch.linalg.multi_dot"] = {{{TensorListArg{{{2, 3}, {3, 4}}}}},
                                 {{TensorListArg{{{3}, {3, 4}, {4, 2}, {2}}}}},
                                 {{TensorListArg{{{4, 2}, {2, 5}, {5, 3}, {3, 1}}}}}};
  m["torch.cross"] = {{{t({3, 2}), t({3, 2})}}, {{t({2, 3}), t({2, 3}), i(1)}}, {{t({4, 3}), t({1, 3}), i(-1)}}};
  m["torch.Tensor.cross"] = m["torch.cross"];
  m["torch.linalg.cross"] = {{{t({2, 3}), t({2, 3})}}, {{t({3, 2}), t({3, 1})}, {{"dim", i(0)}}}};
  m["vecdot"] = {{{t({2, 3}), t({3})}}, {{t({3, 2}), t({3, 2})}, {{"dim", i(0)}}}};
  m["cholesky"] = {{{t({3, 3})}}, {{t({2, 2, 2}), Value(true)}}};
  m["torch.linalg.cholesky"] = {{{t({3, 3})}}, {{t({2, 3, 3})}, {{"upper", Value(true)}}}};
  m["cholesky_ex"] = {{{t({3, 3})}}, {{t({2, 2, 2})}, {{"upper", Value(true)}}}};
  m["cholesky_solve"] = {{{t({3, 2}), t({3, 3})}}, {{t({2, 3, 1}), t({3, 3}), Value(true)}}};
  m["cholesky_inverse"] = {{{t({3, 3})}}, {{t({2, 2, 2}), Value(true)}}};
  m["eigh"] = {{{t({3, 3})}}, {{t({2, 2, 2}), Value("U")}}};
  m["eigvalsh"] = {{{t({3, 3})}}, {{t({2, 3, 3}), Value("U")}}};
  m["torch.linalg.eig"] = {{{t({3, 3})}}, {{t({2, 2, 2})}}};
  m["torch.linalg.eigvals"] = m["torch.linalg.eig"];
  m["torch.linalg.qr"] = {{{t({4, 3})}}, {{t({3, 3}), Value("complete")}}, {{t({2, 3, 2})}}};
  m["torch.qr"] = {{{t({4, 3})}}, {{t({2, 3, 3}), Value(false)}}};
  m["torch.Tensor.qr"] = m["torch.qr"];
  m["torch.linalg.svd"] = {{{t({4, 3}), Value(false)}}, {{t({3, 3})}}, {{t({2, 2, 3}), Value(false)}}};
  m["torch.svd"] = {{{t({4, 3})}}, {{t({2, 3, 3}), Value(false)}}};
  m["torch.Tensor.svd"] = m["torch.svd"];
  m["svdvals"] = {{{t({4, 3})}}, {{t({2, 3, 3})}}};
  m["pinverse"] = {{{t({4, 3})}}};
  m["torch.linalg.pinv"] = {{{t({4, 3})}}, {{t({2, 3, 3})}, {{"atol", Value(0.5)}}}, {{t({3, 4}), Value(0.1)}}};
  m["torch.linalg.cond"] = {{{t({3, 3})}},        {{t({2, 3, 4}), Value(-2)}}, {{t({3, 3}), Value("fro")}},
                            {{t({3, 3}), Value("nuc")}}, {{t({2, 3, 3}), Value(1)}}};
  m["torch.linalg.norm"] = {{{t({2, 3})}},
                            {{t({2, 3}), Value(2)}},
                            {{t({4}), Value(3)}},
                            {{t({2, 3, 4}), Value("nuc"), ints({0, 2})}},
                            {{t({2, 3, 4}), Value(), ints({1, 2}), Value(true)}},
                            {{t({3, 3}), Value(-1)}}};
  m["baddbmm"] = {{{t({2, 3, 4}), t({2, 3, 5}), t({2, 5, 4})}},
                  {{t({4}), t({2, 3, 5}), t({2, 5, 4})}, {{"beta", Value(0.5)}, {"alpha", Value(-2.0)}}}};
  m["addbmm"] = {{{t({3, 4}), t({2, 3, 5}), t({2, 5, 4})}},
                 {{t({4}), t({2, 3, 5}), t({2, 5, 4})}, {{"beta", Value(0.5)}, {"alpha", Value(-2.0)}}}};
  m["addmv"] = {{{t({3}), t({3, 4}), t({4})}}, {{t({}), t({3, 4}), t({4})}, {{"beta", Value(0.5)}}}};
  m["addr"] = {{{t({3, 2}), t({3}), t({2})}}, {{t({2}), t({3}), t({2})}, {{"alpha", Value(-2.0)}}}};
  for (const char* op : {"baddbmm", "addbmm", "addmv", "addr"}) m[std::string(op) + "_"] = {m[op][0]};
  m["tensordot"] = {{{t({2, 3, 4}), t({3, 4, 5})}},
                    {{t({2, 3}), t({3, 2}), i(1)}},
                    {{t({2, 3, 4}), t({4, 2, 3}), Value::list({Value(std::vector<std::int64_t>{0, 2}),
                                                               Value(std::vector<std::int64_t>{1, 0})})}}};
  m["cdist"] = {{{t({3, 4}), t({2, 4})}},
                {{t({2, 3, 4}), t({2, 2, 4}), Value(1.0)}},
                {{t({3, 2}), t({4, 2}), Value(3.0)}},
                {{t({3, 2}), t({4, 2}), Value(2.0), Value("use_mm_for_euclid_dist")}}};
  m["diag"] = {{{t({3})}}, {{t({3}), i(-1)}}, {{t({3, 4}), i(1)}}};
  m["diag_embed"] = {{{t({2, 3})}}, {{t({3}), i(1)}}, {{t({2, 3}), i(-1), i(0), i(2)}}};
  m["matrix_exp"] = {{{t({3, 3})}}, {{t({2, 2, 2})}}};
  m["lu_unpack"] = {{{t({3, 3}), pivots({3, 2, 3}, {3})}}, {{t({2, 3, 3}), pivots({3, 2, 3, 1, 3, 3}, {2, 3})}}};
  m["torch.linalg.lu"] = {{{t({3, 3})}}, {{t({2, 3, 3})}}};
  m["tensorinv"] = {{{t({4, 4}), i(1)}}, {{t({2, 3, 6})}}};
  m["tensorsolve"] = {{{t({2, 3, 6}), t({2, 3})}}, {{t({6, 2, 3}), t({2, 3}), ints({0})}}};
  m["torch.linalg.vander"] = {{{t({3})}}, {{t({2, 3})}, {{"N", i(4)}}}};  // torch.vander: its own definition's
  m["lu_solve"] = {{{t({3, 2}), t({3, 3}), pivots({3, 2, 3}, {3})}}, {{t({2, 3, 1}), t({3, 3}), pivots({2, 3, 3}, {3})}}};
  m["triangular_solve"] = {{{t({3, 2}), t({3, 3})}},
                           {{t({2, 3, 1}), t({3, 3}), Value(false), Value(true)}},
                           {{t({3, 2}), t({3, 3}), Value(true), Value(false), Value(true)}}};
  m["diagonal"] = {{{t({3, 4})}}, {{t({3, 4}), i(1)}}, {{t({2, 3, 4}), i(-1), i(2), i(0)}}};
  m["torch.linalg.diagonal"] = {{{t({2, 3, 3})}}, {{t({3, 4})}, {{"offset", i(1)}}}};
}

// Operators whose arguments cannot be generated from the schema alone (or
// that deserve more than the generic case), by entry name.
const std::map<std::string, std::vector<Sample>>& explicit_samples() {
  static const std::map<std::string, std::vector<Sample>> samples = [] {
    Tensor cond = gt(randn({2, 3}), wrap_scalar(Scalar(0.0)));
    std::map<std::string, std::vector<Sample>> m;
    m["where"] = {{{Value(cond), t({2, 3}), t({3})}}};
    m["torch.Tensor.where"] = {{{t({2, 3}), Value(cond), t({3})}}};  // x.where(condition, y)
    m["sum"] = {{{t({2, 3})}}, {{t({2, 3, 2}), ints({0, 2})}}, {{t({2, 3}), ints({-1}), Value(true)}}};
    m["mean"] = {{{t({2, 3})}}, {{t({2, 3}), ints({1})}}, {{t({2, 3}), ints({0}), Value(true)}}};
    m["mm"] = {{{t({2, 3}), t({3, 4})}}};
    m["addmm"] = {{{t({4}), t({2, 3}), t({3, 4})}},
                  {{t({2, 1}), t({2, 3}), t({3, 4})}, {{"beta", Value(0.5)}, {"alpha", Value(-2.0)}}}};
    m["mv"] = {{{t({2, 3}), t({3})}}};
    m["dot"] = {{{t({3}), t({3})}}};
    m["outer"] = {{{t({3}), t({2})}}};
    m["bmm"] = {{{t({2, 2, 3}), t({2, 3, 4})}}};
    m["matmul"] = {{{t({2, 3}), t({3, 2})}},
                   {{t({3}), t({3})}},
                   {{t({3}), t({3, 2})}},
                   {{t({2, 2, 3}), t({3})}},
                   {{t({2, 1, 2, 3}), t({3, 3, 2})}}};
    m["__matmul__"] = m["matmul"];
    m["reshape"] = {{{t({2, 3}), ints({3, 2})}}, {{t({2, 3}), ints({-1})}}};
    m["view"] = {{{t({2, 3}), ints({6})}}};
    m["expand"] = {{{t({3, 1}), ints({2, 3, 4})}}};
    m["transpose"] = {{{t({2, 3, 4}), i(0), i(2)}}};
    m["swapaxes"] = m["transpose"];
    m["permute"] = {{{t({2, 3, 4}), ints({2, 0, 1})}}};
    m["unsqueeze"] = {{{t({2, 3}), i(1)}}, {{t({2, 3}), i(-1)}}};
    m["squeeze"] = {{{t({2, 1, 3})}}, {{t({2, 1, 3}), i(1)}}};
    m["narrow"] = {{{t({4, 3}), i(0), i(1), i(2)}}, {{t({4, 3}), i(1), i(-2), i(2)}}};
    m["select"] = {{{t({4, 3}), i(1), i(-1)}}};
    m["to"] = {{{t({2, 3}), Value(ScalarType::kFloat32)}, {}, 1e-3, 1e-2}};
    // The dtype conversions: a narrower float's rounding needs a coarser step.
    m["float"] = {{{t({2, 3})}, {}, 1e-3, 1e-2}};
    m["cfloat"] = m["float"];
    m["half"] = {{{t({2, 3})}, {}, 0.1, 0.1}};
    m["bfloat16"] = {{{t({2, 3})}, {}, 0.5, 0.1}};
    m["reshape_as"] = {{{t({2, 3}), t({3, 2})}}, {{t({4}), t({2, 2})}}};
    m["view_as"] = {{{t({2, 3}), t({3, 2})}}, {{t({6}), t({2, 3})}}};
    m["geometric_"] = {{{t({2, 3}), Value(0.3)}}};
    m["randint_like"] = {{{t({2, 3}), Value(std::int64_t{5})}}};
    m["type_as"] = {{{t({2, 3}), t({3})}}};
    m["fill_"] = {{{t({2, 3}), Value(2.5)}}};
    m["copy_"] = {{{t({2, 3}), t({3})}}};
    // Rounding division is piecewise constant: a zero gradient, as in PyTorch.
    m["div"] = {{{t({2, 3}), t({3})}},
                {{t({2, 3}), t({2, 1})}, {{"rounding_mode", Value("floor")}}},
                {{t({2, 3}), t({3})}, {{"rounding_mode", Value("trunc")}}}};
    m["div_"] = m["div"];
    m["lerp"] = {{{t({2, 3}), t({3}), t({2, 1})}}, {{t({2, 3}), t({2, 3}), Value(0.3)}}};
    // Shape and indexing (issue 6): indices unique per column, so scatter's gradient is well defined.
    const Value idx = index({0, 2, 1, 0, 2, 0, 0, 1}, {2, 4});
    const Value mask = Value(gt(randn({3}), wrap_scalar(Scalar(0.0))));
    m["flatten"] = {{{t({2, 3, 4}), i(1)}}, {{t({})}}};
    m["unflatten"] = {{{t({2, 6}), i(1), ints({2, -1})}}};
    m["cat"] = {{{tl({{2, 3}, {1, 3}})}}, {{tl({{2, 3}, {2, 2}, {0}}), i(-1)}}};
    m["stack"] = {{{tl({{2, 3}, {2, 3}}), i(1)}}};
    m["split"] = {{{t({5, 2}), i(2)}}, {{t({5, 2}), ints({2, 3})}}};
    m["split_with_sizes"] = {{{t({2, 5}), ints({1, 4}), i(1)}}};
    m["chunk"] = {{{t({5, 2}), i(3)}}};
    m["index_select"] = {{{t({3, 4}), i(1), index({3, 0, 3}, {3})}}, {{t({3, 4}), i(0), index({2}, {})}}};
    m["gather"] = {{{t({3, 4}), i(0), idx}}, {{t({3, 4}), i(1), index({3, 0, 1, 1}, {2, 2})}}};
    m["scatter"] = {{{t({3, 4}), i(0), idx, t({3, 5})}}, {{t({3, 4}), i(0), idx, Value(1.5)}}};
    m["scatter_add"] = {{{t({3, 4}), i(0), idx, t({2, 4})}}};
    m["masked_fill"] = {{{t({2, 3}), mask, Value(1.5)}},
                        {{t({2, 3}), mask, t({})}},
                        {{t({3}), Value(gt(randn({2, 3}), wrap_scalar(Scalar(0.0)))), t({})}}};
    m["repeat"] = {{{t({2, 3}), ints({2, 1, 2})}}};
    m["expand_as"] = {{{t({3, 1}), Value(zeros({2, 3, 4}))}}};
    m["flip"] = {{{t({2, 3, 4}), ints({0, 2})}}};
    m["roll"] = {{{t({3, 4}), ints({1})}}, {{t({3, 4}), ints({-1, 5}), ints({0, 1})}}};
    m["tril"] = {{{t({3, 4}), i(1)}}, {{t({2, 3, 3})}}};
    m["triu"] = {{{t({3, 4}), i(-1)}}, {{t({2, 3, 3})}}};
    m["clamp"] = {{{t({2, 3}), Value(-1.0), Value(1.0)}}, {{t({2, 3}), Value(-1.0)}}, {{t({2, 3}), Value(), Value(1)}}};
    // The bitwise operators take integers and bools (their results are not differentiable).
    const Value bits = index({12, -7, 0, 5, 3, 255}, {2, 3});
    for (const char* op :
         {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_and_", "bitwise_or_", "bitwise_xor_", "__and__",
          "__rand__", "__iand__", "__or__", "__ror__", "__ior__", "__xor__", "__rxor__", "__ixor__"})
      m[op] = {{{bits, index({10, 6, -1}, {3})}}, {{bits, Value(std::int64_t{3})}}};
    for (const char* op : {"bitwise_not", "bitwise_not_", "__invert__"}) m[op] = {{{bits}}};
    // The *_like creation functions and logical_not_ on one plain input (their
    // definitions' samples add dtype= and a bool self, which the issue-6
    // dtype check does not model).
    for (const char* op : {"zeros_like", "ones_like", "rand_like", "randn_like", "logical_not_"}) m[op] = {{{t({2, 3})}}};
    m["full_like"] = {{{t({2, 3}), Value(1.5)}}};
    add_nn_samples(m);
    add_norm_samples(m);
    add_more_nn_samples(m);
    add_conv_samples(m);
    add_linalg_samples(m);
    add_special_samples(m);
    m["prod"] = {{{t({2, 3})}}, {{t({2, 3}), i(1)}}, {{t({2, 3}), i(0), Value(true)}}};
    m["max"] = {{{t({2, 3})}}, {{t({2, 3}), i(1)}}, {{t({2, 3}), i(0), Value(true)}}, {{t({2, 3}), t({3})}}};
    m["min"] = m["max"];
    m["amax"] = {{{t({2, 3})}}, {{t({2, 3, 2}), ints({0, 2})}}, {{t({2, 3}), ints({-1}), Value(true)}}};
    m["amin"] = m["amax"];
    m["var"] = {{{t({2, 3})}},
                {{t({2, 3}), Value(false)}},
                {{t({2, 3, 2}), ints({0, 2})}, {{"keepdim", Value(true)}}},
                {{t({2, 3}), i(1)}, {{"correction", i(0)}}}};
    m["std"] = m["var"];
    m["norm"] = {{{t({2, 3})}},
                 {{t({2, 3}), Value(1)}},
                 {{t({2, 3}), Value(3)}},
                 {{t({2, 3}), Value(1.5)}},
                 {{t({2, 3}), Value(0.5)}},
                 {{t({2, 3}), Value(std::numeric_limits<double>::infinity()), ints({1})}},
                 {{t({2, 3}), Value(), ints({0}), Value(true)}}};
    m["logsumexp"] = {{{t({2, 3}), ints({1})}}, {{t({2, 3, 2}), ints({0, 2}), Value(true)}}};
    m["cumsum"] = {{{t({2, 3}), i(1)}}, {{t({2, 3}), i(0)}}};
    m["cumprod"] = {{{t({2, 3}), i(1)}}, {{t({2, 3}), i(-2)}}};
    // In-place twins (exp_, ...; Note [In-place twins]) run their operator's
    // samples where self is already the result's shape; the others get their own.
    for (const char* op : {"clamp", "lerp", "scatter", "scatter_add", "tril", "triu", "transpose", "swapaxes", "squeeze",
                           "unsqueeze", "cumsum", "cumprod"})
      m[std::string(op) + "_"] = m[op];
    m["masked_fill_"] = {m["masked_fill"][0], m["masked_fill"][1]};
    // Complex numbers: a complex argument here is a constant (the samples'
    // inputs are real); tests/autograd/complex_autograd_test.cpp
    // differentiates complex inputs.
    const Value z = Value(complex(randn({2, 3}, ScalarType::kFloat64), randn({2, 3}, ScalarType::kFloat64)));
    for (const char* op : {"view_as_real", "imag", "resolve_conj", "resolve_neg", "is_conj", "is_neg"})
      m[op] = {{{z}}};
    for (const char* op : {"real", "conj", "conj_physical", "angle", "sgn", "is_complex"}) m[op] = {{{z}}, {{t({2, 3})}}};
    m["view_as_complex"] = {{{t({3, 2})}}, {{t({2})}}};
    // Sorting: values are gathered through argsort's indices (distinct random inputs: no ties).
    m["topk"] = {{{t({2, 5}), i(3)}}, {{t({2, 5}), i(2), i(0), Value(false)}}};
    m["kthvalue"] = {{{t({2, 5}), i(2)}}, {{t({2, 5}), i(1), i(0), Value(true)}}, {{t({}), i(1)}}};
    m["median"] = {{{t({2, 5})}}, {{t({2, 5}), i(1)}}, {{t({3, 4}), i(0), Value(true)}}};
    m["nanmedian"] = m["median"];
    m["mode"] = {{{t({2, 5})}}, {{t({3, 4}), i(0), Value(true)}}};
    // Searching and counting: integer results, or no derivative (histc, bincount's weights, unique).
    m["searchsorted"] = {{{index({-1, 0, 1}, {3}), t({2, 3})}}, {{index({1, 3}, {2}), t({2, 3})}, {{"right", Value(true)}}}};
    m["bucketize"] = {{{t({2, 3}), index({-1, 0, 1}, {3})}}};
    m["histc"] = {{{t({2, 5}), i(4)}}};
    m["bincount"] = {{{index({1, 3, 1, 0}, {4}), t({4})}}};
    m["unique"] = {{{t({2, 3})}}, {{t({2, 3}), Value(true), Value(true), Value(true), i(1)}}};
    m["unique_consecutive"] = {{{t({2, 3})}, {{"return_counts", Value(true)}}}};
    // Indexing by positions and masks: gradients through index_select, gather, scatter and masked_fill.
    m["take"] = {{{t({2, 3}), index({0, -1, 4}, {3})}}, {{t({2, 3}), index({0, 5, 2, 2}, {2, 2})}}};
    m["take_along_dim"] = {{{t({2, 3}), index({0, 2, 1, 0}, {2, 2}), i(1)}}, {{t({2, 3}), index({0, 5}, {2})}},
                           {{t({3, 1}), index({2, 0}, {1, 2}), i(0)}}};
    m["masked_select"] = {{{t({2, 3}), mask}}, {{t({3}), Value(gt(randn({2, 3}), wrap_scalar(Scalar(0.0))))}}};
    const Value some = Value(tensor(Value(std::vector<std::int64_t>{0, 1, 1, 1, 0, 1})).reshape({2, 3}).to(ScalarType::kBool));
    m["masked_scatter"] = {{{t({2, 3}), some, t({6})}}, {{t({2, 3}), some, t({2, 4})}}};
    m["masked_scatter_"] = m["masked_scatter"];
    m["argwhere"] = {{{t({2, 3})}}};
    m["index_fill"] = {{{t({2, 3}), i(1), index({0, 2}, {2}), Value(-1.5)}}, {{t({2, 3}), i(0), index({-1}, {}), t({})}}};
    m["index_fill_"] = m["index_fill"];
    m["index_copy"] = {{{t({2, 3}), i(1), index({2, 0}, {2}), t({2, 2})}}, {{t({3, 2}), i(0), index({1}, {1}), t({1, 2})}}};
    m["index_copy_"] = m["index_copy"];
    m["index_add"] = {{{t({2, 3}), i(1), index({2, 0, 2}, {3}), t({2, 3})}, {{"alpha", Value(2)}}},
                      {{t({3, 2}), i(0), index({1, 1}, {2}), t({2, 2})}}};
    m["index_add_"] = m["index_add"];
    m["put"] = {{{t({2, 3}), index({0, -1}, {2}), t({2})}}, {{t({2, 3}), index({1, 1}, {1, 2}), t({1, 2}), Value(true)}}};
    m["put_"] = m["put"];
    m["index_put"] = {{{t({3, 4}), Value::list({index({2, 0}, {2})}), t({4})}},
                      {{t({3, 4}), Value::list({index({1, 1}, {2}), index({0, 0}, {2})}), t({2}), Value(true)}}};
    m["index_put_"] = m["index_put"];
    // Shape helpers: views and cats.
    m["broadcast_to"] = {{{t({3}), ints({2, 3})}}, {{t({2, 1}), ints({2, -1, 4})}}};
    m["movedim"] = {{{t({2, 3, 4}), i(0), i(-1)}}, {{t({2, 3, 4}), ints({0, 1}), ints({2, 0})}}};
    m["hstack"] = {{{tl({{2, 3}, {2, 1}})}}, {{tl({{3}, {2}})}}};
    m["vstack"] = {{{tl({{2, 3}, {1, 3}})}}, {{tl({{3}, {3}})}}};
    m["dstack"] = {{{tl({{2, 3}, {2, 3}})}}};
    m["column_stack"] = {{{tl({{3}, {3, 2}})}}};
    // The variadic functions (Note [Variadic arguments]): positional tensors, or one list.
    m["broadcast_tensors"] = {{{t({2, 1}), t({3})}}, {{tl({{3}, {2, 3}, {}})}}};
    m["meshgrid"] = {{{t({2}), t({3})}}, {{t({2}), t({3}), t({})}, {{"indexing", Value("xy")}}}};
    m["block_diag"] = {{{t({2, 2}), t({3}), t({})}}, {{t({2, 3}), t({1, 2})}}};
    m["cartesian_prod"] = {{{t({2}), t({3})}}, {{t({2}), t({2}), t({2})}}};
    m["atleast_1d"] = {{{t({})}}, {{t({}), t({2, 3})}}};
    m["atleast_2d"] = {{{t({3})}}, {{t({}), t({3}), t({2, 3})}}};
    m["atleast_3d"] = {{{t({3})}}, {{t({}), t({2, 3}), t({2, 3, 4})}}};
    m["einsum"] = {{{Value("ij,jk->ik"), t({2, 3}), t({3, 4})}},
                   {{Value("ii->i"), t({3, 3})}},
                   {{Value("bij,bjk"), t({2, 2, 3}), t({2, 3, 2})}},
                   {{Value("...i,...i->..."), t({2, 3, 4}), t({3, 4})}},
                   {{Value("i,j,k->ijk"), t({2}), t({3}), t({2})}},
                   {{Value("iji->j"), t({2, 3, 2})}},
                   {{Value("ab,cb,bd->ad"), t({2, 3}), t({4, 3}), t({3, 2})}},
                   {{Value("ij,ij->ij"), t({2, 3}), t({1, 3})}}};
    m["chain_matmul"] = {{{t({2, 3}), t({3, 4}), t({4, 2})}}, {{t({2, 3})}}};
    // The integer operators: fixed integer operands (nothing to differentiate).
    const Value ints_a = index({12, -18, 0, 7, 9, 5}, {2, 3});
    const Value ints_b = index({8, 12, 0}, {3});
    const Value counts = index({1, 2, 3}, {3});
    m["bitwise_left_shift"] = {{{ints_a, counts}}, {{ints_a, i(3)}}};
    m["bitwise_right_shift"] = m["bitwise_left_shift"];
    for (const char* op : {"bitwise_left_shift_", "bitwise_right_shift_", "__lshift__", "__rshift__", "__ilshift__",
                           "__irshift__"})
      m[op] = m["bitwise_left_shift"];
    m["gcd"] = {{{ints_a, ints_b}}};
    m["lcm"] = m["gcd"];
    m["gcd_"] = m["gcd"];
    m["lcm_"] = m["gcd"];
    m["__rlshift__"] = {{{counts, i(3)}}};
    m["__rrshift__"] = {{{counts, i(64)}}};
    // Scans, integrals and quantiles (dispatch/composite/scan_ops.cpp).
    m["cummax"] = {{{t({2, 3}), i(1)}}, {{t({3, 2}), i(0)}}, {{t({}), i(0)}}};
    m["cummin"] = m["cummax"];
    m["logcumsumexp"] = {{{t({2, 3}), i(1)}}, {{t({3, 2}), i(0)}}};
    m["trapezoid"] = {{{t({2, 3}), t({3})}}, {{t({3, 2}), t({3, 2})}, {{"dim", i(0)}}}, {{t({2, 3})}, {{"dx", Value(0.5)}}}};
    m["trapz"] = m["trapezoid"];
    m["cumulative_trapezoid"] = m["trapezoid"];
    m["quantile"] = {{{t({2, 5}), Value(0.4)}},
                     {{t({2, 5}), Value(0.25), i(1)}, {{"interpolation", Value("midpoint")}}},
                     {{t({2, 5}), Value(tensor(Value(std::vector<double>{0.25, 0.5}))), i(0), Value(true)}}};
    m["nanquantile"] = m["quantile"];
    m["combinations"] = {{{t({4})}}, {{t({3}), i(3), Value(true)}}};
    // Activations (dispatch/composite/activation_ops.cpp): away from their kinks.
    m["hardtanh"] = {{{t({2, 3})}}, {{t({2, 3}), Value(-0.5), Value(0.5)}}};
    m["softplus"] = {{{t({2, 3})}}, {{t({2, 3}), Value(2.0), Value(1.0)}}};
    m["celu"] = {{{t({2, 3})}}, {{t({2, 3}), Value(0.5)}}};
    m["threshold"] = {{{t({2, 3}), Value(0.1), Value(20.0)}}};
    m["softshrink"] = {{{t({2, 3})}}, {{t({2, 3}), Value(0.2)}}};
    m["hardshrink"] = {{{t({2, 3})}}, {{t({2, 3}), Value(0.2)}}};
    m["glu"] = {{{t({2, 4})}}, {{t({4, 3}), i(0)}}};
    m["prelu"] = {{{t({2, 3}), t({1})}}, {{t({2, 3, 4}), t({3})}}};
    m["tile"] = {{{t({2, 3}), ints({2})}}, {{t({3}), ints({2, 2})}}};
    m["tensor_split"] = {{{t({7, 2}), i(3)}}, {{t({2, 7}), ints({1, 5}), i(1)}}};
    m["hsplit"] = {{{t({2, 4}), i(2)}}, {{t({6}), ints({1, 4})}}};
    m["vsplit"] = {{{t({4, 2}), i(2)}}};
    m["dsplit"] = {{{t({2, 2, 4}), ints({1})}}};
    m["repeat_interleave"] = {{{t({2, 3}), index({1, 2}, {2}), i(0)}}, {{t({2, 3}), i(2)}}};
    m["vdot"] = {{{t({3}), t({3})}}};
    m["polar"] = {{{t({2, 3}), t({3})}}};
    m["addmm_"] = {{{t({2, 4}), t({2, 3}), t({3, 4})}},
                   {{t({2, 4}), t({2, 3}), t({3, 4})}, {{"beta", Value(0.5)}, {"alpha", Value(-2.0)}}}};
    return m;
  }();
  return samples;
}

// A sample from the schema: tensors (2,3), (3), (2,1) to exercise
// broadcasting, Scalars 1.5; arguments with defaults keep them.
std::optional<Sample> generic_sample(const FunctionSchema& s) {
  static const std::vector<std::vector<std::int64_t>> shapes = {{2, 3}, {3}, {2, 1}};
  Sample out;
  std::size_t n_tensors = 0;
  for (const auto& a : s.arguments) {
    if (a.default_value || a.kwarg_only) break;
    if (a.type.kind == TypeKind::kTensor && !a.type.is_list) {
      out.args.emplace_back(TensorArg{shapes[std::min(n_tensors++, shapes.size() - 1)]});
    } else if (a.type.kind == TypeKind::kScalar) {
      out.args.emplace_back(Value(1.5));
    } else {
      return std::nullopt;
    }
  }
  return out;
}

Tensor make_input(const TensorArg& a, Domain d, ScalarType dtype) {
  if (a.float64) dtype = is_complex(dtype) ? ScalarType::kComplex128 : ScalarType::kFloat64;
  if (dtype == ScalarType::kInt64) return randint(1, 4, IntArrayRef(a.shape));
  // |x| in [0.5, 1.5): no kinks (abs, relu), no ties (maximum), no poles (div).
  Tensor mag = add(rand(IntArrayRef(a.shape), ScalarType::kFloat64), wrap_scalar(Scalar(0.5)));
  Tensor x;
  if (d == Domain::kPositive) {
    x = mag;
  } else if (d == Domain::kProbability) {
    x = mul(mag, wrap_scalar(Scalar(0.6)));  // [0.3, 0.9)
  } else if (d == Domain::kAboveOne) {
    x = add(mag, wrap_scalar(Scalar(0.7)));  // [1.2, 2.2)
  } else {
    if (d == Domain::kInsideUnit) mag = mul(mag, wrap_scalar(Scalar(0.6)));  // |x| in [0.3, 0.9)
    Tensor sign =
        sub(mul(gt(rand(IntArrayRef(a.shape), ScalarType::kFloat64), wrap_scalar(Scalar(0.5))).to(ScalarType::kFloat64),
                wrap_scalar(Scalar(2.0))),
            wrap_scalar(Scalar(1.0)));
    x = mul(mag, sign);
    const std::size_t r = a.shape.size();
    const bool square = r >= 2 && a.shape[r - 1] == a.shape[r - 2];
    if (square && (d == Domain::kHermitian || d == Domain::kSpd))
      x = mul(add(x, x.transpose(-2, -1)), wrap_scalar(Scalar(0.5)));
    if (square && (d == Domain::kInvertible || d == Domain::kSpd)) {  // well-conditioned
      const std::int64_t n = a.shape[r - 1];
      x = add(x, mul(eye(n, std::nullopt, ScalarType::kFloat64), wrap_scalar(Scalar(static_cast<double>(2 * n)))));
    }
  }
  return x.to(dtype).requires_grad_();
}

Value with_dtype(const Value& v, ScalarType dtype) {
  if (!v.is_tensor() || !is_floating(dtype) || !is_floating(v.to_tensor().dtype())) return v;
  return Value(v.to_tensor().to(dtype));
}

// The definition's own `sample:` lines (or those it borrows, Note [Sample
// lookup] in wick/opcheck.h) as this file's Samples: an input tensor (T[...],
// a tensor list) becomes a shape to fill in; every other tensor (R, P, U,
// M, C and the literals) is made once, in float64. Empty when the definition
// and the ones it borrows from have no samples.
std::vector<Sample> definition_samples(const CatalogEntry& e) {
  const std::string& full = e.overloads.front();
  const std::vector<std::string> chain = sample_lookup_chain(full);
  if (std::none_of(chain.begin(), chain.end(), [](const std::string& n) { return !operator_info(n).samples.empty(); }))
    return {};
  std::vector<Sample> out;
  for (const ::wick::Sample& s : ::wick::samples_for(full)) {
    const SampleCall made = make_sample_call(s, ScalarType::kFloat64, Device());
    const auto convert = [](const SampleArg& a, const Value& value) -> Arg {
      if (const auto* t = std::get_if<SampleTensor>(&a); t != nullptr && t->kind == SampleTensor::Kind::kInput)
        return TensorArg{t->shape, t->float64};
      if (const auto* l = std::get_if<SampleTensorList>(&a)) return TensorListArg{l->shapes};
      return value;
    };
    Sample mine;
    for (std::size_t i = 0; i < s.args.size() && i < made.args.size(); ++i)
      mine.args.push_back(convert(s.args[i], made.args[i]));
    mine.kwargs = made.kwargs;
    // gradcheck's step and tolerance from the definition's tags (eps=, atol=), as opcheck reads them.
    for (const std::string& tag : ::wick::tags_for(full)) {
      if (tag.starts_with("eps=")) mine.eps = std::stod(tag.substr(4));
      if (tag.starts_with("atol=")) mine.atol = std::stod(tag.substr(5));
    }
    out.push_back(std::move(mine));
  }
  return out;
}

}  // namespace

// The name an entry's samples and domain go by: an alias's (torch.arccos,
// torch.Tensor.clip_) is its target's (acos, clamp_).
std::string sample_name(const CatalogEntry& e) {
  return e.alias_of.empty() ? e.name : e.alias_of.substr(e.alias_of.rfind('.') + 1);
}

std::vector<Sample> samples_for(const CatalogEntry& e) {
  if (auto it = explicit_samples().find(e.qualified_name); it != explicit_samples().end()) return it->second;
  if (auto it = explicit_samples().find(e.alias_of); it != explicit_samples().end()) return it->second;
  if (auto it = explicit_samples().find(sample_name(e)); it != explicit_samples().end()) return it->second;
  if (std::vector<Sample> own = definition_samples(e); !own.empty()) return own;
  if (auto g = generic_sample(find_op(e.overloads.front()).schema())) return {*g};
  return {};
}

Domain domain_of(const std::string& name) {
  constexpr const char* kPositive[] = {"log",   "log2", "log10",   "log1p",    "sqrt",
                                       "rsqrt", "pow",  "__pow__", "__rpow__", "__ipow__"};
  // An in-place twin (log_, asin_) has its operator's domain.
  const std::string base =
      name.size() > 1 && name.back() == '_' && name.front() != '_' ? name.substr(0, name.size() - 1) : name;
  for (const char* p : kPositive)
    if (base == p) return Domain::kPositive;
  if (base == "asin" || base == "acos" || base == "atanh" || base == "arctanh") return Domain::kInsideUnit;
  if (base == "acosh" || base == "arccosh") return Domain::kAboveOne;
  if (base == "xlogy" || base == "float_power") return Domain::kPositive;
  if (name == "binary_cross_entropy" || name == "bernoulli") return Domain::kProbability;
  return Domain::kAwayFromZero;
}

// The tags of e's definition; an in-place twin (torch.Tensor.acosh_) has its operator's (torch.acosh).
std::vector<std::string> definition_tags(const CatalogEntry& e) {
  std::vector<std::string> tags = operator_info(e.overloads.front()).tags;
  const std::string base = sample_name(e);
  if (tags.empty() && base.size() > 1 && base.back() == '_' && base.front() != '_') {
    const std::string functional = "torch." + base.substr(0, base.size() - 1);
    if (try_find_op(functional)) tags = operator_info(functional).tags;
  }
  return tags;
}

Domain domain_of(const CatalogEntry& e) {
  // The definition's domain= tag, else by name.
  for (const std::string& t : definition_tags(e)) {
    if (t == "domain=positive") return Domain::kPositive;
    if (t == "domain=unit") return Domain::kInsideUnit;
    if (t == "domain=probability") return Domain::kProbability;
    if (t == "domain=above_one") return Domain::kAboveOne;
    if (t == "domain=invertible") return Domain::kInvertible;
    if (t == "domain=hermitian") return Domain::kHermitian;
    if (t == "domain=spd") return Domain::kSpd;
  }
  return domain_of(sample_name(e));
}

tensor_list make_inputs(const Sample& s, Domain d, ScalarType dtype) {
  tensor_list inputs;
  for (const Arg& a : s.args) {
    if (const auto* ta = std::get_if<TensorArg>(&a)) inputs.push_back(make_input(*ta, d, dtype));
    if (const auto* la = std::get_if<TensorListArg>(&a))
      for (const auto& shape : la->shapes) inputs.push_back(make_input(TensorArg{shape}, d, dtype));
  }
  return inputs;
}

Value call_sample(const std::string& qualified_name, const Sample& s, const tensor_list& inputs, bool clone_first,
                  ScalarType value_dtype) {
  std::vector<Value> args;
  std::size_t k = 0;
  for (const Arg& a : s.args) {
    if (std::holds_alternative<TensorArg>(a)) {
      Tensor x = inputs.at(k);
      if (k == 0 && clone_first) x = x.clone();
      args.emplace_back(x);
      ++k;
    } else if (const auto* la = std::get_if<TensorListArg>(&a)) {
      std::vector<Tensor> list(inputs.begin() + static_cast<std::ptrdiff_t>(k),
                               inputs.begin() + static_cast<std::ptrdiff_t>(k + la->shapes.size()));
      k += la->shapes.size();
      args.emplace_back(std::move(list));
    } else {
      Value v = with_dtype(std::get<Value>(a), value_dtype);
      // An in-place operator writes its first argument: a constant one is
      // copied too (igamma_), so that every call starts from the same value.
      if (args.empty() && clone_first && v.is_tensor()) v = Value(v.to_tensor().clone());
      args.push_back(std::move(v));
    }
  }
  Kwargs kwargs = s.kwargs;
  for (auto& [name, v] : kwargs) v = with_dtype(v, value_dtype);
  return call(qualified_name, std::move(args), kwargs);
}

Tensor as_one_tensor(const Value& result) {
  if (result.is_tuple()) return result.items()[0].to_tensor();
  if (!result.is_tensor_list()) return result.to_tensor();
  std::vector<Tensor> flat;
  for (const Tensor& part : result.to_tensor_list()) flat.push_back(part.reshape({-1}));
  return cat(flat);
}

bool writes_first_argument(const FunctionSchema& s) {
  return !s.arguments.empty() && s.arguments[0].alias && s.arguments[0].alias->is_write;
}

bool has_tensor_argument(const FunctionSchema& s) {
  return std::any_of(s.arguments.begin(), s.arguments.end(),
                     [](const SchemaArgument& a) { return a.type.kind == TypeKind::kTensor; });
}

FormulaCheck check_formula(const CatalogEntry& e) {
  FormulaCheck out;
  // Each entry's inputs come from a generator seeded by its name (FNV-1a), so
  // they do not depend on which operators ran before it.
  std::uint64_t seed = 14695981039346656037ULL;
  for (const char c : e.qualified_name) seed = (seed ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  manual_seed(seed);
  const FunctionSchema schema = find_op(e.overloads.front()).schema();
  if (!has_tensor_argument(schema)) {
    out.kind = FormulaCheck::Kind::kNoTensorArgument;
    return out;
  }
  const std::vector<Sample> samples = samples_for(e);
  if (samples.empty()) return out;  // kNoSample
  const bool inplace = writes_first_argument(schema);
  // No derivative, as in PyTorch (histc, bincount, unique): backward must fail.
  const std::vector<std::string> tags = definition_tags(e);
  const bool no_derivative = std::find(tags.begin(), tags.end(), "no_derivative") != tags.end();
  // Not differentiable, as in PyTorch (zeros_like, bernoulli, the Bessel functions): results never require grad.
  const bool nondifferentiable = std::find(tags.begin(), tags.end(), "nondifferentiable") != tags.end();
  // Refuses inputs that require grad, as in PyTorch (resize_): the call must fail.
  const bool refuses_grad = std::find(tags.begin(), tags.end(), "refuses_grad") != tags.end();
  bool any_differentiable = false;
  for (std::size_t n = 0; n < samples.size(); ++n) {
    const Sample& sample = samples[n];
    const std::string where = e.qualified_name + " (sample " + std::to_string(n) + ")";
    try {
      const Domain domain = domain_of(e);
      const tensor_list inputs = make_inputs(sample, domain);
      if (refuses_grad) {
        ++out.samples;
        try {
          (void)call_sample(e.qualified_name, sample, inputs, inplace);
          out.failures.push_back(where + ": tagged refuses_grad, yet it ran on inputs that require grad");
        } catch (const RuntimeError&) {
        }
        continue;
      }
      // A symmetric domain: the operator of the symmetric part of the first
      // input (it reads one triangle; gradcheck perturbs elements alone).
      const bool symmetric = domain == Domain::kHermitian || domain == Domain::kSpd;
      auto fn = [&](const tensor_list& given) {
        tensor_list in = given;
        if (symmetric) in[0] = mul(add(in[0], in[0].transpose(-2, -1)), wrap_scalar(Scalar(0.5)));
        return as_one_tensor(call_sample(e.qualified_name, sample, in, inplace));
      };
      const Value result = call_sample(e.qualified_name, sample, inputs, inplace);
      ++out.samples;
      // A bool, a number (is_complex) or a tuple of them (Tensor.names): nothing to differentiate.
      const bool tensor_tuple = result.is_tuple() && !result.items().empty() && result.items()[0].is_tensor();
      if (!result.is_tensor() && !result.is_tensor_list() && !tensor_tuple) continue;
      const Tensor probe = as_one_tensor(result);
      if (no_derivative) {
        if (!probe.requires_grad()) {
          out.failures.push_back(where + ": the result of an operator without a derivative does not require grad");
          continue;
        }
        try {
          sum(is_complex(probe.dtype()) ? view_as_real(probe) : probe).backward();
          out.failures.push_back(where + ": backward through an operator without a derivative did not fail");
        } catch (const RuntimeError& err) {
          if (std::string(err.what()).find("is not implemented") == std::string::npos)
            out.failures.push_back(where + ": backward failed, not naming the missing derivative: " + err.what());
        }
        continue;
      }
      if (nondifferentiable || !autograd::is_differentiable_type(probe.dtype())) {
        if (probe.requires_grad()) out.failures.push_back(where + ": a non-differentiable result requires grad");
        continue;
      }
      // Random results (bernoulli_, the other in-place fills, normal; tag
      // random) have a zero gradient, as PyTorch's: gradcheck needs the same
      // result on every call (Random.FillsAndNormalHaveZeroGradients checks them).
      if (std::find(tags.begin(), tags.end(), "random") != tags.end()) continue;
      any_differentiable = true;
      // Forward mode is real only (Note [Complex gradients] in wick/autograd.h).
      const bool complex_result = is_complex(probe.dtype());
      autograd::GradcheckOptions opt{.eps = sample.eps, .atol = sample.atol, .check_forward_ad = !complex_result};
      bool passed = false;
      try {
        passed = autograd::gradcheck(autograd::GradcheckFn1(fn), inputs, opt);
      } catch (const NotImplementedError& err) {
        // Complex values on the way (irfft of a real input): backward mode only.
        if (std::string(err.what()).find("forward-mode AD of complex tensors") == std::string::npos) throw;
        opt.check_forward_ad = false;
        passed = autograd::gradcheck(autograd::GradcheckFn1(fn), inputs, opt);
      }
      if (!passed) out.failures.push_back(where + ": gradcheck failed");
      if (!autograd::gradgradcheck(autograd::GradcheckFn1(fn), inputs, {}, opt))
        out.failures.push_back(where + ": gradgradcheck failed");
    } catch (const std::exception& err) {
      out.failures.push_back(where + ": " + err.what());
    }
  }
  out.kind = any_differentiable ? FormulaCheck::Kind::kGradchecked : FormulaCheck::Kind::kNonDifferentiable;
  return out;
}

}  // namespace wick::testing
