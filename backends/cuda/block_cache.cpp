// backends/cuda/block_cache.cpp - the caching device allocator's bookkeeping (Note [Caching device allocator]).
/// \file
#include "block_cache.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace wick::cuda_backend {

namespace {
constexpr std::size_t kMinBlock = 512;
}  // namespace

std::size_t block_size_class(std::size_t nbytes) {
  if (nbytes < 4096) return (nbytes + kMinBlock - 1) / kMinBlock * kMinBlock;
  const std::size_t step = std::bit_floor(nbytes) / 8;
  return (nbytes + step - 1) / step * step;
}

BlockCache::BlockCache(BlockDriver& driver, int devices)
    : driver_(driver), devices_(static_cast<std::size_t>(devices)) {}

BlockCache::~BlockCache() {
  for (Pending& p : pending_)
    for (void* e : p.events) driver_.release(e);
}

void* BlockCache::allocate(int device, std::size_t nbytes, void* stream) {
  if (nbytes == 0) return nullptr;
  const std::size_t rounded = block_size_class(nbytes);
  auto capture = capturing_.find(stream);
  const PoolId pool = capture == capturing_.end() ? 0 : capture->second;
  // Querying events is not allowed on a thread that captures a graph.
  if (pool == 0 && !pending_.empty()) collect_pending(/*wait=*/false);
  Device& d = devices_[static_cast<std::size_t>(device)];
  ++d.stats.allocations;
  void* p = nullptr;
  auto it = d.cached.find({pool, stream, rounded});
  if (it != d.cached.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
    ++d.stats.cache_hits;
  } else {
    p = driver_.malloc(device, rounded);
    if (p == nullptr) {
      free_cached(device, 0);
      p = driver_.malloc(device, rounded);
      if (p == nullptr) return nullptr;
    }
    ++d.stats.device_allocations;
    d.stats.reserved_bytes += rounded;
    d.stats.peak_reserved_bytes = std::max(d.stats.peak_reserved_bytes, d.stats.reserved_bytes);
  }
  live_.emplace(p, Live{device, pool, stream, rounded, {}});
  d.stats.allocated_bytes += rounded;
  d.stats.peak_allocated_bytes = std::max(d.stats.peak_allocated_bytes, d.stats.allocated_bytes);
  return p;
}

void BlockCache::free(void* block) {
  auto it = live_.find(block);
  if (it == live_.end()) return;  // not ours: never happens for storages made by this allocator
  Live l = std::move(it->second);
  live_.erase(it);
  devices_[static_cast<std::size_t>(l.device)].stats.allocated_bytes -= l.size;
  if (l.used_on.empty()) {
    cache(block, l);
    return;
  }
  Pending p{block, {}, {}};
  for (void* s : l.used_on) p.events.push_back(driver_.record(l.device, s));
  p.live = std::move(l);
  pending_.push_back(std::move(p));
}

bool BlockCache::record_stream(void* block, void* stream) {
  auto it = live_.find(block);
  if (it == live_.end()) return false;
  Live& l = it->second;
  if (stream != l.stream && std::find(l.used_on.begin(), l.used_on.end(), stream) == l.used_on.end())
    l.used_on.push_back(stream);
  return true;
}

void BlockCache::cache(void* block, const Live& l) {
  // A block of a released graph's pool joins the shared cache.
  const bool pool_alive = l.pool == 0 || pools_.contains(l.pool);
  devices_[static_cast<std::size_t>(l.device)].cached[{pool_alive ? l.pool : 0, l.stream, l.size}].push_back(block);
}

void BlockCache::collect_pending(bool wait) {
  std::vector<Pending> still;
  for (Pending& p : pending_) {
    bool finished = true;
    for (void* e : p.events) {
      if (wait) driver_.wait(e);
      if (!wait && !driver_.done(e)) {
        finished = false;
        break;
      }
    }
    if (!finished) {
      still.push_back(std::move(p));
      continue;
    }
    for (void* e : p.events) driver_.release(e);
    cache(p.block, p.live);
  }
  pending_ = std::move(still);
}

void BlockCache::free_cached(int device, PoolId pool) {
  Device& d = devices_[static_cast<std::size_t>(device)];
  for (auto it = d.cached.begin(); it != d.cached.end();) {
    if (std::get<0>(it->first) != pool) {
      ++it;
      continue;
    }
    for (void* p : it->second) {
      driver_.free(device, p);
      ++d.stats.device_frees;
      d.stats.reserved_bytes -= std::get<2>(it->first);
    }
    it = d.cached.erase(it);
  }
}

void BlockCache::empty_cache() {
  collect_pending(/*wait=*/true);
  for (std::size_t d = 0; d < devices_.size(); ++d) free_cached(static_cast<int>(d), 0);
}

PoolId BlockCache::begin_pool(void* stream) {
  const PoolId pool = next_pool_++;
  pools_.insert(pool);
  capturing_[stream] = pool;
  return pool;
}

void BlockCache::end_pool(void* stream) { capturing_.erase(stream); }

void BlockCache::release_pool(PoolId pool) {
  pools_.erase(pool);  // blocks of it still live join the shared cache when freed
  for (auto it = capturing_.begin(); it != capturing_.end();) it = it->second == pool ? capturing_.erase(it) : ++it;
  for (std::size_t d = 0; d < devices_.size(); ++d) free_cached(static_cast<int>(d), pool);
}

DeviceMemoryStats BlockCache::stats(int device) const { return devices_.at(static_cast<std::size_t>(device)).stats; }

void BlockCache::reset_peak(int device) {
  DeviceMemoryStats& s = devices_.at(static_cast<std::size_t>(device)).stats;
  s.peak_allocated_bytes = s.allocated_bytes;
  s.peak_reserved_bytes = s.reserved_bytes;
}

}  // namespace wick::cuda_backend
