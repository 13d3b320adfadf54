// plugins/loader/mapping.cpp - whether a library file is still mapped into this process.
/// \file
/// Two witnesses, either of which is enough: the kernel's list of this
/// process's mappings (/proc/self/maps, by device and inode, so a file
/// renamed over or deleted since is still recognised) and the dynamic
/// linker's list of loaded objects (dl_iterate_phdr, by the name given to
/// dlopen; what is left where /proc is not mounted).
#include "plugins/loader/mapping.h"

#include <link.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace wick::detail {

std::optional<FileIdentity> identity_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
                      static_cast<std::uint64_t>(st.st_size),
                      static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

namespace {

// A line of /proc/self/maps: "start-end perms offset major:minor inode path".
bool maps_line_is(const std::string& line, const FileIdentity& id) {
  unsigned major_dev = 0;
  unsigned minor_dev = 0;
  std::uint64_t inode = 0;
  if (std::sscanf(line.c_str(), "%*s %*s %*s %x:%x %" SCNu64, &major_dev, &minor_dev, &inode) != 3) return false;
  return inode != 0 && inode == id.inode && ::makedev(major_dev, minor_dev) == id.device;
}

bool in_proc_maps(const FileIdentity& id) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (maps_line_is(line, id)) return true;
  return false;
}

bool in_link_map(const std::string& link_name) {
  auto visit = [](dl_phdr_info* info, std::size_t, void* data) -> int {
    return info->dlpi_name != nullptr && *static_cast<const std::string*>(data) == info->dlpi_name ? 1 : 0;
  };
  return ::dl_iterate_phdr(visit, const_cast<std::string*>(&link_name)) != 0;
}

}  // namespace

bool is_mapped(const FileIdentity& id, const std::string& link_name) {
  return in_proc_maps(id) || (!link_name.empty() && in_link_map(link_name));
}

}  // namespace wick::detail
