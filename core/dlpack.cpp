// core/dlpack.cpp - to_dlpack and from_dlpack: tensors shared through DLPack without copying.
/// \file
#include "wick/dlpack.h"

#include <dlpack/dlpack.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "wick/checked.h"
#include "wick/error.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

// What a DLManagedTensor from to_dlpack owns: the tensor (keeping its
// storage alive) and the shape and strides it points at.
struct Exported {
  Tensor tensor;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  DLManagedTensor managed{};
};

DLDataType to_dl_dtype(ScalarType t) {
  DLDataType d{};
  d.lanes = 1;
  d.bits = static_cast<std::uint8_t>(itemsize(t) * 8);
  switch (t) {
    case ScalarType::kBool:
    case ScalarType::kUInt8: d.code = kDLUInt; break;
    case ScalarType::kInt8:
    case ScalarType::kInt16:
    case ScalarType::kInt32:
    case ScalarType::kInt64: d.code = kDLInt; break;
    case ScalarType::kFloat16:
    case ScalarType::kFloat32:
    case ScalarType::kFloat64: d.code = kDLFloat; break;
    case ScalarType::kBFloat16: d.code = kDLBfloat; break;
    case ScalarType::kComplex64:
    case ScalarType::kComplex128: d.code = kDLComplex; break;
    default: throw RuntimeError(detail::str_cat("to_dlpack: no DLPack dtype for ", dtype_name(t)));
  }
  return d;
}

ScalarType from_dl_dtype(const DLDataType& d) {
  WICK_CHECK(d.lanes == 1, RuntimeError, "from_dlpack: vector dtypes (", d.lanes, " lanes) are not supported");
  const int bits = d.bits;
  switch (d.code) {
    case kDLUInt:
      if (bits == 8) return ScalarType::kUInt8;
      break;
    case kDLInt:
      if (bits == 8) return ScalarType::kInt8;
      if (bits == 16) return ScalarType::kInt16;
      if (bits == 32) return ScalarType::kInt32;
      if (bits == 64) return ScalarType::kInt64;
      break;
    case kDLFloat:
      if (bits == 16) return ScalarType::kFloat16;
      if (bits == 32) return ScalarType::kFloat32;
      if (bits == 64) return ScalarType::kFloat64;
      break;
    case kDLBfloat:
      if (bits == 16) return ScalarType::kBFloat16;
      break;
    case kDLComplex:
      if (bits == 64) return ScalarType::kComplex64;
      if (bits == 128) return ScalarType::kComplex128;
      break;
    default: break;
  }
  throw RuntimeError(detail::str_cat("from_dlpack: unsupported DLPack dtype (code ", static_cast<int>(d.code), ", ",
                                     bits, " bits)"));
}

Device from_dl_device(const DLDevice& d) {
  switch (d.device_type) {
    case kDLCPU:
    case kDLCUDAHost: return Device();
    case kDLCUDA: return Device(DeviceType::kCUDA, static_cast<std::int16_t>(d.device_id));
    default:
      throw RuntimeError(detail::str_cat("from_dlpack: unsupported device type ", static_cast<int>(d.device_type),
                                         " (wick takes kDLCPU, kDLCUDAHost and kDLCUDA)"));
  }
}

}  // namespace

DLManagedTensor* to_dlpack(const Tensor& t) {
  WICK_CHECK(t.defined(), RuntimeError, "to_dlpack: the tensor is undefined");
  const Device device = t.device();
  DLDevice dl_device{};
  if (device.is_cpu()) {
    dl_device.device_type = kDLCPU;
    dl_device.device_id = 0;
  } else if (device.type() == DeviceType::kCUDA) {
    dl_device.device_type = kDLCUDA;
    dl_device.device_id = device.index() < 0 ? 0 : device.index();
  } else {
    throw RuntimeError(detail::str_cat("to_dlpack: DLPack has no device for ", device.str()));
  }
  auto owner = std::make_unique<Exported>();
  owner->tensor = t;
  owner->shape = t.sizes().vec();
  owner->strides = t.strides().vec();
  DLTensor& dl = owner->managed.dl_tensor;
  dl.data = t.data_ptr();
  dl.device = dl_device;
  dl.ndim = static_cast<std::int32_t>(t.dim());
  dl.dtype = to_dl_dtype(t.dtype());
  dl.shape = owner->shape.data();
  dl.strides = owner->strides.data();
  dl.byte_offset = 0;
  owner->managed.manager_ctx = owner.get();
  owner->managed.deleter = [](DLManagedTensor* self) { delete static_cast<Exported*>(self->manager_ctx); };
  return &owner.release()->managed;
}

Tensor from_dlpack(DLManagedTensor* src) {
  WICK_CHECK(src != nullptr, RuntimeError, "from_dlpack: the DLManagedTensor is null");
  // Owned from here on: released through its deleter if anything below throws.
  auto release = [](DLManagedTensor* m) {
    if (m->deleter != nullptr) m->deleter(m);
  };
  std::unique_ptr<DLManagedTensor, decltype(release)> owned(src, release);
  const DLTensor& dl = src->dl_tensor;
  const ScalarType dtype = from_dl_dtype(dl.dtype);
  const Device device = from_dl_device(dl.device);
  WICK_CHECK(dl.ndim >= 0 && dl.ndim <= 64, RuntimeError, "from_dlpack: invalid number of dims ", dl.ndim);
  WICK_CHECK(dl.ndim == 0 || dl.shape != nullptr, RuntimeError, "from_dlpack: null shape for ", dl.ndim, " dims");
  const IntArrayRef sizes(dl.shape, static_cast<std::size_t>(dl.ndim));
  for (const std::int64_t s : sizes) WICK_CHECK(s >= 0, RuntimeError, "from_dlpack: negative size ", s);
  // DLPack 0.6: null strides mean compact row-major.
  DimVector strides = dl.strides == nullptr ? contiguous_strides(sizes)
                                            : DimVector(IntArrayRef(dl.strides, static_cast<std::size_t>(dl.ndim)));
  for (const std::int64_t s : strides) {
    WICK_CHECK(s >= 0, RuntimeError, "from_dlpack: negative stride ", s, " (wick has no negative strides)");
  }
  const std::size_t nbytes = storage_nbytes(sizes, strides, 0, itemsize(dtype));
  char* data = static_cast<char*>(dl.data);
  WICK_CHECK(data != nullptr || nbytes == 0, RuntimeError, "from_dlpack: null data for ", checked_numel(sizes),
             " elements");
  if (data != nullptr) data += dl.byte_offset;
  Storage storage = Storage::make(
      data, nbytes, device,
      [](void* ctx, void*) {
        auto* m = static_cast<DLManagedTensor*>(ctx);
        if (m->deleter != nullptr) m->deleter(m);
      },
      src);
  owned.release();  // the storage's deleter calls it now
  return Tensor(IntrusivePtr<TensorImpl>::make(std::move(storage), dtype, sizes, strides, 0));
}

}  // namespace wick
