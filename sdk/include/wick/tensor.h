// wick/tensor.h - Tensor, the ref-counted handle to a strided TensorImpl.
/// \file
/// A `Tensor` is a cheap handle: copying shares the same TensorImpl. Views
/// (`view`, `transpose`, `narrow`, ...) make a new TensorImpl over the same
/// storage. Operator methods (`add`, `sum`, `matmul`, ...), one per
/// torch.Tensor catalog entry, go through the dispatcher like the free
/// functions in `wick/ops.h`.
///
///   wick::Tensor x = wick::ones({2, 3});
///   wick::Tensor y = (x * 2 + 1).sum();      // tensor(18.)
///   float v = y.item<float>();
#pragma once

#include <iosfwd>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "wick/array_ref.h"
#include "wick/device.h"
#include "wick/dim_vector.h"
#include "wick/dispatch_key.h"
#include "wick/dtype.h"
#include "wick/error.h"
#include "wick/export.h"
#include "wick/intrusive_ptr.h"
#include "wick/scalar.h"
#include "wick/storage.h"
#include "wick/tensor_options.h"

namespace wick {

class Value;
class TensorLiteral;  // wick/value.h: the data of tensor() and Tensor::new_tensor()
struct Stream;

namespace indexing {
class TensorIndex;
}  // namespace indexing

namespace autograd {
class Node;
struct AutogradMeta;
class RemovableHandle;
}  // namespace autograd

/// Identifies a tensor's Python-level type: 0 is plain `Tensor`; registered
/// tensor subclasses get other ids (see the override protocol).
using TensorTypeId = std::uint32_t;
/// Ids are below this.
inline constexpr TensorTypeId kMaxTensorTypeIds = 4096;
/// How many TensorImpls of subclass `id` exist now (0 for id 0): what
/// unloading a plugin checks before its types go away.
[[nodiscard]] WICK_API std::int64_t live_subclass_tensors(TensorTypeId id) noexcept;

/// The shared state behind a Tensor (its storage, dtype, sizes, strides, offset, dispatch keys and autograd state), as c10::TensorImpl. Tensors and views refer to one through an IntrusivePtr.
class WICK_API TensorImpl final : public RefCounted {
 public:
  /// A tensor over `storage` with the given geometry. The key set is derived
  /// from the storage's device.
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
             std::int64_t storage_offset);
  ~TensorImpl() override;

  /// Size of each dim.
  [[nodiscard]] IntArrayRef sizes() const noexcept { return sizes_; }
  /// Stride of each dim, in elements.
  [[nodiscard]] IntArrayRef strides() const noexcept { return strides_; }
  /// Number of dims (0 for a scalar tensor).
  [[nodiscard]] std::int64_t dim() const noexcept { return static_cast<std::int64_t>(sizes_.size()); }
  /// Number of elements (product of sizes; 1 for 0-dim).
  [[nodiscard]] std::int64_t numel() const noexcept { return numel_; }
  /// Element type.
  [[nodiscard]] ScalarType dtype() const noexcept { return dtype_; }
  /// Device of the storage.
  [[nodiscard]] Device device() const noexcept { return storage_->device(); }
  /// Offset of the first element into the storage, in elements.
  [[nodiscard]] std::int64_t storage_offset() const noexcept { return offset_; }
  /// The storage (shared by views).
  [[nodiscard]] const Storage& storage() const noexcept { return storage_; }
  /// True when the strides are the contiguous (row-major) strides of the sizes.
  [[nodiscard]] bool is_contiguous() const noexcept { return contiguous_; }
  /// Dispatch keys of this tensor (backend, Autograd, Override, ...).
  [[nodiscard]] DispatchKeySet key_set() const noexcept { return key_set_; }
  /// nullptr for a tensor over an empty storage (it has no element to
  /// address, whatever its storage offset).
  [[nodiscard]] void* data() const noexcept {
    char* base = static_cast<char*>(storage_->data());
    return base == nullptr ? nullptr : base + offset_ * static_cast<std::int64_t>(itemsize(dtype_));
  }
  /// A 0-dim tensor made from a Python number: promotes like a scalar.
  [[nodiscard]] bool is_wrapped_number() const noexcept { return wrapped_number_; }
  /// Marks (or unmarks) this 0-dim tensor as a wrapped Python number.
  void set_wrapped_number(bool v) noexcept { wrapped_number_ = v; }
  /// The subclass id (0 for a plain Tensor); see TensorTypeId.
  [[nodiscard]] TensorTypeId type_id() const noexcept { return type_id_; }
  /// Sets the subclass; a subclass tensor carries the `Override` key.
  /// ValueError for an id that is not below kMaxTensorTypeIds.
  void set_type_id(TensorTypeId id);
  /// Changes the geometry in place (used by resize and out= kernels).
  void set_geometry(IntArrayRef sizes, IntArrayRef strides, std::int64_t storage_offset);
  /// Replaces the storage only, keeping dtype and geometry (no checks: the caller keeps the geometry in bounds).
  void set_storage(Storage storage) { storage_ = std::move(storage); }
  /// Replaces storage, dtype and geometry with `src`'s (Tensor::set_data).
  void set_data_from(const TensorImpl& src);

  /// Autograd state (requires_grad, grad, grad_fn, tangents); null for plain
  /// tensors. See wick/autograd.h.
  [[nodiscard]] autograd::AutogradMeta* autograd_meta() const noexcept { return autograd_meta_.get(); }
  /// The autograd state, created on first use.
  autograd::AutogradMeta& ensure_autograd_meta();
  /// Adds or removes the `Autograd` dispatch key (autograd keeps it in sync
  /// with requires_grad and forward-mode tangents).
  void set_autograd_key(bool on) noexcept {
    key_set_ = on ? key_set_.add(DispatchKey::kAutograd) : key_set_.remove(DispatchKey::kAutograd);
  }

 private:
  void refresh();
  /// Deletes the autograd state through the function the autograd layer
  /// installed when it made it: the data model never calls up into it.
  struct MetaDeleter {
    void (*destroy)(autograd::AutogradMeta*) noexcept;
    void operator()(autograd::AutogradMeta* m) const noexcept { destroy(m); }
  };

  Storage storage_;
  DimVector sizes_;
  DimVector strides_;
  std::int64_t offset_;
  std::int64_t numel_ = 1;
  DispatchKeySet key_set_;
  TensorTypeId type_id_ = 0;
  std::unique_ptr<autograd::AutogradMeta, MetaDeleter> autograd_meta_;
  ScalarType dtype_;
  bool contiguous_ = true;
  bool wrapped_number_ = false;
};

/// Element access to a CPU tensor of known dtype and rank without dispatch:
/// `auto a = x.accessor<float, 2>(); a[i][j] += 1;`. It holds raw pointers
/// into the tensor's sizes, strides and data: keep the tensor alive (and
/// unresized) while using it. Indices are not checked.
template <typename T, std::size_t N>
class TensorAccessor final {
 public:
  /// An accessor over `data` with the tensor's `sizes` and `strides` arrays (N entries each); Tensor::accessor makes one.
  TensorAccessor(T* data, const std::int64_t* sizes, const std::int64_t* strides) noexcept
      : data_(data), sizes_(sizes), strides_(strides) {}
  /// The sub-accessor (N > 1) or the element (N == 1) at index i of the first dim.
  decltype(auto) operator[](std::int64_t i) const noexcept {
    if constexpr (N == 1) {
      return data_[i * strides_[0]];
    } else {
      return TensorAccessor<T, N - 1>(data_ + i * strides_[0], sizes_ + 1, strides_ + 1);
    }
  }
  /// Size of dim d (not checked).
  [[nodiscard]] std::int64_t size(std::size_t d) const noexcept { return sizes_[d]; }
  /// Stride of dim d, in elements (not checked).
  [[nodiscard]] std::int64_t stride(std::size_t d) const noexcept { return strides_[d]; }
  /// Address of the first element.
  [[nodiscard]] T* data() const noexcept { return data_; }

 private:
  T* data_;
  const std::int64_t* sizes_;
  const std::int64_t* strides_;
};

/// A handle to a TensorImpl (torch.Tensor): copying a Tensor shares the data; default-constructed it is undefined, and metadata accessors throw RuntimeError ("operation on an undefined tensor").
class WICK_API Tensor final {
 public:
  /// An undefined tensor (`defined()` is false).
  Tensor() noexcept = default;
  /// A tensor over `impl` (null makes an undefined tensor).
  explicit Tensor(IntrusivePtr<TensorImpl> impl) noexcept : impl_(std::move(impl)) {}

  // --- metadata -----------------------------------------------------------
  /// True unless default-constructed (or made from a null impl).
  [[nodiscard]] bool defined() const noexcept { return static_cast<bool>(impl_); }
  /// The TensorImpl, or nullptr for an undefined tensor.
  [[nodiscard]] TensorImpl* impl() const noexcept { return impl_.get(); }
  /// The owning pointer to the TensorImpl (null for an undefined tensor).
  [[nodiscard]] const IntrusivePtr<TensorImpl>& impl_ptr() const noexcept { return impl_; }
  /// Size of each dim (torch.Tensor.size()); RuntimeError on an undefined tensor.
  [[nodiscard]] IntArrayRef sizes() const { return checked().sizes(); }
  /// Stride of each dim in elements (torch.Tensor.stride()); RuntimeError on an undefined tensor.
  [[nodiscard]] IntArrayRef strides() const { return checked().strides(); }
  /// Size of dim `d` (negative counts from the end); IndexError when out of range.
  [[nodiscard]] std::int64_t size(std::int64_t d) const;
  /// Stride of dim `d` (negative counts from the end); IndexError when out of range.
  [[nodiscard]] std::int64_t stride(std::int64_t d) const;
  /// Number of dims; RuntimeError on an undefined tensor.
  [[nodiscard]] std::int64_t dim() const { return checked().dim(); }
  /// Number of elements; RuntimeError on an undefined tensor.
  [[nodiscard]] std::int64_t numel() const { return checked().numel(); }
  /// Element type; RuntimeError on an undefined tensor.
  [[nodiscard]] ScalarType dtype() const { return checked().dtype(); }
  /// Same as dtype().
  [[nodiscard]] ScalarType scalar_type() const { return checked().dtype(); }
  /// Device of the data; RuntimeError on an undefined tensor.
  [[nodiscard]] Device device() const { return checked().device(); }
  /// Offset of the first element into the storage, in elements; RuntimeError on an undefined tensor.
  [[nodiscard]] std::int64_t storage_offset() const { return checked().storage_offset(); }
  /// True for row-major contiguous strides; RuntimeError on an undefined tensor.
  [[nodiscard]] bool is_contiguous() const { return checked().is_contiguous(); }
  /// Dispatch keys of the tensor; empty for an undefined tensor (no throw).
  [[nodiscard]] DispatchKeySet key_set() const noexcept {
    return impl_ ? impl_->key_set() : DispatchKeySet();
  }
  /// The storage (shared with views); RuntimeError on an undefined tensor.
  [[nodiscard]] const Storage& storage() const { return checked().storage(); }
  /// The storage's version counter (bumped by every in-place op on any view).
  [[nodiscard]] std::uint32_t version() const { return checked().storage()->version(); }
  /// Bumps the storage's version counter (what in-place kernels do); RuntimeError on an undefined tensor.
  void bump_version() const { checked().storage()->bump_version(); }
  /// True when both refer to the same TensorImpl (Python's `a is b`); two undefined tensors are the same.
  [[nodiscard]] bool is_same(const Tensor& o) const noexcept { return impl_ == o.impl_; }
  /// How many Tensors share the TensorImpl; 0 for an undefined tensor.
  [[nodiscard]] std::int64_t use_count() const noexcept { return impl_ ? impl_->use_count() : 0; }

  /// Tells the device's caching allocator that work queued on `stream` uses
  /// this tensor's memory: when the storage is freed, its block is reused
  /// only after that work has finished (torch.Tensor.record_stream). Needed
  /// for a tensor allocated on one stream and used on another; RuntimeError
  /// for a CPU tensor or a stream of another device.
  void record_stream(Stream stream) const;

  /// Address of the first element.
  [[nodiscard]] void* data_ptr() const { return checked().data(); }
  /// Typed address; TypeError when T does not match the dtype.
  template <typename T>
  [[nodiscard]] T* data_ptr() const {
    WICK_CHECK(dtype() == cpp_to_dtype<T>, TypeError, "data_ptr<", dtype_name(cpp_to_dtype<T>),
               ">() called on a tensor of dtype ", dtype_name(dtype()));
    return static_cast<T*>(data_ptr());
  }
  /// The single element of a one-element CPU tensor as a Python number;
  /// ValueError ("a Tensor with N elements cannot be converted to Scalar").
  [[nodiscard]] Scalar item() const;
  /// The single element converted to T (Scalar::to); errors as item().
  template <typename T>
  [[nodiscard]] T item() const { return item().to<T>(); }
  /// Element access without dispatch (see TensorAccessor). TypeError when T
  /// is not the dtype's C++ type, RuntimeError when the tensor is not on the
  /// CPU or does not have N dims.
  template <typename T, std::size_t N>
  [[nodiscard]] TensorAccessor<T, N> accessor() const& {
    static_assert(N > 0, "accessor is for tensors of at least one dim: use item() for 0-dim tensors");
    T* p = data_ptr<T>();
    WICK_CHECK(device().is_cpu(), RuntimeError, "accessor() needs a CPU tensor, got one on ", device().str());
    WICK_CHECK(dim() == static_cast<std::int64_t>(N), RuntimeError, "TensorAccessor expected ", N,
               " dims but tensor has ", dim());
    return TensorAccessor<T, N>(p, sizes().data(), strides().data());
  }
  /// An accessor of a temporary would dangle.
  template <typename T, std::size_t N>
  TensorAccessor<T, N> accessor() && = delete;
  /// The dtype, device and requires_grad of this tensor: `zeros({2}, x.options())`.
  [[nodiscard]] TensorOptions options() const {
    return TensorOptions().dtype(dtype()).device(device()).requires_grad(requires_grad());
  }

  // --- operators: one method per torch.Tensor catalog entry ----------------
  // Generated from the operator definitions (dispatch/ops/*.ops): views
  // (view, reshape, transpose, ...) share storage; in-place methods
  // (add_, copy_, exp_, ...) return *this. See wick/ops.h.
#include "wick/gen/torch_methods.inc"

  // --- indexing: Python's x[...] (wick/indexing.h, Note [Tensor indices]) ------
  /// x[i]: a view of entry i of the first dim (negative from the end).
  [[nodiscard]] Tensor operator[](std::int64_t i) const;
  /// x[index]: advanced indexing by an int64 or bool tensor (a copy).
  [[nodiscard]] Tensor operator[](const Tensor& index) const;
  /// x[a, b, ...]: `x.index({Slice(1, None, 2), None, Ellipsis, mask})`.
  [[nodiscard]] Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  /// x[a, b, ...] from a list of indices (see the initializer_list overload).
  [[nodiscard]] Tensor index(ArrayRef<indexing::TensorIndex> indices) const;
  /// x[a, b, ...] = values (broadcast to what the index selects), in place.
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& values);
  /// x[a, b, ...] = value (a number, filled into what the index selects), in place.
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& value);
  /// x[a, b, ...] = values from a list of indices (see the initializer_list overload).
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& values);
  /// x[a, b, ...] = value from a list of indices (see the initializer_list overload).
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& value);

  // --- autograd (see wick/autograd.h) -----------------------------------------
  /// True for a leaf that asked for gradients and for every result computed
  /// from one while grad mode was on.
  [[nodiscard]] bool requires_grad() const noexcept;
  /// Sets requires_grad on a leaf. RuntimeError on a non-leaf ("you can only
  /// change requires_grad flags of leaf variables") or a non-floating dtype
  /// ("only Tensors of floating point dtype can require gradients").
  Tensor& requires_grad_(bool requires_grad = true);
  /// The accumulated gradient of a leaf (undefined until a backward reaches it).
  [[nodiscard]] Tensor grad() const;
  /// Writable gradient slot: `x.mutable_grad() = Tensor()` clears it.
  Tensor& mutable_grad();
  /// The node that computed this tensor; null for leaves.
  [[nodiscard]] std::shared_ptr<autograd::Node> grad_fn() const;
  /// No grad_fn: made by the user, or computed without recording.
  [[nodiscard]] bool is_leaf() const;
  /// Which output of grad_fn this tensor is.
  [[nodiscard]] std::uint32_t output_nr() const;
  /// A tensor sharing storage (and version counter) with no autograd history.
  [[nodiscard]] Tensor detach() const;
  /// Detaches in place: drops grad_fn and requires_grad.
  Tensor& detach_();
  /// Accumulates gradients of this tensor into the leaves' `.grad()`;
  /// `gradient` may be omitted for a one-element tensor. The graph is freed
  /// unless `retain_graph` (defaults to `create_graph`).
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;
  /// Calls `hook(grad)` whenever a gradient for this tensor is computed; a
  /// defined return value replaces the gradient. RuntimeError when the tensor
  /// does not require grad.
  autograd::RemovableHandle register_hook(std::function<Tensor(const Tensor&)> hook) const;
  /// Keeps `.grad()` for a non-leaf after backward.
  void retain_grad() const;
  /// Whether retain_grad() was called on this non-leaf (false for leaves).
  [[nodiscard]] bool retains_grad() const;
  /// Replaces this tensor's data (storage, dtype, shape) with `data`'s,
  /// keeping its identity and autograd flags (how Module::to converts).
  void set_data(const Tensor& data) const;

  /// PyTorch's repr: "tensor([1., 2.])".
  [[nodiscard]] std::string repr() const;

 private:
  const TensorImpl& checked() const {
    WICK_CHECK(impl_, RuntimeError, "operation on an undefined tensor");
    return *impl_;
  }
  IntrusivePtr<TensorImpl> impl_;
};

// --- C++ operators: the torch.Tensor dunders (dispatch/ops/tensor_operators.cpp) ---
// As in Python: `a + b` calls torch.Tensor.__add__, `2 - x` __rsub__, `x += 1`
// __iadd__, `2 < x` x.__gt__(2); a number is a wrapped Python number (it
// promotes as one: `int_tensor * 2.5` is float32). Comparisons return bool
// tensors, `&`, `|`, `^`, `~`, `<<`, `>>` are the bitwise operators (logical
// on bool tensors), and `os << x` prints PyTorch's repr.
/// Declares `a op b` for tensor/tensor, tensor/number and number/tensor (the torch.Tensor binary dunders).
#define WICK_BINARY_OPERATOR(op)                                           \
  WICK_API Tensor operator op(const Tensor& a, const Tensor& b);           \
  WICK_API Tensor operator op(const Tensor& a, const Scalar& b);           \
  WICK_API Tensor operator op(const Scalar& a, const Tensor& b);
WICK_BINARY_OPERATOR(+)
WICK_BINARY_OPERATOR(-)
WICK_BINARY_OPERATOR(*)
WICK_BINARY_OPERATOR(/)
WICK_BINARY_OPERATOR(%)
WICK_BINARY_OPERATOR(&)
WICK_BINARY_OPERATOR(|)
WICK_BINARY_OPERATOR(^)
WICK_BINARY_OPERATOR(<<)
WICK_BINARY_OPERATOR(>>)
WICK_BINARY_OPERATOR(==)
WICK_BINARY_OPERATOR(!=)
WICK_BINARY_OPERATOR(<)
WICK_BINARY_OPERATOR(<=)
WICK_BINARY_OPERATOR(>)
WICK_BINARY_OPERATOR(>=)
#undef WICK_BINARY_OPERATOR
/// Declares `a op= b` for a tensor or a number on the right (the in-place dunders, such as __iadd__).
#define WICK_COMPOUND_OPERATOR(op)                                         \
  WICK_API Tensor& operator op(Tensor& a, const Tensor& b);                \
  WICK_API Tensor& operator op(Tensor& a, const Scalar& b);
WICK_COMPOUND_OPERATOR(+=)
WICK_COMPOUND_OPERATOR(-=)
WICK_COMPOUND_OPERATOR(*=)
WICK_COMPOUND_OPERATOR(/=)
WICK_COMPOUND_OPERATOR(%=)
WICK_COMPOUND_OPERATOR(&=)
WICK_COMPOUND_OPERATOR(|=)
WICK_COMPOUND_OPERATOR(^=)
WICK_COMPOUND_OPERATOR(<<=)
WICK_COMPOUND_OPERATOR(>>=)
#undef WICK_COMPOUND_OPERATOR
/// -x (torch.Tensor.__neg__, torch.neg); refused for a bool tensor, as in PyTorch.
WICK_API Tensor operator-(const Tensor& a);
/// +x (torch.Tensor.__pos__, torch.positive): x itself, no copy; refused for a bool tensor.
WICK_API Tensor operator+(const Tensor& a);
/// ~x (torch.Tensor.__invert__, torch.bitwise_not): logical not for bool tensors; refused for floating dtypes.
WICK_API Tensor operator~(const Tensor& a);
/// PyTorch's repr of `t` ("tensor([1., 2.])"; core/frontend/printing.cpp).
WICK_API std::ostream& operator<<(std::ostream& os, const Tensor& t);

// --- making tensors without dispatch (for kernels and backends) ------------

/// Uninitialised contiguous tensor on `device`, allocated with the device
/// type's allocator (no dispatch).
[[nodiscard]] WICK_API Tensor make_empty(IntArrayRef sizes, ScalarType dtype, Device device = Device());
/// A strided view of `base`'s storage (no copy, no checks beyond bounds);
/// `dtype` reinterprets the elements (view_as_real: sizes, strides and
/// offset are then in units of the new dtype).
[[nodiscard]] WICK_API Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides,
                                        std::int64_t storage_offset,
                                        std::optional<ScalarType> dtype = std::nullopt);
/// A 0-dim tensor marked as a wrapped Python number (dtype from the Scalar).
[[nodiscard]] WICK_API Tensor wrap_scalar(const Scalar& s);
/// Contiguous strides for `sizes`.
[[nodiscard]] WICK_API DimVector contiguous_strides(IntArrayRef sizes);
/// Wraps dim `d` for a tensor of rank `rank` (negative from the end);
/// IndexError "Dimension out of range (expected to be in range of [-2, 1], but got 5)".
[[nodiscard]] WICK_API std::int64_t wrap_dim(std::int64_t d, std::int64_t rank);

namespace detail {
/// What the TensorOptions overloads of the creation functions do after
/// making the tensor: requires_grad.
inline Tensor finish_options(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}
/// from_blob without requires_grad (core/tensor.cpp).
[[nodiscard]] WICK_API Tensor wrap_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                                        std::function<void(void*)> deleter, ScalarType dtype, Device device);
}  // namespace detail


/// A tensor over memory the caller owns (no copy), as libtorch's from_blob:
/// `data` holds elements of `options.dtype()` (float32 when unset) on
/// `options.device()` (the CPU when unset) with `strides` (contiguous when
/// left out). `deleter(data)` runs when the last tensor or view over the
/// memory goes; without one the caller keeps the memory alive for that long.
/// RuntimeError for a null `data` with elements, a negative size or stride,
/// or an extent that overflows. `options.requires_grad()` makes the result a
/// leaf that requires grad.
[[nodiscard]] inline Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                                      std::function<void(void*)> deleter, const TensorOptions& options = {}) {
  return detail::finish_options(
      detail::wrap_blob(data, sizes, strides, std::move(deleter), options.dtype(), options.device()), options);
}
/// from_blob with contiguous strides and no deleter (see the full overload for errors).
[[nodiscard]] inline Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {}) {
  return from_blob(data, sizes, contiguous_strides(sizes), {}, options);
}
/// from_blob with explicit strides and no deleter (see the full overload for errors).
[[nodiscard]] inline Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides,
                                      const TensorOptions& options = {}) {
  return from_blob(data, sizes, strides, {}, options);
}
/// from_blob with contiguous strides and a deleter (see the full overload for errors).
[[nodiscard]] inline Tensor from_blob(void* data, IntArrayRef sizes, std::function<void(void*)> deleter,
                                      const TensorOptions& options = {}) {
  return from_blob(data, sizes, contiguous_strides(sizes), std::move(deleter), options);
}

}  // namespace wick

#include "wick/indexing.h"  // IWYU pragma: export (TensorIndex for Tensor::index)
