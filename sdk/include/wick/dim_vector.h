// wick/dim_vector.h - sizes and strides with inline storage for small ranks.
/// \file
/// Tensors of rank <= 5 keep sizes and strides inside the TensorImpl: making
/// a small tensor costs no extra allocation for its shape. A DimVector holds
/// at most `kMaxListLength` entries (wick/checked.h): asking for more, as a
/// count taken from a caller might, is a RuntimeError, not an allocation of
/// SIZE_MAX elements.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "wick/array_ref.h"
#include "wick/checked.h"

namespace wick {

/// A vector of int64 (sizes, strides, dims) that keeps up to kInline entries inline and more on the heap; RuntimeError past kMaxListLength entries.
class DimVector final {
 public:
  /// Entries held without a heap allocation.
  static constexpr std::size_t kInline = 5;

  DimVector() noexcept = default;
  /// `n` entries equal to `value` (default 0); RuntimeError when `n` exceeds kMaxListLength.
  explicit DimVector(std::size_t n, std::int64_t value = 0) { resize(n, value); }
  /// A copy of `r`.
  DimVector(IntArrayRef r) { assign(r); }  // NOLINT(implicit)
  /// The listed values.
  DimVector(std::initializer_list<std::int64_t> il) { assign(IntArrayRef(il)); }
  /// A copy of `o`.
  DimVector(const DimVector& o) { assign(o.ref()); }
  /// Takes `o`'s entries; `o` is left empty.
  DimVector(DimVector&& o) noexcept { *this = std::move(o); }
  /// Copies `o`'s entries.
  DimVector& operator=(const DimVector& o) {
    if (this != &o) assign(o.ref());
    return *this;
  }
  /// Takes `o`'s entries; `o` is left empty.
  DimVector& operator=(DimVector&& o) noexcept {
    if (this == &o) return *this;
    heap_ = std::move(o.heap_);
    size_ = o.size_;
    capacity_ = o.capacity_;
    if (!heap_) std::memcpy(inline_, o.inline_, sizeof inline_);
    o.size_ = 0;
    o.capacity_ = kInline;
    return *this;
  }

  /// Replaces the contents with a copy of `r` (which may alias this vector).
  void assign(IntArrayRef r) {
    reserve(r.size());
    if (!r.empty()) std::memmove(data(), r.data(), r.size() * sizeof(std::int64_t));
    size_ = r.size();
  }
  /// Sets the size to `n`, filling new entries with `value` (default 0); RuntimeError past kMaxListLength.
  void resize(std::size_t n, std::int64_t value = 0) {
    reserve(n);
    for (std::size_t i = size_; i < n; ++i) data()[i] = value;
    size_ = n;
  }
  /// Appends `v`; RuntimeError when the vector already holds kMaxListLength entries.
  void push_back(std::int64_t v) {
    // Doubles, up to the bound; one past it throws.
    if (size_ == capacity_) reserve(std::max(std::min(capacity_ * 2, std::size_t{kMaxListLength}), capacity_ + 1));
    data()[size_++] = v;
  }
  /// Inserts `v` before entry `pos` (pos <= size(), not checked).
  void insert(std::size_t pos, std::int64_t v) {
    push_back(0);
    std::int64_t* d = data();
    std::memmove(d + pos + 1, d + pos, (size_ - 1 - pos) * sizeof(std::int64_t));
    d[pos] = v;
  }
  /// Removes entry `pos` (pos < size(), not checked).
  void erase(std::size_t pos) {
    std::int64_t* d = data();
    std::memmove(d + pos, d + pos + 1, (size_ - pos - 1) * sizeof(std::int64_t));
    --size_;
  }
  /// Makes room for `n` entries without changing the size; RuntimeError past kMaxListLength.
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    if (n > static_cast<std::size_t>(kMaxListLength)) [[unlikely]]
      detail::throw_list_too_long("DimVector", n);
    auto fresh = std::make_unique<std::int64_t[]>(n);
    if (size_) std::memcpy(fresh.get(), data(), size_ * sizeof(std::int64_t));
    heap_ = std::move(fresh);
    capacity_ = n;
  }

  /// Address of the first entry.
  [[nodiscard]] std::int64_t* data() noexcept { return heap_ ? heap_.get() : inline_; }
  /// Address of the first entry.
  [[nodiscard]] const std::int64_t* data() const noexcept { return heap_ ? heap_.get() : inline_; }
  /// Number of entries.
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// True when there are no entries.
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  /// Entry `i` (not checked).
  std::int64_t& operator[](std::size_t i) noexcept { return data()[i]; }
  /// Entry `i` (not checked).
  std::int64_t operator[](std::size_t i) const noexcept { return data()[i]; }
  /// The last entry (the vector must not be empty).
  std::int64_t& back() noexcept { return data()[size_ - 1]; }
  /// The last entry (the vector must not be empty).
  [[nodiscard]] std::int64_t back() const noexcept { return data()[size_ - 1]; }
  /// A view of the entries (valid until the vector changes).
  [[nodiscard]] IntArrayRef ref() const noexcept { return {data(), size_}; }
  /// A view of the entries (valid until the vector changes).
  operator IntArrayRef() const noexcept { return ref(); }  // NOLINT(implicit)
  /// Iterator to the first entry.
  std::int64_t* begin() noexcept { return data(); }
  /// Iterator past the last entry.
  std::int64_t* end() noexcept { return data() + size_; }
  /// Iterator to the first entry.
  const std::int64_t* begin() const noexcept { return data(); }
  /// Iterator past the last entry.
  const std::int64_t* end() const noexcept { return data() + size_; }
  /// Equal when the entries are.
  bool operator==(const DimVector& o) const noexcept { return ref().equals(o.ref()); }

 private:
  std::int64_t inline_[kInline] = {};
  std::unique_ptr<std::int64_t[]> heap_;
  std::size_t size_ = 0;
  std::size_t capacity_ = kInline;
};

}  // namespace wick
