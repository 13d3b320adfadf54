// dispatch/ops/meta_linalg.cpp - meta functions of the matrix products mm, bmm, addmm, mv and dot.
/// \file
/// The operands share one dtype (no promotion, as in PyTorch) and one
/// device (a 0-dim CPU tensor joins any, as addmm's self may be); the
/// result has their dtype and is contiguous: [n, p] for mm and addmm (whose
/// self broadcasts to it), [b, n, p] for bmm, [n] for mv, a 0-dim tensor
/// for dot. matmul and outer are composites and reach these. The messages
/// are PyTorch's CPU messages, for every backend.
#include <cstdint>

#include "wick/error.h"
#include "wick/gen/torch_meta.h"
#include "wick/meta.h"
#include "wick/tensor_util.h"

namespace wick::meta {
namespace {

// The dtype and device two operands share.
Device check_same_dtype(const char* op, const Tensor& a, const Tensor& b) {
  WICK_CHECK(a.dtype() == b.dtype(), RuntimeError, op, ": expected scalar type ", type_title(a.dtype()), " but found ",
             type_title(b.dtype()));
  return common_device(op, a, b);
}

// PyTorch's CPU has no bool matrix products ("addmm_impl_cpu_" not implemented for 'Bool').
void check_not_bool(const char* op, const char* kernel, ScalarType t) {
  WICK_CHECK(t != ScalarType::kBool, RuntimeError, op, ": \"", kernel, "\" not implemented for 'Bool'");
}

}  // namespace

OutputMeta mm(const Tensor& self, const Tensor& mat2) {
  const char* op = "torch.mm";
  WICK_CHECK(self.dim() == 2, RuntimeError, op, ": self must be a matrix");
  WICK_CHECK(mat2.dim() == 2, RuntimeError, op, ": mat2 must be a matrix");
  WICK_CHECK(self.size(1) == mat2.size(0), RuntimeError, op, ": mat1 and mat2 shapes cannot be multiplied (",
             self.size(0), "x", self.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
  const Device device = check_same_dtype(op, self, mat2);
  check_not_bool(op, "addmm_impl_cpu_", self.dtype());
  return {TensorMeta::contiguous({self.size(0), mat2.size(1)}, self.dtype(), device)};
}

OutputMeta bmm(const Tensor& self, const Tensor& mat2) {
  const char* op = "torch.bmm";
  WICK_CHECK(self.dim() == 3, RuntimeError, op, ": batch1 must be a 3D tensor");
  WICK_CHECK(mat2.dim() == 3, RuntimeError, op, ": batch2 must be a 3D tensor");
  WICK_CHECK(self.size(0) == mat2.size(0), RuntimeError, op,
             ": batch1 and batch2 must have same number of batches, got ", self.size(0), " and ", mat2.size(0));
  WICK_CHECK(self.size(2) == mat2.size(1), RuntimeError, op,
             ": Expected size for first two dimensions of batch2 tensor to be: [", self.size(0), ", ", self.size(2),
             "] but got: [", mat2.size(0), ", ", mat2.size(1), "].");
  const Device device = check_same_dtype(op, self, mat2);
  check_not_bool(op, "bmm", self.dtype());
  return {TensorMeta::contiguous({self.size(0), self.size(1), mat2.size(2)}, self.dtype(), device)};
}

// beta * self + alpha * mat1 @ mat2: self broadcasts to the product's shape
// (expand's own check and message).
OutputMeta addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& /*beta*/,
                 const Scalar& /*alpha*/) {
  const char* op = "torch.addmm";
  WICK_CHECK(mat1.dim() == 2, RuntimeError, op, ": mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
  WICK_CHECK(mat2.dim() == 2, RuntimeError, op, ": mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  WICK_CHECK(mat1.size(1) == mat2.size(0), RuntimeError, op, ": mat1 and mat2 shapes cannot be multiplied (",
             mat1.size(0), "x", mat1.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
  WICK_CHECK(self.dtype() == mat2.dtype() && mat1.dtype() == mat2.dtype(), RuntimeError, op,
             ": self and mat2 must have the same dtype");
  const Device device = common_device(op, self, mat1, mat2);
  check_not_bool(op, "addmm_impl_cpu_", self.dtype());
  const std::int64_t n = mat1.size(0);
  const std::int64_t p = mat2.size(1);
  (void)self.expand({n, p});  // a view, no data: only its check
  return {TensorMeta::contiguous({n, p}, self.dtype(), device)};
}

OutputMeta mv(const Tensor& self, const Tensor& vec) {
  const char* op = "torch.mv";
  WICK_CHECK(self.dim() == 2 && vec.dim() == 1, RuntimeError, op, ": vector + matrix @ vector expected, got 1, ",
             self.dim(), ", ", vec.dim());
  WICK_CHECK(self.size(1) == vec.size(0), RuntimeError, op, ": size mismatch, got ", self.size(0), ", ", self.size(0),
             "x", self.size(1), ",", vec.size(0));
  const Device device = check_same_dtype(op, self, vec);
  check_not_bool(op, "addmv_impl_cpu", self.dtype());
  return {TensorMeta::contiguous({self.size(0)}, self.dtype(), device)};
}

OutputMeta dot(const Tensor& self, const Tensor& tensor) {
  const char* op = "torch.dot";
  WICK_CHECK(self.dim() == 1 && tensor.dim() == 1, RuntimeError, op, ": 1D tensors expected, but got ", self.dim(),
             "D and ", tensor.dim(), "D tensors");
  WICK_CHECK(self.dtype() == tensor.dtype(), RuntimeError, op, ": expected both vectors to have same dtype, but found ",
             type_title(self.dtype()), " and ", type_title(tensor.dtype()));
  WICK_CHECK(self.numel() == tensor.numel(), RuntimeError, op, ": inconsistent tensor size, expected tensor [",
             self.numel(), "] and src [", tensor.numel(), "] to have the same number of elements, but got ",
             self.numel(), " and ", tensor.numel(), " elements respectively");
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError, op, ": \"dot\" not implemented for 'Bool'");
  const Device device = common_device(op, self, tensor);
  return {TensorMeta::contiguous({}, self.dtype(), device)};
}

}  // namespace wick::meta
