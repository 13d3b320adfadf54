// dispatch/autograd/fft.cpp - Autograd kernels of the three DFT kernels (Note [Three transforms] in dispatch/composite/fft_ops.cpp).
/// \file
/// The transforms are linear, so each gradient is the adjoint transform of
/// the output's gradient (Note [Complex gradients] in wick/autograd.h: the
/// adjoint over the real views):
/// - _fft_c2c: the transform the other way, scaled the same (the inverse
///   DFT's kernel is the forward one's conjugate);
/// - _fft_r2c: the inverse complex transform of the gradient, zero-padded
///   back to n along the last dim when one-sided, and its real part;
/// - _fft_c2r: the forward one-sided real transform of the gradient, its
///   interior frequencies doubled (each stands for itself and its
///   conjugate twin in the signal). The imaginary parts of the zero and
///   Nyquist frequencies, which the transform ignores, get zero.
/// Each backward is written in differentiable operators (double backward);
/// each tangent is the transform of the input's tangent.
#include "dispatch/autograd/support.h"

namespace wick::autograd {
namespace {

using T = const Tensor&;
using I64 = std::int64_t;

struct FftC2CBackward {
  static constexpr const char* kName = "FftC2CBackward0";
  static constexpr bool kComplex = true;
  DimVector dim;
  I64 normalization = 0;
  bool forward = true;
  tensor_list backward(Node& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    return {aten::_fft_c2c(g[0], dim, normalization, !forward)};
  }
  void release() {}
};

Tensor fft_c2c_autograd(DispatchKeySet ks, T self, IntArrayRef dim, I64 normalization, bool forward) {
  static const auto op = op_handle<Tensor(T, IntArrayRef, I64, bool)>("aten._fft_c2c");
  auto node = make_node<FftC2CBackward>(self);
  Tensor out = call_below(op, ks, self, dim, normalization, forward);
  if (node) {
    node->f.dim.assign(dim);
    node->f.normalization = normalization;
    node->f.forward = forward;
    set_history(out, node);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, op.call(fw_grad_of(self), dim, normalization, forward));
  }
  return out;
}

struct FftR2CBackward {
  static constexpr const char* kName = "FftR2CBackward0";
  static constexpr bool kComplex = true;
  DimVector dim;
  I64 normalization = 0;
  bool onesided = true;
  I64 last_dim_size = 0;  // self's size along the last of dim
  tensor_list backward(Node& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    if (dim.empty()) return {wick::real(g[0])};  // a conversion to complex
    Tensor full = g[0];
    const I64 last = wrap_dim(dim.back(), full.dim());
    if (onesided && full.size(last) < last_dim_size) {
      // constant_pad_nd's pairs run from the last dim backwards.
      DimVector pad(checked_mul(full.dim(), 2, "FftR2CBackward0"), 0);
      pad[static_cast<std::size_t>(2 * (full.dim() - 1 - last) + 1)] = last_dim_size - full.size(last);
      full = wick::constant_pad_nd(full, pad, 0);
    }
    return {wick::real(aten::_fft_c2c(full, dim, normalization, false))};
  }
  void release() {}
};

Tensor fft_r2c_autograd(DispatchKeySet ks, T self, IntArrayRef dim, I64 normalization, bool onesided) {
  static const auto op = op_handle<Tensor(T, IntArrayRef, I64, bool)>("aten._fft_r2c");
  auto node = make_node<FftR2CBackward>(self);
  Tensor out = call_below(op, ks, self, dim, normalization, onesided);
  if (node) {
    node->f.dim.assign(dim);
    node->f.normalization = normalization;
    node->f.onesided = onesided;
    if (!dim.empty()) node->f.last_dim_size = self.size(wrap_dim(dim.back(), self.dim()));
    set_history(out, node);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, op.call(fw_grad_of(self), dim, normalization, onesided));
  }
  return out;
}

struct FftC2RBackward {
  static constexpr const char* kName = "FftC2RBackward0";
  static constexpr bool kComplex = true;
  DimVector dim;
  I64 normalization = 0;
  tensor_list backward(Node& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    const Tensor half = aten::_fft_r2c(g[0], dim, normalization, true);
    const I64 last = wrap_dim(dim.back(), g[0].dim());
    const I64 doubled = g[0].size(last) - half.size(last);  // the interior frequencies: 1 .. doubled
    if (doubled <= 0) return {half};
    // Weights 1, 2, ..., 2, (1) along the last dim.
    Tensor weights = wick::ones({half.size(last)}, to_real_dtype(half.dtype()), half.device());
    weights = wick::add(weights, wick::constant_pad_nd(wick::ones({doubled}, weights.dtype(), weights.device()),
                                                       {1, half.size(last) - 1 - doubled}, 0));
    DimVector shape(static_cast<std::size_t>(half.dim()), 1);
    shape[static_cast<std::size_t>(last)] = half.size(last);
    return {wick::mul(half, weights.reshape(shape))};
  }
  void release() {}
};

Tensor fft_c2r_autograd(DispatchKeySet ks, T self, IntArrayRef dim, I64 normalization, I64 last_dim_size) {
  static const auto op = op_handle<Tensor(T, IntArrayRef, I64, I64)>("aten._fft_c2r");
  auto node = make_node<FftC2RBackward>(self);
  Tensor out = call_below(op, ks, self, dim, normalization, last_dim_size);
  if (node) {
    node->f.dim.assign(dim);
    node->f.normalization = normalization;
    set_history(out, node);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, op.call(fw_grad_of(self), dim, normalization, last_dim_size));
  }
  return out;
}

}  // namespace

void register_autograd_fft(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("aten", DispatchKey::kAutograd);
  lib->impl("_fft_c2c", &fft_c2c_autograd).impl("_fft_r2c", &fft_r2c_autograd).impl("_fft_c2r", &fft_c2r_autograd);
  out.push_back(std::move(lib));
}

}  // namespace wick::autograd
