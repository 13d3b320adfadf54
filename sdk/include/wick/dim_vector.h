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

class DimVector final {
 public:
  static constexpr std::size_t kInline = 5;

  DimVector() noexcept = default;
  explicit DimVector(std::size_t n, std::int64_t value = 0) { resize(n, value); }
  DimVector(IntArrayRef r) { assign(r); }  // NOLINT(implicit)
  DimVector(std::initializer_list<std::int64_t> il) { assign(IntArrayRef(il)); }
  DimVector(const DimVector& o) { assign(o.ref()); }
  DimVector(DimVector&& o) noexcept { *this = std::move(o); }
  DimVector& operator=(const DimVector& o) {
    if (this != &o) assign(o.ref());
    return *this;
  }
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

  void assign(IntArrayRef r) {
    reserve(r.size());
    if (!r.empty()) std::memmove(data(), r.data(), r.size() * sizeof(std::int64_t));
    size_ = r.size();
  }
  void resize(std::size_t n, std::int64_t value = 0) {
    reserve(n);
    for (std::size_t i = size_; i < n; ++i) data()[i] = value;
    size_ = n;
  }
  void push_back(std::int64_t v) {
    // Doubles, up to the bound; one past it throws.
    if (size_ == capacity_) reserve(std::max(std::min(capacity_ * 2, std::size_t{kMaxListLength}), capacity_ + 1));
    data()[size_++] = v;
  }
  void insert(std::size_t pos, std::int64_t v) {
    push_back(0);
    std::int64_t* d = data();
    std::memmove(d + pos + 1, d + pos, (size_ - 1 - pos) * sizeof(std::int64_t));
    d[pos] = v;
  }
  void erase(std::size_t pos) {
    std::int64_t* d = data();
    std::memmove(d + pos, d + pos + 1, (size_ - pos - 1) * sizeof(std::int64_t));
    --size_;
  }
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    if (n > static_cast<std::size_t>(kMaxListLength)) [[unlikely]]
      detail::throw_list_too_long("DimVector", n);
    auto fresh = std::make_unique<std::int64_t[]>(n);
    if (size_) std::memcpy(fresh.get(), data(), size_ * sizeof(std::int64_t));
    heap_ = std::move(fresh);
    capacity_ = n;
  }

  [[nodiscard]] std::int64_t* data() noexcept { return heap_ ? heap_.get() : inline_; }
  [[nodiscard]] const std::int64_t* data() const noexcept { return heap_ ? heap_.get() : inline_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  std::int64_t& operator[](std::size_t i) noexcept { return data()[i]; }
  std::int64_t operator[](std::size_t i) const noexcept { return data()[i]; }
  std::int64_t& back() noexcept { return data()[size_ - 1]; }
  [[nodiscard]] std::int64_t back() const noexcept { return data()[size_ - 1]; }
  [[nodiscard]] IntArrayRef ref() const noexcept { return {data(), size_}; }
  operator IntArrayRef() const noexcept { return ref(); }  // NOLINT(implicit)
  std::int64_t* begin() noexcept { return data(); }
  std::int64_t* end() noexcept { return data() + size_; }
  const std::int64_t* begin() const noexcept { return data(); }
  const std::int64_t* end() const noexcept { return data() + size_; }
  bool operator==(const DimVector& o) const noexcept { return ref().equals(o.ref()); }

 private:
  std::int64_t inline_[kInline] = {};
  std::unique_ptr<std::int64_t[]> heap_;
  std::size_t size_ = 0;
  std::size_t capacity_ = kInline;
};

}  // namespace wick
