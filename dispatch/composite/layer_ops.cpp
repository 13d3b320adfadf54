// dispatch/composite/layer_ops.cpp - the functional forms of layers: bilinear, F.embedding_bag and
// F.multi_head_attention_forward.
/// \file
/// - bilinear: y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o], as
///   one matrix product of x1 with W's (i, o * j) view and a product with
///   x2 summed over j.
/// - embedding_bag: the bags laid out densely, (bags, longest bag) positions
///   into the indices with a mask for the short bags and the padding_idx
///   entries; their rows are summed, averaged or maximised (an empty bag
///   gives zeros, as PyTorch).
/// - multi_head_attention_forward: PyTorch 1.13's Python function, step by
///   step (input projections, bias_k/bias_v, zero attention, masks, scaled
///   dot products, dropout, output projection, head-averaged weights).
/// All compose operators with gradients of their own.
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/log.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

namespace nnf = wick::nn::functional;
using T = const Tensor&;
using OptTensor = const std::optional<Tensor>&;
using I64 = std::int64_t;

std::string torch_size(IntArrayRef s) { return "torch.Size(" + format_shape(s) + ")"; }

// --- bilinear ---------------------------------------------------------------------------------------

Tensor bilinear_kernel(T input1, T input2, T weight, OptTensor bias) {
  const char* op = "torch.bilinear";
  WICK_CHECK(input1.dim() == input2.dim(), RuntimeError, op, ": bilinear(): input dimensions do not match: got ",
             input1.dim(), " and ", input2.dim());
  for (I64 i = 0; i + 1 < input1.dim(); ++i)
    WICK_CHECK(input1.size(i) == input2.size(i), RuntimeError, op,
               ": bilinear(): input batch dimensions do not match: got ", input1.size(i), " and ", input2.size(i));
  WICK_CHECK(weight.dim() >= 2, RuntimeError, op, ": bilinear(): weight must be 3-D, got ", weight.dim(), "-D");
  const I64 in1 = input1.dim() == 0 ? 1 : input1.sizes().back();
  const I64 in2 = input2.dim() == 0 ? 1 : input2.sizes().back();
  WICK_CHECK(in1 == weight.size(1), RuntimeError, op, ": bilinear(): input1 size does not match weight size: got ",
             in1, " but expected ", weight.size(1));
  WICK_CHECK(weight.dim() == 3, RuntimeError, op, ": bilinear(): weight must be 3-D, got ", weight.dim(), "-D");
  WICK_CHECK(in2 == weight.size(2), RuntimeError, op, ": bilinear(): input2 size does not match weight size: got ",
             in2, " but expected ", weight.size(2));
  if (bias)
    WICK_CHECK(bias->dim() >= 1 && bias->size(0) == weight.size(0), RuntimeError, op,
               ": bilinear(): bias size does not match weight size: got ", bias->dim() >= 1 ? bias->size(0) : 0,
               " but expected ", weight.size(0));
  for (const Tensor* t : {&input2, &weight})
    WICK_CHECK(t->dtype() == input1.dtype(), RuntimeError, op, ": expected scalar type ", type_title(input1.dtype()),
               " but found ", type_title(t->dtype()));
  if (bias)
    WICK_CHECK(bias->dtype() == input1.dtype(), RuntimeError, op, ": expected scalar type ",
               type_title(input1.dtype()), " but found ", type_title(bias->dtype()));
  const I64 out = weight.size(0);
  const I64 rows = input1.dim() <= 1 ? 1 : input1.numel() / std::max<I64>(in1, 1);
  const I64 x1_shape[] = {rows, in1};
  const I64 x2_shape[] = {rows, 1, in2};
  const I64 w_shape[] = {in1, checked_mul(out, in2, op)};
  const I64 split[] = {rows, out, in2};
  const I64 order[] = {1, 0, 2};
  const Tensor w = weight.permute(IntArrayRef(order, 3)).reshape(IntArrayRef(w_shape, 2));
  const Tensor products = mm(input1.reshape(IntArrayRef(x1_shape, 2)), w).reshape(IntArrayRef(split, 3));
  const I64 last = -1;
  // Summed in the inputs' dtype (an integer sum would widen to int64), as PyTorch's products wrap.
  Tensor y = sum(mul(products, input2.reshape(IntArrayRef(x2_shape, 3))), IntArrayRef(&last, 1), false,
                 input1.dtype());
  DimVector shape;
  for (I64 i = 0; i + 1 < input1.dim(); ++i) shape.push_back(input1.size(i));
  shape.push_back(out);
  y = y.reshape(IntArrayRef(shape));
  return bias ? add(y, *bias) : y;
}

// --- embedding_bag -----------------------------------------------------------------------------------

Tensor embedding_bag_kernel(T input_arg, T weight_arg, OptTensor offsets_arg, std::optional<double> max_norm,
                            double norm_type, bool scale_grad_by_freq, std::string_view mode, bool sparse,
                            OptTensor per_sample_weights_arg, bool include_last_offset,
                            std::optional<I64> padding_idx_arg) {
  const char* op = "torch.nn.functional.embedding_bag";
  Tensor input = input_arg;
  Tensor weight = weight_arg;
  if (weight.dtype() == ScalarType::kInt64 && is_floating(input.dtype())) {
    logging::warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, input, "
                  "...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.");
    std::swap(input, weight);
  }
  std::optional<Tensor> psw = per_sample_weights_arg;
  if (psw)
    WICK_CHECK(input.sizes().equals(psw->sizes()), ValueError, "embedding_bag: If per_sample_weights (",
               torch_size(psw->sizes()), ") is not None, then it must have the same shape as the input (",
               torch_size(input.sizes()), ")");
  WICK_CHECK(weight.dim() == 2, ValueError, "weight has to be a 2D Tensor, but got Tensor of dimension ",
             weight.dim());
  Tensor offsets;
  if (input.dim() == 2) {
    WICK_CHECK(!offsets_arg, ValueError,
               "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length "
               "sequences. However, found offsets of type <class 'torch.Tensor'>");
    offsets = arange(Scalar(0), Scalar(input.numel()), Scalar(std::max<I64>(input.size(1), 1)), input.dtype(),
                     input.device());
    if (input.size(1) == 0) offsets = zeros(IntArrayRef(std::vector<I64>{input.size(0)}), input.dtype(), input.device());
    input = input.reshape({-1});
    if (psw) psw = psw->reshape({-1});
  } else if (input.dim() == 1) {
    WICK_CHECK(offsets_arg.has_value(), ValueError, "offsets has to be a 1D Tensor but got None");
    WICK_CHECK(offsets_arg->dim() == 1, ValueError, "offsets has to be a 1D Tensor");
    offsets = *offsets_arg;
  } else {
    WICK_CHECK(false, ValueError, "input has to be 1D or 2D Tensor, but got Tensor of dimension ", input.dim());
  }
  int kind = 0;
  if (mode == "mean") {
    kind = 1;
  } else if (mode == "max") {
    kind = 2;
    WICK_CHECK(!scale_grad_by_freq, ValueError, "max mode does not support scaling the gradient by the frequency");
    WICK_CHECK(!sparse, ValueError, "max mode does not support sparse weights");
  } else {
    WICK_CHECK(mode == "sum", ValueError, "mode has to be one of sum, mean or max");
  }
  WICK_CHECK(!scale_grad_by_freq && !sparse, NotImplementedError, op,
             ": scale_grad_by_freq and sparse gradients are not supported");
  for (const Tensor* t : {&input, &offsets})
    WICK_CHECK(t->dtype() == ScalarType::kInt64 || t->dtype() == ScalarType::kInt32, RuntimeError, op,
               ": Expected tensor for argument #", t == &input ? 2 : 3, " '", t == &input ? "indices" : "offsets",
               "' to have one of the following scalar types: Long, Int; but got torch.", type_title(t->dtype()),
               "Tensor instead (while checking arguments for embedding_bag)");
  WICK_CHECK(input.dtype() == offsets.dtype(), RuntimeError, op,
             ": Expected tensor for argument #2 'indices' to have the same type as tensor for argument #3 'offsets'; "
             "but type torch.",
             type_title(input.dtype()), "Tensor does not equal torch.", type_title(offsets.dtype()),
             "Tensor (while checking arguments for embedding_bag)");
  const ScalarType wt = weight.dtype();
  WICK_CHECK(wt == ScalarType::kFloat16 || wt == ScalarType::kFloat32 || wt == ScalarType::kFloat64, RuntimeError,
             "Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, Float, "
             "Double; but got ",
             legacy_type_name(wt, weight.device()), " instead (while checking arguments for embedding_bag)");
  if (max_norm) renormalise_rows(weight, input, *max_norm, norm_type);
  WICK_CHECK(!psw || kind == 0, NotImplementedError,
             "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
             "(got mode='",
             mode, "'). Please open a feature request on the Pytorch GitHub.");
  const I64 rows = weight.size(0);
  std::optional<I64> padding_idx = padding_idx_arg;
  if (padding_idx) {
    WICK_CHECK(*padding_idx >= -rows && *padding_idx < rows, RuntimeError, op,
               ": padding_idx must be within the number of embeddings, -", rows, " through ", rows - 1,
               ", but got ", *padding_idx);
    if (*padding_idx < 0) *padding_idx = checked_add(*padding_idx, rows, op);
  }
  const std::vector<I64> starts = host_int64s(offsets);
  const I64 n = input.numel();
  const I64 bags = include_last_offset ? std::max<I64>(static_cast<I64>(starts.size()) - 1, 0)
                                       : static_cast<I64>(starts.size());
  if (!starts.empty()) {
    WICK_CHECK(starts[0] == 0, RuntimeError, op,
               ": offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
               "However, got ",
               starts[0]);
    WICK_CHECK(starts.back() <= n, RuntimeError, op, ": offsets[-1] can not be greater than input's length (", n,
               "), but got offsets[-1] of ", starts.back());
  }
  // PyTorch reads out of its buffers for the others; wick refuses them.
  for (std::size_t b = 0; b < starts.size(); ++b)
    WICK_CHECK(starts[b] >= 0 && starts[b] <= n && (b == 0 || starts[b] >= starts[b - 1]), RuntimeError, op,
               ": offsets must be non-decreasing positions in the input (0 to ", n, "), but offsets[", b, "] is ",
               starts[b]);
  I64 longest = 0;
  for (I64 b = 0; b < bags; ++b) {
    const I64 end = b + 1 < static_cast<I64>(starts.size()) ? starts[static_cast<std::size_t>(b) + 1] : n;
    longest = std::max<I64>(longest, end - starts[static_cast<std::size_t>(b)]);
  }
  const I64 dim = weight.size(1);
  const I64 out_shape[] = {bags, dim};
  if (bags == 0 || longest == 0) return zeros(IntArrayRef(out_shape, 2), weight.dtype(), weight.device());
  std::vector<I64> pos;
  std::vector<I64> real;
  for (I64 b = 0; b < bags; ++b) {
    const I64 start = starts[static_cast<std::size_t>(b)];
    const I64 end = b + 1 < static_cast<I64>(starts.size()) ? starts[static_cast<std::size_t>(b) + 1] : n;
    for (I64 j = 0; j < longest; ++j) {
      const bool inside = start + j < end;
      pos.push_back(inside ? start + j : 0);
      real.push_back(inside ? 1 : 0);
    }
  }
  const I64 table[] = {bags, longest};
  const Tensor positions = tensor(Value(pos), ScalarType::kInt64, input.device());
  Tensor valid = tensor(Value(real), ScalarType::kInt64, input.device()).to(ScalarType::kBool);
  const Tensor idx = index_select(input.to(ScalarType::kInt64), 0, positions);
  WICK_CHECK(!any(logical_and(valid, logical_or(lt(idx, Scalar(0)), ge(idx, Scalar(rows))))).item<bool>(), IndexError,
             op, ": index out of range in self");
  if (padding_idx) valid = logical_and(valid, ne(idx, Scalar(*padding_idx)));
  const Tensor picked = index_select(weight, 0, masked_fill(idx, logical_not(valid), Scalar(0)));
  const I64 cube[] = {bags, longest, dim};
  Tensor values = picked.reshape(IntArrayRef(cube, 3));
  const Tensor valid3 = valid.reshape(IntArrayRef(table, 2)).unsqueeze(2);
  if (psw) values = mul(values, index_select(*psw, 0, positions).reshape(IntArrayRef(table, 2)).unsqueeze(2));
  const I64 along[] = {1};
  if (kind == 2) {
    const Tensor masked = masked_fill(values, logical_not(valid3), Scalar(-std::numeric_limits<double>::infinity()));
    const Tensor best = std::get<0>(max(masked, 1));
    const Tensor empty = logical_not(any(valid3.squeeze(2), 1, true));
    return masked_fill(best, empty, Scalar(0));
  }
  Tensor total = sum(masked_fill(values, logical_not(valid3), Scalar(0)), IntArrayRef(along, 1));
  if (kind == 1) {
    const Tensor count = sum(valid3.to(weight.dtype()), IntArrayRef(along, 1));
    total = div(total, clamp_min(count, Scalar(1)));
  }
  return total;
}


// --- multi_head_attention_forward ----------------------------------------------------------------------

std::string tuple_text(std::initializer_list<I64> v) {
  std::string text = "(";
  std::size_t i = 0;
  for (const I64 x : v) text += (i++ == 0 ? "" : ", ") + std::to_string(x);
  return text + (v.size() == 1 ? ",)" : ")");
}

// A mask as an additive float mask: a bool mask's true entries are -inf.
Tensor additive(T mask, ScalarType dtype) {
  if (mask.dtype() != ScalarType::kBool) return mask;
  // PyTorch fills -inf into a mask of q's dtype: an integer one refuses it.
  (void)scalar_in_dtype(Scalar(-std::numeric_limits<double>::infinity()), dtype);
  return masked_fill(zeros(mask.sizes(), dtype, mask.device()), mask,
                     Scalar(-std::numeric_limits<double>::infinity()));
}

Tensor pad_last(T x) {
  const I64 one[] = {0, 1};
  return nnf::pad(x, IntArrayRef(one, 2));
}

Value multi_head_attention_forward_kernel(
    T query_arg, T key_arg, T value_arg, I64 embed_dim_to_check, I64 num_heads, OptTensor in_proj_weight,
    OptTensor in_proj_bias, OptTensor bias_k, OptTensor bias_v, bool add_zero_attn, double dropout_p,
    T out_proj_weight, OptTensor out_proj_bias, bool training, OptTensor key_padding_mask_arg, bool need_weights,
    OptTensor attn_mask_arg, bool use_separate_proj_weight, OptTensor q_proj_weight, OptTensor k_proj_weight,
    OptTensor v_proj_weight, OptTensor static_k, OptTensor static_v, bool average_attn_weights) {
  // _mha_shape_check
  bool batched = true;
  if (query_arg.dim() == 3) {
    WICK_CHECK(key_arg.dim() == 3 && value_arg.dim() == 3, AssertionError,
               "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found ", key_arg.dim(), "-D and ",
               value_arg.dim(), "-D tensors respectively");
    if (key_padding_mask_arg)
      WICK_CHECK(key_padding_mask_arg->dim() == 2, AssertionError,
                 "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found ",
                 key_padding_mask_arg->dim(), "-D tensor instead");
    if (attn_mask_arg)
      WICK_CHECK(attn_mask_arg->dim() == 2 || attn_mask_arg->dim() == 3, AssertionError,
                 "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found ",
                 attn_mask_arg->dim(), "-D tensor instead");
  } else if (query_arg.dim() == 2) {
    batched = false;
    WICK_CHECK(key_arg.dim() == 2 && value_arg.dim() == 2, AssertionError,
               "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found ", key_arg.dim(),
               "-D and ", value_arg.dim(), "-D tensors respectively");
    if (key_padding_mask_arg)
      WICK_CHECK(key_padding_mask_arg->dim() == 1, AssertionError,
                 "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found ",
                 key_padding_mask_arg->dim(), "-D tensor instead");
    if (attn_mask_arg) {
      WICK_CHECK(attn_mask_arg->dim() == 2 || attn_mask_arg->dim() == 3, AssertionError,
                 "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found ",
                 attn_mask_arg->dim(), "-D tensor instead");
      if (attn_mask_arg->dim() == 3) {
        const I64 expected[] = {num_heads, query_arg.size(0), key_arg.size(0)};
        WICK_CHECK(attn_mask_arg->sizes().equals(IntArrayRef(expected, 3)), AssertionError,
                   "Expected `attn_mask` shape to be ", tuple_text({expected[0], expected[1], expected[2]}),
                   " but got ", torch_size(attn_mask_arg->sizes()));
      }
    }
  } else {
    WICK_CHECK(false, AssertionError, "query should be unbatched 2D or batched 3D tensor but received ",
               query_arg.dim(), "-D query tensor");
  }
  Tensor query = batched ? query_arg : query_arg.unsqueeze(1);
  Tensor key = batched ? key_arg : key_arg.unsqueeze(1);
  Tensor value = batched ? value_arg : value_arg.unsqueeze(1);
  std::optional<Tensor> key_padding_mask = key_padding_mask_arg;
  if (key_padding_mask && !batched) key_padding_mask = key_padding_mask->unsqueeze(0);
  const I64 tgt_len = query.size(0);
  const I64 bsz = query.size(1);
  const I64 embed_dim = query.size(2);
  WICK_CHECK(embed_dim == embed_dim_to_check, AssertionError, "was expecting embedding dimension of ",
             embed_dim_to_check, ", but got ", embed_dim);
  WICK_CHECK(num_heads > 0, ValueError, "num_heads must be positive, but got ", num_heads);
  const I64 head_dim = embed_dim / num_heads;
  WICK_CHECK(head_dim * num_heads == embed_dim, AssertionError, "embed_dim ", embed_dim,
             " not divisible by num_heads ", num_heads);
  if (use_separate_proj_weight) {
    WICK_CHECK(key.size(0) == value.size(0) && key.size(1) == value.size(1), AssertionError,
               "key's sequence and batch dims ", tuple_text({key.size(0), key.size(1)}),
               " do not match value's ", tuple_text({value.size(0), value.size(1)}));
  } else {
    WICK_CHECK(key.sizes().equals(value.sizes()), AssertionError, "key shape ", torch_size(key.sizes()),
               " does not match value shape ", torch_size(value.sizes()));
  }
  // In-projections.
  Tensor q;
  Tensor k;
  Tensor v;
  const auto bias_part = [&](I64 i) -> std::optional<Tensor> {
    if (!in_proj_bias) return std::nullopt;
    return in_proj_bias->chunk(3)[static_cast<std::size_t>(i)];
  };
  if (!use_separate_proj_weight) {
    WICK_CHECK(in_proj_weight.has_value(), AssertionError, "use_separate_proj_weight is False but in_proj_weight is None");
    const std::vector<Tensor> w = in_proj_weight->chunk(3);
    q = nnf::linear(query, w[0], bias_part(0));
    k = nnf::linear(key, w[1], bias_part(1));
    v = nnf::linear(value, w[2], bias_part(2));
  } else {
    WICK_CHECK(q_proj_weight.has_value(), AssertionError, "use_separate_proj_weight is True but q_proj_weight is None");
    WICK_CHECK(k_proj_weight.has_value(), AssertionError, "use_separate_proj_weight is True but k_proj_weight is None");
    WICK_CHECK(v_proj_weight.has_value(), AssertionError, "use_separate_proj_weight is True but v_proj_weight is None");
    q = nnf::linear(query, *q_proj_weight, bias_part(0));
    k = nnf::linear(key, *k_proj_weight, bias_part(1));
    v = nnf::linear(value, *v_proj_weight, bias_part(2));
  }
  // The attention mask, 3-D.
  std::optional<Tensor> attn_mask = attn_mask_arg;
  if (attn_mask) {
    if (attn_mask->dtype() == ScalarType::kUInt8) {
      logging::warn("Byte tensor for attn_mask in nn.MultiheadAttention is deprecated. Use bool tensor instead.");
      attn_mask = attn_mask->to(ScalarType::kBool);
    } else {
      WICK_CHECK(is_floating(attn_mask->dtype()) || attn_mask->dtype() == ScalarType::kBool, AssertionError,
                 "Only float, byte, and bool types are supported for attn_mask, not torch.",
                 dtype_name(attn_mask->dtype()));
    }
    if (attn_mask->dim() == 2) {
      WICK_CHECK(attn_mask->size(0) == tgt_len && attn_mask->size(1) == key.size(0), RuntimeError,
                 "The shape of the 2D attn_mask is ", torch_size(attn_mask->sizes()), ", but should be ",
                 tuple_text({tgt_len, key.size(0)}), ".");
      attn_mask = attn_mask->unsqueeze(0);
    } else {
      const I64 want[] = {checked_mul(bsz, num_heads, "multi_head_attention_forward"), tgt_len, key.size(0)};
      WICK_CHECK(attn_mask->sizes().equals(IntArrayRef(want, 3)), RuntimeError, "The shape of the 3D attn_mask is ",
                 torch_size(attn_mask->sizes()), ", but should be ", tuple_text({want[0], want[1], want[2]}), ".");
    }
  }
  if (key_padding_mask && key_padding_mask->dtype() == ScalarType::kUInt8) {
    logging::warn("Byte tensor for key_padding_mask in nn.MultiheadAttention is deprecated. Use bool tensor instead.");
    key_padding_mask = key_padding_mask->to(ScalarType::kBool);
  }
  if (bias_k && bias_v) {
    WICK_CHECK(!static_k, AssertionError, "bias cannot be added to static key.");
    WICK_CHECK(!static_v, AssertionError, "bias cannot be added to static value.");
    const I64 reps[] = {1, bsz, 1};
    k = cat({k, bias_k->repeat(IntArrayRef(reps, 3))}, 0);
    v = cat({v, bias_v->repeat(IntArrayRef(reps, 3))}, 0);
    if (attn_mask) attn_mask = pad_last(*attn_mask);
    if (key_padding_mask) key_padding_mask = pad_last(*key_padding_mask);
  } else {
    WICK_CHECK(!bias_k && !bias_v, AssertionError, "bias_k and bias_v must both be given or both be None");
  }
  // Heads into the batch: (bsz * num_heads, len, head_dim).
  const I64 heads = checked_mul(bsz, num_heads, "multi_head_attention_forward");
  const I64 q_shape[] = {tgt_len, heads, head_dim};
  q = q.contiguous().view(IntArrayRef(q_shape, 3)).transpose(0, 1);
  const auto per_head = [&](T x, OptTensor fixed, const char* name) -> Tensor {
    if (!fixed) {
      const I64 shape[] = {x.size(0), heads, head_dim};
      return x.contiguous().view(IntArrayRef(shape, 3)).transpose(0, 1);
    }
    WICK_CHECK(fixed->size(0) == heads, AssertionError, "expecting ", name, ".size(0) of ", heads, ", but got ",
               fixed->size(0));
    WICK_CHECK(fixed->size(2) == head_dim, AssertionError, "expecting ", name, ".size(2) of ", head_dim, ", but got ",
               fixed->size(2));
    return *fixed;
  };
  k = per_head(k, static_k, "static_k");
  v = per_head(v, static_v, "static_v");
  if (add_zero_attn) {
    const I64 zero_shape[] = {heads, 1, head_dim};
    k = cat({k, zeros(IntArrayRef(zero_shape, 3), k.dtype(), k.device())}, 1);
    v = cat({v, zeros(IntArrayRef(zero_shape, 3), v.dtype(), v.device())}, 1);
    if (attn_mask) attn_mask = pad_last(*attn_mask);
    if (key_padding_mask) key_padding_mask = pad_last(*key_padding_mask);
  }
  const I64 src_len = k.size(1);
  if (key_padding_mask) {
    WICK_CHECK(key_padding_mask->dim() == 2 && key_padding_mask->size(0) == bsz && key_padding_mask->size(1) == src_len,
               AssertionError, "expecting key_padding_mask shape of ", tuple_text({bsz, src_len}), ", but got ",
               torch_size(key_padding_mask->sizes()));
    const I64 view4[] = {bsz, 1, 1, src_len};
    const I64 wide[] = {bsz, num_heads, 1, src_len};
    const I64 flat[] = {heads, 1, src_len};
    const Tensor kpm = key_padding_mask->view(IntArrayRef(view4, 4)).expand(IntArrayRef(wide, 4)).reshape(IntArrayRef(flat, 3));
    if (!attn_mask) {
      attn_mask = kpm;
    } else if (attn_mask->dtype() == ScalarType::kBool) {
      attn_mask = logical_or(*attn_mask, kpm);
    } else {
      attn_mask = masked_fill(*attn_mask, kpm, Scalar(-std::numeric_limits<double>::infinity()));
    }
  }
  if (attn_mask) attn_mask = additive(*attn_mask, q.dtype());
  if (!training) dropout_p = 0.0;
  // Scaled dot products.
  const Tensor scaled = div(q, wrap_scalar(Scalar(std::sqrt(static_cast<double>(head_dim)))));
  Tensor attn = attn_mask ? baddbmm(*attn_mask, scaled, k.transpose(-2, -1)) : bmm(scaled, k.transpose(-2, -1));
  attn = softmax(attn, -1);
  if (dropout_p > 0.0) attn = nnf::dropout(attn, dropout_p);
  Tensor out = bmm(attn, v);
  const I64 rows[] = {checked_mul(tgt_len, bsz, "multi_head_attention_forward"), embed_dim};
  out = nnf::linear(out.transpose(0, 1).contiguous().view(IntArrayRef(rows, 2)), out_proj_weight, out_proj_bias);
  const I64 back[] = {tgt_len, bsz, out.size(1)};
  out = out.view(IntArrayRef(back, 3));
  if (!need_weights) return Value::list({Value(batched ? out : out.squeeze(1)), Value()}, true);
  const I64 w4[] = {bsz, num_heads, tgt_len, src_len};
  Tensor weights = attn.view(IntArrayRef(w4, 4));
  if (average_attn_weights) {
    const I64 along[] = {1};
    weights = div(sum(weights, IntArrayRef(along, 1)), wrap_scalar(Scalar(num_heads)));
  }
  if (!batched) {
    out = out.squeeze(1);
    weights = weights.squeeze(0);
  }
  return Value::list({Value(out), Value(weights)}, true);
}

}  // namespace

void register_layer_kernels(std::vector<std::unique_ptr<Library>>& out) {
  constexpr auto kComposite = DispatchKey::kCompositeImplicit;
  auto torch = std::make_unique<Library>("torch", kComposite);
  torch->impl("bilinear", &bilinear_kernel);
  auto functional = std::make_unique<Library>("torch.nn.functional", kComposite);
  functional->impl("embedding_bag", &embedding_bag_kernel)
      .impl("multi_head_attention_forward", &multi_head_attention_forward_kernel);
  out.push_back(std::move(torch));
  out.push_back(std::move(functional));
}

}  // namespace wick
