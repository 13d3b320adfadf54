// dispatch/builtins.h - private: the core's own start-up registrations.
/// \file
/// The `torch` catalog (schemas) and the composite kernels libwick provides
/// are registered by `ensure_builtins()`, an explicit call made the first
/// time anything looks an operator up; nothing registers from a static
/// initialiser.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "wick/library.h"

namespace wick {

/// PyTorch's names for dtypes in kernel messages ("Long", "Float").
inline const char* dtype_title(ScalarType t) {
  switch (t) {
    case ScalarType::kBool:
      return "Bool";
    case ScalarType::kInt32:
      return "Int";
    case ScalarType::kInt64:
      return "Long";
    case ScalarType::kFloat32:
      return "Float";
    default:
      return "Double";
  }
}

/// An in-place twin `torch.Tensor.X_` of `torch.X` (Note [In-place twins] in
/// dispatch/inplace_ops.cpp): its schema, and whether self takes the
/// geometry of X's view (transpose_) rather than the values of X's result
/// (exp_).
struct InplaceTwinDecl {
  std::string schema;
  bool view = false;
};
/// The twins the catalog declares (dispatch/torch_catalog.cpp); each gets
/// its kernel from register_inplace_kernels.
const std::vector<InplaceTwinDecl>& inplace_twins();

/// Registers the builtins once per process (thread-safe).
void ensure_builtins();

// Each adds its registration blocks to `out`.
void register_torch_catalog(std::vector<std::unique_ptr<Library>>& out);
void register_composite_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_nn_composite_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_norm_composite_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_composite_shape(std::vector<std::unique_ptr<Library>>& out);
void register_conv_composite_kernels(std::vector<std::unique_ptr<Library>>& out);
void register_inplace_kernels(std::vector<std::unique_ptr<Library>>& out);

namespace autograd {
// Built-in formulas: Autograd kernels (dispatch/autograd_*.cpp).
void register_autograd_elementwise(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_unary(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_shape(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_linalg(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_nn(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_norm(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_loss(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_index(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_reduce(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_scan(std::vector<std::unique_ptr<Library>>& out);
void register_autograd_conv(std::vector<std::unique_ptr<Library>>& out);
}  // namespace autograd

}  // namespace wick
