// dispatch/torch_catalog.cpp - the `torch` operator catalog: schemas and aliases.
/// \file
/// Names, namespaces and argument names follow PyTorch 1.13 (see
/// ../shared/reference). `torch.add`, `torch.Tensor.add` and
/// `torch.Tensor.__add__` are distinct entries: the latter two are aliases
/// that share torch.add's kernels but can each be overridden on their own.
#include <memory>
#include <vector>

#include "dispatch/builtins.h"

namespace wick {
namespace {

// Binary elementwise ops with an out overload.
constexpr const char* kBinary[] = {
    "add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "sub(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "rsub(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "mul(Tensor self, Tensor other) -> Tensor",
    "mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "div(Tensor self, Tensor other, *, str? rounding_mode=None) -> Tensor",
    "div.out(Tensor self, Tensor other, *, str? rounding_mode=None, Tensor(a!) out) -> Tensor(a!)",
    "pow(Tensor self, Tensor exponent) -> Tensor",
    "maximum(Tensor self, Tensor other) -> Tensor",
    "minimum(Tensor self, Tensor other) -> Tensor",
    "eq(Tensor self, Tensor other) -> Tensor",
    "ne(Tensor self, Tensor other) -> Tensor",
    "lt(Tensor self, Tensor other) -> Tensor",
    "le(Tensor self, Tensor other) -> Tensor",
    "gt(Tensor self, Tensor other) -> Tensor",
    "ge(Tensor self, Tensor other) -> Tensor",
    "where(Tensor condition, Tensor self, Tensor other) -> Tensor",
    "fmod(Tensor self, Tensor other) -> Tensor",
    "remainder(Tensor self, Tensor other) -> Tensor",
    "atan2(Tensor self, Tensor other) -> Tensor",
    "logical_and(Tensor self, Tensor other) -> Tensor",
    "logical_or(Tensor self, Tensor other) -> Tensor",
    "logical_xor(Tensor self, Tensor other) -> Tensor",
    "logical_not(Tensor self) -> Tensor",
    "lerp(Tensor self, Tensor end, Tensor weight) -> Tensor",
};

constexpr const char* kUnary[] = {"neg",   "exp",   "exp2",  "expm1", "log",  "log2", "log10",      "log1p",
                                  "abs",   "sqrt",  "rsqrt", "sin",   "cos",  "tan",  "asin",       "acos",
                                  "atan",  "sinh",  "cosh",  "tanh",  "erf",  "sigmoid", "relu",    "floor",
                                  "ceil",  "round", "trunc", "sign",  "reciprocal", "square"};

constexpr const char* kOther[] = {
    "sum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "mean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "mm(Tensor self, Tensor mat2) -> Tensor",
    "bmm(Tensor self, Tensor mat2) -> Tensor",
    "matmul(Tensor self, Tensor other) -> Tensor",
    "reshape(Tensor(a) self, int[] shape) -> Tensor(a)",
    "transpose(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    "t(Tensor(a) self) -> Tensor(a)",
    "permute(Tensor(a) self, int[] dims) -> Tensor(a)",
    "unsqueeze(Tensor(a) self, int dim) -> Tensor(a)",
    "squeeze(Tensor(a) self, int? dim=None) -> Tensor(a)",
    "narrow(Tensor(a) self, int dim, int start, int length) -> Tensor(a)",
    "select(Tensor(a) self, int dim, int index) -> Tensor(a)",
    "clone(Tensor self) -> Tensor",
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
};

// Linear algebra beyond mm/bmm/matmul.
constexpr const char* kLinalg[] = {
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    "dot(Tensor self, Tensor tensor) -> Tensor",
    "mv(Tensor self, Tensor vec) -> Tensor",
    "outer(Tensor self, Tensor vec2) -> Tensor",
};
constexpr const char* kLinalgMethodAliases[] = {"addmm", "dot", "mv", "outer"};

// Creation functions: no tensor argument, ignored by the override protocol.
constexpr const char* kCreation[] = {
    "tensor(Any data, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "empty(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "zeros(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "ones(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "full(int[] size, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "arange(Scalar start, Scalar? end=None, Scalar step=1, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "eye(int n, int? m=None, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "rand(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "randn(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
};

// torch.Tensor methods that have no torch.* function.
constexpr const char* kMethodsOnly[] = {
    "view(Tensor(a) self, int[] size) -> Tensor(a)",
    "expand(Tensor(a) self, int[] size) -> Tensor(a)",
    "contiguous(Tensor(a) self) -> Tensor(a)",
    "to(Tensor self, ScalarType dtype) -> Tensor",
    "to.device(Tensor self, Device device, ScalarType? dtype=None, bool non_blocking=False, bool copy=False) -> Tensor",
    "cuda(Tensor self, Device? device=None, bool non_blocking=False) -> Tensor",
    "cpu(Tensor self) -> Tensor",
    "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
    "fill_(Tensor(a!) self, Scalar value) -> Tensor(a!)",
    "add_(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "sub_(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "mul_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "div_(Tensor(a!) self, Tensor other, *, str? rounding_mode=None) -> Tensor(a!)",
    "zero_(Tensor(a!) self) -> Tensor(a!)",
    "__rtruediv__(Tensor self, Tensor other) -> Tensor",
    "__rpow__(Tensor self, Tensor other) -> Tensor",
    "__rmod__(Tensor self, Tensor other) -> Tensor",
};

// In-place twins (Note [In-place twins] in dispatch/inplace_ops.cpp):
// torch.Tensor.X_ takes torch.X's arguments and writes its result into self.
// The unary ones (exp_, ...) are made from kUnary. PyTorch 1.13's schemas;
// like their out-of-place operators, pow_, eq_, ... take a Tensor (a Python
// number arrives as a wrapped number) where PyTorch has Scalar overloads.
constexpr const char* kInplaceTwins[] = {
    "clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)",
    "pow_(Tensor(a!) self, Tensor exponent) -> Tensor(a!)",
    "fmod_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "remainder_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "atan2_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "eq_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "ne_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "lt_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "le_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "gt_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "ge_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "logical_and_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "logical_or_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "logical_xor_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "logical_not_(Tensor(a!) self) -> Tensor(a!)",
    "lerp_(Tensor(a!) self, Tensor end, Tensor weight) -> Tensor(a!)",
    "addmm_(Tensor(a!) self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor(a!)",
    "cumsum_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)",
    "cumprod_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)",
    "masked_fill_(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)",
    "scatter_(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)",
    "scatter_add_(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)",
    "tril_(Tensor(a!) self, int diagonal=0) -> Tensor(a!)",
    "triu_(Tensor(a!) self, int diagonal=0) -> Tensor(a!)",
};
// In-place views: self takes the geometry of torch.X's view of it.
constexpr const char* kInplaceViewTwins[] = {
    "transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)",
    "t_(Tensor(a!) self) -> Tensor(a!)",
    "squeeze_(Tensor(a!) self, int? dim=None) -> Tensor(a!)",
    "unsqueeze_(Tensor(a!) self, int dim) -> Tensor(a!)",
};

// Methods sharing the torch.* function of the same name.
constexpr const char* kMethodAliases[] = {
    "add", "sub", "mul", "div", "pow", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "where",
    "fmod", "remainder", "atan2", "logical_and", "logical_or", "logical_xor", "logical_not", "lerp",
    "neg", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "abs", "sqrt", "rsqrt", "sin", "cos",
    "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "erf", "sigmoid", "relu", "floor", "ceil",
    "round", "trunc", "sign", "reciprocal", "square", "clamp", "sum", "mean", "mm", "bmm", "matmul",
    "reshape", "transpose", "t", "permute", "unsqueeze", "squeeze", "narrow", "select", "clone",
};

// Reductions and scans, with PyTorch 1.13's overloads: a boxed call picks
// the overload its arguments fit (Note [Overload resolution]).
constexpr const char* kReductions[] = {
    "prod(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    "prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "max(Tensor self) -> Tensor",
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "max.other(Tensor self, Tensor other) -> Tensor",
    "min(Tensor self) -> Tensor",
    "min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "min.other(Tensor self, Tensor other) -> Tensor",
    "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    "amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    "var(Tensor self, bool unbiased=True) -> Tensor",
    "var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor",
    "var.correction(Tensor self, int[1]? dim, *, int? correction, bool keepdim=False) -> Tensor",
    "std(Tensor self, bool unbiased=True) -> Tensor",
    "std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor",
    "std.correction(Tensor self, int[1]? dim, *, int? correction, bool keepdim=False) -> Tensor",
    "norm(Tensor self, Scalar p=2) -> Tensor",
    "norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor",
    "logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
    "cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    "cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    "all(Tensor self) -> Tensor",
    "all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
    "any(Tensor self) -> Tensor",
    "any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
};

// Their methods: torch.Tensor.X (and each overload) share torch.X's kernels.
constexpr const char* kReductionMethodAliases[] = {
    "prod", "prod.dim_int", "max", "max.dim", "max.other", "min", "min.dim", "min.other", "amax", "amin", "argmax", "argmin",
    "var", "var.dim", "var.correction", "std", "std.dim", "std.correction", "norm", "norm.ScalarOpt_dim",
    "logsumexp", "cumsum", "cumprod", "all", "all.dim", "any", "any.dim",
};

// Dunders: {dunder, target}.
constexpr const char* kDunders[][2] = {
    {"__add__", "torch.add"},       {"__radd__", "torch.add"},     {"__iadd__", "torch.Tensor.add_"},
    {"__sub__", "torch.sub"},       {"__rsub__", "torch.rsub"},    {"__isub__", "torch.Tensor.sub_"},
    {"__mul__", "torch.mul"},       {"__rmul__", "torch.mul"},     {"__imul__", "torch.Tensor.mul_"},
    {"__truediv__", "torch.div"},   {"__itruediv__", "torch.Tensor.div_"}, {"__idiv__", "torch.Tensor.div_"},
    {"__matmul__", "torch.matmul"}, {"__pow__", "torch.pow"},      {"__neg__", "torch.neg"},
    {"__abs__", "torch.abs"},       {"__eq__", "torch.eq"},        {"__ne__", "torch.ne"},
    {"__lt__", "torch.lt"},         {"__le__", "torch.le"},        {"__gt__", "torch.gt"},
    {"__ge__", "torch.ge"},         {"__mod__", "torch.remainder"}, {"__imod__", "torch.Tensor.remainder_"},
    {"__ipow__", "torch.Tensor.pow_"},
};

// Softmax, dropout and the losses: torch.* functions (and their methods) of
// the torch.nn.functional family. Argument names as PyTorch 1.13's.
constexpr const char* kNnTorch[] = {
    "softmax(Tensor input, int dim, ScalarType? dtype=None) -> Tensor",
    "log_softmax(Tensor input, int dim, ScalarType? dtype=None) -> Tensor",
    "dropout(Tensor input, float p, bool train, bool inplace=False) -> Tensor",
};
constexpr const char* kNnMethodAliases[] = {"softmax", "log_softmax"};

// torch.nn.functional. size_average and reduce are PyTorch's deprecated
// spellings of `reduction`, honoured as PyTorch does.
constexpr const char* kNnFunctional[] = {
    "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
    "leaky_relu(Tensor input, float negative_slope=0.01, bool inplace=False) -> Tensor",
    "elu(Tensor input, float alpha=1.0, bool inplace=False) -> Tensor",
    "gelu(Tensor input, str approximate='none') -> Tensor",
    "silu(Tensor input, bool inplace=False) -> Tensor",
    "logsigmoid(Tensor input) -> Tensor",
    "softmax(Tensor input, int? dim=None, int _stacklevel=3, ScalarType? dtype=None) -> Tensor",
    "log_softmax(Tensor input, int? dim=None, int _stacklevel=3, ScalarType? dtype=None) -> Tensor",
    "dropout(Tensor input, float p=0.5, bool training=True, bool inplace=False) -> Tensor",
    "mse_loss(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, str reduction='mean') -> Tensor",
    "l1_loss(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, str reduction='mean') -> Tensor",
    "nll_loss(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, int ignore_index=-100, "
    "bool? reduce=None, str reduction='mean') -> Tensor",
    "cross_entropy(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, int ignore_index=-100, "
    "bool? reduce=None, str reduction='mean', float label_smoothing=0.0) -> Tensor",
    "binary_cross_entropy(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, "
    "bool? reduce=None, str reduction='mean') -> Tensor",
    "binary_cross_entropy_with_logits(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, "
    "bool? reduce=None, str reduction='mean', Tensor? pos_weight=None) -> Tensor",
};
// torch.* twins that share the torch.nn.functional entry's signature.
constexpr const char* kNnTorchAliases[] = {"binary_cross_entropy_with_logits"};

// Shape, indexing and creation-like operators (issue 6). Type-based
// overloads of PyTorch (scatter's src/value, masked_fill's Scalar/Tensor
// value, split's int/list) are one entry each: a Python number passed for a
// Tensor argument arrives as a wrapped number, and `Any` takes either form.
constexpr const char* kShapeOps[] = {
    "flatten(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
    "unflatten(Tensor(a) self, int dim, int[] sizes) -> Tensor(a)",
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    "stack(Tensor[] tensors, int dim=0) -> Tensor",
    "split(Tensor(a) self, Any split_size_or_sections, int dim=0) -> Tensor[]",
    "split_with_sizes(Tensor(a) self, int[] split_sizes, int dim=0) -> Tensor[]",
    "chunk(Tensor(a) self, int chunks, int dim=0) -> Tensor[]",
    "index_select(Tensor self, int dim, Tensor index) -> Tensor",
    "gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
    "scatter(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
    "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
    "masked_fill(Tensor self, Tensor mask, Tensor value) -> Tensor",
    "flip(Tensor self, int[] dims) -> Tensor",
    "roll(Tensor self, int[1] shifts, int[1] dims=[]) -> Tensor",
    "tril(Tensor self, int diagonal=0) -> Tensor",
    "triu(Tensor self, int diagonal=0) -> Tensor",
    "zeros_like(Tensor self, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "ones_like(Tensor self, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "rand_like(Tensor self, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    "randn_like(Tensor self, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
};

constexpr const char* kShapeCreation[] = {
    "linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
    // randint(high, size) or randint(low, high, size): sorted out by the kernel.
    "randint(Any low=None, Any high=None, int[]? size=None, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
};

constexpr const char* kShapeMethodsOnly[] = {
    "expand_as(Tensor(a) self, Tensor other) -> Tensor(a)",
    "repeat(Tensor self, int[] repeats) -> Tensor",
};

constexpr const char* kShapeMethodAliases[] = {
    "flatten", "split", "split_with_sizes", "chunk", "index_select", "gather", "scatter",
    "scatter_add", "masked_fill", "flip", "roll", "tril", "triu",
};


// Normalisation, embedding and padding (issue 6): torch.nn.functional
// entries, their torch.* twins, and the torch.linalg norms.
constexpr const char* kNormFunctional[] = {
    "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05) -> Tensor",
    "batch_norm(Tensor input, Tensor? running_mean, Tensor? running_var, Tensor? weight=None, Tensor? bias=None, "
    "bool training=False, float momentum=0.1, float eps=1e-05) -> Tensor",
    "group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05) -> Tensor",
    "embedding(Tensor input, Tensor weight, int? padding_idx=None, float? max_norm=None, float norm_type=2.0, "
    "bool scale_grad_by_freq=False, bool sparse=False) -> Tensor",
    "pad(Tensor input, int[] pad, str mode='constant', float? value=None) -> Tensor",
};
constexpr const char* kNormTorch[] = {
    "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
    "bool cudnn_enable=True) -> Tensor",
    "batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, "
    "float momentum, float eps, bool cudnn_enabled) -> Tensor",
    "group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
    "bool cudnn_enabled=True) -> Tensor",
    "constant_pad_nd(Tensor input, int[] pad, Scalar value=0) -> Tensor",
};
constexpr const char* kNormTorchAliases[] = {"embedding"};
constexpr const char* kLinalgNorms[] = {
    "vector_norm(Tensor input, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "matrix_norm(Tensor input, Any ord='fro', int[] dim=[-2, -1], bool keepdim=False, *, ScalarType? dtype=None) "
    "-> Tensor",
};

// Convolution and pooling (issue 6). `padding` of conv1d/conv2d is one entry
// for PyTorch's two overloads: ints, or the strings 'valid' / 'same'.
constexpr const char* kConvPoolTorch[] = {
    "conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=1, Any padding=0, int[1] dilation=1, "
    "int groups=1) -> Tensor",
    "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, Any padding=0, int[2] dilation=1, "
    "int groups=1) -> Tensor",
    "max_pool2d(Tensor input, int[2] kernel_size, int[2]? stride=None, int[2] padding=0, int[2] dilation=1, "
    "bool ceil_mode=False) -> Tensor",
    "avg_pool1d(Tensor input, int[1] kernel_size, int[1]? stride=None, int[1] padding=0, bool ceil_mode=False, "
    "bool count_include_pad=True) -> Tensor",
    "adaptive_avg_pool1d(Tensor input, int[1] output_size) -> Tensor",
};
// torch.nn.functional twins of the torch.* entries above (same signature).
constexpr const char* kConvPoolFunctionalAliases[] = {"conv1d", "conv2d", "avg_pool1d", "adaptive_avg_pool1d"};
constexpr const char* kConvPoolFunctional[] = {
    "max_pool2d(Tensor input, int[2] kernel_size, int[2]? stride=None, int[2] padding=0, int[2] dilation=1, "
    "bool ceil_mode=False, bool return_indices=False) -> Any",
    "max_pool2d_with_indices(Tensor input, int[2] kernel_size, int[2]? stride=None, int[2] padding=0, "
    "int[2] dilation=1, bool ceil_mode=False, bool return_indices=False) -> (Tensor, Tensor)",
    "avg_pool2d(Tensor input, int[2] kernel_size, int[2]? stride=None, int[2] padding=0, bool ceil_mode=False, "
    "bool count_include_pad=True, int? divisor_override=None) -> Tensor",
    "adaptive_avg_pool2d(Tensor input, int[2] output_size) -> Tensor",
};
// Internal operators (namespace `aten`, not part of the torch API) on batched
// 4-D tensors: the CPU kernels of convolution and pooling and their adjoints.
constexpr const char* kConvPoolInternal[] = {
    "convolution2d(Tensor input, Tensor weight, Tensor? bias, int[2] stride, int[2] padding, int[2] dilation, "
    "int groups) -> Tensor",
    "convolution2d_input_backward(Tensor grad_output, Tensor weight, int[4] input_size, int[2] stride, "
    "int[2] padding, int[2] dilation, int groups) -> Tensor",
    "convolution2d_weight_backward(Tensor grad_output, Tensor input, int[4] weight_size, int[2] stride, "
    "int[2] padding, int[2] dilation, int groups) -> Tensor",
    "avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, bool ceil_mode, "
    "bool count_include_pad, int? divisor_override) -> Tensor",
    "avg_pool2d_backward(Tensor grad_output, int[4] input_size, int[2] kernel_size, int[2] stride, int[2] padding, "
    "bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor",
    "adaptive_avg_pool2d(Tensor self, int[2] output_size) -> Tensor",
    "adaptive_avg_pool2d_backward(Tensor grad_output, int[4] input_size) -> Tensor",
    "max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, "
    "bool ceil_mode) -> (Tensor, Tensor)",
};

}  // namespace

const std::vector<InplaceTwinDecl>& inplace_twins() {
  static const std::vector<InplaceTwinDecl> twins = [] {
    std::vector<InplaceTwinDecl> out;
    for (const char* name : kUnary) out.push_back({std::string(name) + "_(Tensor(a!) self) -> Tensor(a!)", false});
    for (const char* s : kInplaceTwins) out.push_back({s, false});
    for (const char* s : kInplaceViewTwins) out.push_back({s, true});
    return out;
  }();
  return twins;
}

void register_torch_catalog(std::vector<std::unique_ptr<Library>>& out) {
  auto torch = std::make_unique<Library>("torch");
  for (const char* s : kBinary) torch->def(s);
  for (const char* name : kUnary) torch->def(std::string(name) + "(Tensor self) -> Tensor");
  for (const char* s : kOther) torch->def(s);
  for (const char* s : kLinalg) torch->def(s);
  for (const char* s : kCreation) torch->def(s, DefOptions{.ignored = true});
  for (const char* s : kShapeOps) torch->def(s);
  for (const char* s : kShapeCreation) torch->def(s, DefOptions{.ignored = true});
  for (const char* s : kReductions) torch->def(s);

  auto tensor = std::make_unique<Library>("torch.Tensor");
  for (const char* s : kMethodsOnly) tensor->def(s);
  for (const InplaceTwinDecl& twin : inplace_twins()) tensor->def(twin.schema);
  for (const char* name : kMethodAliases) tensor->alias(name, std::string("torch.") + name);
  for (const char* name : kLinalgMethodAliases) tensor->alias(name, std::string("torch.") + name);
  for (const auto& d : kDunders) tensor->alias(d[0], d[1]);
  for (const char* s : kShapeMethodsOnly) tensor->def(s);
  for (const char* name : kShapeMethodAliases) tensor->alias(name, std::string("torch.") + name);
  for (const char* name : kReductionMethodAliases) tensor->alias(name, std::string("torch.") + name);

  auto functional = std::make_unique<Library>("torch.nn.functional");
  functional->def("relu(Tensor input, bool inplace=False) -> Tensor");
  for (const char* s : kNnTorch) torch->def(s);
  for (const char* name : kNnMethodAliases) tensor->alias(name, std::string("torch.") + name);
  for (const char* s : kNnFunctional) functional->def(s);
  for (const char* name : kNnTorchAliases) torch->alias(name, std::string("torch.nn.functional.") + name);

  for (const char* s : kNormFunctional) functional->def(s);
  for (const char* s : kNormTorch) torch->def(s);
  for (const char* name : kNormTorchAliases) torch->alias(name, std::string("torch.nn.functional.") + name);
  auto linalg = std::make_unique<Library>("torch.linalg");
  for (const char* s : kLinalgNorms) linalg->def(s);

  for (const char* s : kConvPoolTorch) torch->def(s);
  for (const char* name : kConvPoolFunctionalAliases) functional->alias(name, std::string("torch.") + name);
  for (const char* s : kConvPoolFunctional) functional->def(s);
  auto aten = std::make_unique<Library>("aten");
  for (const char* s : kConvPoolInternal) aten->def(s);

  out.push_back(std::move(torch));
  out.push_back(std::move(tensor));
  out.push_back(std::move(functional));
  out.push_back(std::move(linalg));
  out.push_back(std::move(aten));
}

}  // namespace wick
