// core/subscript.cpp - Python's slice and Ellipsis objects in a Value.
/// \file
/// How a key is read for a tensor (tensor_index_of) is with the indexing
/// code, in dispatch/ops/indexing.cpp.
#include "wick/subscript.h"

#include <memory>
#include <string>

#include "wick/error.h"

namespace wick {

std::string SliceObject::repr() const {
  const auto part = [](std::optional<std::int64_t> v) { return v ? std::to_string(*v) : std::string("None"); };
  return "slice(" + part(start_) + ", " + part(stop_) + ", " + part(step_) + ")";
}

indexing::Slice SliceObject::to_slice() const {
  WICK_CHECK(step_.value_or(1) != 0, ValueError, "slice step cannot be zero");
  return {start_, stop_, step_};
}

Value make_slice(std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                 std::optional<std::int64_t> step) {
  return Value(std::static_pointer_cast<Object>(std::make_shared<SliceObject>(start, stop, step)));
}

Value ellipsis() {
  static const std::shared_ptr<Object> instance = std::make_shared<EllipsisObject>();  // Python's is a singleton too
  return Value(instance);
}

const SliceObject* as_slice(const Value& v) noexcept {
  return v.is_object() ? dynamic_cast<const SliceObject*>(v.to_object().get()) : nullptr;
}

bool is_ellipsis(const Value& v) noexcept {
  return v.is_object() && dynamic_cast<const EllipsisObject*>(v.to_object().get()) != nullptr;
}

}  // namespace wick
