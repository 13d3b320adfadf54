// dispatch/composite/complex_ops.cpp - views of complex tensors' parts, conj and angle.
/// \file
/// view_as_real reinterprets a complex tensor's storage as its real dtype
/// with a last dim of 2 (sizes, strides and offset doubled into units of the
/// part); view_as_complex is the inverse, and checks what makes it possible
/// (PyTorch's messages). real and imag select a part of view_as_real. conj
/// of a complex tensor is a copy here (PyTorch returns a lazy conjugate
/// view); angle is atan2(imag, real), and of a real number pi or 0.
#include <memory>
#include <numbers>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using T = const Tensor&;

Tensor view_as_real_kernel(T self) {
  WICK_CHECK(is_complex(self.dtype()), RuntimeError, "torch.view_as_real: view_as_real is only supported for complex "
             "tensors");
  DimVector sizes(self.sizes());
  DimVector strides;
  for (const std::int64_t s : self.strides()) strides.push_back(checked_mul(s, 2, "torch.view_as_real"));
  sizes.push_back(2);
  strides.push_back(1);
  return make_view(self, sizes, strides, checked_mul(self.storage_offset(), 2, "torch.view_as_real"),
                   to_real_dtype(self.dtype()));
}

Tensor view_as_complex_kernel(T self) {
  const char* op = "torch.view_as_complex";
  const ScalarType t = self.dtype();
  WICK_CHECK(t == ScalarType::kFloat32 || t == ScalarType::kFloat64, RuntimeError, op,
             ": view_as_complex is only supported for float and double tensors, but got a tensor of scalar type: ",
             type_title(t));
  WICK_CHECK(self.dim() > 0 && self.sizes().back() == 2, RuntimeError, op,
             ": Tensor must have a last dimension of size 2");
  WICK_CHECK(self.strides().back() == 1, RuntimeError, op, ": Tensor must have a last dimension with stride 1");
  DimVector sizes;
  for (std::size_t d = 0; d + 1 < self.sizes().size(); ++d) sizes.push_back(self.sizes()[d]);
  DimVector strides;
  for (std::size_t d = 0; d + 1 < self.strides().size(); ++d) {
    WICK_CHECK(self.strides()[d] % 2 == 0, RuntimeError, op,
               ": Tensor must have a stride divisible by 2 for all but last dimension");
    strides.push_back(self.strides()[d] / 2);
  }
  WICK_CHECK(self.storage_offset() % 2 == 0, RuntimeError, op, ": Tensor must have a storage_offset divisible by 2");
  return make_view(self, sizes, strides, self.storage_offset() / 2, to_complex_dtype(t));
}

Tensor real_kernel(T self) { return is_complex(self.dtype()) ? select(view_as_real_kernel(self), -1, 0) : self; }

Tensor imag_kernel(T self) {
  WICK_CHECK(is_complex(self.dtype()), RuntimeError,
             "torch.imag: imag is not implemented for tensors with non-complex dtypes.");
  return select(view_as_real_kernel(self), -1, 1);
}

// A copy with the imaginary parts negated (0 - imag: -0 for +0, as PyTorch's conj).
Tensor conj_kernel(T self) {
  if (!is_complex(self.dtype())) return self;
  Tensor out = clone(self);
  Tensor im = select(view_as_real_kernel(out), -1, 1);
  im.copy_(neg(im));
  return out;
}

Tensor angle_kernel(T self) {
  if (is_complex(self.dtype())) return atan2(imag_kernel(self), real_kernel(self));
  const Tensor x = is_floating(self.dtype()) ? self : self.to(kDefaultFloat);
  const Tensor pi = full({}, std::numbers::pi, x.dtype(), x.device());
  const Tensor zero = zeros({}, x.dtype(), x.device());
  // NaN stays NaN (x != x), negative numbers give pi, the rest 0.
  return where(ne(x, x), x, where(lt(x, zero), pi, zero));
}

}  // namespace

void register_complex_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  lib->impl("view_as_real", &view_as_real_kernel)
      .impl("view_as_complex", &view_as_complex_kernel)
      .impl("real", &real_kernel)
      .impl("imag", &imag_kernel)
      .impl("conj", &conj_kernel)
      .impl("angle", &angle_kernel);
  out.push_back(std::move(lib));
}

}  // namespace wick
