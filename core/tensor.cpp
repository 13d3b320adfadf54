// core/tensor.cpp - TensorImpl geometry and the non-dispatched tensor makers.
/// \file
#include "wick/tensor.h"

#include <algorithm>
#include <array>
#include <atomic>

#include <functional>
#include <limits>
#include <memory>
#include <optional>

#include "core/allocate.h"
#include "core/host_read.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/tensor_util.h"

namespace wick {

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                       std::int64_t storage_offset)
    : storage_(std::move(storage)), sizes_(sizes), strides_(strides), offset_(storage_offset), dtype_(dtype) {
  WICK_INTERNAL_ASSERT(storage_, "TensorImpl needs a storage");
  WICK_INTERNAL_ASSERT(sizes.size() == strides.size(), "sizes and strides differ in rank");
  refresh();
}

void TensorImpl::set_geometry(IntArrayRef sizes, IntArrayRef strides, std::int64_t storage_offset) {
  WICK_INTERNAL_ASSERT(sizes.size() == strides.size(), "sizes and strides differ in rank");
  sizes_.assign(sizes);
  strides_.assign(strides);
  offset_ = storage_offset;
  refresh();
}

void TensorImpl::refresh() {
  // A view's sizes need not fit in memory (`repeat` of an empty tensor by
  // 2**63 - 1 expands it first): 0 when any size is, else an overflow-checked
  // product (Note [Checked size arithmetic]).
  numel_ = checked_numel(sizes_);
  // Contiguous (row-major) when every dim of size > 1 has the packed stride;
  // an empty tensor always is, as in PyTorch (and the product of its other
  // sizes may not fit in int64: `repeat` of an empty tensor by [2**63 - 1, 6]).
  contiguous_ = true;
  std::int64_t expected = 1;
  for (std::size_t i = numel_ == 0 ? 0 : sizes_.size(); i-- > 0;) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) {
      contiguous_ = false;
      break;
    }
    expected = checked_mul(expected, sizes_[i], "numel");  // at most numel_
  }
  // Keep the non-backend keys (Autograd, Override); the backend follows the storage.
  key_set_ = (key_set_ - DispatchKeySet::all_backends()).add(backend_key(storage_->device().type()));
}

namespace {

// Live TensorImpls per subclass id (Note [Live instances] in dispatch/override_types.cpp).
std::array<std::atomic<std::int64_t>, kMaxTensorTypeIds>& subclass_counts() noexcept {
  static std::array<std::atomic<std::int64_t>, kMaxTensorTypeIds> counts{};
  return counts;
}

}  // namespace

std::int64_t live_subclass_tensors(TensorTypeId id) noexcept {
  return id == 0 || id >= kMaxTensorTypeIds ? 0 : subclass_counts()[id].load(std::memory_order_acquire);
}

TensorImpl::~TensorImpl() {
  if (type_id_ != 0) subclass_counts()[type_id_].fetch_sub(1, std::memory_order_acq_rel);
}

void TensorImpl::set_type_id(TensorTypeId id) {
  WICK_CHECK(id < kMaxTensorTypeIds, ValueError, "set_type_id: tensor type id ", id, " is out of range (the limit is ",
             kMaxTensorTypeIds, ")");
  if (id == type_id_) return;
  if (type_id_ != 0) subclass_counts()[type_id_].fetch_sub(1, std::memory_order_acq_rel);
  if (id != 0) subclass_counts()[id].fetch_add(1, std::memory_order_acq_rel);
  type_id_ = id;
  key_set_ = id != 0 ? key_set_.add(DispatchKey::kOverride) : key_set_.remove(DispatchKey::kOverride);
}

void TensorImpl::set_data_from(const TensorImpl& src) {
  storage_ = src.storage_;
  dtype_ = src.dtype_;
  set_geometry(src.sizes(), src.strides(), src.storage_offset());
}

std::int64_t wrap_dim(std::int64_t d, std::int64_t rank) {
  const std::int64_t r = rank == 0 ? 1 : rank;  // a 0-dim tensor accepts dims -1 and 0
  WICK_CHECK(d >= -r && d < r, IndexError, "Dimension out of range (expected to be in range of [", -r, ", ",
             r - 1, "], but got ", d, ")");
  return d < 0 ? d + r : d;
}

std::int64_t Tensor::size(std::int64_t d) const {
  WICK_CHECK(dim() > 0, IndexError, "Dimension specified as ", d, " but tensor has no dimensions");
  return sizes()[wrap_dim(d, dim())];
}
std::int64_t Tensor::stride(std::int64_t d) const {
  WICK_CHECK(dim() > 0, IndexError, "Dimension specified as ", d, " but tensor has no dimensions");
  return strides()[wrap_dim(d, dim())];
}

Scalar Tensor::item() const {
  WICK_CHECK(!device().is_meta(), RuntimeError, "Tensor.item() cannot be called on meta tensors");
  WICK_CHECK(numel() == 1, ValueError, "a Tensor with ", numel(), " elements cannot be converted to Scalar");
  // A device value is read through a copy that waits for it (wick/cuda.h).
  const Tensor host = device().is_cpu() ? *this : host_copy(*this);
  return visit_dtype<dtypes::kAllAndComplex>(dtype(), "item", [&](auto tag) -> Scalar {
    using T = decltype(tag);
    return Scalar(*static_cast<const T*>(host.data_ptr()));
  });
}

// --- host reads (Note [Host reads]) ------------------------------------------------

namespace {
std::atomic<HostCopyFn> g_host_copy{nullptr};
}  // namespace

void set_host_copy(HostCopyFn fn) noexcept { g_host_copy.store(fn, std::memory_order_release); }

Tensor host_copy(const Tensor& t) {
  const HostCopyFn fn = g_host_copy.load(std::memory_order_acquire);
  WICK_CHECK(fn != nullptr, RuntimeError, "cannot read the values of a ", t.device().str(),
             " tensor: wick::init() has not run (it loads the backend that copies them)");
  return fn(t);
}

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size());
  std::int64_t s = 1;
  bool overflow = false;
  for (std::size_t i = sizes.size(); i-- > 0 && !overflow;) {
    strides[i] = s;
    const std::optional<std::int64_t> next = try_mul(s, std::max<std::int64_t>(sizes[i], 1));
    overflow = !next.has_value();
    s = next.value_or(s);
  }
  if (!overflow) return strides;  // every call but the rare ones below
  // The sizes of an empty tensor may multiply past int64 (`repeat` of an
  // empty tensor by 2**63 - 1); its strides address nothing, and saturate at
  // INT64_MAX there. Any other product is numel's, checked.
  const bool empty = std::find(sizes.begin(), sizes.end(), 0) != sizes.end();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  s = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    const std::int64_t size = std::max<std::int64_t>(sizes[i], 1);
    s = !empty ? checked_mul(s, size, "numel") : s > kMax / size ? kMax : s * size;
  }
  return strides;
}

Tensor allocate_contiguous(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device) {
  WICK_CHECK(dtype != ScalarType::kUndefined, TypeError, "cannot allocate a tensor of undefined dtype");
  // PyTorch's checks and messages: negative sizes, then the bytes past int64
  // ("Storage size calculation overflowed with sizes=[...]"); a zero anywhere
  // makes the tensor empty, whatever the other sizes multiply to.
  auto storage = Storage::make(storage_nbytes(sizes, itemsize(dtype)), device);
  if (strides.size() != sizes.size()) {
    return Tensor(IntrusivePtr<TensorImpl>::make(std::move(storage), dtype, sizes, contiguous_strides(sizes), 0));
  }
  return Tensor(IntrusivePtr<TensorImpl>::make(std::move(storage), dtype, sizes, strides, 0));
}

Tensor make_empty(IntArrayRef sizes, ScalarType dtype, Device device) {
  return allocate_contiguous(sizes, {}, dtype, device);
}

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, std::int64_t storage_offset,
                 std::optional<ScalarType> dtype) {
  WICK_CHECK(base.defined(), RuntimeError, "view of an undefined tensor");
  auto impl =
      IntrusivePtr<TensorImpl>::make(base.storage(), dtype.value_or(base.dtype()), sizes, strides, storage_offset);
  if (const TensorTypeId type = base.impl()->type_id(); type != 0) impl->set_type_id(type);
  return Tensor(std::move(impl));
}

Tensor wrap_scalar(const Scalar& s) {
  Tensor t = make_empty({}, s.dtype());
  visit_dtype<dtypes::kAllAndComplex>(s.dtype(), "wrap_scalar", [&](auto tag) {
    using T = decltype(tag);
    *static_cast<T*>(t.data_ptr()) = s.to<T>();
  });
  t.impl()->set_wrapped_number(true);
  return t;
}

namespace detail {

Tensor wrap_blob(void* data, IntArrayRef sizes, IntArrayRef strides, std::function<void(void*)> deleter,
                 ScalarType dtype, Device device) {
  WICK_CHECK(sizes.size() == strides.size(), RuntimeError, "from_blob: sizes ", format_shape(sizes), " and strides ",
             format_shape(strides), " differ in length");
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    WICK_CHECK(sizes[d] >= 0, RuntimeError, "from_blob: negative size ", sizes[d], " in dim ", d);
    WICK_CHECK(strides[d] >= 0, RuntimeError, "from_blob: negative stride ", strides[d], " in dim ", d);
  }
  const std::size_t nbytes = storage_nbytes(sizes, strides, 0, itemsize(dtype));
  WICK_CHECK(data != nullptr || nbytes == 0, RuntimeError, "from_blob: data is null for a tensor of ",
             checked_numel(sizes), " elements");
  // The deleter travels as the storage's context; the storage calls it once.
  void (*release)(void*, void*) = nullptr;
  void* ctx = nullptr;
  if (deleter) {
    ctx = new std::function<void(void*)>(std::move(deleter));
    release = [](void* c, void* p) {
      std::unique_ptr<std::function<void(void*)>> fn(static_cast<std::function<void(void*)>*>(c));
      (*fn)(p);
    };
  }
  Storage storage = Storage::make(data, nbytes, device, release, ctx);
  return Tensor(IntrusivePtr<TensorImpl>::make(std::move(storage), dtype, sizes, strides, 0));
}

}  // namespace detail

}  // namespace wick
