// dispatch/ops/definitions.h - private: the torch operator catalog (schemas and aliases).
/// \file
/// The operator-definitions layer: what `torch.*` operators exist, with their
/// schemas, aliases and in-place twins (dispatch/ops/*.ops). Registered by `wick::init()`
/// (plugins/loader/startup.cpp); nothing registers from a static initialiser.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "wick/definitions.h"
#include "wick/library.h"

namespace wick {

/// An in-place twin `torch.Tensor.X_` of `torch.X` (Note [In-place twins] in
/// dispatch/composite/inplace_ops.cpp): its schema, its name ("exp_",
/// "clamp_.Tensor"), X's qualified name ("torch.exp", "torch.clamp.Tensor";
/// "torch.Tensor.polygamma" for an X defined among the methods), whether self takes the
/// geometry of X's view (transpose_) rather than the values of X's result
/// (exp_), and whether X is tagged inplace_check=structured.
struct InplaceTwinDecl {
  std::string schema;
  std::string name;
  std::string functional;
  bool view = false;
  bool structured_check = false;
};
/// The twins the catalog declares (`variants: inplace` in dispatch/ops/*.ops);
/// each gets its kernel from register_inplace_kernels.
const std::vector<InplaceTwinDecl>& inplace_twins();

/// An out= variant of an operator without a meta function (`variants: out`
/// on a composite operator): its qualified name ("torch.matmul.out",
/// "torch.std.dim_out"), its functional's ("torch.matmul", "torch.std.dim"),
/// and whether that is differentiable (not tagged nondifferentiable).
struct OutCopyDecl {
  std::string name;
  std::string functional;
  bool differentiable = true;
};
/// The ones the catalog declares; each gets its kernel from register_out_copy_kernels.
const std::vector<OutCopyDecl>& out_copy_variants();

/// The generated definition table of dispatch/ops/*.ops (torch_catalog.cpp in
/// the build directory).
const CatalogTable& torch_catalog();

/// Adds the catalog's registration blocks to `out`.
void register_torch_catalog(std::vector<std::unique_ptr<Library>>& out);

}  // namespace wick
