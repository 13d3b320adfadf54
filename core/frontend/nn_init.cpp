// core/nn_init.cpp - nn::init: in-place parameter initialisers (uniform, normal, Xavier, Kaiming).
/// \file
#include "wick/nn.h"

#include <cctype>
#include <cmath>
#include <string>

#include "wick/ops.h"
#include "wick/scalar.h"

namespace wick::nn::init {
namespace {

void check_defined(const Tensor& t, const char* fn) {
  WICK_CHECK(t.defined(), RuntimeError, "nn.init.", fn, ": the tensor is undefined");
}

void check_floating(const Tensor& t, const char* fn) {
  check_defined(t, fn);
  WICK_CHECK(is_floating(t.dtype()), RuntimeError, "nn.init.", fn, ": expected a floating point tensor but got ",
             dtype_name(t.dtype()));
}

// Overwrites `t` with `values` without recording it.
Tensor assign(Tensor t, const Tensor& values) {
  t.copy_(values);
  return t;
}

std::int64_t correct_fan(const Tensor& t, std::string_view mode) {
  std::string lower(mode);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  WICK_CHECK(lower == "fan_in" || lower == "fan_out", ValueError, "Mode ", lower,
             " not supported, please use one of ['fan_in', 'fan_out']");
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  return lower == "fan_in" ? fan_in : fan_out;
}

}  // namespace

Tensor uniform_(Tensor tensor, double a, double b) {
  check_floating(tensor, "uniform_");
  WICK_CHECK(a <= b, RuntimeError, "uniform_ expects to return a [from, to) range, but found from=",
             python_float_repr(a), " > to=", python_float_repr(b));
  NoGradGuard no_grad;
  return assign(tensor, rand(tensor.sizes(), tensor.dtype(), tensor.device()) * (b - a) + a);
}

Tensor normal_(Tensor tensor, double mean, double stddev) {
  check_floating(tensor, "normal_");
  WICK_CHECK(stddev >= 0.0, RuntimeError, "normal expects std >= 0.0, but found std ", python_float_repr(stddev));
  NoGradGuard no_grad;
  return assign(tensor, randn(tensor.sizes(), tensor.dtype(), tensor.device()) * stddev + mean);
}

Tensor constant_(Tensor tensor, const Scalar& value) {
  check_defined(tensor, "constant_");
  NoGradGuard no_grad;
  tensor.fill_(value);
  return tensor;
}

Tensor zeros_(Tensor tensor) { return constant_(std::move(tensor), 0); }
Tensor ones_(Tensor tensor) { return constant_(std::move(tensor), 1); }

double calculate_gain(std::string_view nonlinearity, std::optional<double> param) {
  constexpr std::string_view kLinear[] = {"linear",           "conv1d",           "conv2d",          "conv3d",
                                          "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"};
  for (std::string_view name : kLinear) {
    if (nonlinearity == name) return 1.0;
  }
  if (nonlinearity == "sigmoid") return 1.0;
  if (nonlinearity == "tanh") return 5.0 / 3.0;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") {
    const double slope = param.value_or(0.01);
    return std::sqrt(2.0 / (1.0 + slope * slope));
  }
  if (nonlinearity == "selu") return 3.0 / 4.0;
  throw ValueError("Unsupported nonlinearity " + std::string(nonlinearity));
}

std::pair<std::int64_t, std::int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor) {
  check_defined(tensor, "calculate_fan_in_and_fan_out");
  WICK_CHECK(tensor.dim() >= 2, ValueError,
             "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  std::int64_t receptive_field = 1;
  for (std::int64_t d = 2; d < tensor.dim(); ++d) receptive_field *= tensor.size(d);
  return {tensor.size(1) * receptive_field, tensor.size(0) * receptive_field};
}

Tensor xavier_uniform_(Tensor tensor, double gain) {
  check_floating(tensor, "xavier_uniform_");
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  if (tensor.numel() == 0) return tensor;
  const double stddev = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  const double bound = std::sqrt(3.0) * stddev;
  return uniform_(std::move(tensor), -bound, bound);
}

Tensor xavier_normal_(Tensor tensor, double gain) {
  check_floating(tensor, "xavier_normal_");
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  if (tensor.numel() == 0) return tensor;
  return normal_(std::move(tensor), 0.0, gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out)));
}

Tensor kaiming_uniform_(Tensor tensor, double a, std::string_view mode, std::string_view nonlinearity) {
  check_floating(tensor, "kaiming_uniform_");
  if (tensor.numel() == 0) return tensor;  // PyTorch warns that this is a no-op
  const double stddev = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(correct_fan(tensor, mode)));
  const double bound = std::sqrt(3.0) * stddev;
  return uniform_(std::move(tensor), -bound, bound);
}

Tensor kaiming_normal_(Tensor tensor, double a, std::string_view mode, std::string_view nonlinearity) {
  check_floating(tensor, "kaiming_normal_");
  if (tensor.numel() == 0) return tensor;
  const double stddev = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(correct_fan(tensor, mode)));
  return normal_(std::move(tensor), 0.0, stddev);
}

}  // namespace wick::nn::init
