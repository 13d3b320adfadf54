// plugins/loader/mapping.h - whether a library file is still mapped into this process (private to the loader).
/// \file
/// See Note [Unloading unmaps] in loader.cpp for why the loader asks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace wick::detail {

/// A file as the kernel knows it (device and inode) and what tells one build
/// from the next at the same path (size and modification time).
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;

  [[nodiscard]] bool same_file(const FileIdentity& other) const noexcept {
    return device == other.device && inode == other.inode;
  }
  bool operator==(const FileIdentity&) const = default;
};

/// The identity of the file at `path` now; nullopt when it cannot be stat'ed.
[[nodiscard]] std::optional<FileIdentity> identity_of(const std::string& path);

/// True while the file `id` is mapped into this process (/proc/self/maps
/// lists its device and inode) or the dynamic linker still has an object
/// loaded under `link_name` (the path given to dlopen).
[[nodiscard]] bool is_mapped(const FileIdentity& id, const std::string& link_name);

}  // namespace wick::detail
