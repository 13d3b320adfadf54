// core/distributed/store.cpp - the Store helpers, HashStore (in memory) and PrefixStore.
/// \file
#include "wick/distributed_store.h"

#include <condition_variable>
#include <map>
#include <mutex>

#include "store_keys.h"

namespace wick::distributed {

void Store::set(const std::string& key, std::string_view value) {
  set(key, std::vector<std::uint8_t>(value.begin(), value.end()));
}

std::string Store::get_string(const std::string& key) {
  const auto bytes = get(key);
  return {bytes.begin(), bytes.end()};
}

// --- HashStore -----------------------------------------------------------------

struct HashStore::Impl {
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::string, std::vector<std::uint8_t>> values;
};

HashStore::HashStore(std::chrono::milliseconds timeout) : Store(timeout), impl_(std::make_unique<Impl>()) {}
HashStore::~HashStore() = default;

void HashStore::set(const std::string& key, const std::vector<std::uint8_t>& value) {
  {
    const std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->values[key] = value;
  }
  impl_->changed.notify_all();
}

std::vector<std::uint8_t> HashStore::get(const std::string& key) {
  wait({key}, timeout());
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->values.at(key);
}

std::int64_t HashStore::add(const std::string& key, std::int64_t delta) {
  std::int64_t sum = 0;
  {
    const std::lock_guard<std::mutex> lock(impl_->mutex);
    auto& v = impl_->values[key];
    sum = add_to_counter(v, delta, key);
  }
  impl_->changed.notify_all();
  return sum;
}

void HashStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  const auto all_there = [&] {
    for (const auto& k : keys) {
      if (impl_->values.count(k) == 0) return false;
    }
    return true;
  };
  if (!impl_->changed.wait_for(lock, timeout, all_there)) {
    std::vector<std::string> missing;
    for (const auto& k : keys) {
      if (impl_->values.count(k) == 0) missing.push_back(k);
    }
    throw_wait_timeout(missing, timeout, "a HashStore");
  }
}

bool HashStore::check(const std::vector<std::string>& keys) {
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  for (const auto& k : keys) {
    if (impl_->values.count(k) == 0) return false;
  }
  return true;
}

bool HashStore::delete_key(const std::string& key) {
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->values.erase(key) > 0;
}

std::int64_t HashStore::num_keys() {
  const std::lock_guard<std::mutex> lock(impl_->mutex);
  return static_cast<std::int64_t>(impl_->values.size());
}

// --- PrefixStore -----------------------------------------------------------------

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : Store(store != nullptr ? store->timeout() : kDefaultTimeout), prefix_(std::move(prefix)), store_(std::move(store)) {
  WICK_CHECK(store_ != nullptr, ValueError, "PrefixStore: store must not be null");
}

void PrefixStore::set(const std::string& k, const std::vector<std::uint8_t>& value) { store_->set(key(k), value); }
std::vector<std::uint8_t> PrefixStore::get(const std::string& k) { return store_->get(key(k)); }
std::int64_t PrefixStore::add(const std::string& k, std::int64_t delta) { return store_->add(key(k), delta); }

void PrefixStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  std::vector<std::string> full;
  full.reserve(keys.size());
  for (const auto& k : keys) full.push_back(key(k));
  store_->wait(full, timeout);
}

bool PrefixStore::check(const std::vector<std::string>& keys) {
  std::vector<std::string> full;
  full.reserve(keys.size());
  for (const auto& k : keys) full.push_back(key(k));
  return store_->check(full);
}

bool PrefixStore::delete_key(const std::string& k) { return store_->delete_key(key(k)); }
std::int64_t PrefixStore::num_keys() { return store_->num_keys(); }

}  // namespace wick::distributed
