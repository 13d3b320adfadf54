// dispatch/norm_composite_ops.cpp - CompositeImplicit kernels: batch/group norm, embedding, pad, linalg norms.
/// \file
/// Each is written with differentiable operators, so its gradients (both
/// modes, and double backward) come from the operators it calls:
/// - torch.layer_norm calls F.layer_norm (its own kernel and formula);
///   group_norm and batch_norm are the first results of
///   torch.native_group_norm and torch.native_batch_norm (their own kernels
///   and formulas), after the checks of PyTorch's Python functions.
/// - embedding is index_select of the weight's rows; the padding_idx row is
///   taken from the detached weight, so it gets no gradient.
/// - pad crops negative pads with narrow and adds constant blocks with cat;
///   'reflect', 'replicate' and 'circular' gather along each padded dim with
///   index_select.
/// - linalg.vector_norm is torch.norm over the dims; matrix_norm's 1 / inf
///   orders are the max absolute column / row sum (amax of sums), its 2 / -2
///   and 'nuc' orders the largest, smallest and sum of the singular values
///   (linalg.svdvals, of the input with the two dims moved to the end).
#include <cmath>
#include <limits>
#include <memory>
#include <tuple>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/autograd.h"
#include "wick/checked.h"
#include "wick/forward_ad.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

namespace nnf = wick::nn::functional;
using T = const Tensor&;
using OptTensor = const std::optional<Tensor>&;
using I64 = std::int64_t;

// --- layer_norm / group_norm / batch_norm ------------------------------------------------------------

Tensor torch_layer_norm(T input, IntArrayRef normalized_shape, OptTensor weight, OptTensor bias, double eps, bool) {
  return nnf::layer_norm(input, normalized_shape, weight, bias, eps);
}

Tensor group_norm_impl(const char* op, T input, std::int64_t groups, OptTensor weight, OptTensor bias, double eps) {
  WICK_CHECK(input.dim() >= 2, RuntimeError, op, ": Expected at least 2 dimensions for input tensor but received ",
             input.dim());
  const std::int64_t n = input.sizes()[0];
  const std::int64_t c = input.sizes()[1];
  WICK_CHECK(groups > 0 && c % groups == 0, RuntimeError, op,
             ": Expected number of channels in input to be divisible by num_groups, but got input of shape ",
             format_shape(input.sizes()), " and num_groups=", groups);
  for (const auto* t : {&weight, &bias}) {
    WICK_CHECK(!*t || ((*t)->dim() == 1 && (*t)->numel() == c), RuntimeError, op, ": Expected ",
               t == &weight ? "weight" : "bias", " to be a vector of size equal to the number of channels in input, ",
               "but got ", t == &weight ? "weight" : "bias", " of shape ", format_shape((*t)->sizes()),
               " and input of shape ", format_shape(input.sizes()));
  }
  const IntArrayRef sizes = input.sizes();
  const std::int64_t hxw = checked_numel(IntArrayRef(sizes.data() + 2, sizes.size() - 2));
  return std::get<0>(native_group_norm(input, weight, bias, n, c, hxw, groups, eps));
}

Tensor f_group_norm(T input, std::int64_t groups, OptTensor weight, OptTensor bias, double eps) {
  return group_norm_impl("torch.nn.functional.group_norm", input, groups, weight, bias, eps);
}
Tensor torch_group_norm(T input, std::int64_t groups, OptTensor weight, OptTensor bias, double eps, bool) {
  return group_norm_impl("torch.group_norm", input, groups, weight, bias, eps);
}

// F.batch_norm and torch.batch_norm: torch.native_batch_norm's output. F.
// checks first, as PyTorch's Python function does: a 2-D or larger input,
// and more than one value per channel in training. An empty input gives
// an empty output that stays connected to weight and bias (x * weight[0] +
// bias[0]), with the running statistics untouched, as in PyTorch.
Tensor batch_norm_impl(const char* op, bool functional, T input, OptTensor running_mean, OptTensor running_var,
                       OptTensor weight, OptTensor bias, bool training, double momentum, double eps) {
  if (functional) {
    WICK_CHECK(input.dim() >= 2, ValueError, op, ": expected 2D or higher input (got ", input.dim(), "D input)");
    const std::int64_t c = input.sizes()[1];
    WICK_CHECK(!training || input.numel() != c, ValueError, op,
               ": Expected more than 1 value per channel when training, got input size torch.Size(",
               format_shape(input.sizes()), ")");
  }
  if (input.numel() == 0) {
    Tensor y = clone(input);
    const auto first = [](T t) { return reshape(t, {-1}).select(0, 0); };
    if (weight && weight->numel() > 0) y = mul(y, first(*weight));
    if (bias && bias->numel() > 0) y = add(y, first(*bias));
    return y;
  }
  return std::get<0>(native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps));
}

Tensor f_batch_norm(T input, OptTensor running_mean, OptTensor running_var, OptTensor weight, OptTensor bias,
                    bool training, double momentum, double eps) {
  return batch_norm_impl("torch.nn.functional.batch_norm", true, input, running_mean, running_var, weight, bias,
                         training, momentum, eps);
}
Tensor torch_batch_norm(T input, OptTensor weight, OptTensor bias, OptTensor running_mean, OptTensor running_var,
                        bool training, double momentum, double eps, bool) {
  return batch_norm_impl("torch.batch_norm", false, input, running_mean, running_var, weight, bias, training, momentum,
                         eps);
}

// torch.batch_norm_update_stats: the per-channel statistics, and the running ones
// updated in place (outside the graph), as native_batch_norm's training does.
// PyTorch's CPU kernel has float32, float64 and bfloat16 (with float32 or
// bfloat16 statistics); its checks and messages, in its order.
std::tuple<Tensor, Tensor> batch_norm_update_stats_kernel(T input, OptTensor running_mean, OptTensor running_var,
                                                          double momentum) {
  const char* op = "torch.batch_norm_update_stats";
  const I64 channels = input.size(1);  // IndexError for an input of under 2 dims, as PyTorch's
  const ScalarType t = input.dtype();
  WICK_CHECK(t == ScalarType::kFloat32 || t == ScalarType::kFloat64 || t == ScalarType::kBFloat16, RuntimeError, op,
             ": \"batch_norm_update_stats_cpu\" not implemented for '", type_title(t), "'");
  const Tensor* stats = running_mean ? &*running_mean : running_var ? &*running_var : nullptr;
  ScalarType result = t;
  if (stats != nullptr && stats->dtype() != t) {
    WICK_CHECK(stats->dtype() != ScalarType::kFloat32 || t == ScalarType::kBFloat16, RuntimeError, op,
               ": mixed dtype (CPU): expect input to have scalar type of BFloat16");
    WICK_CHECK(stats->dtype() == ScalarType::kFloat32, RuntimeError, op,
               ": mixed dtype (CPU): expect parameter to have scalar type of ", type_title(t));
    result = ScalarType::kFloat32;
  }
  if (running_mean && running_var)
    WICK_CHECK(running_mean->dtype() == running_var->dtype(), RuntimeError, op, ": expected scalar type ",
               type_title(running_mean->dtype()), " but found ", type_title(running_var->dtype()));
  for (const Tensor* s : {running_mean ? &*running_mean : nullptr, running_var ? &*running_var : nullptr}) {
    if (s != nullptr)
      WICK_CHECK(s->numel() == channels, RuntimeError, op, ": expected ",
                 s == &*running_mean ? "running_mean" : "running_var", " to have ", channels,
                 " elements (one per channel), but it has ", s->numel());
  }
  DimVector dims;
  for (I64 d = 0; d < input.dim(); ++d) {
    if (d != 1) dims.push_back(d);
  }
  const Tensor x = input.to(result);
  const Tensor mean = x.mean(IntArrayRef(dims));
  const Tensor var = x.var(IntArrayRef(dims), /*unbiased=*/false);
  const NoGradGuard no_grad;
  const I64 n = input.numel() / std::max<I64>(channels, 1);
  if (running_mean) {
    Tensor r = *running_mean;
    r.mul_(1.0 - momentum).add_(mean.to(r.dtype()), momentum);
  }
  if (running_var) {
    Tensor r = *running_var;
    const Tensor unbiased = var.mul(static_cast<double>(n)).div(static_cast<double>(n - 1));
    r.mul_(1.0 - momentum).add_(unbiased.to(r.dtype()), momentum);
  }
  return {mean, var};
}

// --- embedding ---------------------------------------------------------------------------------------

}  // namespace

// F.embedding(max_norm=): each row of `weight` that `input` picks and whose
// norm exceeds max_norm is scaled in place, outside the graph, by max_norm /
// (norm + 1e-7), as PyTorch's embedding_renorm_ (the scale in float64, the
// product in the weight's dtype).
void renormalise_rows(const Tensor& weight, const Tensor& input, double max_norm, double norm_type) {
  NoGradGuard no_grad;
  const std::int64_t rows = weight.sizes()[0];
  const Tensor picked =
      gt(scatter(zeros({rows}, ScalarType::kFloat32, weight.device()), 0, reshape(input, {-1}), Scalar(1.0)),
         wrap_scalar(Scalar(0.0)));
  const Tensor norms = norm(weight, Scalar(norm_type), IntArrayRef(std::int64_t{1})).to(ScalarType::kFloat64);
  const Tensor scale = div(wrap_scalar(Scalar(max_norm)), add(norms, wrap_scalar(Scalar(1e-7))));
  const Tensor shrink = logical_and(picked, gt(norms, wrap_scalar(Scalar(max_norm))));
  Tensor w = weight;
  w.mul_(reshape(where(shrink, scale, wrap_scalar(Scalar(1.0))).to(weight.dtype()), {rows, 1}));
}

namespace {

Tensor embedding_impl(const char* op, T input, T weight, std::optional<std::int64_t> padding_idx,
                      std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq, bool sparse) {
  WICK_CHECK(weight.dim() == 2, RuntimeError, op, ": 'weight' must be 2-D");
  WICK_CHECK(input.dtype() == ScalarType::kInt64 || input.dtype() == ScalarType::kInt32, RuntimeError, op,
             ": Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but "
             "got torch.",
             type_title(input.dtype()), "Tensor instead (while checking arguments for embedding)");
  WICK_CHECK(!scale_grad_by_freq && !sparse, NotImplementedError, op,
             ": scale_grad_by_freq and sparse gradients are not supported");
  const std::int64_t rows = weight.sizes()[0];
  if (max_norm) renormalise_rows(weight, input, *max_norm, norm_type);
  Tensor w = weight;
  if (padding_idx) {
    std::int64_t p = *padding_idx;
    WICK_CHECK(p < rows && p >= -rows, ValueError, op, ": Padding_idx must be within num_embeddings");
    if (p < 0) p += rows;
    if (weight.requires_grad() || autograd::forward_ad::tangent_of(weight).defined()) {
      Tensor keep =
          ne(reshape(arange(0, rows, 1, ScalarType::kInt64, weight.device()), {rows, 1}), wrap_scalar(Scalar(p)));
      w = where(keep, weight, weight.detach());
    }
  }
  DimVector shape(input.sizes());
  shape.push_back(weight.sizes()[1]);
  return reshape(index_select(w, 0, reshape(input, {-1})), shape);
}

Tensor embedding_kernel(T input, T weight, std::optional<std::int64_t> padding_idx, std::optional<double> max_norm,
                        double norm_type, bool scale_grad_by_freq, bool sparse) {
  return embedding_impl("torch.nn.functional.embedding", input, weight, padding_idx, max_norm, norm_type,
                        scale_grad_by_freq, sparse);
}

// torch.embedding: weight first; a negative padding_idx is none.
Tensor torch_embedding(T weight, T indices, std::int64_t padding_idx, bool scale_grad_by_freq, bool sparse) {
  return embedding_impl("torch.embedding", indices, weight,
                        padding_idx >= 0 ? std::optional<std::int64_t>(padding_idx) : std::nullopt, std::nullopt, 2.0,
                        scale_grad_by_freq, sparse);
}

// --- pad -----------------------------------------------------------------------------------------------

Tensor constant_pad(const char* op, T input, IntArrayRef pad, const Scalar& value) {
  WICK_CHECK(pad.size() % 2 == 0, RuntimeError, op, ": Padding length must be divisible by 2");
  WICK_CHECK(static_cast<std::int64_t>(pad.size() / 2) <= input.dim(), RuntimeError, op, ": Padding length too large");
  Tensor x = input;
  for (std::size_t i = 0; i < pad.size() / 2; ++i) {
    const std::int64_t d = input.dim() - 1 - static_cast<std::int64_t>(i);
    const std::int64_t before = pad[2 * i];
    const std::int64_t after = pad[2 * i + 1];
    const std::int64_t size = x.sizes()[d];
    const std::int64_t padded = checked_add(checked_add(size, before, op), after, op);
    // A negative padding removes at most the whole size, whatever the other
    // side adds back (and -INT64_MIN would overflow below).
    WICK_CHECK(padded >= 0 && before >= -size && after >= -size, RuntimeError, op, ": The input size ", size,
               ", plus negative padding ", before, " and ", after,
               " resulted in a negative output size, which is invalid. Check dimension ", d, " of your input.");
    if (before < 0) x = narrow(x, d, -before, x.sizes()[d] + before);
    if (after < 0) x = narrow(x, d, 0, x.sizes()[d] + after);
    std::vector<Tensor> parts;
    DimVector block(x.sizes());
    if (before > 0) {
      block[static_cast<std::size_t>(d)] = before;
      parts.push_back(full(block, value, input.dtype(), input.device()));
    }
    parts.push_back(x);
    if (after > 0) {
      block[static_cast<std::size_t>(d)] = after;
      parts.push_back(full(block, value, input.dtype(), input.device()));
    }
    if (parts.size() > 1) x = cat(parts, d);
  }
  return x.is_same(input) ? input.clone() : x;
}

// The source index of each output position along a dim of `size` padded by
// (before, after): mirrored without repeating the edge, or clamped to it.
Tensor pad_indices(const char* op, std::int64_t size, std::int64_t before, std::int64_t after, bool reflect,
                   Device device) {
  Tensor j = arange(checked_sub(0, before, op), checked_add(size, after, op), 1, ScalarType::kInt64, device);
  if (!reflect) return clamp(j, Scalar(std::int64_t{0}), Scalar(size - 1));
  j = abs(j);
  return where(ge(j, wrap_scalar(Scalar(size))), sub(wrap_scalar(Scalar(checked_mul(2, size - 1, op))), j), j);
}

// 'circular' along dim d: x cropped by the negative pads, wrapped around by
// the positive ones (each at most the dim's size), as PyTorch's _pad_circular.
Tensor circular_pad_dim(const char* op, T x, std::int64_t d, std::int64_t before, std::int64_t after) {
  const std::int64_t size = x.sizes()[d];
  WICK_CHECK(before <= size && after <= size, RuntimeError, op,
             ": Padding value causes wrapping around more than once.");
  const std::int64_t lo = std::max<std::int64_t>(-before, 0);
  const std::int64_t kept = size - lo - std::max<std::int64_t>(-after, 0);
  const std::int64_t grow = std::max<std::int64_t>(before, 0) + std::max<std::int64_t>(after, 0);
  const std::int64_t out = checked_add(kept, grow, op);
  WICK_CHECK(out >= 0, RuntimeError, op, ": Negative padding value is resulting in an empty dimension");
  if (out == 0) return narrow(x, d, 0, 0);
  // PyTorch wraps around nothing here and returns uninitialised memory.
  WICK_CHECK(kept > 0, RuntimeError, op, ": the negative padding (", before, ", ", after,
             ") leaves nothing of dimension ", d, " to wrap around");
  // Output position j (from -before) reads the kept part at j mod kept.
  const Tensor j = arange(-std::max<std::int64_t>(before, 0), kept + std::max<std::int64_t>(after, 0), 1,
                          ScalarType::kInt64, x.device());
  return index_select(x, d, add(remainder(j, wrap_scalar(Scalar(kept))), wrap_scalar(Scalar(lo))));
}

Tensor pad_kernel(T input, IntArrayRef pad, std::string_view mode, std::optional<double> value) {
  const char* op = "torch.nn.functional.pad";
  if (mode == "constant") return constant_pad(op, input, pad, Scalar(value.value_or(0.0)));
  const bool reflect = mode == "reflect";
  WICK_CHECK(reflect || mode == "replicate" || mode == "circular", NotImplementedError, op,
             ": Unrecognised padding mode ", mode);
  WICK_CHECK(!value || *value == 0.0, RuntimeError, op, ": Padding mode \"", mode, "\" doesn't take in value argument");
  WICK_CHECK(pad.size() % 2 == 0, RuntimeError, op, ": Padding length must be divisible by 2");
  const bool circular = mode == "circular";
  const auto dims = static_cast<std::int64_t>(pad.size() / 2);
  if (circular) {
    WICK_CHECK(input.dim() >= 2 && checked_mul(2, input.dim() - 2, op) == static_cast<std::int64_t>(pad.size()),
               RuntimeError, op, ": Invalid padding size, expected ", input.dim() >= 2 ? 2 * (input.dim() - 2) : 0,
               " but got ", pad.size());
  } else {
    WICK_CHECK(dims >= 1 && dims <= 3 && (input.dim() == dims + 1 || input.dim() == dims + 2), NotImplementedError, op,
               ": Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
  }
  Tensor x = input;
  for (std::int64_t i = 0; i < dims; ++i) {
    const std::int64_t d = input.dim() - 1 - i;
    const std::int64_t before = pad[static_cast<std::size_t>(2 * i)];
    const std::int64_t after = pad[static_cast<std::size_t>(2 * i + 1)];
    const std::int64_t size = x.sizes()[d];
    if (circular) {
      x = circular_pad_dim(op, x, d, before, after);
      continue;
    }
    if (reflect) {
      WICK_CHECK(before < size && after < size, RuntimeError, op,
                 ": Argument #4: Padding size should be less than the corresponding input dimension, but got: "
                 "padding (",
                 before, ", ", after, ") at dimension ", d, " of input ", format_shape(input.sizes()));
    } else {
      WICK_CHECK(size > 0, RuntimeError, op, ": input tensor must have a non-empty dimension ", d, " to replicate");
    }
    WICK_CHECK(checked_add(checked_add(size, before, op), after, op) > 0, RuntimeError, op, ": input (",
               format_shape(input.sizes()), ") is too small for the padding: the output would be empty at dimension ",
               d);
    x = index_select(x, d, pad_indices(op, size, before, after, reflect, input.device()));
  }
  return x;
}

Tensor constant_pad_nd_kernel(T input, IntArrayRef pad, const Scalar& value) {
  return constant_pad("torch.constant_pad_nd", input, pad, value);
}

// --- torch.linalg norms -------------------------------------------------------------------------------------

// The input of a linalg norm: floating or complex, converted to `dtype`
// when given (complex to complex only, never narrowing).
Tensor norm_input(const char* op, T input, std::optional<ScalarType> dtype) {
  const ScalarType t = input.dtype();
  const std::string_view name = std::string_view(op).substr(6);  // "linalg.vector_norm"
  WICK_CHECK(is_floating(t) || is_complex(t), RuntimeError, op, ": ", name,
             ": Expected a floating point or complex tensor as input. Got ", type_title(t));
  if (!dtype || *dtype == t) return input;
  WICK_CHECK(!is_complex(t) || is_complex(*dtype), RuntimeError, op, ": ", name,
             ": dtype should be complex for complex inputs, but got ", type_title(*dtype));
  const bool narrowing = (t == ScalarType::kFloat64 && *dtype == ScalarType::kFloat32) ||
                         (t == ScalarType::kComplex128 && *dtype == ScalarType::kComplex64);
  WICK_CHECK((is_complex(t) || is_floating(*dtype)) && !narrowing, RuntimeError, op, ": the dtype of the input (",
             type_title(t), ") should be convertible without narrowing to the specified dtype (", type_title(*dtype),
             ")");
  return input.to(*dtype);
}

Tensor vector_norm(T input, const Scalar& ord, std::optional<IntArrayRef> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  const char* op = "torch.linalg.vector_norm";
  Tensor x = norm_input(op, input, dtype);
  // dim=None (or []) reduces every dim; norm's empty list means the same.
  DimVector dims;
  if (dim) dims.assign(*dim);
  // The max and min of nothing have no value (torch.norm, older, gives 0).
  if (const double p = ord.to<double>(); std::isinf(p)) {
    const char* name = p > 0 ? "inf" : "-inf";
    WICK_CHECK(!dims.empty() || x.numel() != 0, RuntimeError, op, ": linalg.vector_norm cannot compute the ", name,
               " norm on an empty tensor because the operation does not have an identity");
    for (const std::int64_t d : dims) {
      // PyTorch 1.13's text, its missing space included.
      WICK_CHECK(x.size(wrap_dim(d, x.dim())) != 0, RuntimeError, op, ": linalg.vector_norm cannot compute the ", name,
                 " norm on the dimension ", d, "because this dimension is empty and the operation does not have an ",
                 "identity");
    }
  }
  if (dims.empty() && keepdim) {
    for (std::int64_t i = 0; i < x.dim(); ++i) dims.push_back(i);
  }
  return norm(x, std::optional<Scalar>(ord), IntArrayRef(dims), keepdim);
}

Tensor nuclear_norm_dim(T input, IntArrayRef dim, bool keepdim);
Tensor nuclear_norm_kernel(T input, bool keepdim);

// torch.norm as PyTorch 1.13's Python function routes its arguments: 'fro'
// is the 2-norm over at most two dims (every dim when dim is None) and
// takes no dtype; a number (None: 2) is that p-norm over `dim`, in `dtype`
// when given; both end in norm.ScalarOpt_dim.
Tensor torch_norm(T self, const Value& p, std::optional<IntArrayRef> dim, bool keepdim,
                  std::optional<ScalarType> dtype) {
  const char* op = "torch.norm";
  DimVector dims;  // [] reduces every dim
  if (dim) dims.assign(*dim);
  if (p.is_string()) {
    const std::string s(p.to_string());
    if (s == "fro") {
      WICK_CHECK(!dtype, ValueError, "dtype argument is not supported in frobenius norm");
      WICK_CHECK(dims.size() <= 2, RuntimeError, op, ": Expected at most 2 dimensions, but got ", dims.size(),
                 " dimensions instead.");
      return norm(self, std::optional<Scalar>(2.0), IntArrayRef(dims), keepdim);
    }
    if (s == "nuc") {
      WICK_CHECK(!dtype, ValueError, "dtype argument is not supported in nuclear norm");
      return dim ? nuclear_norm_dim(self, *dim, keepdim) : nuclear_norm_kernel(self, keepdim);
    }
    throw RuntimeError(detail::str_cat(op, ": only valid string values are 'fro' and 'nuc', found ", s));
  }
  WICK_CHECK(p.is_none() || p.is_number(), TypeError, "norm(): argument 'p' must be str or Number, not ",
             p.type_name());
  const Scalar pv = p.is_none() ? Scalar(2.0) : p.to_scalar();
  if (!dtype) return norm(self, std::optional<Scalar>(pv), IntArrayRef(dims), keepdim);
  // With a dtype, the input is converted first: integers and bools are norms too.
  WICK_CHECK(is_floating(*dtype) || is_complex(*dtype), RuntimeError, op,
             ": norm(): the desired output dtype should be either floating point or complex. Got ", type_title(*dtype),
             " instead.");
  return norm(self.to(*dtype), std::optional<Scalar>(pv), IntArrayRef(dims), keepdim);
}

// The permutation that moves dims d0 and d1 to the end, in that order.
DimVector backshift(std::int64_t d0, std::int64_t d1, std::int64_t rank) {
  DimVector perm;
  for (std::int64_t d = 0; d < rank; ++d) {
    if (d != d0 && d != d1) perm.push_back(d);
  }
  perm.push_back(d0);
  perm.push_back(d1);
  return perm;
}

// r reduced over the last dim of the backshifted input, with keepdim: its
// two kept dims go back where they were.
Tensor restore_dims(const Tensor& r, const DimVector& perm) {
  return permute(r.unsqueeze(-1), inverse_permutation(perm));
}

// The norms read off the singular values of the matrices over dims d0 and
// d1: their sum ('nuc'), largest (2) or smallest (-2).
Tensor singular_value_norm(T a, std::int64_t d0, std::int64_t d1, double p, bool nuclear, bool keepdim) {
  const DimVector perm = backshift(d0, d1, a.dim());
  const Tensor s = linalg::svdvals(permute(a, perm));
  const std::int64_t last[] = {-1};
  Tensor r = nuclear ? sum(s, IntArrayRef(last), keepdim)
                     : (p > 0 ? amax(s, IntArrayRef(last), keepdim) : amin(s, IntArrayRef(last), keepdim));
  return keepdim ? restore_dims(r, perm) : r;
}

Tensor matrix_norm(T input, const Value& ord, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  const char* op = "torch.linalg.matrix_norm";
  WICK_CHECK(input.dim() >= 2, RuntimeError, op, ": The input tensor A must have at least 2 dimensions.");
  WICK_CHECK(dim.size() == 2, RuntimeError, op, ": dim must be a 2-tuple. Got ", format_shape(dim));
  const std::int64_t d0 = wrap_dim(dim[0], input.dim());
  const std::int64_t d1 = wrap_dim(dim[1], input.dim());
  WICK_CHECK(d0 != d1, RuntimeError, op, ": dims must be different. Got (", dim[0], ", ", dim[1], ")");
  // The orders that need an SVD take no 16-bit floats (after the check for
  // a floating input, as PyTorch's).
  const auto check_svd_dtype = [&] {
    const ScalarType t = input.dtype();
    WICK_CHECK(!is_floating(t) || (t != ScalarType::kFloat16 && t != ScalarType::kBFloat16), RuntimeError, op,
               ": linalg.matrix_norm: Low precision dtypes not supported. Got ", type_title(t));
  };
  const std::int64_t dims[] = {d0, d1};
  if (ord.is_string()) {
    const std::string s(ord.to_string());
    WICK_CHECK(s == "fro" || s == "nuc", RuntimeError, op, ": Order ", s, " not supported.");
    if (s == "fro") {
      return vector_norm(norm_input(op, input, dtype), Scalar(2.0), IntArrayRef(dims, 2), keepdim, std::nullopt);
    }
    check_svd_dtype();
    return singular_value_norm(norm_input(op, input, dtype), d0, d1, 0.0, true, keepdim);
  }
  const double p = ord.to_double();
  WICK_CHECK(std::abs(p) == 2.0 || std::abs(p) == 1.0 || std::isinf(p), RuntimeError, op, ": Order ", p,
             " not supported.");
  if (std::abs(p) == 2.0) {
    check_svd_dtype();
    return singular_value_norm(norm_input(op, input, dtype), d0, d1, p, false, keepdim);
  }
  Tensor a = abs(norm_input(op, input, dtype));
  // ord 1 / -1: max / min over columns (d1) of the sums down each column (d0);
  // ord inf / -inf: the same with the roles of the dims swapped.
  const std::int64_t sum_dim = std::isinf(p) ? d1 : d0;
  const std::int64_t pick_dim = std::isinf(p) ? d0 : d1;
  Tensor sums = sum(a, IntArrayRef(sum_dim), true);
  Tensor r = p > 0 ? amax(sums, IntArrayRef(pick_dim), true) : amin(sums, IntArrayRef(pick_dim), true);
  if (keepdim) return r;
  return reshape(r, [&] {
    DimVector s;
    for (std::int64_t i = 0; i < input.dim(); ++i) {
      if (i != dims[0] && i != dims[1]) s.push_back(input.sizes()[i]);
    }
    return s;
  }());
}

// torch.linalg.norm: a matrix norm for a string ord, or for a numeric ord
// over two dims (no dims: a matrix input); otherwise the vector norm, whose
// ord None is 2, over `dim` (None: every element).
Tensor linalg_norm(T input, const Value& ord, std::optional<IntArrayRef> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  const char* op = "torch.linalg.norm";
  WICK_CHECK(ord.is_none() || ord.is_string() || ord.is_number(), TypeError, op,
             ": argument 'ord' must be str or Number, not ", ord.type_name());
  if (dim) {
    WICK_CHECK(dim->size() == 1 || dim->size() == 2, RuntimeError, op,
               ": linalg.norm: If dim is specified, it must be of length 1 or 2. Got ", format_shape(*dim));
  } else if (!ord.is_none()) {
    WICK_CHECK(input.dim() == 1 || input.dim() == 2, RuntimeError, op,
               ": linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got ", input.dim(),
               "D.");
  }
  const bool matrix = ord.is_string() || (!ord.is_none() && (dim ? dim->size() == 2 : input.dim() == 2));
  if (matrix) {
    const std::int64_t both[] = {0, 1};
    return matrix_norm(input, ord, dim ? *dim : IntArrayRef(both, 2), keepdim, dtype);
  }
  return vector_norm(input, ord.is_none() ? Scalar(2.0) : ord.to_scalar(), dim, keepdim, dtype);
}

// The sum of the singular values over two dims (of a matrix, without dims).
Tensor nuclear_norm_dim(T input, IntArrayRef dim, bool keepdim) {
  WICK_CHECK(dim.size() == 2, RuntimeError, "torch.nuclear_norm: nuclear norm requires a 'dim' argument of size 2");
  const std::int64_t d0 = wrap_dim(dim[0], input.dim());
  const std::int64_t d1 = wrap_dim(dim[1], input.dim());
  WICK_CHECK(d0 != d1, RuntimeError, "torch.nuclear_norm: duplicate or invalid dimensions");
  // PyTorch writes the norm into a tensor of the input's real dtype: under
  // autocast, where svdvals runs in float32, a bfloat16 input keeps its dtype.
  const Tensor r = singular_value_norm(input, d0, d1, 0.0, true, keepdim);
  const ScalarType t = to_real_dtype(input.dtype());
  return r.dtype() == t ? r : r.to(t);
}

Tensor nuclear_norm_kernel(T input, bool keepdim) {
  const std::int64_t rank = input.dim();
  WICK_CHECK(rank == 2, RuntimeError, "torch.nuclear_norm: Expected a tensor with 2 dimensions, but got a tensor with ",
             rank, rank == 1 ? " dimension" : " dimensions", " instead.");
  const std::int64_t both[] = {0, 1};
  return nuclear_norm_dim(input, IntArrayRef(both, 2), keepdim);
}

// The 2-norm over every element, or over at most two dims.
Tensor frobenius_norm_kernel(T input) { return norm(input, std::optional<Scalar>(2.0), IntArrayRef(), false); }

Tensor frobenius_norm_dim(T input, IntArrayRef dim, bool keepdim) {
  const char* op = "torch.frobenius_norm";
  WICK_CHECK(dim.size() <= 2, RuntimeError, op, ": Expected at most 2 dimensions, but got ", dim.size(),
             " dimensions instead.");
  if (dim.size() == 2) {
    WICK_CHECK(wrap_dim(dim[0], input.dim()) != wrap_dim(dim[1], input.dim()), RuntimeError, op,
               ": Expected dims to be different, got ", format_shape(dim), " instead");
  }
  return norm(input, std::optional<Scalar>(2.0), dim, keepdim);
}

// --- instance and local response normalisation ---------------------------------------------------

// torch.instance_norm: batch_norm over the (1, N C, ...) reshaped input, with
// the per-channel parameters and running statistics repeated per sample; the
// running statistics then take the mean of the N updated copies.
Tensor torch_instance_norm(T input, OptTensor weight, OptTensor bias, OptTensor running_mean, OptTensor running_var,
                           bool use_input_stats, double momentum, double eps, bool cudnn_enabled) {
  const char* op = "torch.instance_norm";
  WICK_CHECK(use_input_stats || (running_mean && running_var), RuntimeError, op,
             ": Expected running_mean and running_var to be defined when use_input_stats is false");
  WICK_CHECK(input.dim() >= 2, RuntimeError, op, ": instance_norm expects an input of 2 or more dimensions, got ",
             input.dim());
  WICK_CHECK(is_floating(input.dtype()), RuntimeError, op, ": \"batch_norm\" not implemented for '",
             type_title(input.dtype()), "'");
  const std::int64_t b = input.sizes()[0];
  const std::int64_t c = input.sizes()[1];
  const auto repeated = [b](OptTensor t) -> std::optional<Tensor> {
    if (!t) return std::nullopt;
    const std::int64_t times[] = {b};
    return t->repeat(IntArrayRef(times, 1));
  };
  const std::optional<Tensor> rm = repeated(running_mean);
  const std::optional<Tensor> rv = repeated(running_var);
  DimVector shape(input.sizes());
  shape[1] = checked_mul(b, c, op);
  shape[0] = 1;
  Tensor y = batch_norm(input.contiguous().view(IntArrayRef(shape)), repeated(weight), repeated(bias), rm, rv,
                        use_input_stats, momentum, eps, cudnn_enabled);
  {
    NoGradGuard no_grad;
    const std::int64_t bc[] = {b, c};
    if (running_mean) {
      Tensor r = *running_mean;
      r.copy_(mean(rm->view(IntArrayRef(bc, 2)), IntArrayRef(0)));
    }
    if (running_var) {
      Tensor r = *running_var;
      r.copy_(mean(rv->view(IntArrayRef(bc, 2)), IntArrayRef(0)));
    }
  }
  return y.view(input.sizes());
}

Tensor f_instance_norm(T input, OptTensor running_mean, OptTensor running_var, OptTensor weight, OptTensor bias,
                       bool use_input_stats, double momentum, double eps) {
  const char* op = "torch.nn.functional.instance_norm";
  if (use_input_stats) {
    std::int64_t spatial = 1;
    for (std::int64_t d = 2; d < input.dim(); ++d) spatial = checked_mul(spatial, input.sizes()[d], op);
    WICK_CHECK(spatial != 1, ValueError, op, ": Expected more than 1 spatial element when training, got input size ",
               "torch.Size(", format_shape(input.sizes()), ")");
  }
  return torch_instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, true);
}

// F.local_response_norm: x / (k + alpha * mean of x^2 over `size` channels
// centred on each)^beta, the window zero-padded by size / 2 before and
// (size - 1) / 2 after along dim 1.
Tensor local_response_norm_kernel(T input, std::int64_t size, double alpha, double beta, double k) {
  const char* op = "torch.nn.functional.local_response_norm";
  // PyTorch's message, with the indentation of its line break.
  WICK_CHECK(input.dim() >= 3, ValueError, op,
             ": Expected 3D or higher dimensionality                          input (got ", input.dim(),
             " dimensions)");
  WICK_CHECK(size > 0, ValueError, op, ": size must be positive, got ", size);
  if (input.numel() == 0) return input;
  // PyTorch averages the window with avg_pool2d (3-D input) or avg_pool3d.
  const bool integer = input.dtype() == ScalarType::kInt64;
  WICK_CHECK(is_floating(input.dtype()) || integer, RuntimeError, op, ": \"",
             input.dim() == 3 ? "avg_pool2d" : "avg_pool3d_out_frame", "\" not implemented for '",
             type_title(input.dtype()), "'");
  const std::int64_t c = input.sizes()[1];
  DimVector pads(static_cast<std::size_t>(2 * (input.dim() - 2)), 0);
  pads.push_back(size / 2);
  pads.push_back((size - 1) / 2);
  const Tensor sq = nn::functional::pad(mul(input, input), IntArrayRef(pads));
  Tensor window = sq.narrow(1, 0, c);
  for (std::int64_t i = 1; i < size; ++i) window = add(window, sq.narrow(1, i, c));
  // An int64 window's average is an int64 division, as in avg_pool.
  const Tensor avg = integer ? div(window, wrap_scalar(Scalar(size)), "trunc") : div(window, wrap_scalar(Scalar(size)));
  const Tensor denom = pow(add(mul(avg, wrap_scalar(Scalar(alpha))), wrap_scalar(Scalar(k))), Scalar(beta));
  return div(input, denom);
}

}  // namespace

void register_norm_composite_kernels(std::vector<std::unique_ptr<Library>>& out) {
  constexpr auto kComposite = DispatchKey::kCompositeImplicit;
  auto torch = std::make_unique<Library>("torch", kComposite);
  torch->impl("norm", &torch_norm)
      .impl("nuclear_norm", &nuclear_norm_kernel)
      .impl("nuclear_norm.dim", &nuclear_norm_dim)
      .impl("frobenius_norm", &frobenius_norm_kernel)
      .impl("frobenius_norm.dim", &frobenius_norm_dim)
      .impl("layer_norm", &torch_layer_norm)
      .impl("group_norm", &torch_group_norm)
      .impl("batch_norm", &torch_batch_norm)
      .impl("batch_norm_update_stats", &batch_norm_update_stats_kernel)
      .impl("constant_pad_nd", &constant_pad_nd_kernel)
      .impl("embedding", &torch_embedding)
      .impl("instance_norm", &torch_instance_norm);
  auto functional = std::make_unique<Library>("torch.nn.functional", kComposite);
  functional->impl("group_norm", &f_group_norm)
      .impl("batch_norm", &f_batch_norm)
      .impl("embedding", &embedding_kernel)
      .impl("pad", &pad_kernel)
      .impl("instance_norm", &f_instance_norm)
      .impl("local_response_norm", &local_response_norm_kernel);
  auto linalg = std::make_unique<Library>("torch.linalg", kComposite);
  linalg->impl("vector_norm", &vector_norm).impl("matrix_norm", &matrix_norm).impl("norm", &linalg_norm);
  out.push_back(std::move(torch));
  out.push_back(std::move(functional));
  out.push_back(std::move(linalg));
}

}  // namespace wick
