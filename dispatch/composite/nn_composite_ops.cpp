// dispatch/nn_composite_ops.cpp - CompositeImplicit kernels of torch.nn.functional: linear, softmax's
// implicit dim, dropout and the losses.
/// \file
/// These follow PyTorch 1.13's own decompositions, so their gradients come
/// from the operators they call: linear is addmm(bias, input, weight^T) for
/// a matrix input, else matmul(input, weight^T) + bias;
/// F.softmax resolves its dim and calls torch.softmax; dropout multiplies by
/// a Bernoulli(1-p) mask scaled by 1/(1-p) drawn from the default generator;
/// mse_loss and l1_loss reduce the squared / absolute difference;
/// cross_entropy is nll_loss(log_softmax(input)) for class indices (plus
/// PyTorch's label-smoothing term) and -sum(log_softmax(input) * target) for
/// class probabilities; binary_cross_entropy clamps its logs at -100;
/// binary_cross_entropy_with_logits uses logsigmoid, which is stable for
/// any logit.
#include <memory>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/log.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

namespace nnf = wick::nn::functional;
using T = const Tensor&;
using OptTensor = const std::optional<Tensor>&;

Tensor num(double v) { return wrap_scalar(Scalar(v)); }

Tensor reduce(T loss, nnf::Reduction red) {
  if (red == nnf::Reduction::kMean) return mean(loss);
  if (red == nnf::Reduction::kSum) return sum(loss);
  return loss;
}

std::string torch_size(IntArrayRef s) { return "torch.Size(" + format_shape(s) + ")"; }

// --- linear / softmax ----------------------------------------------------------------------------

Tensor linear_kernel(T input, T weight, OptTensor bias) {
  // A matrix input with a bias is one GEMM with the bias as its C (PyTorch
  // records AddmmBackward0 here too); other ranks go through matmul.
  if (input.dim() == 2 && bias && bias->defined()) return addmm(*bias, input, weight.t());
  Tensor out = matmul(input, weight.t());
  return bias ? add(out, *bias) : out;
}

// PyTorch's implicit softmax dim (deprecated): 0 for 0-, 1- and 3-dim inputs, else 1.
std::int64_t softmax_dim(const char* name, T input, std::optional<std::int64_t> dim) {
  if (dim) return *dim;
  const std::int64_t n = input.dim();
  const std::int64_t d = (n == 0 || n == 1 || n == 3) ? 0 : 1;
  logging::warn("torch.nn.functional.", name, ": Implicit dimension choice for ", name,
                " has been deprecated. Change the call to include dim=X as an argument.");
  return d;
}

Tensor f_softmax(T input, std::optional<std::int64_t> dim, std::int64_t, std::optional<ScalarType> dtype) {
  return softmax(input, softmax_dim("softmax", input, dim), dtype);
}
Tensor f_log_softmax(T input, std::optional<std::int64_t> dim, std::int64_t, std::optional<ScalarType> dtype) {
  return log_softmax(input, softmax_dim("log_softmax", input, dim), dtype);
}

// --- dropout -------------------------------------------------------------------------------------

Tensor dropout_impl(const char* op, T input, double p, bool train, bool inplace) {
  WICK_CHECK(p >= 0.0 && p <= 1.0, ValueError, op, ": dropout probability has to be between 0 and 1, but got ", p);
  if (p == 0.0 || !train || input.numel() == 0) return input;
  Tensor noise;
  if (p == 1.0) {  // zeros in any dtype, as PyTorch multiplies by them
    noise = zeros({}, input.dtype(), input.device());
  } else {
    WICK_CHECK(is_floating(input.dtype()) || is_complex(input.dtype()), RuntimeError, op,
               ": result type Float can't be cast to the desired output type ", type_title(input.dtype()));
    // PyTorch's mask: bernoulli_(1 - p) on the CPU generator, a float64
    // uniform below 1 - p (Note [PyTorch's random numbers]).
    Tensor keep = lt(rand(input.sizes(), ScalarType::kFloat64, input.device()), num(1.0 - p));
    noise = div(keep.to(input.dtype()), num(1.0 - p));
  }
  if (!inplace) return mul(input, noise);
  Tensor self = input;
  return self.mul_(noise);
}

Tensor torch_dropout(T input, double p, bool train, bool inplace) {
  return dropout_impl("torch.dropout", input, p, train, inplace);
}
Tensor f_dropout(T input, double p, bool training, bool inplace) {
  return dropout_impl("torch.nn.functional.dropout", input, p, training, inplace);
}

// --- regression losses -----------------------------------------------------------------------------

// The reduction of a pointwise loss; warns, as PyTorch does, when the target broadcasts.
nnf::Reduction pointwise_loss_reduction(const char* op, T input, T target, std::optional<bool> size_average,
                                        std::optional<bool> reduce_arg, std::string_view reduction) {
  const auto red = nnf::resolve_reduction(op, size_average, reduce_arg, reduction);
  if (!input.sizes().equals(target.sizes()))
    logging::warn(
        op, ": Using a target size (", torch_size(target.sizes()), ") that is different to the input size (",
        torch_size(input.sizes()),
        "). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.");
  return red;
}

Tensor mse_loss_kernel(T input, T target, std::optional<bool> size_average, std::optional<bool> reduce_arg,
                       std::string_view reduction) {
  const char* op = "torch.nn.functional.mse_loss";
  const auto red = pointwise_loss_reduction(op, input, target, size_average, reduce_arg, reduction);
  const ScalarType t = result_type(input, target);
  WICK_CHECK(is_floating(t), RuntimeError, op, ": \"mse_cpu\" not implemented for '", type_title(t), "'");
  Tensor d = sub(input, target);
  return reduce(mul(d, d), red);
}

Tensor l1_loss_kernel(T input, T target, std::optional<bool> size_average, std::optional<bool> reduce_arg,
                      std::string_view reduction) {
  const char* op = "torch.nn.functional.l1_loss";
  const auto red = pointwise_loss_reduction(op, input, target, size_average, reduce_arg, reduction);
  return reduce(abs(sub(input, target)), red);
}

// --- classification losses -----------------------------------------------------------------------

// [C, 1, ...]: broadcasts a per-class vector along input's class dim.
DimVector class_shape(T input) {
  const std::int64_t cdim = input.dim() == 1 ? 0 : 1;
  DimVector s(static_cast<std::size_t>(input.dim() - cdim), 1);
  s[0] = input.sizes()[cdim];
  return s;
}

Tensor cross_entropy_probs(T input, T target, OptTensor weight, std::int64_t ignore_index, nnf::Reduction red,
                           double smoothing) {
  const char* op = "torch.nn.functional.cross_entropy";
  WICK_CHECK(is_floating(target.dtype()), RuntimeError, op,
             ": Expected floating point type for target with class probabilities, got ", type_title(target.dtype()));
  WICK_CHECK(ignore_index < 0, RuntimeError, op, ": ignore_index is not supported for floating point target");
  const std::int64_t cdim = input.dim() == 1 ? 0 : 1;
  Tensor logp = log_softmax(input, cdim);
  const std::int64_t c = logp.sizes()[cdim];
  Tensor t = target;
  if (smoothing > 0) t = add(mul(t, num(1.0 - smoothing)), num(smoothing / static_cast<double>(c)));
  Tensor prod = mul(logp, t);
  if (weight) prod = mul(prod, reshape(*weight, class_shape(logp)));
  if (red == nnf::Reduction::kNone) return neg(sum(prod, IntArrayRef(cdim)));
  Tensor total = neg(sum(prod));
  if (red == nnf::Reduction::kSum) return total;
  return div(total, num(static_cast<double>(logp.numel() / std::max<std::int64_t>(c, 1))));
}

Tensor cross_entropy_kernel(T input, T target, OptTensor weight, std::optional<bool> size_average,
                            std::int64_t ignore_index, std::optional<bool> reduce_arg, std::string_view reduction,
                            double label_smoothing) {
  const char* op = "torch.nn.functional.cross_entropy";
  const auto red = nnf::resolve_reduction(op, size_average, reduce_arg, reduction);
  WICK_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0, RuntimeError, op,
             ": label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  if (input.sizes().equals(target.sizes()))
    return cross_entropy_probs(input, target, weight, ignore_index, red, label_smoothing);
  WICK_CHECK(input.dim() >= 1, ValueError, op, ": Expected 1 or more dimensions (got 0)");
  const std::int64_t cdim = input.dim() == 1 ? 0 : 1;
  Tensor logp = log_softmax(input, cdim);
  const char* reduction_name = red == nnf::Reduction::kMean ? "mean" : red == nnf::Reduction::kSum ? "sum" : "none";
  Tensor nll = nnf::nll_loss(logp, target, weight, ignore_index, reduction_name);
  if (label_smoothing <= 0.0) return nll;
  // PyTorch's smoothing term: the (weighted) sum of -log p over the classes,
  // zero where the target is ignored, reduced like the loss.
  Tensor valid = ne(target, wrap_scalar(Scalar(ignore_index))).to(input.dtype());
  Tensor wl = weight ? mul(logp, reshape(*weight, class_shape(input))) : logp;
  Tensor smooth = mul(neg(sum(wl, IntArrayRef(cdim))), valid);
  Tensor term = smooth;
  if (red == nnf::Reduction::kSum) term = sum(smooth);
  if (red == nnf::Reduction::kMean) {
    Tensor denom = sum(valid);
    if (weight) {
      Tensor classes =
          reshape(arange(0, input.sizes()[cdim], 1, ScalarType::kInt64, input.device()), class_shape(input));
      Tensor onehot = eq(unsqueeze(target, cdim), classes).to(input.dtype());
      denom = sum(mul(sum(mul(onehot, reshape(*weight, class_shape(input))), IntArrayRef(cdim)), valid));
    }
    term = div(sum(smooth), denom);
  }
  const double c = static_cast<double>(input.sizes()[cdim]);
  return add(mul(nll, num(1.0 - label_smoothing)), mul(term, num(label_smoothing / c)));
}

Tensor bce_kernel(T input, T target, OptTensor weight, std::optional<bool> size_average, std::optional<bool> reduce_arg,
                  std::string_view reduction) {
  const char* op = "torch.nn.functional.binary_cross_entropy";
  const auto red = nnf::resolve_reduction(op, size_average, reduce_arg, reduction);
  WICK_CHECK(target.sizes().equals(input.sizes()), ValueError, op, ": Using a target size (",
             torch_size(target.sizes()), ") that is different to the input size (", torch_size(input.sizes()),
             ") is deprecated. Please ensure they have the same size.");
  WICK_CHECK(is_floating(input.dtype()), RuntimeError, op, ": \"binary_cross_entropy\" not implemented for '",
             type_title(input.dtype()), "'");
  // The values can only be checked where there are some: a meta input has
  // none (PyTorch's meta kernel does not check them either).
  if (!input.device().is_meta()) {
    Tensor inside = logical_and(ge(input, num(0.0)), le(input, num(1.0)));
    WICK_CHECK(sum(logical_not(inside.detach())).item<std::int64_t>() == 0, RuntimeError, op,
               ": all elements of input should be between 0 and 1");
  }
  Tensor log_x = clamp(log(input), -100.0);
  Tensor log_1mx = clamp(log(rsub(input, num(1.0))), -100.0);
  // -(t log x + (1 - t) log(1 - x)) = -(log(1 - x) + t (log x - log(1 - x)))
  Tensor loss = neg(add(log_1mx, mul(target, sub(log_x, log_1mx))));
  if (weight) loss = mul(loss, *weight);
  return reduce(loss, red);
}

Tensor bce_logits_impl(const char* op, T input, T target, OptTensor weight, OptTensor pos_weight, nnf::Reduction red) {
  WICK_CHECK(target.sizes().equals(input.sizes()), ValueError, op, ": Target size (", torch_size(target.sizes()),
             ") must be the same as input size (", torch_size(input.sizes()), ")");
  // The first step of PyTorch's formula that each other dtype fails.
  const ScalarType t = input.dtype();
  WICK_CHECK(t != ScalarType::kBool, RuntimeError, op,
             ": Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
             "use the `~` or `logical_not()` operator instead.");
  WICK_CHECK(!is_integral(t, false), RuntimeError, op,
             ": result type Float can't be cast to the desired output type ", type_title(t));
  WICK_CHECK(!is_complex(t), RuntimeError, op, ": clamp is not supported for complex types");
  // (1 - t) x + lw * softplus(-x), lw = 1 + (pos_weight - 1) t, softplus(-x) = -logsigmoid(x)
  Tensor softplus_neg = neg(nnf::logsigmoid(input));
  if (pos_weight) softplus_neg = mul(softplus_neg, add(mul(sub(*pos_weight, num(1.0)), target), num(1.0)));
  Tensor loss = add(mul(rsub(target, num(1.0)), input), softplus_neg);
  if (weight) loss = mul(loss, *weight);
  return reduce(loss, red);
}

Tensor bce_logits_kernel(T input, T target, OptTensor weight, std::optional<bool> size_average,
                         std::optional<bool> reduce_arg, std::string_view reduction, OptTensor pos_weight) {
  const char* op = "torch.nn.functional.binary_cross_entropy_with_logits";
  return bce_logits_impl(op, input, target, weight, pos_weight,
                         nnf::resolve_reduction(op, size_average, reduce_arg, reduction));
}

// torch.binary_cross_entropy_with_logits: ATen's reduction enum (0 none, 1 mean, 2 sum).
Tensor torch_bce_logits(T input, T target, OptTensor weight, OptTensor pos_weight, std::int64_t reduction) {
  const char* op = "torch.binary_cross_entropy_with_logits";
  WICK_CHECK(reduction >= 0 && reduction <= 2, ValueError, op, ": ", reduction,
             " is not a valid value for reduction (0: none, 1: mean, 2: sum)");
  const nnf::Reduction red = reduction == 0   ? nnf::Reduction::kNone
                             : reduction == 1 ? nnf::Reduction::kMean
                                              : nnf::Reduction::kSum;
  return bce_logits_impl(op, input, target, weight, pos_weight, red);
}

}  // namespace

void register_nn_composite_kernels(std::vector<std::unique_ptr<Library>>& out) {
  constexpr auto kComposite = DispatchKey::kCompositeImplicit;
  auto torch = std::make_unique<Library>("torch", kComposite);
  torch->impl("dropout", &torch_dropout).impl("binary_cross_entropy_with_logits", &torch_bce_logits);
  auto functional = std::make_unique<Library>("torch.nn.functional", kComposite);
  functional->impl("linear", &linear_kernel)
      .impl("softmax", &f_softmax)
      .impl("log_softmax", &f_log_softmax)
      .impl("dropout", &f_dropout)
      .impl("mse_loss", &mse_loss_kernel)
      .impl("l1_loss", &l1_loss_kernel)
      .impl("cross_entropy", &cross_entropy_kernel)
      .impl("binary_cross_entropy", &bce_kernel)
      .impl("binary_cross_entropy_with_logits", &bce_logits_kernel);
  out.push_back(std::move(torch));
  out.push_back(std::move(functional));
}

}  // namespace wick
