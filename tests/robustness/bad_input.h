// tests/robustness/bad_input.h - shared pieces of the catalog-walking bad-input tests.
/// \file
/// The bad-input tests (issue 7, item 1) call every catalog operator through
/// the boxed API with arguments that are wrong in one way at a time. Each
/// call must either return or throw a `wick::Error` whose message names the
/// operator; anything else (another exception type, a crash, a hang, an
/// input tensor changed by a call that failed) is a failure.
///
///   Attempt a = attempt("torch.softmax", {x, Value(100)}, {});
///   if (!a.ok) ... a.error, a.error_type
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "wick/catalog.h"
#include "wick/dispatcher.h"
#include "wick/error.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/random.h"

namespace wick::testing {

/// Aborts the process, naming the call, when one call runs longer than
/// `limit`: a hang becomes a failure that says where it hung.
class CallWatchdog {
 public:
  explicit CallWatchdog(std::chrono::seconds limit) : limit_(limit), thread_([this] { run(); }) {}
  ~CallWatchdog() {
    stop_ = true;
    thread_.join();
  }
  void begin(const std::string& what) {
    std::lock_guard lock(mutex_);
    what_ = what;
    started_ = std::chrono::steady_clock::now();
    busy_ = true;
  }
  void end() {
    std::lock_guard lock(mutex_);
    busy_ = false;
  }

 private:
  void run() {
    while (!stop_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      std::lock_guard lock(mutex_);
      if (busy_ && std::chrono::steady_clock::now() - started_ > limit_) {
        std::fprintf(stderr, "bad-input test: %s has run for over %lld s; aborting\n", what_.c_str(),
                     static_cast<long long>(limit_.count()));
        std::abort();
      }
    }
  }
  std::chrono::seconds limit_;
  std::mutex mutex_;
  std::string what_;
  std::chrono::steady_clock::time_point started_;
  bool busy_ = false;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

inline CallWatchdog& watchdog() {
  static CallWatchdog w(std::chrono::seconds(60));
  return w;
}

/// What one boxed call did.
struct Attempt {
  bool ok = false;
  Value result;
  std::string error;       ///< what() of the wick::Error
  std::string error_type;  ///< its Python-style name ("TypeError", ...)
  /// Set when the call threw something that is not a wick::Error: always a failure.
  std::string foreign;
};

/// Calls `op` through `wick::call`; a wick::Error is an outcome, any other
/// exception is recorded in `foreign`.
inline Attempt attempt(const std::string& op, std::vector<Value> args, const Kwargs& kwargs) {
  Attempt a;
  watchdog().begin(op);
  try {
    a.result = call(op, std::move(args), kwargs);
    a.ok = true;
  } catch (const Error& e) {
    a.error = e.what();
    a.error_type = e.type_name();
  } catch (const std::exception& e) {
    a.foreign = std::string("a non-wick exception escaped: ") + typeid(e).name() + ": " + e.what();
  } catch (...) {
    a.foreign = "an exception of unknown type escaped";
  }
  watchdog().end();
  return a;
}

/// Whether an error message names the catalog entry (qualified or short
/// name: "torch.softmax" or "softmax").
inline bool names_operator(const std::string& message, const CatalogEntry& e) {
  return message.find(e.qualified_name) != std::string::npos || message.find(e.name) != std::string::npos;
}

/// Collects failures per operator and reports them at the end of a test,
/// at most a few per operator so that one broken kernel stays readable.
class Failures {
 public:
  void add(const std::string& op, const std::string& what) { by_op_[op].push_back(what); }
  void check(const CatalogEntry& e, const std::string& what, const Attempt& a, bool must_fail = false) {
    if (!a.foreign.empty()) return add(e.qualified_name, what + ": " + a.foreign);
    if (a.ok) {
      if (must_fail) add(e.qualified_name, what + ": returned instead of raising an error");
      return;
    }
    if (!names_operator(a.error, e))
      add(e.qualified_name, what + ": the " + a.error_type + " does not name the operator: " + a.error);
  }
  void report() const {
    for (const auto& [op, list] : by_op_) {
      std::string text;
      for (std::size_t i = 0; i < list.size() && i < 4; ++i) text += "\n  " + list[i];
      if (list.size() > 4) text += "\n  ... and " + std::to_string(list.size() - 4) + " more";
      ADD_FAILURE() << op << ":" << text;
    }
  }
  [[nodiscard]] bool empty() const { return by_op_.empty(); }

 private:
  std::map<std::string, std::vector<std::string>> by_op_;
};

/// The values of a tensor as doubles (contiguous, row-major).
inline std::vector<double> doubles(const Tensor& t) {
  Tensor c = t.detach().contiguous().to(ScalarType::kFloat64);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

/// Whether two tensors agree: same dtype and shape, values equal within
/// `rtol`/`atol` (NaN equal to NaN, infinities equal when of one sign).
inline bool same_tensor(const Tensor& a, const Tensor& b, std::string& why, double rtol, double atol) {
  if (a.defined() != b.defined()) return why = "one result is undefined", false;
  if (!a.defined()) return true;
  if (a.dtype() != b.dtype()) return why = "dtypes differ", false;
  if (!a.sizes().equals(b.sizes())) return why = "shapes differ", false;
  const std::vector<double> x = doubles(a);
  const std::vector<double> y = doubles(b);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i]) && std::isnan(y[i])) continue;
    if (x[i] == y[i]) continue;
    if (std::abs(x[i] - y[i]) <= atol + rtol * std::abs(y[i])) continue;
    why = "element " + std::to_string(i) + ": " + std::to_string(x[i]) + " vs " + std::to_string(y[i]);
    return false;
  }
  return true;
}

/// Whether two results agree: same kind, and tensors (alone, in lists or
/// tuples) that agree as `same_tensor` says; other values by repr.
inline bool same_result(const Value& a, const Value& b, std::string& why, double rtol = 1e-5, double atol = 1e-6) {
  if (a.kind() != b.kind()) return why = "results of different kinds", false;
  if (a.is_tensor()) return same_tensor(a.to_tensor(), b.to_tensor(), why, rtol, atol);
  if (a.is_tensor_list()) {
    if (a.to_tensor_list().size() != b.to_tensor_list().size()) return why = "lists of different lengths", false;
    for (std::size_t i = 0; i < a.to_tensor_list().size(); ++i)
      if (!same_tensor(a.to_tensor_list()[i], b.to_tensor_list()[i], why, rtol, atol)) return false;
    return true;
  }
  if (a.is_tuple() || a.is_list()) {
    if (a.items().size() != b.items().size()) return why = "tuples of different lengths", false;
    for (std::size_t i = 0; i < a.items().size(); ++i)
      if (!same_result(a.items()[i], b.items()[i], why, rtol, atol)) return false;
    return true;
  }
  if (a.repr() != b.repr()) return why = a.repr() + " vs " + b.repr(), false;
  return true;
}

/// A copy of every tensor in `inputs`, to check afterwards that nothing was
/// written by a call that failed.
inline std::vector<Tensor> snapshot(const std::vector<Tensor>& inputs) {
  std::vector<Tensor> out;
  for (const Tensor& t : inputs) out.push_back(t.detach().clone());
  return out;
}

/// The index of the first tensor that differs from its snapshot (values,
/// shape or dtype), or -1.
inline int first_changed(const std::vector<Tensor>& inputs, const std::vector<Tensor>& before) {
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::string why;
    if (!same_tensor(inputs[i], before[i], why, 0.0, 0.0)) return static_cast<int>(i);
  }
  return -1;
}

/// Loads the CPU backend and starts the watchdog.
class BadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    init();
    manual_seed(0);
    (void)watchdog();
  }
};

}  // namespace wick::testing
