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
#include <optional>
#include <tuple>
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
// An int, compared in the target's dtype as PyTorch compares `target == -1`
// (a uint8 target's 255 is -1 there).
Tensor label(std::int64_t v) { return wrap_scalar(Scalar(v)); }

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

// torch.special.softmax and log_softmax: torch's, under their own signatures.
Tensor special_softmax(T input, std::int64_t dim, std::optional<ScalarType> dtype) {
  return softmax(input, dim, dtype);
}
Tensor special_log_softmax(T input, std::int64_t dim, std::optional<ScalarType> dtype) {
  return log_softmax(input, dim, dtype);
}

// --- dropout -------------------------------------------------------------------------------------

// PyTorch's dropout mask, bernoulli_(keep) on the CPU generator: a float64
// uniform below `keep` (Note [PyTorch's random numbers]), so seeded masks
// are PyTorch's.
Tensor keep_mask(T input, double keep) {
  return lt(rand(input.sizes(), ScalarType::kFloat64, input.device()), num(keep));
}

Tensor dropout_impl(const char* op, T input, double p, bool train, bool inplace) {
  WICK_CHECK(p >= 0.0 && p <= 1.0, ValueError, op, ": dropout probability has to be between 0 and 1, but got ", p);
  if (p == 0.0 || !train || input.numel() == 0) return input;
  Tensor noise;
  if (p == 1.0) {  // zeros in any dtype, as PyTorch multiplies by them
    noise = zeros({}, input.dtype(), input.device());
  } else {
    WICK_CHECK(is_floating(input.dtype()) || is_complex(input.dtype()), RuntimeError, op,
               ": result type Float can't be cast to the desired output type ", type_title(input.dtype()));
    noise = div(keep_mask(input, 1.0 - p).to(input.dtype()), num(1.0 - p));
  }
  if (!inplace) return mul(input, noise);
  Tensor self = input;
  return self.mul_(noise);
}

// ATen's native_dropout: dropout's mask, and its checks in the order
// PyTorch's kernel makes them.
std::tuple<Tensor, Tensor> native_dropout_kernel(T input, double p, std::optional<bool> train) {
  if (!train.value_or(true)) return {input.clone(), ones(input.sizes(), ScalarType::kBool, input.device())};
  const double keep = 1.0 - p;
  WICK_CHECK(keep >= 0.0 && keep <= 1.0, RuntimeError, "bernoulli_ expects p to be in [0, 1], but got p=",
             python_float_repr(keep));
  const Tensor mask = keep_mask(input, keep);
  WICK_CHECK(is_floating(input.dtype()) || is_complex(input.dtype()), RuntimeError,
             "result type Float can't be cast to the desired output type ", type_title(input.dtype()));
  return {mul(mul(input, mask), num(keep == 0.0 ? 0.0 : 1.0 / keep)), mask};
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
  return reduce_loss(mul(d, d), red);
}

Tensor l1_loss_kernel(T input, T target, std::optional<bool> size_average, std::optional<bool> reduce_arg,
                      std::string_view reduction) {
  const char* op = "torch.nn.functional.l1_loss";
  const auto red = pointwise_loss_reduction(op, input, target, size_average, reduce_arg, reduction);
  return reduce_loss(abs(sub(input, target)), red);
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
  return reduce_loss(loss, red);
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
  return reduce_loss(loss, red);
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

// --- more pointwise losses --------------------------------------------------------------------------

// ATen's reduction enum of the torch.* losses: 1 mean, 2 sum, and any
// other value none, as PyTorch's loss functions read it.
nnf::Reduction aten_reduction(std::int64_t reduction) {
  return reduction == 1 ? nnf::Reduction::kMean : reduction == 2 ? nnf::Reduction::kSum : nnf::Reduction::kNone;
}

// PyTorch's refusal of a dtype its kernel has no loop for: "<kernel>" not implemented for '<dtype>'.
void check_floating(const char* op, const char* kernel, ScalarType t) {
  WICK_CHECK(is_floating(t), RuntimeError, op, ": \"", kernel, "\" not implemented for '", type_title(t), "'");
}

Tensor huber_loss_kernel(T input, T target, std::string_view reduction, double delta) {
  const char* op = "torch.nn.functional.huber_loss";
  const auto red = pointwise_loss_reduction(op, input, target, std::nullopt, std::nullopt, reduction);
  WICK_CHECK(delta > 0, RuntimeError, op, ": huber_loss does not support non-positive values for delta.");
  check_floating(op, "huber_cpu", result_type(input, target));
  Tensor z = abs(sub(input, target));
  Tensor loss = where(lt(z, num(delta)), mul(mul(z, z), num(0.5)), mul(sub(z, num(0.5 * delta)), num(delta)));
  return reduce_loss(loss, red);
}

Tensor smooth_l1_loss_kernel(T input, T target, std::optional<bool> size_average, std::optional<bool> reduce_arg,
                             std::string_view reduction, double beta) {
  const char* op = "torch.nn.functional.smooth_l1_loss";
  const auto red = pointwise_loss_reduction(op, input, target, size_average, reduce_arg, reduction);
  WICK_CHECK(beta >= 0, RuntimeError, op, ": smooth_l1_loss does not support negative values for beta.");
  check_floating(op, "smooth_l1_cpu", result_type(input, target));
  Tensor z = abs(sub(input, target));
  if (beta == 0.0) return reduce_loss(z, red);
  Tensor loss = where(lt(z, num(beta)), div(mul(mul(z, z), num(0.5)), num(beta)), sub(z, num(0.5 * beta)));
  return reduce_loss(loss, red);
}

Tensor soft_margin_loss_kernel(T input, T target, std::optional<bool> size_average, std::optional<bool> reduce_arg,
                               std::string_view reduction) {
  const char* op = "torch.nn.functional.soft_margin_loss";
  const auto red = nnf::resolve_reduction(op, size_average, reduce_arg, reduction);
  // PyTorch writes the float result into a tensor of the inputs' dtype.
  const ScalarType t = result_type(input, target);
  WICK_CHECK(!is_integral(t, false), RuntimeError, op, ": result type Float can't be cast to the desired output type ",
             type_title(t));
  return reduce_loss(log1p(exp(neg(mul(target, input)))), red);
}

Tensor kl_div_impl(const char* op, T input, T target, bool log_target) {
  WICK_CHECK(!is_complex(input.dtype()) && !is_complex(target.dtype()), RuntimeError, op,
             ": kl_div: Complex inputs not supported.");
  WICK_CHECK(!is_integral(input.dtype(), true) && !is_integral(target.dtype(), true), RuntimeError, op,
             ": kl_div: Integral inputs not supported.");
  if (log_target) return mul(exp(target), sub(target, input));
  return sub(xlogy(target, target), mul(target, input));
}

Tensor f_kl_div(T input, T target, std::optional<bool> size_average, std::optional<bool> reduce_arg,
                std::string_view reduction, bool log_target) {
  const char* op = "torch.nn.functional.kl_div";
  if (reduction == "batchmean" && !size_average && !reduce_arg) {
    Tensor total = sum(kl_div_impl(op, input, target, log_target));
    return input.dim() == 0 ? total : div(total, num(static_cast<double>(input.sizes()[0])));
  }
  const auto red = nnf::resolve_reduction(op, size_average, reduce_arg, reduction);
  if (red == nnf::Reduction::kMean && !size_average && !reduce_arg)
    logging::warn(op,
                  ": reduction: 'mean' divides the total loss by both the batch size and the support size.'batchmean' "
                  "divides only by the batch size, and aligns with the KL div math definition.'mean' will be changed "
                  "to behave the same as 'batchmean' in the next major release.");
  return reduce_loss(kl_div_impl(op, input, target, log_target), red);
}
Tensor torch_kl_div(T input, T target, std::int64_t reduction, bool log_target) {
  const char* op = "torch.kl_div";
  return reduce_loss(kl_div_impl(op, input, target, log_target), aten_reduction(reduction));
}

Tensor hinge_embedding_impl(const char* op, T input, T target, double margin, nnf::Reduction red) {
  WICK_CHECK(input.dtype() != ScalarType::kBool || target.dtype() != ScalarType::kBool, RuntimeError, op,
             ": Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
             "operator instead.");
  WICK_CHECK(!is_complex(input.dtype()), RuntimeError, op, ": clamp is not supported for complex types");
  WICK_CHECK(red != nnf::Reduction::kMean || !is_integral(input.dtype(), false), RuntimeError, op,
             ": mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
             "Got: ", type_title(input.dtype()));
  Tensor zeros = zeros_like(input);
  // margin - input in the input's dtype, as PyTorch's ATen computes it: an
  // integer input gives an integer loss.
  const Scalar m = scalar_in_dtype(Scalar(margin), input.dtype());
  Tensor margin_part = where(ne(target, label(1)), clamp_min(rsub(input, wrap_scalar(m)), Scalar(0)), zeros);
  Tensor self_part = where(ne(target, label(-1)), input, zeros);
  return add(margin_part, self_part);
}
Tensor f_hinge_embedding_loss(T input, T target, double margin, std::optional<bool> size_average,
                              std::optional<bool> reduce_arg, std::string_view reduction) {
  const char* op = "torch.nn.functional.hinge_embedding_loss";
  const auto red = nnf::resolve_reduction(op, size_average, reduce_arg, reduction);
  return reduce_loss(hinge_embedding_impl(op, input, target, margin, red), red);
}
Tensor torch_hinge_embedding_loss(T input, T target, double margin, std::int64_t reduction) {
  const auto red = aten_reduction(reduction);
  return reduce_loss(hinge_embedding_impl("torch.hinge_embedding_loss", input, target, margin, red), red);
}

// The difference before the negation, named: as arguments of one call their
// order would be the compiler's (GCC and clang differ), and with bool inputs
// PyTorch reports the subtraction.
Tensor margin_ranking_impl(T input1, T input2, T target, double margin) {
  const Tensor difference = sub(input1, input2);
  return clamp_min(add(mul(neg(target), difference), num(margin)), Scalar(0));
}
Tensor f_margin_ranking_loss(T input1, T input2, T target, double margin, std::optional<bool> size_average,
                             std::optional<bool> reduce_arg, std::string_view reduction) {
  const char* op = "torch.nn.functional.margin_ranking_loss";
  const auto red = nnf::resolve_reduction(op, size_average, reduce_arg, reduction);
  WICK_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(), RuntimeError, op,
             ": margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: ",
             torch_size(input1.sizes()), ", input2: ", torch_size(input2.sizes()), ", target: ",
             torch_size(target.sizes()), " ");
  return reduce_loss(margin_ranking_impl(input1, input2, target, margin), red);
}
Tensor torch_margin_ranking_loss(T input1, T input2, T target, double margin, std::int64_t reduction) {
  return reduce_loss(margin_ranking_impl(input1, input2, target, margin),
                aten_reduction(reduction));
}

Tensor cosine_embedding_impl(const char* op, T input1, T input2, T target, double margin) {
  const std::int64_t tdim = target.dim();
  WICK_CHECK(tdim == 0 || tdim == 1, RuntimeError, op, ": 0D or 1D target tensor expected, multi-target not supported");
  if (tdim == 1) {
    WICK_CHECK(input1.dim() == 2 && input2.dim() == 2, RuntimeError, op,
               ": 1D target tensor expects 2D input tensors, but found inputs with sizes ",
               format_shape(input1.sizes()), " and ", format_shape(input2.sizes()), ".");
  } else {
    WICK_CHECK(input1.dim() == 1 && input2.dim() == 1, RuntimeError, op,
               ": 0D target tensor expects 1D input tensors, but found inputs with sizes ",
               format_shape(input1.sizes()), " and ", format_shape(input2.sizes()), ".");
  }
  constexpr double kEpsilon = 1e-12;
  const IntArrayRef d(tdim);
  Tensor prod = sum(mul(input1, input2), d);
  Tensor mag1 = add(sum(mul(input1, input1), d), num(kEpsilon));
  Tensor mag2 = add(sum(mul(input2, input2), d), num(kEpsilon));
  Tensor cos = div(prod, sqrt(mul(mag1, mag2)));
  Tensor zeros = zeros_like(cos);
  Tensor pos = where(eq(target, label(1)), rsub(cos, num(1.0)), zeros);
  Tensor negative = where(eq(target, label(-1)), clamp_min(sub(cos, num(margin)), Scalar(0)), zeros);
  return add(pos, negative);
}
Tensor f_cosine_embedding_loss(T input1, T input2, T target, double margin, std::optional<bool> size_average,
                               std::optional<bool> reduce_arg, std::string_view reduction) {
  const char* op = "torch.nn.functional.cosine_embedding_loss";
  const auto red = nnf::resolve_reduction(op, size_average, reduce_arg, reduction);
  return reduce_loss(cosine_embedding_impl(op, input1, input2, target, margin), red);
}
Tensor torch_cosine_embedding_loss(T input1, T input2, T target, double margin, std::int64_t reduction) {
  const char* op = "torch.cosine_embedding_loss";
  return reduce_loss(cosine_embedding_impl(op, input1, input2, target, margin), aten_reduction(reduction));
}

Tensor poisson_nll_impl(T input, T target, bool log_input, bool full, double eps) {
  Tensor loss = log_input ? sub(exp(input), mul(target, input)) : sub(input, mul(target, log(add(input, num(eps)))));
  if (full) {
    // Stirling's approximation of log(target!), where target > 1.
    constexpr double kTwoPi = 6.283185307179586;
    Tensor stirling = add(sub(mul(target, log(target)), target), mul(log(mul(target, num(kTwoPi))), num(0.5)));
    loss = add(loss, masked_fill(stirling, le(target, num(1.0)), Scalar(0)));
  }
  return loss;
}
Tensor f_poisson_nll_loss(T input, T target, bool log_input, bool full, std::optional<bool> size_average, double eps,
                          std::optional<bool> reduce_arg, std::string_view reduction) {
  const char* op = "torch.nn.functional.poisson_nll_loss";
  const auto red = nnf::resolve_reduction(op, size_average, reduce_arg, reduction);
  return reduce_loss(poisson_nll_impl(input, target, log_input, full, eps), red);
}
Tensor torch_poisson_nll_loss(T input, T target, bool log_input, bool full, double eps, std::int64_t reduction) {
  return reduce_loss(poisson_nll_impl(input, target, log_input, full, eps),
                aten_reduction(reduction));
}

Tensor gaussian_nll_loss_kernel(T input, T target, T var_in, bool full, double eps, std::string_view reduction) {
  const char* op = "torch.nn.functional.gaussian_nll_loss";
  Tensor var = var_in;
  if (!var.sizes().equals(input.sizes())) {
    const IntArrayRef in = input.sizes();
    const IntArrayRef vs = var.sizes();
    // input.size()[:-1] against var.size() and against var.size()[:-1].
    const IntArrayRef in_lead(in.data(), in.empty() ? 0 : in.size() - 1);
    const IntArrayRef vs_lead(vs.data(), vs.empty() ? 0 : vs.size() - 1);
    const bool leading = !in.empty() && in_lead.equals(vs);
    const bool one_last = !in.empty() && !vs.empty() && in_lead.equals(vs_lead) && vs.back() == 1;
    WICK_CHECK(leading || one_last, ValueError, op, ": var is of incorrect size");
    if (leading) var = unsqueeze(var, -1);
  }
  WICK_CHECK(reduction == "none" || reduction == "mean" || reduction == "sum", ValueError, op, ": ", reduction,
             " is not valid");
  if (!var.device().is_meta()) {
    WICK_CHECK(!any(lt(var.detach(), num(0.0))).item<bool>(), ValueError, op, ": var has negative entry/entries");
  }
  var = var.clone();
  if (!is_floating(var.dtype()) && !is_complex(var.dtype())) {
    WICK_CHECK(false, RuntimeError, op, ": result type Float can't be cast to the desired output type ",
               cpp_type_name(var.dtype()));
  }
  {
    NoGradGuard no_grad;
    var.clamp_(Scalar(eps));
  }
  Tensor d = sub(input, target);
  Tensor loss = mul(add(log(var), div(mul(d, d), var)), num(0.5));
  if (full) loss = add(loss, num(0.5 * std::log(6.283185307179586)));
  if (reduction == "mean") return mean(loss);
  if (reduction == "sum") return sum(loss);
  return loss;
}

Tensor triplet_margin_impl(const char* op, T anchor, T positive, T negative, double margin, double p, double eps,
                           bool swap) {
  WICK_CHECK(anchor.dim() == positive.dim() && positive.dim() == negative.dim(), RuntimeError, op,
             ": All inputs should have same dimension but got ", anchor.dim(), "D, ", positive.dim(), "D and ",
             negative.dim(), "D inputs.");
  Tensor d_pos = pairwise_distance(anchor, positive, p, eps);
  Tensor d_neg = pairwise_distance(anchor, negative, p, eps);
  if (swap) d_neg = minimum(d_neg, pairwise_distance(positive, negative, p, eps));
  return clamp_min(sub(add(d_pos, num(margin)), d_neg), Scalar(0));
}
Tensor f_triplet_margin_loss(T anchor, T positive, T negative, double margin, double p, double eps, bool swap,
                             std::optional<bool> size_average, std::optional<bool> reduce_arg,
                             std::string_view reduction) {
  const char* op = "torch.nn.functional.triplet_margin_loss";
  const auto red = nnf::resolve_reduction(op, size_average, reduce_arg, reduction);
  return reduce_loss(triplet_margin_impl(op, anchor, positive, negative, margin, p, eps, swap), red);
}
Tensor torch_triplet_margin_loss(T anchor, T positive, T negative, double margin, double p, double eps, bool swap,
                                 std::int64_t reduction) {
  const char* op = "torch.triplet_margin_loss";
  return reduce_loss(triplet_margin_impl(op, anchor, positive, negative, margin, p, eps, swap),
                aten_reduction(reduction));
}

Tensor multilabel_soft_margin_loss_kernel(T input, T target, OptTensor weight, std::optional<bool> size_average,
                                          std::optional<bool> reduce_arg, std::string_view reduction) {
  const char* op = "torch.nn.functional.multilabel_soft_margin_loss";
  const auto red = nnf::resolve_reduction(op, size_average, reduce_arg, reduction);
  check_floating(op, "log_sigmoid_cpu", input.dtype());
  Tensor loss = neg(add(mul(target, nnf::logsigmoid(input)), mul(rsub(target, num(1.0)), nnf::logsigmoid(neg(input)))));
  if (weight) loss = mul(loss, *weight);
  const std::int64_t class_dim = input.dim() - 1;
  const double c = static_cast<double>(input.size(class_dim));
  loss = div(sum(loss, IntArrayRef(class_dim)), num(c));
  return reduce_loss(loss, red);
}

// --- softmin and the channel dropouts --------------------------------------------------------------

Tensor f_softmin(T input, std::optional<std::int64_t> dim, std::int64_t, std::optional<ScalarType> dtype) {
  return softmax(neg(input), softmax_dim("softmin", input, dim), dtype);
}

// A (N, C, 1, ...) mask of kept channels, scaled by 1 / (1 - p); or, for
// alpha dropout, the input's shape or that mask's.
Tensor channel_noise(T input, double p, bool feature) {
  DimVector shape(input.sizes());
  if (feature) {
    for (std::size_t i = 2; i < shape.size(); ++i) shape[i] = 1;
  }
  return lt(rand(IntArrayRef(shape), ScalarType::kFloat64, input.device()), num(1.0 - p)).to(input.dtype());
}

// PyTorch's probability check: a ValueError from torch.nn.functional (Python),
// a RuntimeError from the torch.* ATen functions.
void check_probability(const char* op, double p) {
  const bool ok = p >= 0.0 && p <= 1.0;
  if (std::string_view(op).starts_with("torch.nn.functional.")) {
    WICK_CHECK(ok, ValueError, op, ": dropout probability has to be between 0 and 1, but got ", p);
  }
  WICK_CHECK(ok, RuntimeError, op, ": dropout probability has to be between 0 and 1, but got ", p);
}

Tensor feature_dropout_impl(const char* op, T input, double p, bool train, bool inplace) {
  check_probability(op, p);
  if (p == 0.0 || !train || input.numel() == 0) return input;
  WICK_CHECK(input.dim() >= 2, RuntimeError, op,
             ": Feature dropout requires at least 2 dimensions in the input");
  Tensor noise = p == 1.0 ? zeros({}, input.dtype(), input.device()) : div(channel_noise(input, p, true), num(1.0 - p));
  if (!inplace) return mul(input, noise);
  Tensor self = input;
  return self.mul_(noise);
}

Tensor torch_feature_dropout(T input, double p, bool train) {
  return feature_dropout_impl("torch.feature_dropout", input, p, train, false);
}

// dropout1d/2d/3d: `spatial` dims after the channel, with an optional batch dim.
Tensor channel_dropout(const char* op, int spatial, T input, double p, bool training, bool inplace) {
  check_probability(op, p);
  const std::int64_t d = input.dim();
  if (spatial == 1) {
    WICK_CHECK(d == 2 || d == 3, RuntimeError, op, ": dropout1d: Expected 2D or 3D input, but received a ", d,
               "D input. Note that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
               "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).");
  } else if (d != spatial + 1 && d != spatial + 2) {
    // dropout2d and dropout3d warn of any other rank (PyTorch 1.13's text).
    const std::string name = "dropout" + std::to_string(spatial) + "d";
    logging::warn(op, ": ", name, ": Received a ", d, "-D input to ", name,
                  ", which is deprecated and will result in an error in a future release. To retain the behavior and "
                  "silence this warning, please use dropout instead. Note that ",
                  name, " exists to provide channel-wise dropout on inputs with ", spatial,
                  " spatial dimensions, a channel dimension, and an optional batch dimension (i.e. ", spatial + 1,
                  "D or ", spatial + 2, "D inputs).");
  }
  if (spatial == 2) {
    if (d == 3)
      logging::warn(op,
                    ": dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior "
                    "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior "
                    "will change in a future release to interpret the input as one without a batch dimension, i.e. "
                    "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using "
                    "dropout1d instead.");
    return feature_dropout_impl(op, input, p, training, inplace);
  }
  const bool batched = d == spatial + 2;
  if (batched) return feature_dropout_impl(op, input, p, training, inplace);
  Tensor x = unsqueeze(input, 0);
  Tensor y = feature_dropout_impl(op, x, p, training, inplace);
  if (inplace) return input;
  return squeeze(y, 0);
}

Tensor f_dropout1d(T input, double p, bool training, bool inplace) {
  return channel_dropout("torch.nn.functional.dropout1d", 1, input, p, training, inplace);
}
Tensor f_dropout2d(T input, double p, bool training, bool inplace) {
  return channel_dropout("torch.nn.functional.dropout2d", 2, input, p, training, inplace);
}
Tensor f_dropout3d(T input, double p, bool training, bool inplace) {
  return channel_dropout("torch.nn.functional.dropout3d", 3, input, p, training, inplace);
}

// Alpha dropout (for SELU networks): a dropped element is set to -alpha'
// (SELU's negative saturation value, alpha' = scale * alpha), and a x + b
// then restores zero mean and unit variance, with
// a = ((1 - p) (1 + p alpha'^2))^(-1/2) and b = a alpha' p. With m the 0/1
// mask of kept elements, the result is x (m a) + (m - 1) alpha' a + alpha' a p.
Tensor alpha_dropout_impl(const char* op, T input, double p, bool train, bool inplace, bool feature) {
  check_probability(op, p);
  if (p == 0.0 || !train || input.numel() == 0) return input;
  if (feature)
    WICK_CHECK(input.dim() >= 2, RuntimeError, op, ": Feature dropout requires at least 2 dimensions in the input");
  if (p == 1.0) {
    Tensor zero = zeros({}, input.dtype(), input.device());
    if (!inplace) return mul(input, zero);
    Tensor self = input;
    return self.mul_(zero);
  }
  constexpr double kAlpha = 1.7580993408473766;
  const double a = 1.0 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  Tensor keep = channel_noise(input, p, feature);
  // b = (keep - 1) * alpha * a + alpha * a * p; the input is scaled by keep * a.
  Tensor b = add(mul(sub(keep, num(1.0)), num(kAlpha * a)), num(kAlpha * a * p));
  Tensor scale = mul(keep, num(a));
  if (!inplace) return add(mul(input, scale), b);
  Tensor self = input;
  return self.mul_(scale).add_(b);
}

Tensor torch_alpha_dropout(T input, double p, bool train) {
  return alpha_dropout_impl("torch.alpha_dropout", input, p, train, false, false);
}
Tensor torch_feature_alpha_dropout(T input, double p, bool train) {
  return alpha_dropout_impl("torch.feature_alpha_dropout", input, p, train, false, true);
}
Tensor f_alpha_dropout(T input, double p, bool training, bool inplace) {
  return alpha_dropout_impl("torch.nn.functional.alpha_dropout", input, p, training, inplace, false);
}
Tensor f_feature_alpha_dropout(T input, double p, bool training, bool inplace) {
  return alpha_dropout_impl("torch.nn.functional.feature_alpha_dropout", input, p, training, inplace, true);
}

}  // namespace

Tensor reduce_loss(const Tensor& loss, nn::functional::Reduction reduction) {
  if (reduction == nn::functional::Reduction::kMean) return mean(loss);
  if (reduction == nn::functional::Reduction::kSum) return sum(loss);
  return loss;
}

void register_nn_composite_kernels(std::vector<std::unique_ptr<Library>>& out) {
  constexpr auto kComposite = DispatchKey::kCompositeImplicit;
  auto torch = std::make_unique<Library>("torch", kComposite);
  torch->impl("dropout", &torch_dropout)
      .impl("native_dropout", &native_dropout_kernel)
      .impl("binary_cross_entropy_with_logits", &torch_bce_logits)
      .impl("kl_div", &torch_kl_div)
      .impl("hinge_embedding_loss", &torch_hinge_embedding_loss)
      .impl("margin_ranking_loss", &torch_margin_ranking_loss)
      .impl("cosine_embedding_loss", &torch_cosine_embedding_loss)
      .impl("poisson_nll_loss", &torch_poisson_nll_loss)
      .impl("triplet_margin_loss", &torch_triplet_margin_loss)
      .impl("feature_dropout", &torch_feature_dropout)
      .impl("alpha_dropout", &torch_alpha_dropout)
      .impl("feature_alpha_dropout", &torch_feature_alpha_dropout);
  auto functional = std::make_unique<Library>("torch.nn.functional", kComposite);
  functional->impl("linear", &linear_kernel)
      .impl("softmax", &f_softmax)
      .impl("log_softmax", &f_log_softmax)
      .impl("dropout", &f_dropout)
      .impl("mse_loss", &mse_loss_kernel)
      .impl("l1_loss", &l1_loss_kernel)
      .impl("cross_entropy", &cross_entropy_kernel)
      .impl("binary_cross_entropy", &bce_kernel)
      .impl("binary_cross_entropy_with_logits", &bce_logits_kernel)
      .impl("huber_loss", &huber_loss_kernel)
      .impl("smooth_l1_loss", &smooth_l1_loss_kernel)
      .impl("soft_margin_loss", &soft_margin_loss_kernel)
      .impl("kl_div", &f_kl_div)
      .impl("hinge_embedding_loss", &f_hinge_embedding_loss)
      .impl("margin_ranking_loss", &f_margin_ranking_loss)
      .impl("cosine_embedding_loss", &f_cosine_embedding_loss)
      .impl("poisson_nll_loss", &f_poisson_nll_loss)
      .impl("gaussian_nll_loss", &gaussian_nll_loss_kernel)
      .impl("triplet_margin_loss", &f_triplet_margin_loss)
      .impl("multilabel_soft_margin_loss", &multilabel_soft_margin_loss_kernel)
      .impl("softmin", &f_softmin)
      .impl("dropout1d", &f_dropout1d)
      .impl("dropout2d", &f_dropout2d)
      .impl("dropout3d", &f_dropout3d)
      .impl("alpha_dropout", &f_alpha_dropout)
      .impl("feature_alpha_dropout", &f_feature_alpha_dropout);
  auto special = std::make_unique<Library>("torch.special", kComposite);
  special->impl("softmax", &special_softmax).impl("log_softmax", &special_log_softmax);
  out.push_back(std::move(torch));
  out.push_back(std::move(functional));
  out.push_back(std::move(special));
}

}  // namespace wick
