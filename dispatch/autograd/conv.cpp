// dispatch/autograd_conv.cpp - Autograd kernels of the internal convolution and pooling operators.
/// \file
/// Convolution is bilinear in (input, weight), and its two backward
/// operators are its adjoints:
///   <conv(x, W), g> = <x, input_backward(g, W)> = <W, weight_backward(g, x)>
/// so the derivatives of each of the three operators are the other two
/// (ConvolutionBackward0 for the forward, ConvolutionBackwardBackward0 for
/// either backward): double (and higher) backward works, and each tangent is
/// the operator applied to one tangent at a time. Average pooling (plain and
/// adaptive) is linear: it and its backward are each other's derivative.
/// max_pool2d's gradient scatters into the recorded indices (scatter_add, so
/// double backward gathers); its tangent gathers.
#include "dispatch/autograd/support.h"

namespace wick::autograd {
namespace {

using T = const Tensor&;
using OptTensor = const std::optional<Tensor>&;
using OptInt = std::optional<std::int64_t>;

struct ConvParams {
  DimVector stride, padding, dilation;
  std::int64_t groups = 1;
};

Tensor conv(T x, T w, OptTensor b, const ConvParams& p) {
  static const auto op =
      op_handle<Tensor(T, T, OptTensor, IntArrayRef, IntArrayRef, IntArrayRef, std::int64_t)>("aten.convolution2d");
  return op.call(x, w, b, p.stride, p.padding, p.dilation, p.groups);
}
Tensor input_backward(T g, T w, IntArrayRef input_size, const ConvParams& p) {
  static const auto op = op_handle<Tensor(T, T, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, std::int64_t)>(
      "aten.convolution2d_input_backward");
  return op.call(g, w, input_size, p.stride, p.padding, p.dilation, p.groups);
}
Tensor weight_backward(T g, T x, IntArrayRef weight_size, const ConvParams& p) {
  static const auto op = op_handle<Tensor(T, T, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, std::int64_t)>(
      "aten.convolution2d_weight_backward");
  return op.call(g, x, weight_size, p.stride, p.padding, p.dilation, p.groups);
}

ConvParams params(IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, std::int64_t groups) {
  ConvParams p;
  p.stride.assign(stride);
  p.padding.assign(padding);
  p.dilation.assign(dilation);
  p.groups = groups;
  return p;
}

// --- convolution2d(input, weight, bias) ----------------------------------------------------------

struct ConvolutionBackward {
  static constexpr const char* kName = "ConvolutionBackward0";
  SavedVariable input, weight;
  ConvParams p;
  tensor_list backward(FormulaNode<ConvolutionBackward>& n, tensor_list& g) {
    Tensor gi, gw, gb;
    if (n.should_compute_output(0)) {
      const Tensor x = n.unpack(input);
      gi = input_backward(g[0], n.unpack(weight), x.sizes(), p);
    }
    if (n.should_compute_output(1)) {
      const Tensor w = n.unpack(weight);
      gw = weight_backward(g[0], n.unpack(input), w.sizes(), p);
    }
    if (n.should_compute_output(2)) {
      const std::int64_t dims[] = {0, 2, 3};
      gb = wick::sum(g[0], IntArrayRef(dims, 3));
    }
    return {gi, gw, gb};
  }
  void release() {
    input.reset();
    weight.reset();
  }
};

Tensor convolution_autograd(DispatchKeySet ks, T input, T weight, OptTensor bias, IntArrayRef stride,
                            IntArrayRef padding, IntArrayRef dilation, std::int64_t groups) {
  static const auto op =
      op_handle<Tensor(T, T, OptTensor, IntArrayRef, IntArrayRef, IntArrayRef, std::int64_t)>("aten.convolution2d");
  auto node = make_node<ConvolutionBackward>(input, weight, bias);
  Tensor out = call_below(op, ks, input, weight, bias, stride, padding, dilation, groups);
  const ConvParams p = params(stride, padding, dilation, groups);
  if (node) {
    node->f.p = p;
    // Both are needed for either gradient (the weight's shape for the input's and vice versa).
    node->f.input = SavedVariable(input, false);
    node->f.weight = SavedVariable(weight, false);
    set_history(out, node);
  }
  if (any_tangent(input, weight, bias)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    const Tensor ti = fw_grad_of(input);
    const Tensor tw = fw_grad_of(weight);
    const Tensor tb = fw_grad_of(bias);
    Tensor t = fw_add(ti.defined() ? conv(ti, weight, std::nullopt, p) : Tensor(),
                      tw.defined() ? conv(input, tw, std::nullopt, p) : Tensor());
    if (tb.defined()) {
      Tensor bias_t = tb.reshape({1, tb.numel(), 1, 1}).expand(out.sizes());
      t = t.defined() ? wick::add(t, bias_t) : bias_t.contiguous();
    }
    set_tangent(out, t);
  }
  return out;
}

// --- the two backwards: each is linear in its two tensor arguments ------------------------------

// kInput: input_backward(grad, weight) -> input-shaped; else weight_backward(grad, input) -> weight-shaped.
template <bool kInput>
struct ConvolutionBackwardBackward {
  static constexpr const char* kName = "ConvolutionBackwardBackward0";
  SavedVariable grad, other;  // other: the weight (kInput) or the input
  ConvParams p;
  tensor_list backward(FormulaNode<ConvolutionBackwardBackward>& n, tensor_list& g) {
    Tensor g_grad, g_other;
    if (n.should_compute_output(0)) {
      // <op(grad, other), g> = <grad, conv(.)>: conv(g, W) or conv(x, g).
      const Tensor o = n.unpack(other);
      g_grad = kInput ? conv(g[0], o, std::nullopt, p) : conv(o, g[0], std::nullopt, p);
    }
    if (n.should_compute_output(1)) {
      const Tensor gr = n.unpack(grad);
      const Tensor o = n.unpack(other);
      // <input_backward(grad, W), g> = <conv(g, W), grad> = <W, weight_backward(grad, g)>;
      // <weight_backward(grad, x), g> = <conv(x, g), grad> = <x, input_backward(grad, g)>.
      g_other = kInput ? weight_backward(gr, g[0], o.sizes(), p) : input_backward(gr, g[0], o.sizes(), p);
    }
    return {g_grad, g_other};
  }
  void release() {
    grad.reset();
    other.reset();
  }
};

template <bool kInput>
Tensor convolution_backward_autograd(DispatchKeySet ks, T grad, T other, IntArrayRef size, IntArrayRef stride,
                                     IntArrayRef padding, IntArrayRef dilation, std::int64_t groups) {
  static const auto op = op_handle<Tensor(T, T, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, std::int64_t)>(
      kInput ? "aten.convolution2d_input_backward" : "aten.convolution2d_weight_backward");
  auto node = make_node<ConvolutionBackwardBackward<kInput>>(grad, other);
  Tensor out = call_below(op, ks, grad, other, size, stride, padding, dilation, groups);
  const ConvParams p = params(stride, padding, dilation, groups);
  if (node) {
    node->f.p = p;
    node->f.grad = SavedVariable(grad, false);
    node->f.other = SavedVariable(other, false);
    set_history(out, node);
  }
  auto apply = [&](T gr, T o) { return kInput ? input_backward(gr, o, size, p) : weight_backward(gr, o, size, p); };
  binary_tangent(
      out, grad, other, [&](T tg) { return apply(tg, other); }, [&](T to) { return apply(grad, to); });
  return out;
}

// --- average pooling (plain and adaptive): linear --------------------------------------------

struct AvgParams {
  DimVector kernel, stride, padding;
  bool ceil_mode = false;
  bool count_include_pad = true;
  OptInt divisor;
  DimVector output_size;  // adaptive only
};

template <bool kAdaptive>
Tensor avg_forward(T x, const AvgParams& a) {
  if constexpr (kAdaptive) {
    static const auto op = op_handle<Tensor(T, IntArrayRef)>("aten.adaptive_avg_pool2d");
    return op.call(x, a.output_size);
  } else {
    static const auto op =
        op_handle<Tensor(T, IntArrayRef, IntArrayRef, IntArrayRef, bool, bool, OptInt)>("aten.avg_pool2d");
    return op.call(x, a.kernel, a.stride, a.padding, a.ceil_mode, a.count_include_pad, a.divisor);
  }
}

template <bool kAdaptive>
Tensor avg_backward(T g, IntArrayRef input_size, const AvgParams& a) {
  if constexpr (kAdaptive) {
    static const auto op = op_handle<Tensor(T, IntArrayRef)>("aten.adaptive_avg_pool2d_backward");
    return op.call(g, input_size);
  } else {
    static const auto op = op_handle<Tensor(T, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, bool, bool, OptInt)>(
        "aten.avg_pool2d_backward");
    return op.call(g, input_size, a.kernel, a.stride, a.padding, a.ceil_mode, a.count_include_pad, a.divisor);
  }
}

// kBackward false: the pooling (input -> output); true: its backward (grad -> input-shaped).
template <bool kAdaptive, bool kBackward>
struct AvgPoolFormula {
  static constexpr const char* kName =
      kAdaptive ? (kBackward ? "AdaptiveAvgPool2DBackwardBackward0" : "AdaptiveAvgPool2DBackward0")
                : (kBackward ? "AvgPool2DBackwardBackward0" : "AvgPool2DBackward0");
  AvgParams a;
  DimVector input_size;
  tensor_list backward(FormulaNode<AvgPoolFormula>& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    return {apply(g[0], a, input_size)};
  }
  // The derivative (and, the map being linear, the tangent) of this operator.
  static Tensor apply(T t, const AvgParams& a, IntArrayRef input_size) {
    return kBackward ? avg_forward<kAdaptive>(t, a) : avg_backward<kAdaptive>(t, input_size, a);
  }
  void release() {}
};

template <bool kAdaptive, bool kBackward>
Tensor record_avg(T src, Tensor out, const AvgParams& a, IntArrayRef input_size) {
  using F = AvgPoolFormula<kAdaptive, kBackward>;
  if (auto node = make_node<F>(src)) {
    node->f.a = a;
    node->f.input_size.assign(input_size);
    set_history(out, node);
  }
  if (any_tangent(src)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, kBackward ? avg_backward<kAdaptive>(fw_grad_of(src), input_size, a)
                               : avg_forward<kAdaptive>(fw_grad_of(src), a));
  }
  return out;
}

AvgParams avg_params(IntArrayRef k, IntArrayRef s, IntArrayRef p, bool ceil_mode, bool count_include_pad,
                     OptInt divisor) {
  AvgParams a;
  a.kernel.assign(k);
  a.stride.assign(s);
  a.padding.assign(p);
  a.ceil_mode = ceil_mode;
  a.count_include_pad = count_include_pad;
  a.divisor = divisor;
  return a;
}

Tensor avg_pool2d_autograd(DispatchKeySet ks, T self, IntArrayRef k, IntArrayRef s, IntArrayRef p, bool ceil_mode,
                           bool count_include_pad, OptInt divisor) {
  static const auto op =
      op_handle<Tensor(T, IntArrayRef, IntArrayRef, IntArrayRef, bool, bool, OptInt)>("aten.avg_pool2d");
  Tensor out = call_below(op, ks, self, k, s, p, ceil_mode, count_include_pad, divisor);
  return record_avg<false, false>(self, out, avg_params(k, s, p, ceil_mode, count_include_pad, divisor), self.sizes());
}

Tensor avg_pool2d_backward_autograd(DispatchKeySet ks, T grad, IntArrayRef input_size, IntArrayRef k, IntArrayRef s,
                                    IntArrayRef p, bool ceil_mode, bool count_include_pad, OptInt divisor) {
  static const auto op = op_handle<Tensor(T, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, bool, bool, OptInt)>(
      "aten.avg_pool2d_backward");
  Tensor out = call_below(op, ks, grad, input_size, k, s, p, ceil_mode, count_include_pad, divisor);
  return record_avg<false, true>(grad, out, avg_params(k, s, p, ceil_mode, count_include_pad, divisor), input_size);
}

Tensor adaptive_autograd(DispatchKeySet ks, T self, IntArrayRef output_size) {
  static const auto op = op_handle<Tensor(T, IntArrayRef)>("aten.adaptive_avg_pool2d");
  Tensor out = call_below(op, ks, self, output_size);
  AvgParams a;
  a.output_size.assign(output_size);
  return record_avg<true, false>(self, out, a, self.sizes());
}

Tensor adaptive_backward_autograd(DispatchKeySet ks, T grad, IntArrayRef input_size) {
  static const auto op = op_handle<Tensor(T, IntArrayRef)>("aten.adaptive_avg_pool2d_backward");
  Tensor out = call_below(op, ks, grad, input_size);
  AvgParams a;
  if (grad.dim() == 4) a.output_size.assign({grad.sizes()[2], grad.sizes()[3]});
  return record_avg<true, true>(grad, out, a, input_size);
}

// --- max_pool2d_with_indices -------------------------------------------------------------------

// [N, C, ...] viewed as [N*C, rest].
Tensor planes(T t) { return t.reshape({checked_mul(t.sizes()[0], t.sizes()[1], "max_pool2d"), -1}); }

struct MaxPoolBackward {
  static constexpr const char* kName = "MaxPool2DWithIndicesBackward0";
  SavedVariable indices;
  DimVector sizes;
  tensor_list backward(FormulaNode<MaxPoolBackward>& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    const Tensor idx = n.unpack(indices);
    const char* op = kName;
    Tensor base = wick::zeros({checked_mul(sizes[0], sizes[1], op), checked_mul(sizes[2], sizes[3], op)}, g[0].dtype(),
                              g[0].device());
    return {wick::scatter_add(base, 1, planes(idx), planes(g[0])).reshape(sizes)};
  }
  void release() { indices.reset(); }
};

std::tuple<Tensor, Tensor> max_pool2d_autograd(DispatchKeySet ks, T self, IntArrayRef k, IntArrayRef s, IntArrayRef p,
                                               IntArrayRef d, bool ceil_mode) {
  static const auto op =
      op_handle<std::tuple<Tensor, Tensor>(T, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, bool)>(
          "aten.max_pool2d_with_indices");
  auto node = make_node<MaxPoolBackward>(self);
  auto out = call_below(op, ks, self, k, s, p, d, ceil_mode);
  const Tensor& values = std::get<0>(out);
  const Tensor& indices = std::get<1>(out);
  if (node) {
    node->f.sizes.assign(self.sizes());
    node->f.indices = SavedVariable(indices, false);
    set_history(values, node);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(values, wick::gather(planes(fw_grad_of(self)), 1, planes(indices)).reshape(values.sizes()));
  }
  return out;
}

}  // namespace

void register_autograd_conv(std::vector<std::unique_ptr<Library>>& out) {
  auto aten = std::make_unique<Library>("aten", DispatchKey::kAutograd);
  aten->impl("convolution2d", &convolution_autograd)
      .impl("convolution2d_input_backward", &convolution_backward_autograd<true>)
      .impl("convolution2d_weight_backward", &convolution_backward_autograd<false>)
      .impl("avg_pool2d", &avg_pool2d_autograd)
      .impl("avg_pool2d_backward", &avg_pool2d_backward_autograd)
      .impl("adaptive_avg_pool2d", &adaptive_autograd)
      .impl("adaptive_avg_pool2d_backward", &adaptive_backward_autograd)
      .impl("max_pool2d_with_indices", &max_pool2d_autograd);
  out.push_back(std::move(aten));
}

}  // namespace wick::autograd
