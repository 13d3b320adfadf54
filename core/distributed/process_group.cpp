// core/distributed/process_group.cpp - Work handles, process groups and their threads, naming the rank that failed.
/// \file
#include <algorithm>
#include <sstream>

#include "core/distributed/process_group_internal.h"
#include "wick/dispatch_key.h"

namespace wick::distributed {

using Clock = std::chrono::steady_clock;

// --- Work ----------------------------------------------------------------------

struct Work::State {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  std::vector<Tensor> result;
  std::exception_ptr error;
};

Work::Work(std::string op_name, std::int64_t sequence)
    : op_name_(std::move(op_name)), sequence_(sequence), state_(std::make_shared<State>()) {}
Work::~Work() = default;

std::string Work::repr() const {
  return "<Work " + op_name_ + " #" + std::to_string(sequence_) + (is_completed() ? " completed>" : " pending>");
}

void Work::wait(std::optional<std::chrono::milliseconds> timeout) {
  std::unique_lock<std::mutex> lock(state_->mutex);
  const auto done = [this] { return state_->done; };
  if (timeout) {
    if (!state_->done_cv.wait_for(lock, *timeout, done)) {
      throw DistributedError("Work.wait: " + op_name_ + " (collective #" + std::to_string(sequence_) +
                             ") did not finish within " + std::to_string(timeout->count()) + " ms");
    }
  } else {
    state_->done_cv.wait(lock, done);
  }
  if (state_->error) std::rethrow_exception(state_->error);
}

bool Work::is_completed() const {
  const std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->done;
}

bool Work::is_success() const {
  const std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->done && !state_->error;
}

std::vector<Tensor> Work::result() {
  wait();
  const std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->result;
}

void Work::finish(std::vector<Tensor> result, std::exception_ptr error) {
  {
    const std::lock_guard<std::mutex> lock(state_->mutex);
    state_->result = std::move(result);
    state_->error = std::move(error);
    state_->done = true;
  }
  state_->done_cv.notify_all();
}

// --- ProcessGroup ----------------------------------------------------------------

ProcessGroup::ProcessGroup(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) { impl_->start(); }
ProcessGroup::~ProcessGroup() { impl_->stop(); }

std::string ProcessGroup::repr() const {
  return "<ProcessGroup '" + impl_->name + "' " + impl_->backend + ", rank " + std::to_string(impl_->rank) + " of " +
         std::to_string(impl_->size) + ">";
}
int ProcessGroup::rank() const noexcept { return impl_->rank; }
int ProcessGroup::size() const noexcept { return impl_->size; }
const std::string& ProcessGroup::name() const noexcept { return impl_->name; }
const std::string& ProcessGroup::backend() const noexcept { return impl_->backend; }
const std::vector<int>& ProcessGroup::global_ranks() const noexcept { return impl_->global_ranks; }
std::chrono::milliseconds ProcessGroup::timeout() const noexcept { return impl_->timeout; }

int ProcessGroup::group_rank(int global) const noexcept {
  const auto& g = impl_->global_ranks;
  const auto it = std::find(g.begin(), g.end(), global);
  return it == g.end() ? -1 : static_cast<int>(it - g.begin());
}

Engine& ProcessGroup::engine(DeviceType type) {
  WICK_CHECK(!impl_->destroyed, RuntimeError, "process group '", impl_->name, "' has been destroyed");
  const auto it = impl_->engines.find(type);
  WICK_CHECK(it != impl_->engines.end(), RuntimeError, "no engine for ", Device(type).str(), " tensors in process group '",
             impl_->name, "' (backend ", impl_->backend, ")");
  return *it->second;
}

std::shared_ptr<Work> ProcessGroup::enqueue(const std::string& op_name, const std::string& call,
                                            std::function<std::vector<Tensor>()> body) {
  std::shared_ptr<Work> work;
  {
    const std::lock_guard<std::mutex> lock(impl_->mutex);
    WICK_CHECK(!impl_->destroyed, RuntimeError, op_name, ": process group '", impl_->name, "' has been destroyed");
    work = std::make_shared<Work>(op_name, ++impl_->issued);
    impl_->queue.push_back({work, op_name + "(" + call + ")", std::move(body)});
  }
  impl_->wake.notify_all();
  return work;
}

void ProcessGroup::run(const std::string& op_name, const std::string& call, std::function<std::vector<Tensor>()> body) {
  Impl& g = *impl_;
  Impl::Task task;
  {
    std::unique_lock<std::mutex> lock(g.mutex);
    WICK_CHECK(!g.destroyed, RuntimeError, op_name, ": process group '", g.name, "' has been destroyed");
    task = {std::make_shared<Work>(op_name, ++g.issued), op_name + "(" + call + ")", std::move(body)};
    if (!g.queue.empty() || g.busy) {
      // Async collectives are pending: this one runs after them, on the group's thread.
      std::shared_ptr<Work> work = task.work;
      g.queue.push_back(std::move(task));
      lock.unlock();
      g.wake.notify_all();
      work->wait();
      return;
    }
    // Nothing pending: run here, sparing two thread switches (Note [Collectives run in order]).
    g.busy = true;
    g.running_since = Clock::now();
    g.running_call = task.call;
  }
  g.execute(task);
  {
    const std::lock_guard<std::mutex> lock(g.mutex);
    g.busy = false;
  }
  g.wake.notify_all();
  task.work->wait();
}

// --- the group's threads -----------------------------------------------------------

namespace {
/// How long a collective runs before its rank tells the store where it is:
/// short enough to be there before anyone's timeout, long enough that
/// collectives that finish normally never pay for it.
std::chrono::milliseconds grace_of(std::chrono::milliseconds timeout) {
  return std::min<std::chrono::milliseconds>(std::chrono::milliseconds(500), timeout / 4);
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size(); ++i) out += (i == 0 ? "" : ", ") + std::to_string(ranks[i]);
  return (ranks.size() == 1 ? "rank " : "ranks ") + out;
}

TCPStore* tcp_store_of(Store* s) {
  while (s != nullptr) {
    if (auto* t = dynamic_cast<TCPStore*>(s)) return t;
    auto* p = dynamic_cast<PrefixStore*>(s);
    s = p != nullptr ? p->underlying().get() : nullptr;
  }
  return nullptr;
}
}  // namespace

void ProcessGroup::Impl::start() {
  worker = std::thread([this] { run_worker(); });
  monitor = std::thread([this] { run_monitor(); });
}

void ProcessGroup::Impl::stop() noexcept {
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (stopping) return;
    stopping = true;
  }
  wake.notify_all();
  if (worker.joinable()) worker.join();
  if (monitor.joinable()) monitor.join();
  std::vector<std::thread> threads;
  {
    const std::lock_guard<std::mutex> lock(aside_mutex);
    threads.swap(aside);
  }
  for (auto& t : threads) t.join();
  destroyed = true;
  engines.clear();
}

void ProcessGroup::Impl::run_aside(std::function<void()> body) {
  const std::lock_guard<std::mutex> lock(aside_mutex);
  WICK_CHECK(!stopping, RuntimeError, "process group '", name, "' has been destroyed");
  aside.emplace_back(std::move(body));
}

void ProcessGroup::Impl::run_worker() {
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(mutex);
      wake.wait(lock, [this] { return stopping || (!queue.empty() && !busy); });
      if (queue.empty()) return;  // stopping, and everything issued has run
      task = std::move(queue.front());
      queue.pop_front();
      busy = true;
      running_since = Clock::now();
      running_call = task.call;
    }
    execute(task);
    {
      const std::lock_guard<std::mutex> lock(mutex);
      busy = false;
    }
    wake.notify_all();
  }
}

void ProcessGroup::Impl::execute(Task& task) {
  const std::int64_t sequence = task.work->sequence();
  // Note [Call tags]
  const auto tag = static_cast<std::uint32_t>(((std::hash<std::string>{}(task.call) & 0xfffU) << 20U) |
                                              (static_cast<std::uint64_t>(sequence) & 0xfffffU));
  for (auto& [type, engine] : engines) engine->set_call_tag(tag);
  if (failure) {
    task.work->finish({}, failure);
    return;
  }
  running.store(sequence);
  std::vector<Tensor> result;
  std::exception_ptr error;
  try {
    // Collectives write tensors' data, outside any autograd graph, as in PyTorch.
    const NoGradGuard no_grad;
    result = task.body();
  } catch (const std::exception& e) {
    // Name the collective and who did not arrive (Note [Naming the rank that failed]).
    const bool ours = dynamic_cast<const ValueError*>(&e) != nullptr || dynamic_cast<const TypeError*>(&e) != nullptr;
    if (ours) {
      error = std::current_exception();
    } else {
      std::string msg = task.work->op_name() + ": collective #" + std::to_string(sequence) + " of process group '" + name +
                        "' failed on rank " + std::to_string(global_ranks[static_cast<std::size_t>(rank)]) + ": " + e.what();
      const std::string who = blame(sequence, task.call);
      if (!who.empty()) msg += "; " + who;
      error = std::make_exception_ptr(DistributedError(msg));
      failure = error;  // the engine's state is unknown now: the group is done
    }
  }
  running.store(0);
  task.work->finish(std::move(result), error);
}

void ProcessGroup::Impl::run_monitor() {
  const auto grace = grace_of(timeout);
  std::unique_lock<std::mutex> lock(mutex);
  while (!stopping) {
    wake.wait_for(lock, grace / 2);
    const std::int64_t seq = running.load();
    if (seq != 0 && seq != published && Clock::now() - running_since > grace) {
      published = seq;
      const std::string call = running_call;
      lock.unlock();
      publish_progress(seq, call);
      lock.lock();
    }
  }
}

void ProcessGroup::Impl::publish_progress(std::int64_t sequence, const std::string& call) noexcept {
  try {
    store->set("wick/progress/" + std::to_string(rank), std::to_string(sequence) + "\t" + call);
  } catch (...) {  // NOLINT(bugprone-empty-catch): progress only helps name a rank later
  }
}

std::string ProcessGroup::Impl::blame(std::int64_t sequence, const std::string& call) {
  publish_progress(sequence, call);
  std::vector<int> dead;
  std::vector<int> absent;
  std::vector<std::pair<int, std::string>> differ;  // ranks at this collective that asked for something else
  try {
    if (TCPStore* tcp = tcp_store_of(job_store.get()); tcp != nullptr) {
      // The server may notice a closed connection a moment after the peers
      // do: ask again for a little while before concluding nobody died.
      for (int attempt = 0; attempt < 10; ++attempt) {
        for (const int r : tcp->dead_ranks("job")) {
          if (std::find(global_ranks.begin(), global_ranks.end(), r) != global_ranks.end()) dead.push_back(r);
        }
        if (!dead.empty()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    for (int q = 0; q < size; ++q) {
      const int global = global_ranks[static_cast<std::size_t>(q)];
      if (q == rank || std::find(dead.begin(), dead.end(), global) != dead.end()) continue;
      const std::string key = "wick/progress/" + std::to_string(q);
      if (!store->check({key})) {
        absent.push_back(global);
        continue;
      }
      const std::string value = store->get_string(key);
      const auto tab = value.find('\t');
      const std::int64_t at = std::stoll(value.substr(0, tab));
      if (at < sequence) {
        absent.push_back(global);
      } else if (at == sequence && tab != std::string::npos && value.substr(tab + 1) != call) {
        differ.emplace_back(global, value.substr(tab + 1));
      }
    }
  } catch (const std::exception& e) {
    return std::string("the store could not say which rank failed (") + e.what() + ")";
  }
  if (!dead.empty()) return rank_list(dead) + (dead.size() == 1 ? " has" : " have") + " exited (its store connection closed)";
  if (!absent.empty()) return rank_list(absent) + " did not reach this collective";
  if (!differ.empty()) {
    std::string out = "the ranks disagree on this collective: rank " +
                      std::to_string(global_ranks[static_cast<std::size_t>(rank)]) + " called " + call;
    for (const auto& [r, what] : differ) out += ", rank " + std::to_string(r) + " called " + what;
    return out;
  }
  return "";
}

}  // namespace wick::distributed
