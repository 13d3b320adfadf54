// dispatch/composite/complex_ops.cpp - views of complex tensors' parts, conj and angle.
/// \file
/// view_as_real reinterprets a complex tensor's storage as its real dtype
/// with a last dim of 2 (sizes, strides and offset doubled into units of the
/// part); view_as_complex is the inverse, and checks what makes it possible
/// (PyTorch's messages). real and imag select a part of view_as_real. conj
/// of a complex tensor is a copy here (PyTorch returns a lazy conjugate
/// view, so is_conj is always false and resolve_conj has nothing to do);
/// angle is atan2(imag, real), and of a real number pi or 0. complex and
/// polar build a complex tensor from two real ones; sgn is z / |z|.
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
  WICK_CHECK(t == ScalarType::kFloat32 || t == ScalarType::kFloat64 || t == ScalarType::kFloat16, RuntimeError, op,
             ": view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar type: ",
             type_title(t));
  // PyTorch makes complex32 of float16; wick has no complex32.
  WICK_CHECK(t != ScalarType::kFloat16, RuntimeError, op,
             ": a float16 tensor's complex view would be complex32 (ComplexHalf), which wick does not have");
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

// Through the dispatcher (not view_as_real_kernel): the parts of a tensor
// that requires grad are differentiable views.
Tensor real_kernel(T self) { return is_complex(self.dtype()) ? select(view_as_real(self), -1, 0) : self; }

Tensor imag_kernel(T self) {
  WICK_CHECK(is_complex(self.dtype()), RuntimeError,
             "torch.imag: imag is not implemented for tensors with non-complex dtypes.");
  return select(view_as_real(self), -1, 1);
}

// A copy with the imaginary parts negated (0 - imag: -0 for +0, as PyTorch's conj).
Tensor conj_kernel(T self) {
  if (!is_complex(self.dtype())) return self;
  Tensor out = clone(self);
  Tensor im = select(view_as_real_kernel(out), -1, 1);
  im.copy_(neg(im));
  return out;
}

Tensor conj_physical_kernel(T self) { return is_complex(self.dtype()) ? conj_kernel(self) : clone(self); }

// Nothing is lazy in wick: the tensor is what it shows.
Tensor resolve_kernel(T self) { return self; }
bool is_conj_kernel(T /*self*/) { return false; }
bool is_complex_kernel(T self) { return is_complex(self.dtype()); }
bool is_floating_point_kernel(T self) { return is_floating(self.dtype()); }
bool is_signed_kernel(T self) { return self.dtype() != ScalarType::kBool && self.dtype() != ScalarType::kUInt8; }
// A real tensor is real everywhere (NaN included).
Tensor isreal_kernel(T self) {
  if (!is_complex(self.dtype())) return ones(self.sizes(), ScalarType::kBool, self.device());
  return imag(self).eq(0);
}

// A complex tensor of the broadcast shape whose parts are `re` and `im`.
Tensor from_parts(T re, T im, const char* op) {
  const ScalarType t = re.dtype();
  const auto half_float_double = [](ScalarType d) {
    return d == ScalarType::kFloat16 || d == ScalarType::kFloat32 || d == ScalarType::kFloat64;
  };
  WICK_CHECK(half_float_double(t) && half_float_double(im.dtype()), RuntimeError, op,
             ": Expected both inputs to be Half, Float or Double tensors but got ", type_title(t), " and ",
             type_title(im.dtype()));
  WICK_CHECK(t == im.dtype(), RuntimeError, op, ": Expected object of scalar type ", type_title(t),
             " but got scalar type ", type_title(im.dtype()), " for second argument");
  WICK_CHECK(t != ScalarType::kFloat16, RuntimeError, op,
             ": float16 parts would make complex32 (ComplexHalf), which wick does not have");
  (void)common_device(op, re, im);
  // The pairs (re, im) side by side, seen as complex: differentiable
  // through stack and view_as_complex.
  const DimVector shape = broadcast_shapes(re.sizes(), im.sizes(), op);
  return view_as_complex(stack({re.expand(shape), im.expand(shape)}, -1));
}

Tensor complex_kernel(T real, T imag) { return from_parts(real, imag, "torch.complex"); }

Tensor polar_kernel(T abs, T angle) {
  // Checked before cos and sin, which would take integers.
  from_parts(full({}, 0, abs.dtype(), Device(DeviceType::kMeta)), full({}, 0, angle.dtype(), Device(DeviceType::kMeta)),
             "torch.polar");
  return from_parts(mul(abs, cos(angle)), mul(abs, sin(angle)), "torch.polar");
}

// z / |z| (0 for 0); of a real number its sign.
Tensor sgn_kernel(T self) {
  if (!is_complex(self.dtype())) return sign(self);
  const Tensor a = wick::abs(self);
  const Tensor zero = zeros({}, self.dtype(), self.device());
  return where(eq(a, 0), zero, div(self, a));
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
      .impl("angle", &angle_kernel)
      .impl("conj_physical", &conj_physical_kernel)
      .impl("resolve_conj", &resolve_kernel)
      .impl("resolve_neg", &resolve_kernel)
      .impl("is_conj", &is_conj_kernel)
      .impl("is_neg", &is_conj_kernel)
      .impl("is_complex", &is_complex_kernel)
      .impl("is_floating_point", &is_floating_point_kernel)
      .impl("is_signed", &is_signed_kernel)
      .impl("isreal", &isreal_kernel)
      .impl("complex", &complex_kernel)
      .impl("polar", &polar_kernel)
      .impl("sgn", &sgn_kernel);
  out.push_back(std::move(lib));
}

}  // namespace wick
