// wick/intrusive_ptr.h - the reference-counted handle behind Tensor and Storage.
/// \file
/// One atomic count inside the object, one pointer in the handle: copying a
/// `Tensor` is an atomic increment, never an allocation.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace wick {

/// Base for intrusively counted objects. Objects start with a count of 0 and
/// are deleted (virtually) when the last IntrusivePtr lets go.
class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;
  virtual ~RefCounted() = default;
  [[nodiscard]] std::int64_t use_count() const noexcept { return refs_.load(std::memory_order_relaxed); }

 private:
  template <typename T> friend class IntrusivePtr;
  mutable std::atomic<std::int64_t> refs_{0};
};

template <typename T>
class IntrusivePtr final {
 public:
  constexpr IntrusivePtr() noexcept = default;
  explicit IntrusivePtr(T* p) noexcept : p_(p) { retain(); }
  IntrusivePtr(const IntrusivePtr& o) noexcept : p_(o.p_) { retain(); }
  IntrusivePtr(IntrusivePtr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  IntrusivePtr& operator=(const IntrusivePtr& o) noexcept {
    IntrusivePtr(o).swap(*this);
    return *this;
  }
  IntrusivePtr& operator=(IntrusivePtr&& o) noexcept {
    IntrusivePtr(std::move(o)).swap(*this);
    return *this;
  }
  ~IntrusivePtr() { release(); }

  template <typename... Args>
  static IntrusivePtr make(Args&&... args) { return IntrusivePtr(new T(std::forward<Args>(args)...)); }

  void swap(IntrusivePtr& o) noexcept { std::swap(p_, o.p_); }
  [[nodiscard]] T* get() const noexcept { return p_; }
  T* operator->() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  bool operator==(const IntrusivePtr& o) const noexcept { return p_ == o.p_; }

 private:
  void retain() noexcept {
    if (p_) p_->refs_.fetch_add(1, std::memory_order_relaxed);
  }
  void release() noexcept {
    if (p_ && p_->refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete p_;
  }
  T* p_ = nullptr;
};

}  // namespace wick
