// dispatch/composite/composite.h - private: the composite kernels libwick registers.
/// \file
/// CompositeImplicit kernels: written in terms of other operators, so they
/// serve every backend (Meta included) and need no formula of their own.
/// Registered by `wick::init()` (plugins/loader/startup.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "wick/callable.h"
#include "wick/device.h"
#include "wick/dim_vector.h"
#include "wick/dtype.h"
#include "wick/library.h"
#include "wick/nn_functional.h"
#include "wick/scalar.h"
#include "wick/value.h"

namespace wick {

/// The C++ spelling of a dtype in PyTorch's messages ("signed char",
/// "c10::Half": multi_dot's, random_'s bounds, gaussian_nll_loss's cast).
[[nodiscard]] const char* cpp_type_name(ScalarType t);

/// PyTorch's check of a number converted to an integer dtype `t` (a float
/// out of its range: "value cannot be converted to type uint8_t without
/// overflow", naming the C++ type); nothing for the other dtypes.
void check_converts(double value, ScalarType t);

/// A Python number as a kernel of integer dtype `t` reads it: checked as
/// check_converts does, and truncated to an integer (addmm's alpha, addcmul's
/// value); unchanged for the other dtypes.
[[nodiscard]] Scalar scalar_in_dtype(const Scalar& s, ScalarType t);

/// PyTorch's legacy name of a tensor type in its older messages:
/// "torch.FloatTensor", "torch.cuda.LongTensor", and for the dtypes without
/// a legacy class "CPUBoolType", "CPUBFloat16Type", "CUDAComplexFloatType";
/// on the meta device "MetaFloatType" for every dtype.
[[nodiscard]] std::string legacy_type_name(ScalarType t, const Device& device);

/// The values of an integer tensor (any device, any layout) as int64 on the
/// host, in row-major order: lengths, offsets and labels that a composite
/// reads to size its work.
[[nodiscard]] std::vector<std::int64_t> host_int64s(const Tensor& t);

/// F.embedding's max_norm: each row of `weight` that `input` picks and whose
/// norm_type-norm exceeds max_norm is scaled in place, outside the graph.
void renormalise_rows(const Tensor& weight, const Tensor& input, double max_norm, double norm_type);

/// A loss reduced as `reduction` asks: its mean, its sum, or itself.
[[nodiscard]] Tensor reduce_loss(const Tensor& loss, nn::functional::Reduction reduction);

/// The items of a list-like argument: a list of ints, floats or tensors, or a
/// generic list or tuple (TypeError for anything else).
[[nodiscard]] std::vector<Value> list_items(const Value& v);

/// The wick::Callable a function argument holds (apply_, register_hook);
/// Python's TypeError "'int' object is not callable" for anything else.
[[nodiscard]] const Callable& callable_of(const Value& v);

/// The permutation that undoes `perm` (permute(permute(x, perm), result) is x).
DimVector inverse_permutation(IntArrayRef perm);

// Each adds its registration blocks to `out`.
void register_composite_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_complex_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_attribute_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_aten_entry_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_fft_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_factory_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_statistics_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_sorting_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_index_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_numeric_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_special_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_linalg_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_product_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_activation_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_tensor_list_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_scan_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_callable_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_nn_composite_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_distance_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_interpolate_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_norm_composite_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_composite_shape(std::vector<std::unique_ptr<Library>>& out);
void register_random_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_conv_composite_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_pool_nd_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_fractional_pool_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_grid_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_margin_loss_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_layer_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_ctc_loss_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_lstsq_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_view_copy_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_stft_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_histogram_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_rnn_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_inplace_kernels(std::vector<std::unique_ptr<Library>>& out);
/// The kernels of out= variants of composite operators (dispatch/composite/out_ops.cpp).
void register_out_copy_kernels(std::vector<std::unique_ptr<Library>>& out);

}  // namespace wick
