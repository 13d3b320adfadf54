// tools/bench/peak_memory.h - peak resident memory of one piece of work, for the memory benchmarks.
/// \file
/// Linux keeps a process's high-water mark of resident memory (VmHWM in
/// /proc/self/status); writing "5" to /proc/self/clear_refs resets it to
/// the current resident size. So the peak of some work is VmHWM after it
/// minus VmRSS before it, measured after both sides gave freed memory back
/// to the system (each benchmark empties its caches and calls malloc_trim
/// first), so neither side is credited with memory it already held.
#pragma once

#include <malloc.h>

#include <fstream>
#include <string>

namespace wick_bench {

// A field of /proc/self/status in bytes ("VmRSS", "VmHWM").
inline long status_bytes(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1)) * 1024;  // kB
  }
  return -1;
}

// Bytes by which resident memory rose above its starting point while fn ran.
template <typename Fn>
long peak_growth(Fn&& fn) {
  malloc_trim(0);
  { std::ofstream("/proc/self/clear_refs") << "5"; }
  const long before = status_bytes("VmRSS");
  fn();
  return status_bytes("VmHWM") - before;
}

}  // namespace wick_bench
