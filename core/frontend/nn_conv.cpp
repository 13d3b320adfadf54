// core/frontend/nn_conv.cpp - Conv1d/2d/3d, ConvTranspose1d/2d/3d and the pooling modules.
/// \file
#include "wick/nn_conv.h"

#include <cmath>
#include <vector>

#include "core/frontend/nn_repr.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"

namespace wick::nn {

namespace F = wick::nn::functional;
using detail::py;
using detail::py_given;
using detail::py_tuple;

namespace {

std::optional<Tensor> opt(const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; }

template <std::size_t D>
Tensor conv_nd(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, IntArrayRef stride,
               IntArrayRef padding, IntArrayRef dilation, std::int64_t groups) {
  if constexpr (D == 1) return F::conv1d(x, w, b, stride, padding, dilation, groups);
  if constexpr (D == 2) return F::conv2d(x, w, b, stride, padding, dilation, groups);
  if constexpr (D == 3) return F::conv3d(x, w, b, stride, padding, dilation, groups);
}

template <std::size_t D>
Tensor conv_nd(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, IntArrayRef stride,
               std::string_view padding, IntArrayRef dilation, std::int64_t groups) {
  if constexpr (D == 1) return F::conv1d(x, w, b, stride, padding, dilation, groups);
  if constexpr (D == 2) return F::conv2d(x, w, b, stride, padding, dilation, groups);
  if constexpr (D == 3) return F::conv3d(x, w, b, stride, padding, dilation, groups);
}

template <std::size_t D>
Tensor conv_transpose_nd(const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, IntArrayRef stride,
                         IntArrayRef padding, IntArrayRef output_padding, std::int64_t groups, IntArrayRef dilation) {
  if constexpr (D == 1) return F::conv_transpose1d(x, w, b, stride, padding, output_padding, groups, dilation);
  if constexpr (D == 2) return F::conv_transpose2d(x, w, b, stride, padding, output_padding, groups, dilation);
  if constexpr (D == 3) return F::conv_transpose3d(x, w, b, stride, padding, output_padding, groups, dilation);
}

// PyTorch's _ConvNd checks, shared by both kinds.
void check_channels(std::int64_t in, std::int64_t out, std::int64_t groups) {
  WICK_CHECK(groups > 0, ValueError, "groups must be a positive integer");
  WICK_CHECK(in % groups == 0, ValueError, "in_channels must be divisible by groups");
  WICK_CHECK(out % groups == 0, ValueError, "out_channels must be divisible by groups");
}

// The weight of a conv module: (a, b / groups, *kernel).
template <std::size_t D>
Tensor conv_weight(std::int64_t a, std::int64_t b, std::int64_t groups, const ExpandingArray<D>& kernel) {
  std::vector<std::int64_t> shape = {a, b / groups};
  for (std::size_t i = 0; i < D; ++i) shape.push_back(kernel[i]);
  return wick::empty(IntArrayRef(shape));
}

void conv_reset(const Tensor& weight, const Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const std::int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

template <std::size_t D>
void check_conv_options(const ConvOptions<D>& o) {
  check_channels(o.in_channels(), o.out_channels(), o.groups());
  const std::string& mode = o.padding().mode();
  if (!mode.empty()) {
    WICK_CHECK(mode == "same" || mode == "valid", ValueError, "Invalid padding string '", mode,
               "', should be one of {'valid', 'same'}");
    WICK_CHECK(mode != "same" || detail::all_equal(o.stride(), 1), ValueError,
               "padding='same' is not supported for strided convolutions");
  }
  const std::string& pm = o.padding_mode();
  WICK_CHECK(pm == "zeros" || pm == "reflect" || pm == "replicate" || pm == "circular", ValueError,
             "padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got padding_mode='",
             pm, "'");
}

// F::pad's list for a padding_mode other than zeros: (left, right) per dim, last dim first.
template <std::size_t D>
std::vector<std::int64_t> reversed_padding_twice(const ConvOptions<D>& o) {
  std::vector<std::int64_t> out(2 * D, 0);
  for (std::size_t i = 0; i < D; ++i) {
    const std::size_t slot = D - 1 - i;
    if (o.padding().mode() == "same") {
      const std::int64_t total = o.dilation()[i] * (o.kernel_size()[i] - 1);
      out[2 * slot] = total / 2;
      out[2 * slot + 1] = total - total / 2;
    } else if (o.padding().mode().empty()) {
      out[2 * slot] = out[2 * slot + 1] = o.padding().values()[i];
    }
  }
  return out;
}

template <std::size_t D>
std::string conv_repr(const ConvOptions<D>& o, bool has_bias) {
  std::string s = py(o.in_channels()) + ", " + py(o.out_channels()) + ", kernel_size=" + py_tuple(o.kernel_size()) +
                  ", stride=" + py_tuple(o.stride());
  if (!o.padding().mode().empty()) {
    s += ", padding=" + o.padding().mode();
  } else if (!detail::all_equal(o.padding().values(), 0)) {
    s += ", padding=" + py_tuple(o.padding().values());
  }
  if (!detail::all_equal(o.dilation(), 1)) s += ", dilation=" + py_tuple(o.dilation());
  if (o.groups() != 1) s += ", groups=" + py(o.groups());
  if (!has_bias) s += ", bias=False";
  if (o.padding_mode() != "zeros") s += ", padding_mode=" + o.padding_mode();
  return s;
}

template <std::size_t D>
Tensor conv_forward(const ConvOptions<D>& o, const Tensor& input, const Tensor& weight, const Tensor& bias) {
  if (o.padding_mode() != "zeros") {
    const Tensor padded = F::pad(input, reversed_padding_twice(o), o.padding_mode());
    return conv_nd<D>(padded, weight, opt(bias), o.stride(), ExpandingArray<D>(0), o.dilation(), o.groups());
  }
  if (!o.padding().mode().empty()) {
    return conv_nd<D>(input, weight, opt(bias), o.stride(), std::string_view(o.padding().mode()), o.dilation(),
                      o.groups());
  }
  return conv_nd<D>(input, weight, opt(bias), o.stride(), o.padding().values(), o.dilation(), o.groups());
}

template <std::size_t D>
void check_transpose_options(const ConvTransposeOptions<D>& o, const char* name) {
  check_channels(o.in_channels(), o.out_channels(), o.groups());
  WICK_CHECK(o.padding_mode() == "zeros", ValueError, "Only \"zeros\" padding mode is supported for ", name);
}

template <std::size_t D>
std::string transpose_repr(const ConvTransposeOptions<D>& o, bool has_bias) {
  std::string s = py(o.in_channels()) + ", " + py(o.out_channels()) + ", kernel_size=" + py_tuple(o.kernel_size()) +
                  ", stride=" + py_tuple(o.stride());
  if (!detail::all_equal(o.padding(), 0)) s += ", padding=" + py_tuple(o.padding());
  if (!detail::all_equal(o.dilation(), 1)) s += ", dilation=" + py_tuple(o.dilation());
  if (!detail::all_equal(o.output_padding(), 0)) s += ", output_padding=" + py_tuple(o.output_padding());
  if (o.groups() != 1) s += ", groups=" + py(o.groups());
  if (!has_bias) s += ", bias=False";
  return s;
}

}  // namespace

#define WICK_NN_CONV_DEFINE(Name, D)                                                                            \
  Name##Impl::Name##Impl(const Name##Options& opts) : options(opts) {                                   \
    check_conv_options<D>(options);                                                                              \
    weight = register_parameter("weight", conv_weight<D>(options.out_channels(), options.in_channels(),          \
                                                          options.groups(), options.kernel_size()));            \
    bias = register_parameter("bias", options.bias() ? empty({options.out_channels()}) : Tensor());             \
    reset_parameters();                                                                                          \
  }                                                                                                              \
  void Name##Impl::reset_parameters() { conv_reset(weight, bias); }                                              \
  Tensor Name##Impl::forward(const Tensor& input) { return conv_forward<D>(options, input, weight, bias); }      \
  std::string Name##Impl::extra_repr() const { return conv_repr<D>(options, bias.defined()); }

WICK_NN_CONV_DEFINE(Conv1d, 1)
WICK_NN_CONV_DEFINE(Conv2d, 2)
WICK_NN_CONV_DEFINE(Conv3d, 3)
#undef WICK_NN_CONV_DEFINE

#define WICK_NN_CONV_TRANSPOSE_DEFINE(Name, D)                                                                  \
  Name##Impl::Name##Impl(const Name##Options& opts) : options(opts) {                                   \
    check_transpose_options<D>(options, #Name);                                                                  \
    weight = register_parameter("weight", conv_weight<D>(options.in_channels(), options.out_channels(),          \
                                                          options.groups(), options.kernel_size()));            \
    bias = register_parameter("bias", options.bias() ? empty({options.out_channels()}) : Tensor());             \
    reset_parameters();                                                                                          \
  }                                                                                                              \
  void Name##Impl::reset_parameters() { conv_reset(weight, bias); }                                              \
  Tensor Name##Impl::forward(const Tensor& input) {                                                             \
    return conv_transpose_nd<D>(input, weight, opt(bias), options.stride(), options.padding(),                  \
                                options.output_padding(), options.groups(), options.dilation());                \
  }                                                                                                              \
  std::string Name##Impl::extra_repr() const { return transpose_repr<D>(options, bias.defined()); }

WICK_NN_CONV_TRANSPOSE_DEFINE(ConvTranspose1d, 1)
WICK_NN_CONV_TRANSPOSE_DEFINE(ConvTranspose2d, 2)
WICK_NN_CONV_TRANSPOSE_DEFINE(ConvTranspose3d, 3)
#undef WICK_NN_CONV_TRANSPOSE_DEFINE

// --- pooling -----------------------------------------------------------------------------

namespace {

// An adaptive pool's output size with None entries replaced by the input's size there.
template <std::size_t D>
std::vector<std::int64_t> adaptive_size(const ExpandingArrayWithOptionalElem<D>& size, const Tensor& input) {
  WICK_CHECK(input.dim() >= static_cast<std::int64_t>(D), ValueError, "adaptive pooling: expected an input with at least ",
             D, " dims, got ", input.dim());
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < D; ++i) {
    out.push_back(size[i] ? *size[i] : input.size(input.dim() - static_cast<std::int64_t>(D - i)));
  }
  return out;
}

template <std::size_t D>
std::string max_pool_repr(const MaxPoolOptions<D>& o) {
  return "kernel_size=" + py_given(o.kernel_size()) + ", stride=" +
         py_given(o.stride()) + ", padding=" + py_given(o.padding()) +
         ", dilation=" + py_given(o.dilation()) + ", ceil_mode=" + py(o.ceil_mode());
}

}  // namespace

#define WICK_NN_MAX_POOL_DEFINE(Name, D, fn)                                                                   \
  Name##Impl::Name##Impl(const Name##Options& opts) : options(opts) {}                                  \
  Tensor Name##Impl::forward(const Tensor& input) {                                                             \
    return F::fn(input, options.kernel_size(), options.stride().ref(), \
                 options.padding(), options.dilation(), options.ceil_mode());                                   \
  }                                                                                                              \
  std::tuple<Tensor, Tensor> Name##Impl::forward_with_indices(const Tensor& input) {                            \
    const ExpandingArray<D>& stride = options.stride();                 \
    return F::fn##_with_indices(input, options.kernel_size(), stride.ref(), options.padding(), options.dilation(), \
                                options.ceil_mode(), true);                                                      \
  }                                                                                                              \
  std::string Name##Impl::extra_repr() const { return max_pool_repr<D>(options); }

WICK_NN_MAX_POOL_DEFINE(MaxPool1d, 1, max_pool1d)
WICK_NN_MAX_POOL_DEFINE(MaxPool2d, 2, max_pool2d)
WICK_NN_MAX_POOL_DEFINE(MaxPool3d, 3, max_pool3d)
#undef WICK_NN_MAX_POOL_DEFINE

AvgPool1dImpl::AvgPool1dImpl(const AvgPool1dOptions& opts) : options(opts) {}
Tensor AvgPool1dImpl::forward(const Tensor& input) {
  const ExpandingArray<1>& stride = options.stride();
  return F::avg_pool1d(input, options.kernel_size(), stride.ref(), options.padding(), options.ceil_mode(),
                       options.count_include_pad());
}
std::string AvgPool1dImpl::extra_repr() const {
  return "kernel_size=" + py_tuple(options.kernel_size()) + ", stride=" +
         py_tuple(options.stride()) + ", padding=" +
         py_tuple(options.padding());
}

#define WICK_NN_AVG_POOL_DEFINE(Name, D, fn)                                                                   \
  Name##Impl::Name##Impl(const Name##Options& opts) : options(opts) {}                                  \
  Tensor Name##Impl::forward(const Tensor& input) {                                                             \
    const ExpandingArray<D>& stride = options.stride();                 \
    return F::fn(input, options.kernel_size(), stride.ref(), options.padding(), options.ceil_mode(),            \
                 options.count_include_pad(), options.divisor_override());                                       \
  }                                                                                                              \
  std::string Name##Impl::extra_repr() const {                                                                  \
    return "kernel_size=" + py_given(options.kernel_size()) + ", stride=" +                                     \
           py_given(options.stride()) + ", padding=" +                 \
           py_given(options.padding());                                                                          \
  }

WICK_NN_AVG_POOL_DEFINE(AvgPool2d, 2, avg_pool2d)
WICK_NN_AVG_POOL_DEFINE(AvgPool3d, 3, avg_pool3d)
#undef WICK_NN_AVG_POOL_DEFINE

#define WICK_NN_ADAPTIVE_DEFINE(Name, D, call)                                                                 \
  Name##Impl::Name##Impl(const Name##Options& opts) : options(opts) {}                                  \
  Tensor Name##Impl::forward(const Tensor& input) {                                                             \
    const std::vector<std::int64_t> size = adaptive_size<D>(options.output_size(), input);                      \
    return call;                                                                                                 \
  }                                                                                                              \
  std::string Name##Impl::extra_repr() const { return "output_size=" + py_given(options.output_size()); }

WICK_NN_ADAPTIVE_DEFINE(AdaptiveAvgPool1d, 1, F::adaptive_avg_pool1d(input, size))
WICK_NN_ADAPTIVE_DEFINE(AdaptiveAvgPool2d, 2, F::adaptive_avg_pool2d(input, IntArrayRef(size)))
WICK_NN_ADAPTIVE_DEFINE(AdaptiveAvgPool3d, 3, F::adaptive_avg_pool3d(input, IntArrayRef(size)))
WICK_NN_ADAPTIVE_DEFINE(AdaptiveMaxPool1d, 1, F::adaptive_max_pool1d(input, IntArrayRef(size)))
WICK_NN_ADAPTIVE_DEFINE(AdaptiveMaxPool2d, 2, F::adaptive_max_pool2d(input, IntArrayRef(size)))
WICK_NN_ADAPTIVE_DEFINE(AdaptiveMaxPool3d, 3, F::adaptive_max_pool3d(input, IntArrayRef(size)))
#undef WICK_NN_ADAPTIVE_DEFINE

#define WICK_NN_ADAPTIVE_INDICES_DEFINE(Name, D, fn)                                                           \
  std::tuple<Tensor, Tensor> Name##Impl::forward_with_indices(const Tensor& input) {                            \
    const std::vector<std::int64_t> size = adaptive_size<D>(options.output_size(), input);                      \
    return F::fn(input, IntArrayRef(size), true);                                                                \
  }

WICK_NN_ADAPTIVE_INDICES_DEFINE(AdaptiveMaxPool1d, 1, adaptive_max_pool1d_with_indices)
WICK_NN_ADAPTIVE_INDICES_DEFINE(AdaptiveMaxPool2d, 2, adaptive_max_pool2d_with_indices)
WICK_NN_ADAPTIVE_INDICES_DEFINE(AdaptiveMaxPool3d, 3, adaptive_max_pool3d_with_indices)
#undef WICK_NN_ADAPTIVE_INDICES_DEFINE

}  // namespace wick::nn
