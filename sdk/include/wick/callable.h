// wick/callable.h - C++ functions as Values, where PyTorch's API takes a Python callable.
/// \file
/// A few operators take a function argument in PyTorch (the
/// `distance_function` of F.triplet_margin_with_distance_loss). In wick such
/// an argument is an `Any` whose Value holds a `Callable`:
///
///   auto l1 = std::make_shared<wick::Callable>([](const std::vector<wick::Value>& args) {
///     return wick::Value(wick::sum(wick::abs(wick::sub(args[0].to_tensor(), args[1].to_tensor())), {-1}));
///   });
///   wick::Tensor loss = wick::nn::functional::triplet_margin_with_distance_loss(a, p, n, wick::Value(l1));
///
/// A Callable that throws passes its exception to the operator's caller.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "wick/export.h"
#include "wick/value.h"

namespace wick {

/// A C++ function as a Value (an Object of type "function"), for an `Any` argument where PyTorch takes a Python callable (triplet_margin_with_distance_loss's distance_function).
class WICK_API Callable final : public Object {
 public:
  /// The function: positional arguments in, one Value out.
  using Fn = std::function<Value(const std::vector<Value>&)>;
  /// Wraps `fn` (an empty `fn` is accepted; calling it is a TypeError).
  explicit Callable(Fn fn) : fn_(std::move(fn)) {}
  [[nodiscard]] std::string type_name() const override { return "function"; }
  /// Calls the function; TypeError when it is empty.
  Value operator()(const std::vector<Value>& args) const;

 private:
  Fn fn_;
};

/// The Callable a Value holds, or nullptr when it holds something else.
[[nodiscard]] WICK_API const Callable* as_callable(const Value& v) noexcept;

}  // namespace wick
