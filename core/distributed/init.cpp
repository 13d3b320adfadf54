// core/distributed/init.cpp - init_process_group (env://, tcp://, a store), new_group, destroy_process_group.
/// \file
/// Note [Rendezvous]
/// Every process connects to the job's store and claims its rank there
/// (two processes claiming one rank is an error naming it), records its
/// world size, and waits for rank 0's: a process started with another world
/// size fails at once naming both. It then waits for every rank up to the
/// timeout; those that never came are named. Only then are the engines
/// created, which connect the ranks to each other through the group's keys.
/// Keys carry a generation number, counted by each process's inits, so a
/// job that destroys its group and initialises again on the same store
/// never reads the keys of the earlier group.
#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <set>
#include <sstream>

#include "core/distributed/process_group_internal.h"
#include "wick/log.h"

namespace wick::distributed {

namespace {

struct World {
  std::mutex mutex;
  std::shared_ptr<ProcessGroup> default_group;
  std::vector<std::shared_ptr<ProcessGroup>> groups;
  std::shared_ptr<Store> store;
  std::string generation;  // "g<n>/": the key prefix of this init (Note [Rendezvous])
  int rank = -1;
  int world_size = 0;
  int groups_made = 0;
  std::int64_t inits = 0;
};

World& world() {
  static auto* w = new World();  // never destroyed: AtExit may run after this file's statics
  return *w;
}

/// The destructor of a process that exits without destroy_process_group
/// still stops the groups' threads and says goodbye to the store.
struct AtExit {
  ~AtExit() {
    try {
      destroy_process_group();
    } catch (...) {  // NOLINT(bugprone-empty-catch): nothing to report to at exit
    }
  }
};

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

int env_int(const char* name, const std::string& method) {
  const char* v = env(name);
  WICK_CHECK(v != nullptr, ValueError, "Error initializing torch.distributed using ", method, " rendezvous: environment variable ",
             name, " expected, but not set");
  try {
    std::size_t used = 0;
    const int out = std::stoi(v, &used);
    if (used == std::string(v).size()) return out;
  } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): reported below
  }
  throw ValueError(std::string("Error initializing torch.distributed: environment variable ") + name +
                   " must be an integer, got '" + v + "'");
}

/// The world size another rank published under `key` in the store: its
/// decimal text. Anything else (a store shared with another program, a
/// corrupted value) is a DistributedError naming the key, not a parse
/// exception of the standard library.
int published_world_size(Store& store, const std::string& key) {
  const std::string text = store.get_string(key);
  int out = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  WICK_CHECK(ec == std::errc() && end == text.data() + text.size() && out > 0, DistributedError,
             "init_process_group: the store holds '", text.size() > 64 ? text.substr(0, 64) + "..." : text, "' under '", key,
             "', not a world size: is another job using the same store (MASTER_ADDR, MASTER_PORT)?");
  return out;
}

/// Parses "gloo" or "cpu:gloo,cuda:nccl" into device type -> engine name.
std::map<DeviceType, std::string> parse_backend(const std::string& backend) {
  std::map<DeviceType, std::string> out;
  std::string text = backend;
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  WICK_CHECK(!text.empty(), ValueError, "init_process_group: backend must be a name such as 'gloo' or 'nccl'");
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    const auto colon = item.find(':');
    const std::string name = colon == std::string::npos ? item : item.substr(colon + 1);
    const auto found = find_engine(name);
    if (!found) {
      std::string known;
      for (const auto& e : registered_engines()) known += (known.empty() ? "" : "; ") + e;
      throw ValueError("Invalid backend: '" + name + "': no loaded plugin provides a collective engine of that name (" +
                       (known.empty() ? std::string("none is registered; is the gloo plugin installed, and wick::init() called?")
                                      : "registered: " + known) +
                       ")");
    }
    if (colon == std::string::npos) {
      for (const DeviceType t : found->first) out.emplace(t, name);
    } else {
      const DeviceType t = Device::parse(item.substr(0, colon)).type();
      WICK_CHECK(std::find(found->first.begin(), found->first.end(), t) != found->first.end(), ValueError,
                 "init_process_group: engine '", name, "' does not move ", item.substr(0, colon), " tensors");
      out[t] = name;
    }
  }
  return out;
}

/// A group of `global_ranks` (sorted), this process being `rank` in it.
std::shared_ptr<ProcessGroup> make_group(const std::string& name, const std::string& backend, int rank,
                                         std::vector<int> global_ranks, std::chrono::milliseconds timeout,
                                         const std::shared_ptr<Store>& job_store, const std::string& generation) {
  auto impl = std::make_unique<ProcessGroup::Impl>();
  impl->name = name;
  impl->backend = backend;
  impl->rank = rank;
  impl->size = static_cast<int>(global_ranks.size());
  impl->global_ranks = std::move(global_ranks);
  impl->timeout = timeout;
  impl->job_store = job_store;
  impl->store = std::make_shared<PrefixStore>(generation + name, job_store);
  // One engine per distinct engine name, shared by its device types.
  std::map<std::string, std::shared_ptr<Engine>> made;
  for (const auto& [type, engine_name] : parse_backend(backend)) {
    auto& engine = made[engine_name];
    if (engine == nullptr) {
      const auto found = find_engine(engine_name);
      WICK_CHECK(found.has_value(), ValueError, "Invalid backend: '", engine_name, "'");
      EngineOptions options;
      options.store = std::make_shared<PrefixStore>(generation + name + "/" + engine_name, job_store);
      options.rank = impl->rank;
      options.size = impl->size;
      options.global_ranks = impl->global_ranks;
      options.timeout = timeout;
      options.group_name = name;
      options.device_type = type;
      if (auto* tcp = dynamic_cast<TCPStore*>(job_store.get())) options.address = tcp->local_address();
      try {
        engine = std::shared_ptr<Engine>(found->second(options));
      } catch (const Error&) {
        throw;
      } catch (const std::exception& e) {
        throw DistributedError("init_process_group: engine '" + engine_name + "' could not connect rank " +
                               std::to_string(impl->global_ranks[static_cast<std::size_t>(impl->rank)]) + " of group '" +
                               name + "' to its peers: " + e.what());
      }
      WICK_CHECK(engine != nullptr, RuntimeError, "engine '", engine_name, "' made no engine");
    }
    impl->engines[type] = engine;
  }
  return std::make_shared<ProcessGroup>(std::move(impl));
}

}  // namespace

void init_process_group(const std::string& backend, const InitOptions& options) {
  static AtExit at_exit;
  World& w = world();
  const std::lock_guard<std::mutex> lock(w.mutex);
  WICK_CHECK(w.default_group == nullptr, RuntimeError, "trying to initialize the default process group twice!");
  WICK_CHECK(options.timeout.count() > 0, ValueError, "init_process_group: timeout must be positive");
  parse_backend(backend);  // an unknown engine fails before any rendezvous

  int rank = options.rank;
  int size = options.world_size;
  std::shared_ptr<Store> store = options.store;
  if (store == nullptr) {
    const std::string& method = options.init_method;
    std::string host;
    int port = 0;
    if (method == "env://" || method.empty()) {
      if (rank < 0) rank = env_int("RANK", "env://");
      if (size < 0) size = env_int("WORLD_SIZE", "env://");
      const char* addr = env("MASTER_ADDR");
      WICK_CHECK(addr != nullptr, ValueError,
                 "Error initializing torch.distributed using env:// rendezvous: environment variable MASTER_ADDR expected, but not set");
      host = addr;
      port = env_int("MASTER_PORT", "env://");
    } else if (method.rfind("tcp://", 0) == 0) {
      const std::string rest = method.substr(6);
      const auto colon = rest.rfind(':');
      WICK_CHECK(colon != std::string::npos && colon > 0, ValueError, "init_process_group: init_method '", method,
                 "' must be tcp://host:port");
      host = rest.substr(0, colon);
      if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
      const std::string digits = rest.substr(colon + 1);
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
      WICK_CHECK(ec == std::errc() && end == digits.data() + digits.size() && !digits.empty(), ValueError,
                 "init_process_group: init_method '", method, "' has no port number");
      WICK_CHECK(rank >= 0 && size > 0, ValueError, "init_process_group: tcp:// needs rank and world_size");
    } else {
      throw ValueError("init_process_group: init_method '" + method +
                       "' is not supported: use env://, tcp://host:port, or pass a store");
    }
    WICK_CHECK(size > 0, ValueError, "init_process_group: world_size must be positive, got ", size);
    WICK_CHECK(rank >= 0 && rank < size, ValueError, "Invalid rank ", rank, ", rank should be in the interval [0, ", size - 1, "]");
    store = std::make_shared<TCPStore>(host, port, TCPStoreOptions{.is_master = rank == 0, .world_size = 0, .timeout = options.timeout});
  }
  WICK_CHECK(size > 0, ValueError, "init_process_group: world_size must be positive, got ", size);
  WICK_CHECK(rank >= 0 && rank < size, ValueError, "Invalid rank ", rank, ", rank should be in the interval [0, ", size - 1, "]");

  // Note [Rendezvous]
  const std::int64_t generation = store->add("wick/inits/" + std::to_string(rank), 1);
  const std::string gen = "wick/g" + std::to_string(generation) + "/";
  if (auto* tcp = dynamic_cast<TCPStore*>(store.get())) tcp->register_rank("job", rank);
  WICK_CHECK(store->add(gen + "claimed/" + std::to_string(rank), 1) == 1, DistributedError, "init_process_group: rank ", rank,
             " was claimed by another process: each process needs its own RANK");
  store->set(gen + "world_size/" + std::to_string(rank), std::to_string(size));
  const std::string first = gen + "world_size/0";
  store->wait({first}, options.timeout);
  const int size0 = published_world_size(*store, first);
  WICK_CHECK(size0 == size, DistributedError, "init_process_group: rank ", rank, " was started with world_size ", size,
             ", but rank 0 with world_size ", size0);
  std::vector<std::string> all;
  for (int r = 0; r < size; ++r) all.push_back(gen + "world_size/" + std::to_string(r));
  try {
    store->wait(all, options.timeout);
  } catch (const DistributedError&) {
    std::vector<int> missing;
    for (int r = 0; r < size; ++r) {
      if (!store->check({all[static_cast<std::size_t>(r)]})) missing.push_back(r);
    }
    std::string names;
    for (const int r : missing) names += (names.empty() ? "" : ", ") + std::to_string(r);
    throw DistributedError("init_process_group: timed out after " + std::to_string(options.timeout.count()) + " ms: rank" +
                           (missing.size() == 1 ? " " : "s ") + names + " of world_size " + std::to_string(size) +
                           " never joined");
  }
  for (int r = 1; r < size; ++r) {
    const int other = published_world_size(*store, all[static_cast<std::size_t>(r)]);
    WICK_CHECK(other == size, DistributedError, "init_process_group: rank ", r, " was started with world_size ", other,
               ", but rank 0 with world_size ", size);
  }

  std::vector<int> ranks(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) ranks[static_cast<std::size_t>(r)] = r;
  const std::string name = options.group_name.empty() ? "default_pg" : options.group_name;
  auto group = make_group(name, backend, rank, ranks, options.timeout, store, gen);
  w.store = store;
  w.generation = gen;
  w.rank = rank;
  w.world_size = size;
  w.groups_made = 0;
  w.default_group = group;
  w.groups.push_back(group);
  wick::logging::info("distributed: rank ", rank, " of ", size, " joined process group '", name, "' (", backend, ")");
}

bool is_initialized() {
  World& w = world();
  const std::lock_guard<std::mutex> lock(w.mutex);
  return w.default_group != nullptr;
}

std::shared_ptr<ProcessGroup> default_group() {
  World& w = world();
  const std::lock_guard<std::mutex> lock(w.mutex);
  WICK_CHECK(w.default_group != nullptr, RuntimeError,
             "Default process group has not been initialized, please make sure to call init_process_group.");
  return w.default_group;
}

void destroy_process_group(const std::shared_ptr<ProcessGroup>& group) {
  World& w = world();
  std::vector<std::shared_ptr<ProcessGroup>> stopping;
  std::shared_ptr<Store> store;
  {
    const std::lock_guard<std::mutex> lock(w.mutex);
    if (group == nullptr || group == w.default_group) {
      stopping = std::move(w.groups);
      w.groups.clear();
      w.default_group = nullptr;
      store = std::move(w.store);
      w.store = nullptr;
      w.rank = -1;
      w.world_size = 0;
    } else {
      std::erase(w.groups, group);
      stopping.push_back(group);
    }
  }
  // Pending collectives finish first; then the engines close.
  for (auto& g : stopping) g->impl().stop();
}

int global_rank() {
  World& w = world();
  const std::lock_guard<std::mutex> lock(w.mutex);
  return w.rank;
}

int get_rank(const std::shared_ptr<ProcessGroup>& group) {
  if (group != nullptr) return group->rank();
  return default_group()->rank();
}

int get_world_size(const std::shared_ptr<ProcessGroup>& group) {
  if (group != nullptr) return group->size();
  return default_group()->size();
}

std::string get_backend(const std::shared_ptr<ProcessGroup>& group) {
  return group != nullptr ? group->backend() : default_group()->backend();
}

std::shared_ptr<ProcessGroup> new_group(const std::vector<int>& ranks, std::optional<std::chrono::milliseconds> timeout,
                                        const std::string& backend) {
  const auto base = default_group();
  World& w = world();
  std::string name;
  std::shared_ptr<Store> store;
  std::string gen;
  int me = 0;
  {
    const std::lock_guard<std::mutex> lock(w.mutex);
    name = "group_" + std::to_string(++w.groups_made);  // the same on every rank: all call new_group in order
    store = w.store;
    gen = w.generation;
    me = w.rank;
  }
  std::vector<int> members = ranks;
  if (members.empty()) {
    for (int r = 0; r < base->size(); ++r) members.push_back(r);
  }
  std::sort(members.begin(), members.end());
  for (std::size_t i = 0; i < members.size(); ++i) {
    WICK_CHECK(members[i] >= 0 && members[i] < base->size(), ValueError, "new_group: rank ", members[i],
               " is not in the world of ", base->size(), " ranks");
    WICK_CHECK(i == 0 || members[i] != members[i - 1], ValueError, "new_group: rank ", members[i], " is listed twice");
  }
  const auto it = std::find(members.begin(), members.end(), me);
  if (it == members.end()) return nullptr;  // as PyTorch's GroupMember.NON_GROUP_MEMBER
  auto group = make_group(name, backend.empty() ? base->backend() : backend, static_cast<int>(it - members.begin()), members,
                          timeout.value_or(base->timeout()), store, gen);
  const std::lock_guard<std::mutex> lock(w.mutex);
  w.groups.push_back(group);
  return group;
}

std::shared_ptr<ProcessGroup> resolve_group(const Value& group, const char* op) {
  if (group.is_none()) return default_group();
  if (group.is_object()) {
    if (auto g = std::dynamic_pointer_cast<ProcessGroup>(group.to_object())) return g;
  }
  throw TypeError(std::string(op) + "(): argument 'group' must be ProcessGroup or None, not " + group.type_name());
}

}  // namespace wick::distributed
