// dispatch/composite/tensor_list_ops.cpp - the variadic functions of torch.functional (broadcast_tensors, meshgrid, block_diag, cartesian_prod, atleast_1d, atleast_2d, atleast_3d) and combinations.
/// \file
/// Each takes Python's `*tensors` (Note [Variadic arguments] in
/// dispatch/schema.cpp) and is written with views, cat and stack, so that it
/// runs on every backend and gets its gradients from its parts. Checks and
/// messages are PyTorch 1.13's.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"
#include "wick/value.h"

namespace wick {
namespace {

using I64 = std::int64_t;
using Tensors = std::vector<Tensor>;

// The tensors expanded to their common shape.
Tensors broadcast_tensors_kernel(const Tensors& tensors) {
  if (tensors.empty()) return {};
  DimVector shape = tensors[0].sizes();
  for (std::size_t i = 1; i < tensors.size(); ++i)
    shape = broadcast_shapes(IntArrayRef(shape), tensors[i].sizes(), "torch.broadcast_tensors");
  Tensors out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(t.expand(IntArrayRef(shape)));
  return out;
}

Tensors meshgrid_kernel(const Tensors& tensors, std::optional<std::string_view> indexing) {
  WICK_CHECK(!tensors.empty(), RuntimeError, "meshgrid expects a non-empty TensorList");
  const std::string_view mode = indexing.value_or("ij");
  WICK_CHECK(mode == "ij" || mode == "xy", RuntimeError,
             "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: ", mode);
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    WICK_CHECK(tensors[i].dim() <= 1, RuntimeError, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a ",
               tensors[i].dim(), "-D tensor (input ", i, ")");
    WICK_CHECK(tensors[i].dtype() == tensors[0].dtype(), RuntimeError, "meshgrid expects all tensors to have the same dtype");
    WICK_CHECK(tensors[i].device() == tensors[0].device(), RuntimeError,
               "meshgrid expects all tensors to have the same device");
  }
  // 'xy' is 'ij' of the inputs with the first two swapped, its first two
  // results swapped back: the grid's first two dims are (len 1, len 0).
  const bool swap = mode == "xy" && tensors.size() >= 2;
  Tensors in = tensors;
  if (swap) std::swap(in[0], in[1]);
  const std::size_t n = in.size();
  DimVector shape;
  for (const Tensor& t : in) shape.push_back(t.numel());
  Tensors out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    DimVector view(n, 1);
    view[i] = shape[i];
    out.push_back(in[i].reshape(IntArrayRef(view)).expand(IntArrayRef(shape)));
  }
  if (swap) std::swap(out[0], out[1]);
  return out;
}

// Each tensor as a 2-D block placed at (row, col) of a rows x cols zero
// matrix, joined with cat so that the gradient flows to every block.
Tensor block_diag_kernel(const Tensors& tensors) {
  const char* op = "torch.block_diag";
  I64 rows = 0;
  I64 cols = 0;
  Tensors blocks;
  blocks.reserve(tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    WICK_CHECK(t.dim() <= 2, RuntimeError, op, ": Input tensors must have 2 or fewer dimensions. Input ", i, " has ",
               t.dim(), " dimensions");
    WICK_CHECK(t.device() == tensors[0].device(), RuntimeError, op,
               ": input tensors must all be on the same device. Input 0 is on device ", tensors[0].device().str(),
               " and input ", i, " is on device ", t.device().str());
    blocks.push_back(t.dim() == 2 ? t : t.reshape({1, t.numel()}));
    rows = checked_add(rows, blocks.back().size(0), op);
    cols = checked_add(cols, blocks.back().size(1), op);
  }
  // PyTorch's result of no tensors is 1 x 0.
  if (blocks.empty()) return zeros({1, 0}, ScalarType::kFloat32, Device());
  const ScalarType dtype = result_type(tensors);
  const Device device = tensors[0].device();
  Tensors row_blocks;
  row_blocks.reserve(blocks.size());
  I64 col = 0;
  for (const Tensor& b : blocks) {
    const I64 r = b.size(0);
    const I64 c = b.size(1);
    row_blocks.push_back(cat({zeros({r, col}, dtype, device), b.to(dtype), zeros({r, cols - col - c}, dtype, device)}, 1));
    col = checked_add(col, c, op);
  }
  return cat(row_blocks, 0);
}

// cartesian_prod and combinations take 1-D tensors only.
void check_vector(const Tensor& t) {
  if (t.dim() == 1) return;
  std::string shape = "[";
  for (I64 d = 0; d < t.dim(); ++d) shape += detail::str_cat(d == 0 ? "" : ", ", t.size(d));
  throw RuntimeError(detail::str_cat("Expect a 1D vector, but got shape ", shape, "]"));
}

Tensor cartesian_prod_kernel(const Tensors& tensors) {
  for (const Tensor& t : tensors) check_vector(t);
  if (tensors.size() == 1) return tensors[0];
  Tensors grids = meshgrid_kernel(tensors, "ij");
  for (Tensor& g : grids) g = g.flatten();
  return stack(grids, 1);
}

// --- combinations -------------------------------------------------------------------------------------------

// The r-element combinations of a 1-D tensor's elements, in order: the rows
// of the r-fold cartesian product of the indices that increase (or, with
// replacement, do not decrease).
Tensor combinations_kernel(const Tensor& self, I64 r, bool with_replacement) {
  check_vector(self);
  WICK_CHECK(r >= 0, RuntimeError, "Expect a non-negative number, but got ", r);
  const I64 n = self.size(0);
  // Empty results are slices of self, so that they stay in its graph.
  if (r == 0) return self.narrow(0, 0, 0);
  if (n == 0 || (n < r && !with_replacement)) return self.narrow(0, 0, 0).reshape({0, r});
  if (n == 1) return self.reshape({1, 1}).expand({1, r}).contiguous();
  // The grid of r indices has n^r points (at most 63 factors before it overflows).
  for (I64 k = 0, points = 1; k < r && points > 0; ++k) points = checked_mul(points, n, "torch.combinations");
  // Which rows: computed on the host from n and r alone, so a meta self works too.
  const Tensor positions = arange(Scalar(0), Scalar(n), Scalar(1), ScalarType::kInt64, Device());
  std::vector<Tensor> grids = meshgrid(std::vector<Tensor>(static_cast<std::size_t>(r), positions), "ij");
  Tensor keep = ones({}, ScalarType::kBool, Device());
  for (std::size_t i = 0; i + 1 < grids.size(); ++i)
    keep = logical_and(keep, with_replacement ? le(grids[i], grids[i + 1]) : lt(grids[i], grids[i + 1]));
  std::vector<Tensor> columns;
  for (const Tensor& g : grids) columns.push_back(index_select(self, 0, masked_select(g, keep).to(self.device())));
  return stack(columns, 1);
}

// One tensor gives a tensor, several (or none) a tuple, as PyTorch's
// torch.functional.atleast_*d.
Value one_or_tuple(Tensors tensors) {
  if (tensors.size() == 1) return Value(std::move(tensors[0]));
  std::vector<Value> items;
  items.reserve(tensors.size());
  for (Tensor& t : tensors) items.emplace_back(std::move(t));
  return Value::list(std::move(items), /*tuple=*/true);
}

Tensor at_least(const Tensor& t, I64 rank) {
  if (t.dim() >= rank) return t;
  if (t.dim() == 0) return t.reshape(IntArrayRef(DimVector(static_cast<std::size_t>(rank), 1)));
  if (rank == 2 || t.dim() == 2) return rank == 2 ? t.unsqueeze(0) : t.unsqueeze(-1);
  return t.unsqueeze(0).unsqueeze(-1);  // (n) -> (1, n, 1)
}

Value atleast_1d_kernel(const Tensors& tensors) {
  Tensors out;
  for (const Tensor& t : tensors) out.push_back(at_least(t, 1));
  return one_or_tuple(std::move(out));
}
Value atleast_2d_kernel(const Tensors& tensors) {
  Tensors out;
  for (const Tensor& t : tensors) out.push_back(at_least(t, 2));
  return one_or_tuple(std::move(out));
}
Value atleast_3d_kernel(const Tensors& tensors) {
  Tensors out;
  for (const Tensor& t : tensors) out.push_back(at_least(t, 3));
  return one_or_tuple(std::move(out));
}

}  // namespace

void register_tensor_list_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto torch = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  torch->impl("broadcast_tensors", &broadcast_tensors_kernel)
      .impl("meshgrid", &meshgrid_kernel)
      .impl("block_diag", &block_diag_kernel)
      .impl("cartesian_prod", &cartesian_prod_kernel)
      .impl("combinations", &combinations_kernel)
      .impl("atleast_1d", &atleast_1d_kernel)
      .impl("atleast_2d", &atleast_2d_kernel)
      .impl("atleast_3d", &atleast_3d_kernel);
  out.push_back(std::move(torch));
}

}  // namespace wick
