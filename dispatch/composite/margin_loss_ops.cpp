// dispatch/composite/margin_loss_ops.cpp - margin losses over classes and distances: F.multi_margin_loss,
// F.multilabel_margin_loss and F.triplet_margin_with_distance_loss.
/// \file
/// Each loss is written with the operators PyTorch's CPU loops amount to,
/// so its gradient comes from theirs:
/// - multi_margin_loss: per sample, the mean over classes d != y of
///   max(0, margin - x[y] + x[d])^p (p 1 or 2), each term times weight[y];
/// - multilabel_margin_loss: per sample, the sum over its target classes j
///   (the target row up to its first negative entry) and its other classes
///   i of max(0, 1 - x[j] + x[i]), divided by the number of classes;
/// - triplet_margin_with_distance_loss: max(0, margin + d(a, p) - d(a, n)),
///   d a distance function (a `Callable`, wick/callable.h) or
///   pairwise_distance, with swap taking the smaller of d(a, n) and d(p, n).
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/callable.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

namespace nnf = wick::nn::functional;
using T = const Tensor&;
using OptTensor = const std::optional<Tensor>&;
using I64 = std::int64_t;

Tensor num(double v) { return wrap_scalar(Scalar(v)); }


void check_long_target(T target) {
  WICK_CHECK(target.dtype() == ScalarType::kInt64, RuntimeError, "expected scalar type Long but found ",
             type_title(target.dtype()));
}

void check_loss_dtype(const char* kernel, ScalarType t) {
  if (t != ScalarType::kFloat32 && t != ScalarType::kFloat64) throw_not_implemented_for(kernel, t);
}

// Any entry of `bad` (a bool tensor) set: read on the host, as PyTorch's CPU loops check each target.
// (Nothing to read on the Meta device, where only shapes are computed.)
bool any_set(T bad) { return !bad.device().is_meta() && bad.numel() > 0 && any(bad).item<bool>(); }

Tensor multi_margin_loss_kernel(T input, T target, const Scalar& p_arg, const Scalar& margin_arg, OptTensor weight,
                                std::optional<bool> size_average, std::optional<bool> reduce_arg,
                                std::string_view reduction) {
  const char* op = "torch.nn.functional.multi_margin_loss";
  const double p = p_arg.to<double>();
  WICK_CHECK(p == 1 || p == 2, ValueError, "only p == 1 and p == 2 supported");
  WICK_CHECK(!weight || weight->dim() == 1, ValueError, "weight must be one-dimensional");
  const nnf::Reduction red = nnf::resolve_reduction(op, size_average, reduce_arg, reduction);
  const I64 dims = input.dim();
  WICK_CHECK((input.numel() > 0 && dims <= 2) || (dims == 2 && input.sizes()[1] > 0), RuntimeError,
             "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ", format_shape(input.sizes()));
  const I64 frames = dims <= 1 ? 1 : input.sizes()[0];
  const I64 classes = dims == 0 ? 1 : dims == 1 ? input.sizes()[0] : input.sizes()[1];
  WICK_CHECK(target.dim() <= 1 && target.numel() == frames, RuntimeError, "inconsistent target size, got: ",
             format_shape(target.sizes()));
  if (weight)
    WICK_CHECK(weight->numel() == classes, RuntimeError, "inconsistent weight size, expected ", classes, " but got ",
               format_shape(weight->sizes()));
  check_long_target(target);
  check_loss_dtype("multi_margin_loss_cpu_kernel", input.dtype());
  const I64 rows[] = {frames, classes};
  const Tensor x = input.reshape(IntArrayRef(rows, 2));
  const Tensor y = target.reshape(IntArrayRef(&frames, 1));
  WICK_CHECK(!any_set(logical_or(lt(y, Scalar(0)), ge(y, Scalar(classes)))), RuntimeError, "target out of range");
  const Tensor column = y.unsqueeze(1);
  Tensor z = clamp_min(add(sub(num(margin_arg.to<double>()), gather(x, 1, column)), x), Scalar(0));
  if (p == 2) z = mul(z, z);
  if (weight) z = mul(z, index_select(*weight, 0, y).unsqueeze(1));
  const Tensor own = eq(arange(Scalar(0), Scalar(classes), Scalar(1), ScalarType::kInt64, x.device()).unsqueeze(0),
                        column);
  Tensor per = div(sum(masked_fill(z, own, Scalar(0)), IntArrayRef(std::vector<I64>{1})), num(static_cast<double>(classes)));
  if (red == nnf::Reduction::kNone && dims <= 1) per = per.reshape(IntArrayRef());
  return reduce_loss(per, red);
}

Tensor multilabel_margin_loss_kernel(T input, T target, std::optional<bool> size_average,
                                     std::optional<bool> reduce_arg, std::string_view reduction) {
  const char* op = "torch.nn.functional.multilabel_margin_loss";
  const nnf::Reduction red = nnf::resolve_reduction(op, size_average, reduce_arg, reduction);
  const I64 dims = input.dim();
  WICK_CHECK((dims == 2 && input.sizes()[1] != 0) || (dims == 1 && input.sizes()[0] != 0) || dims == 0, RuntimeError,
             "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ", format_shape(input.sizes()));
  const I64 frames = dims <= 1 ? 1 : input.sizes()[0];
  const I64 classes = dims == 0 ? 1 : dims == 1 ? input.sizes()[0] : input.sizes()[1];
  const bool shape_ok = dims <= 1 ? target.dim() <= 1 && target.numel() == classes
                                  : target.dim() == 2 && target.sizes()[0] == frames && target.sizes()[1] == classes;
  WICK_CHECK(shape_ok, RuntimeError, "inconsistent size ", format_shape(target.sizes()), " for argument #2 'target'");
  check_long_target(target);
  check_loss_dtype("multilabel_margin_loss_forward_out_frame", input.dtype());
  const I64 rows[] = {frames, classes};
  const Tensor x = input.reshape(IntArrayRef(rows, 2));
  const Tensor t = target.reshape(IntArrayRef(rows, 2));
  // The targets of a row: its entries before the first negative one.
  const Tensor listed = cumprod(ge(t, Scalar(0)).to(ScalarType::kInt64), 1).to(ScalarType::kBool);
  WICK_CHECK(!any_set(logical_or(lt(t, Scalar(-1)), ge(t, Scalar(classes)))), RuntimeError,
             "argument #2 'target' is out of range");
  const Tensor index = masked_fill(t, logical_not(listed), Scalar(0));
  const Tensor is_target =
      gt(scatter_add(zeros(IntArrayRef(rows, 2), ScalarType::kInt64, x.device()), 1, index, listed.to(ScalarType::kInt64)),
         Scalar(0));
  // z[n, j, i] = max(0, 1 - x[n, t[n, j]] + x[n, i]) for listed j and non-target i.
  const Tensor z = clamp_min(add(sub(num(1.0), gather(x, 1, index).unsqueeze(2)), x.unsqueeze(1)), Scalar(0));
  const Tensor counted = logical_and(listed.unsqueeze(2), logical_not(is_target).unsqueeze(1));
  const std::vector<I64> inner{1, 2};
  Tensor per = div(sum(masked_fill(z, logical_not(counted), Scalar(0)), IntArrayRef(inner)),
                   num(static_cast<double>(classes)));
  if (red == nnf::Reduction::kNone && dims <= 1) per = per.reshape(IntArrayRef());
  return reduce_loss(per, red);
}

Tensor triplet_margin_with_distance_loss_kernel(T anchor, T positive, T negative, const Value& distance_function,
                                                double margin, bool swap, std::string_view reduction) {
  WICK_CHECK(reduction == "mean" || reduction == "sum" || reduction == "none", ValueError, reduction,
             " is not a valid value for reduction");
  WICK_CHECK(margin > 0, ValueError, "TripletMarginWithDistanceLoss: expected margin to be greater than 0, got ",
             Scalar(margin).repr(), " instead");
  WICK_CHECK(anchor.dim() == positive.dim() && positive.dim() == negative.dim(), RuntimeError,
             "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but "
             "got: anchor ",
             anchor.dim(), "D, positive ", positive.dim(), "D, and negative ", negative.dim(), "D inputs");
  const Callable* fn = as_callable(distance_function);
  WICK_CHECK(fn != nullptr || distance_function.is_none(), TypeError,
             "triplet_margin_with_distance_loss(): distance_function must be None or a callable (wick::Callable), "
             "not ", distance_function.type_name());
  const auto distance = [&](T a, T b) -> Tensor {
    if (fn == nullptr) return pairwise_distance(a, b);
    const Value d = (*fn)({Value(a), Value(b)});
    WICK_CHECK(d.is_tensor(), TypeError, "triplet_margin_with_distance_loss(): distance_function must return a "
               "Tensor, not ", d.type_name());
    return d.to_tensor();
  };
  const Tensor d_pos = distance(anchor, positive);
  Tensor d_neg = distance(anchor, negative);
  if (swap) d_neg = minimum(d_neg, distance(positive, negative));
  const Tensor loss = clamp_min(sub(add(num(margin), d_pos), d_neg), Scalar(0));
  if (reduction == "sum") return sum(loss);
  if (reduction == "mean") return mean(loss);
  return loss;
}

}  // namespace

void register_margin_loss_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto functional = std::make_unique<Library>("torch.nn.functional", DispatchKey::kCompositeImplicit);
  functional->impl("multi_margin_loss", &multi_margin_loss_kernel)
      .impl("multilabel_margin_loss", &multilabel_margin_loss_kernel)
      .impl("triplet_margin_with_distance_loss", &triplet_margin_with_distance_loss_kernel);
  out.push_back(std::move(functional));
}

}  // namespace wick
