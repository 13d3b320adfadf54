// wick/storage.h - storage, allocators and the version counter.
/// \file
/// A `Storage` is a ref-counted block of device memory. Views share one
/// storage; every in-place operation bumps the storage's version counter,
/// which autograd uses to detect a saved tensor modified in place.
///
/// Each device type has one `Allocator`. The CPU allocator (64-byte aligned)
/// is built into libwick; backend plugins register theirs.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "wick/device.h"
#include "wick/export.h"
#include "wick/intrusive_ptr.h"

namespace wick {

/// The memory source of one device type (c10::Allocator): backends install one with set_allocator.
class WICK_API Allocator {
 public:
  virtual ~Allocator() = default;
  /// Returns memory for `nbytes` (nullptr allowed for 0); throws RuntimeError
  /// ("out of memory") on failure.
  virtual void* allocate(std::size_t nbytes) = 0;
  /// Returns memory from `allocate(nbytes)` (the same `nbytes`).
  virtual void deallocate(void* ptr, std::size_t nbytes) noexcept = 0;
  /// Memory on one device of the allocator's type (`device` has its index
  /// resolved); storages allocate through this (optional; default
  /// `allocate(nbytes)`, for device types with one device).
  virtual void* allocate_on(std::size_t nbytes, Device device) {
    (void)device;
    return allocate(nbytes);
  }
};

/// Alignment of every CPU allocation (bytes).
inline constexpr std::size_t kCpuAlignment = 64;

/// Gives the CPU allocator's cached large blocks back to the system. Freed
/// blocks of 128 KiB or more are kept (up to 512 MiB in all) and reused for
/// allocations of about the same size, so repeated shapes do not fault in
/// fresh pages on every call (torch.cuda.empty_cache, for the CPU).
WICK_API void empty_cpu_cache();
/// Bytes the CPU allocator holds in freed large blocks, ready for reuse.
[[nodiscard]] WICK_API std::size_t cpu_cached_bytes();

/// Installs the allocator for a device type (backends do this in `init`);
/// nullptr removes it. The allocator must outlive every storage it made.
WICK_API void set_allocator(DeviceType type, Allocator* allocator);
/// The device type's allocator; throws RuntimeError naming the device when none.
[[nodiscard]] WICK_API Allocator& get_allocator(DeviceType type);

/// A block of device memory shared by tensors and their views, with the version counter in-place ops bump.
class WICK_API StorageImpl final : public RefCounted {
 public:
  /// Allocates `nbytes` on `device` with that device type's allocator; a
  /// device without an index gets the current one (resolve_device).
  StorageImpl(std::size_t nbytes, Device device);
  /// Wraps external memory; `deleter(ctx, data)` runs on destruction (optional).
  StorageImpl(void* data, std::size_t nbytes, Device device, void (*deleter)(void*, void*), void* ctx);
  ~StorageImpl() override;

  /// Address of the memory (may be nullptr for 0 bytes, and is on the meta device).
  [[nodiscard]] void* data() const noexcept { return data_; }
  /// Size in bytes.
  [[nodiscard]] std::size_t nbytes() const noexcept { return nbytes_; }
  /// The device the memory is on.
  [[nodiscard]] Device device() const noexcept { return device_; }
  /// The version counter: how many in-place writes went to this storage (autograd checks it for saved tensors).
  [[nodiscard]] std::uint32_t version() const noexcept { return version_.load(std::memory_order_relaxed); }
  /// Counts one more in-place write.
  void bump_version() noexcept { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  void* data_;
  std::size_t nbytes_;
  Device device_;
  Allocator* allocator_;  // null for external memory
  void (*deleter_)(void*, void*) = nullptr;
  void* deleter_ctx_ = nullptr;
  std::atomic<std::uint32_t> version_{0};
};

/// A counted reference to a StorageImpl.
using Storage = IntrusivePtr<StorageImpl>;

}  // namespace wick
