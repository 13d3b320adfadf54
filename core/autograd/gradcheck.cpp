// core/gradcheck.cpp - gradcheck and gradgradcheck.
/// \file
/// Jacobians are dense matrices of doubles, one per (output, input) pair,
/// indexed [output component][input component] in row-major element order.
/// A real tensor's components are its elements; a complex tensor's are the
/// elements of its real view (re, im of each element): its Jacobian is the
/// real view's, which is what PyTorch's complex gradient (dL/dre + i dL/dim,
/// Note [Complex gradients] in wick/autograd.h) must reproduce.
#include "wick/gradcheck.h"

#include <cmath>
#include <sstream>

#include "core/autograd/autograd_meta.h"
#include "wick/autograd_function.h"
#include "wick/forward_ad.h"
#include "wick/ops.h"

namespace wick::autograd {
namespace {

using Matrix = std::vector<std::vector<double>>;  // [out element][in element]

// The storage offset of element `flat` (row-major) of `t`, in elements.
std::int64_t element_offset(const Tensor& t, std::int64_t flat) {
  std::int64_t offset = 0;
  for (std::int64_t d = t.dim() - 1; d >= 0; --d) {
    const std::int64_t size = t.sizes()[d];
    offset += (flat % size) * t.strides()[d];
    flat /= size;
  }
  return offset;
}

// Element `flat` of a tensor on a device, as a 0-dim view: it is read and
// written through the device's kernels (item, fill_), below Autograd.
Tensor device_element(const Tensor& t, std::int64_t flat) {
  return make_view(t, {}, {}, t.storage_offset() + element_offset(t, flat));
}

// A complex tensor's real view (its storage as re, im pairs); others as they are.
Tensor real_view(const Tensor& t) {
  if (!t.defined() || !is_complex(t.dtype())) return t;
  const NoGradGuard no_grad;
  return wick::view_as_real(t);
}

// How many real numbers `t` holds.
std::int64_t components(const Tensor& t) { return t.defined() ? real_view(t).numel() : 0; }

double get_real(const Tensor& t, std::int64_t flat) {
  if (!t.device().is_cpu()) {
    const NoGradGuard no_grad;
    return device_element(t, flat).item<double>();
  }
  return visit_dtype(t.dtype(), "gradcheck", [&](auto tag) -> double {
    using S = decltype(tag);
    return static_cast<double>(*(static_cast<const S*>(t.data_ptr()) + element_offset(t, flat)));
  });
}

void set_real(const Tensor& t, std::int64_t flat, double v) {
  if (!t.device().is_cpu()) {
    const NoGradGuard no_grad;
    device_element(t, flat).fill_(v);
    return;
  }
  visit_dtype(t.dtype(), "gradcheck", [&](auto tag) {
    using S = decltype(tag);
    *(static_cast<S*>(t.data_ptr()) + element_offset(t, flat)) = static_cast<S>(v);
  });
}

// Component `flat` of `t` (see the file's comment).
double get(const Tensor& t, std::int64_t flat) { return get_real(real_view(t), flat); }
void set(const Tensor& t, std::int64_t flat, double v) { set_real(real_view(t), flat, v); }

std::vector<double> values_of(const Tensor& t, std::int64_t n) {
  std::vector<double> out(static_cast<std::size_t>(n), 0.0);
  if (!t.defined()) return out;
  for (std::int64_t k = 0; k < n; ++k) out[k] = get(t, k);
  return out;
}

bool is_checked_input(const Tensor& t) { return t.defined() && t.requires_grad() && is_differentiable_type(t.dtype()); }
bool is_checked_output(const Tensor& t) { return t.defined() && is_differentiable_type(t.dtype()); }

// Zero matrices for every (checked output, checked input) pair; others stay empty.
std::vector<std::vector<Matrix>> zero_jacobians(const tensor_list& inputs, const tensor_list& outputs) {
  std::vector<std::vector<Matrix>> jac(outputs.size(), std::vector<Matrix>(inputs.size()));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!is_checked_input(inputs[i])) continue;
    for (std::size_t o = 0; o < outputs.size(); ++o)
      jac[o][i].assign(static_cast<std::size_t>(components(outputs[o])),
                       std::vector<double>(static_cast<std::size_t>(components(inputs[i])), 0.0));
  }
  return jac;
}

// Numerical Jacobians by central differences: [output][input] matrices.
std::vector<std::vector<Matrix>> numerical(const GradcheckFn& fn, const tensor_list& inputs, const tensor_list& outputs,
                                           double eps) {
  std::vector<std::vector<Matrix>> jac = zero_jacobians(inputs, outputs);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    if (!is_checked_input(x)) continue;
    for (std::int64_t e = 0; e < components(x); ++e) {
      // Read the outputs right away: they may be views of the input.
      auto evaluate = [&](double v) {
        set(x, e, v);
        tensor_list outs = fn(inputs);
        std::vector<std::vector<double>> flat(outputs.size());
        for (std::size_t o = 0; o < outputs.size(); ++o)
          if (is_checked_output(outputs[o])) flat[o] = values_of(outs.at(o), components(outputs[o]));
        return flat;
      };
      const double orig = get(x, e);
      auto minus = evaluate(orig - eps);
      auto plus = evaluate(orig + eps);
      set(x, e, orig);
      for (std::size_t o = 0; o < outputs.size(); ++o) {
        if (!is_checked_output(outputs[o])) continue;
        for (std::int64_t k = 0; k < components(outputs[o]); ++k) {
          jac[o][i][k][e] = (plus[o][k] - minus[o][k]) / (2 * eps);
        }
      }
    }
  }
  return jac;
}

// Analytical Jacobians from backward: one vector-Jacobian product per output element.
std::vector<std::vector<Matrix>> analytical_backward(const tensor_list& inputs, const tensor_list& outputs) {
  std::vector<std::vector<Matrix>> jac = zero_jacobians(inputs, outputs);
  tensor_list diff_inputs;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (is_checked_input(inputs[i])) {
      diff_inputs.push_back(inputs[i]);
      index.push_back(i);
    }
  }
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const Tensor& out = outputs[o];
    if (!is_checked_output(out) || !out.requires_grad() || diff_inputs.empty()) continue;
    for (std::int64_t k = 0; k < components(out); ++k) {
      Tensor g = wick::zeros(out.sizes(), out.dtype(), out.device());
      set(g, k, 1.0);
      tensor_list grads = grad({out}, diff_inputs, {g}, /*retain_graph=*/true, /*create_graph=*/false,
                               /*allow_unused=*/true);
      for (std::size_t j = 0; j < index.size(); ++j) {
        jac[o][index[j]][k] = values_of(grads[j], components(inputs[index[j]]));
      }
    }
  }
  return jac;
}

// Analytical Jacobians from forward mode: one Jacobian-vector product per input element.
std::vector<std::vector<Matrix>> analytical_forward(const GradcheckFn& fn, const tensor_list& inputs,
                                                    const tensor_list& outputs) {
  std::vector<std::vector<Matrix>> jac = zero_jacobians(inputs, outputs);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    if (!is_checked_input(x)) continue;
    for (std::int64_t e = 0; e < components(x); ++e) {
      forward_ad::dual_level level;
      Tensor tangent = wick::zeros(x.sizes(), x.dtype(), x.device());
      set(tangent, e, 1.0);
      tensor_list dual_inputs = inputs;
      dual_inputs[i] = forward_ad::make_dual(x, tangent);
      tensor_list outs = fn(dual_inputs);
      for (std::size_t o = 0; o < outputs.size(); ++o) {
        if (!is_checked_output(outputs[o])) continue;
        std::vector<double> col = values_of(forward_ad::unpack_dual(outs[o]).tangent, components(outputs[o]));
        for (std::int64_t k = 0; k < components(outputs[o]); ++k) jac[o][i][k][e] = col[k];
      }
    }
  }
  return jac;
}

bool compare(const std::vector<std::vector<Matrix>>& num, const std::vector<std::vector<Matrix>>& ana,
             const GradcheckOptions& opt, const char* mode, std::string& error) {
  for (std::size_t o = 0; o < num.size(); ++o) {
    for (std::size_t i = 0; i < num[o].size(); ++i) {
      const Matrix& n = num[o][i];
      const Matrix& a = ana[o][i];
      for (std::size_t k = 0; k < n.size(); ++k) {
        for (std::size_t e = 0; e < n[k].size(); ++e) {
          const double nv = n[k][e];
          const double av = (k < a.size() && e < a[k].size()) ? a[k][e] : 0.0;
          const bool close = std::abs(av - nv) <= opt.atol + opt.rtol * std::abs(nv) || (std::isnan(av) && std::isnan(nv));
          if (!close) {
            std::ostringstream os;
            os.precision(10);
            os << "gradcheck: Jacobian mismatch (" << mode << " mode) for output " << o << " with respect to input "
               << i << ", at input element " << e << " and output element " << k << ": numerical " << nv
               << ", analytical " << av << " (eps " << opt.eps << ", atol " << opt.atol << ", rtol " << opt.rtol << ")";
            error = os.str();
            return false;
          }
        }
      }
    }
  }
  return true;
}

// Passes its input through; backward hands back an undefined gradient.
struct UndefinedGrad : Function<UndefinedGrad> {
  static Tensor forward(AutogradContext*, Tensor x) { return x; }
  static tensor_list backward(AutogradContext*, tensor_list) { return {Tensor()}; }
};

bool check_undefined(const GradcheckFn& fn, const tensor_list& inputs, std::string& error) {
  tensor_list diff_inputs;
  for (const Tensor& t : inputs)
    if (is_checked_input(t)) diff_inputs.push_back(t);
  if (diff_inputs.empty()) return true;
  tensor_list outputs = fn(inputs);
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    if (!is_checked_output(outputs[o]) || !outputs[o].requires_grad()) continue;
    Tensor blocked = UndefinedGrad::apply(outputs[o]);
    tensor_list grads = grad({blocked}, diff_inputs, {wick::ones(blocked.sizes(), blocked.dtype())}, true, false, true);
    for (std::size_t j = 0; j < grads.size(); ++j) {
      if (!grads[j].defined()) continue;
      for (double v : values_of(grads[j], components(grads[j]))) {
        if (v != 0.0) {
          std::ostringstream os;
          os << "gradcheck: backward is not correct for an undefined output gradient (output " << o
             << "): gradient " << j << " should be undefined or zero, got a value of " << v;
          error = os.str();
          return false;
        }
      }
    }
  }
  return true;
}

bool run_gradcheck(const GradcheckFn& fn, const tensor_list& inputs, const GradcheckOptions& opt) {
  std::string error;
  bool ok = true;
  tensor_list outputs = fn(inputs);
  std::vector<std::vector<Matrix>> num;
  {
    tensor_list detached;
    for (const Tensor& t : outputs) detached.push_back(t.defined() ? t.detach() : t);
    num = numerical(fn, inputs, detached, opt.eps);
  }
  if (opt.check_backward_ad) ok = compare(num, analytical_backward(inputs, outputs), opt, "backward", error);
  if (ok && opt.check_forward_ad) ok = compare(num, analytical_forward(fn, inputs, outputs), opt, "forward", error);
  if (ok && opt.check_backward_ad && opt.check_undefined_grad) ok = check_undefined(fn, inputs, error);
  if (!ok && opt.raise_exception) throw RuntimeError(error);
  return ok;
}

GradcheckFn lift(const GradcheckFn1& fn) {
  return [fn](const tensor_list& in) { return tensor_list{fn(in)}; };
}

}  // namespace

bool gradcheck(const GradcheckFn& fn, const tensor_list& inputs, const GradcheckOptions& options) {
  return run_gradcheck(fn, inputs, options);
}
bool gradcheck(const GradcheckFn1& fn, const tensor_list& inputs, const GradcheckOptions& options) {
  return run_gradcheck(lift(fn), inputs, options);
}

bool gradgradcheck(const GradcheckFn& fn, const tensor_list& inputs, const tensor_list& grad_outputs,
                   const GradcheckOptions& options) {
  tensor_list outputs = fn(inputs);
  tensor_list gos = grad_outputs;
  if (gos.empty()) {
    for (const Tensor& o : outputs) {
      if (!is_checked_output(o)) {
        gos.emplace_back();
        continue;
      }
      gos.push_back(is_complex(o.dtype())
                        ? wick::complex(wick::randn(o.sizes(), to_real_dtype(o.dtype())),
                                        wick::randn(o.sizes(), to_real_dtype(o.dtype())))
                              .requires_grad_()
                        : wick::randn(o.sizes(), o.dtype()).requires_grad_());
    }
  }
  const std::size_t n_in = inputs.size();
  // g(inputs, grad_outputs) = the vector-Jacobian products.
  GradcheckFn g = [fn, n_in](const tensor_list& all) {
    tensor_list in(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n_in));
    tensor_list go(all.begin() + static_cast<std::ptrdiff_t>(n_in), all.end());
    tensor_list outs = fn(in);
    tensor_list diff_in;
    for (const Tensor& t : in)
      if (is_checked_input(t)) diff_in.push_back(t);
    tensor_list used_outs;
    tensor_list used_go;
    for (std::size_t o = 0; o < outs.size(); ++o) {
      if (is_checked_output(outs[o]) && outs[o].requires_grad() && o < go.size() && go[o].defined()) {
        used_outs.push_back(outs[o]);
        used_go.push_back(go[o]);
      }
    }
    if (used_outs.empty() || diff_in.empty()) return tensor_list{};
    tensor_list grads = grad(used_outs, diff_in, used_go, true, /*create_graph=*/true, /*allow_unused=*/true);
    tensor_list defined;
    for (const Tensor& t : grads)
      if (t.defined()) defined.push_back(t);
    return defined;
  };
  tensor_list all = inputs;
  all.insert(all.end(), gos.begin(), gos.end());
  GradcheckOptions o = options;
  o.check_forward_ad = false;
  o.check_undefined_grad = false;
  return run_gradcheck(g, all, o);
}

bool gradgradcheck(const GradcheckFn1& fn, const tensor_list& inputs, const tensor_list& grad_outputs,
                   const GradcheckOptions& options) {
  return gradgradcheck(lift(fn), inputs, grad_outputs, options);
}

}  // namespace wick::autograd
