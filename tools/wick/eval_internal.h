// tools/wick/eval_internal.h - Python-number semantics shared by the eval sources.
/// \file
/// Arithmetic, comparison and conversions on Python numbers (bool, int,
/// float) as Python does them, for operands that are not tensors. Private to
/// `wick_eval`.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "eval.h"
#include "wick/override.h"
#include "wick/value.h"

namespace wick::eval {

/// A class, as `type(x)` or a class name gives it: prints as its name
/// ("SubTensor", "Tensor", "float"), `.__name__` is that name, calling it
/// makes an instance, and two are equal when they are the same class.
class PyType final : public Object {
 public:
  PyType(std::string name, const TypeInfo* info) : name_(std::move(name)), info_(info) {}
  [[nodiscard]] std::string type_name() const override { return "type"; }
  /// As Python prints a class: <class 'float'>, <class 'torch.Tensor'>.
  [[nodiscard]] std::string repr() const override {
    return "<class '" + (name_ == "Tensor" ? std::string("torch.Tensor") : name_) + "'>";
  }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// The registered type; nullptr for Tensor and Python's own types.
  [[nodiscard]] const TypeInfo* info() const noexcept { return info_; }

 private:
  std::string name_;
  const TypeInfo* info_;
};

/// What `torch.manual_seed` returns: the default generator, printed as
/// PyTorch prints it.
class GeneratorObject final : public Object {
 public:
  explicit GeneratorObject(const void* generator) : generator_(generator) {}
  [[nodiscard]] std::string type_name() const override { return "Generator"; }
  [[nodiscard]] std::string repr() const override {
    std::ostringstream s;
    s << "<torch._C.Generator object at " << generator_ << ">";
    return s.str();
  }

 private:
  const void* generator_;
};

/// A tensor's `.shape` and `.size()`: a tuple of ints that prints as
/// `torch.Size([2, 3])`.
class TorchSize final : public Object {
 public:
  explicit TorchSize(std::vector<std::int64_t> sizes) : sizes_(std::move(sizes)) {}
  [[nodiscard]] std::string type_name() const override { return "Size"; }
  [[nodiscard]] std::string repr() const override {
    std::ostringstream s;
    s << "torch.Size([";
    for (std::size_t i = 0; i < sizes_.size(); ++i) s << (i > 0 ? ", " : "") << sizes_[i];
    s << "])";
    return s.str();
  }
  [[nodiscard]] const std::vector<std::int64_t>& sizes() const noexcept { return sizes_; }

 private:
  std::vector<std::int64_t> sizes_;
};

/// A result with named returns, as PyTorch's Python binding returns it:
/// `torch.return_types.max(values=..., indices=...)`; `.values` reads a field.
class NamedTuple final : public Object {
 public:
  NamedTuple(std::string type, std::vector<std::string> names, std::vector<Value> items)
      : type_(std::move(type)), names_(std::move(names)), items_(std::move(items)) {}
  [[nodiscard]] std::string type_name() const override { return type_; }
  [[nodiscard]] std::string repr() const override {
    std::string s = "torch.return_types." + type_ + "(\n";
    for (std::size_t i = 0; i < items_.size(); ++i) s += (i > 0 ? ",\n" : "") + names_[i] + "=" + items_[i].repr();
    return s + ")";
  }
  /// The field `name`, or nullptr.
  [[nodiscard]] const Value* field(const std::string& name) const {
    for (std::size_t i = 0; i < names_.size(); ++i)
      if (names_[i] == name) return &items_[i];
    return nullptr;
  }
  [[nodiscard]] const std::vector<Value>& items() const noexcept { return items_; }

 private:
  std::string type_;
  std::vector<std::string> names_;
  std::vector<Value> items_;
};

/// `base[items...]`: a Python sequence or a tensor (Note [Subscripts]).
[[nodiscard]] Value subscript(const Value& base, const std::vector<Value>& items);

/// The class `v` holds, or nullptr.
[[nodiscard]] inline const PyType* as_type(const Value& v) {
  return v.is_object() ? dynamic_cast<const PyType*>(v.to_object().get()) : nullptr;
}

/// `l op r` for two numbers: int stays int for + - * and ** with a
/// non-negative exponent, `/` is float, comparisons are bool. Throws
/// ZeroDivisionError, OverflowError (int64 overflow), wick::ValueError (a
/// negative number to a fractional power), TypeError (`@`).
[[nodiscard]] Value number_binary(BinaryOp op, const Value& l, const Value& r);
/// `-v` / `+v` of a number (a bool becomes an int).
[[nodiscard]] Value number_unary(UnaryOp op, const Value& v);
/// `abs(v)`; TypeError for a non-number.
[[nodiscard]] Value number_abs(const Value& v);
/// `float(v)`: a number, a string ("1.5", "nan", "-inf", any case), or a
/// one-element tensor. ValueError / TypeError as Python.
[[nodiscard]] Value to_float(const Value& v);
/// `int(v)`: a number (floats truncate), a decimal string, or a one-element tensor.
[[nodiscard]] Value to_int(const Value& v);
/// The complex value of a number or a one-element tensor (complex(v)); TypeError otherwise.
[[nodiscard]] std::complex<double> to_complex(const Value& v);
/// `bool(v)`: Python truthiness; a tensor must have exactly one element.
[[nodiscard]] bool truth(const Value& v);
/// `l == r` for values that are not tensors: numbers by value, strings,
/// None, dtypes, classes, lists/tuples item by item, dicts key by key.
[[nodiscard]] bool values_equal(const Value& l, const Value& r);

}  // namespace wick::eval
