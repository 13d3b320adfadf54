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
  /// How many IntrusivePtrs hold this object now (a relaxed read: exact only when no other thread copies or drops one).
  [[nodiscard]] std::int64_t use_count() const noexcept { return refs_.load(std::memory_order_relaxed); }

 private:
  template <typename T> friend class IntrusivePtr;
  mutable std::atomic<std::int64_t> refs_{0};
};

/// An owning pointer to a RefCounted T (as c10::intrusive_ptr): the count lives in the object, so a copy is one atomic increment. Null by default.
template <typename T>
class IntrusivePtr final {
 public:
  constexpr IntrusivePtr() noexcept = default;
  /// Takes a reference to `p` (which may be null or already held by other IntrusivePtrs).
  explicit IntrusivePtr(T* p) noexcept : p_(p) { retain(); }
  /// Shares `o`'s object (one more reference).
  IntrusivePtr(const IntrusivePtr& o) noexcept : p_(o.p_) { retain(); }
  /// Takes `o`'s reference; `o` becomes null.
  IntrusivePtr(IntrusivePtr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  /// Shares `o`'s object, dropping the current one.
  IntrusivePtr& operator=(const IntrusivePtr& o) noexcept {
    IntrusivePtr(o).swap(*this);
    return *this;
  }
  /// Takes `o`'s reference, dropping the current one; `o` becomes null.
  IntrusivePtr& operator=(IntrusivePtr&& o) noexcept {
    IntrusivePtr(std::move(o)).swap(*this);
    return *this;
  }
  ~IntrusivePtr() { release(); }

  /// A new T built from `args`, held by the result (what std::make_shared is to shared_ptr).
  template <typename... Args>
  static IntrusivePtr make(Args&&... args) { return IntrusivePtr(new T(std::forward<Args>(args)...)); }

  /// Exchanges the objects of two pointers (no count changes).
  void swap(IntrusivePtr& o) noexcept { std::swap(p_, o.p_); }
  /// The object, or nullptr.
  [[nodiscard]] T* get() const noexcept { return p_; }
  /// Member access (the pointer must not be null).
  T* operator->() const noexcept { return p_; }
  /// The object (the pointer must not be null).
  T& operator*() const noexcept { return *p_; }
  /// True when not null.
  explicit operator bool() const noexcept { return p_ != nullptr; }
  /// True when both hold the same object (or both are null).
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
