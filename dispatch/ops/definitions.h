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
/// dispatch/composite/inplace_ops.cpp): its schema, and whether self takes
/// the geometry of X's view (transpose_) rather than the values of X's
/// result (exp_).
struct InplaceTwinDecl {
  std::string schema;
  bool view = false;
};
/// The twins the catalog declares (`variants: inplace` in dispatch/ops/*.ops);
/// each gets its kernel from register_inplace_kernels.
const std::vector<InplaceTwinDecl>& inplace_twins();

/// The out= variants the catalog declares for operators without a meta
/// function (`variants: out` on a composite operator), by qualified name
/// ("torch.matmul.out", "torch.linalg.vector_norm.out"); each gets
/// its kernel from register_out_copy_kernels.
const std::vector<std::string>& out_copy_variants();

/// The generated definition table of dispatch/ops/*.ops (torch_catalog.cpp in
/// the build directory).
const CatalogTable& torch_catalog();

/// Adds the catalog's registration blocks to `out`.
void register_torch_catalog(std::vector<std::unique_ptr<Library>>& out);

}  // namespace wick
