// dispatch/composite/view_copy_ops.cpp - the *_copy functions, the unsafe_* splits and adjoint: views and their copies.
/// \file
/// Note [The *_copy functions]
/// PyTorch names a copy of each view `<view>_copy` (the operators its
/// functionalization pass emits, callable from Python). Each here is its
/// view followed by clone, which allocates a contiguous tensor: the view's
/// checks and messages are the copy's, and so is its gradient (the view's
/// formula, then clone's identity), in every mode autograd has. The result
/// shares no storage with self, so writing into it leaves self alone.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/ops.h"

namespace wick {
namespace {

using I64 = std::int64_t;
using T = const Tensor&;

std::vector<Tensor> cloned(const std::vector<Tensor>& parts) {
  std::vector<Tensor> out;
  out.reserve(parts.size());
  for (const Tensor& p : parts) out.push_back(p.clone());
  return out;
}

Tensor alias_copy_kernel(T self) { return self.clone(); }
Tensor as_strided_copy_kernel(T self, IntArrayRef size, IntArrayRef stride, std::optional<I64> offset) {
  return as_strided(self, size, stride, offset).clone();
}
Tensor detach_copy_kernel(T self) { return self.detach().clone(); }
Tensor diagonal_copy_kernel(T self, I64 offset, I64 dim1, I64 dim2) {
  return self.diagonal(offset, dim1, dim2).clone();
}
Tensor expand_copy_kernel(T self, IntArrayRef size, bool /*implicit*/) { return self.expand(size).clone(); }
Tensor narrow_copy_kernel(T self, I64 dim, I64 start, I64 length) { return self.narrow(dim, start, length).clone(); }
Tensor permute_copy_kernel(T self, IntArrayRef dims) { return self.permute(dims).clone(); }
Tensor select_copy_kernel(T self, I64 dim, I64 index) { return self.select(dim, index).clone(); }
Tensor slice_copy_kernel(T self, I64 dim, std::optional<I64> start, std::optional<I64> end, I64 step) {
  return aten::slice(self, dim, start, end, step).clone();
}
std::vector<Tensor> split_copy_kernel(T self, I64 split_size, I64 dim) {
  return cloned(split(self, split_size, dim));
}
std::vector<Tensor> split_with_sizes_copy_kernel(T self, IntArrayRef sizes, I64 dim) {
  return cloned(split_with_sizes(self, sizes, dim));
}
Tensor squeeze_copy_kernel(T self) { return self.squeeze().clone(); }
Tensor squeeze_copy_dim_kernel(T self, I64 dim) { return self.squeeze(dim).clone(); }
Tensor t_copy_kernel(T self) { return self.t().clone(); }
Tensor transpose_copy_kernel(T self, I64 dim0, I64 dim1) { return self.transpose(dim0, dim1).clone(); }
std::vector<Tensor> unbind_copy_kernel(T self, I64 dim) { return cloned(unbind(self, dim)); }
Tensor unfold_copy_kernel(T self, I64 dimension, I64 size, I64 step) {
  return self.unfold(dimension, size, step).clone();
}
Tensor unsqueeze_copy_kernel(T self, I64 dim) { return self.unsqueeze(dim).clone(); }
Tensor view_as_complex_copy_kernel(T self) { return view_as_complex(self).clone(); }
Tensor view_as_real_copy_kernel(T self) { return view_as_real(self).clone(); }
Tensor view_copy_kernel(T self, IntArrayRef size) { return self.view(size).clone(); }

// PyTorch's unsafe_* splits are split's parts without the view tracking
// that guards an in-place write into one of them; wick's are split's views,
// tracked as any view is, so such a write is checked as for split.
std::vector<Tensor> unsafe_chunk_kernel(T self, I64 chunks, I64 dim) { return chunk(self, chunks, dim); }
std::vector<Tensor> unsafe_split_kernel(T self, I64 split_size, I64 dim) { return split(self, split_size, dim); }
std::vector<Tensor> unsafe_split_with_sizes_kernel(T self, IntArrayRef sizes, I64 dim) {
  return split_with_sizes(self, sizes, dim);
}

// adjoint is Tensor.mH; a 0-dim self is itself, a 1-D one an error (PyTorch's).
Tensor adjoint_kernel(T self) {
  if (self.dim() == 0) return self;
  WICK_CHECK(self.dim() >= 2, RuntimeError, "torch.adjoint: tensor.adjoint() is only supported on matrices or batches "
             "of matrices. Got ", self.dim(), "-D tensor.");
  return self.transpose(-2, -1).conj();
}

}  // namespace

void register_view_copy_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto torch = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  torch->impl("alias_copy", &alias_copy_kernel)
      .impl("as_strided_copy", &as_strided_copy_kernel)
      .impl("detach_copy", &detach_copy_kernel)
      .impl("diagonal_copy", &diagonal_copy_kernel)
      .impl("expand_copy", &expand_copy_kernel)
      .impl("narrow_copy", &narrow_copy_kernel)
      .impl("permute_copy", &permute_copy_kernel)
      .impl("select_copy", &select_copy_kernel)
      .impl("slice_copy", &slice_copy_kernel)
      .impl("split_copy", &split_copy_kernel)
      .impl("split_with_sizes_copy", &split_with_sizes_copy_kernel)
      .impl("squeeze_copy", &squeeze_copy_kernel)
      .impl("squeeze_copy.dim", &squeeze_copy_dim_kernel)
      .impl("t_copy", &t_copy_kernel)
      .impl("transpose_copy", &transpose_copy_kernel)
      .impl("unbind_copy", &unbind_copy_kernel)
      .impl("unfold_copy", &unfold_copy_kernel)
      .impl("unsqueeze_copy", &unsqueeze_copy_kernel)
      .impl("view_as_complex_copy", &view_as_complex_copy_kernel)
      .impl("view_as_real_copy", &view_as_real_copy_kernel)
      .impl("view_copy", &view_copy_kernel)
      .impl("unsafe_chunk", &unsafe_chunk_kernel)
      .impl("unsafe_split", &unsafe_split_kernel)
      .impl("unsafe_split_with_sizes", &unsafe_split_with_sizes_kernel)
      .impl("adjoint", &adjoint_kernel);
  out.push_back(std::move(torch));
}

}  // namespace wick
