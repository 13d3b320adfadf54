// wick/value.h - Value, the boxed value of the boxed calling convention.
/// \file
/// A `Value` holds anything an operator argument or result can be: None, a
/// bool, an int, a float, a string, a Tensor, a list of tensors / ints /
/// floats, a dtype, a device, a generic list or tuple (what `wick eval`
/// builds from `[...]` and `(...)`), a dict with string keys (`{'a': 1}`), a
/// tensor-like object, or the `NotImplemented` sentinel an override handler
/// returns to decline.
///
///   wick::Value v = wick::Value(3);          // int
///   v.is_int();  v.to_int();                 // 3
///   wick::Value t = wick::Value(tensor);
#pragma once

#include <complex>
#include <initializer_list>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "wick/device.h"
#include "wick/dtype.h"
#include "wick/export.h"
#include "wick/scalar.h"
#include "wick/tensor.h"

namespace wick {

class Value;

/// A type registered with the override protocol (wick/override.h).
class TypeInfo;

/// Base of tensor-like objects: types that are not tensors but travel in a Value (kObject) and may take part in the override protocol. Subclasses give `type_name()`.
class WICK_API Object {
 public:
  virtual ~Object() = default;
  /// The object's type, as Python's `type(x).__name__` ("ScalarTensor", "ProcessGroup").
  [[nodiscard]] virtual std::string type_name() const = 0;
  /// The registered override type (wick/override.h), when this object is a
  /// `TensorLike`; nullptr otherwise (default).
  [[nodiscard]] virtual const TypeInfo* override_type() const noexcept { return nullptr; }
  /// Printed by `wick eval`; default "<TypeName object>".
  [[nodiscard]] virtual std::string repr() const;
};

/// The type of `NotImplemented`, the sentinel an override handler returns to decline an operator (Python's `NotImplemented`).
struct NotImplementedType final {
  /// Every NotImplemented equals every other: always true.
  bool operator==(const NotImplementedType&) const noexcept { return true; }
};
/// Python's `NotImplemented`: return `Value(NotImplemented)` from an override handler to let the next handler (or the error) take over.
inline constexpr NotImplementedType NotImplemented{};

/// A generic list or tuple of Values.
struct ValueList;
/// A dict with string keys, in insertion order.
struct ValueDict;

/// A boxed operator argument or result (see the file overview); its `to_*` accessors throw TypeError on a kind mismatch.
class WICK_API Value final {
 public:
  /// What a Value holds; `kind()` returns it. kList and kTuple share one storage (ValueList::is_tuple).
  enum class Kind : std::uint8_t {
    kNone, kBool, kInt, kDouble, kString, kTensor, kTensorList, kIntList,
    kDoubleList, kDtype, kDevice, kList, kTuple, kObject, kNotImplemented, kDict, kComplex,
  };

  Value() noexcept = default;  // None
  /// None, as from std::nullopt.
  Value(std::nullopt_t) noexcept {}  // NOLINT(implicit): None
  /// A Python bool.
  Value(bool v) : v_(v) {}  // NOLINT(implicit)
  /// A Python int (widened to int64).
  Value(int v) : v_(static_cast<std::int64_t>(v)) {}  // NOLINT(implicit)
  /// A Python int.
  Value(std::int64_t v) : v_(v) {}  // NOLINT(implicit)
  /// A Python float.
  Value(double v) : v_(v) {}  // NOLINT(implicit)
  /// A Python complex.
  Value(std::complex<double> v) : v_(v) {}  // NOLINT(implicit): a Python complex
  /// A Python str (copied).
  Value(const char* s) : v_(std::string(s)) {}  // NOLINT(implicit)
  /// A Python str.
  Value(std::string s) : v_(std::move(s)) {}  // NOLINT(implicit)
  /// A bool, int, float or complex, following the Scalar's kind.
  Value(const Scalar& s);  // NOLINT(implicit): bool, int, float or complex by kind
  /// A Tensor (an undefined Tensor too; it is not None).
  Value(Tensor t) : v_(std::move(t)) {}  // NOLINT(implicit)
  /// A list of tensors (`Tensor[]`).
  Value(std::vector<Tensor> l) : v_(std::move(l)) {}  // NOLINT(implicit)
  /// A list of ints (`int[]`).
  Value(std::vector<std::int64_t> l) : v_(std::move(l)) {}  // NOLINT(implicit)
  /// A list of ints, copied from the view.
  Value(IntArrayRef l) : v_(l.vec()) {}  // NOLINT(implicit)
  /// A list of floats (`float[]`).
  Value(std::vector<double> l) : v_(std::move(l)) {}  // NOLINT(implicit)
  /// A dtype (`torch.dtype`).
  Value(ScalarType t) : v_(t) {}  // NOLINT(implicit)
  /// A device (`torch.device`).
  Value(Device d) : v_(d) {}  // NOLINT(implicit)
  /// A tensor-like or other object (kObject); a null pointer is still kObject.
  Value(std::shared_ptr<Object> o) : v_(std::move(o)) {}  // NOLINT(implicit)
  /// The NotImplemented sentinel (kNotImplemented).
  Value(NotImplementedType n) : v_(n) {}  // NOLINT(implicit)
  /// None when `o` is empty, else `Value(*o)`.
  template <typename T>
  Value(const std::optional<T>& o) : Value() {  // NOLINT(implicit)
    if (o) *this = Value(*o);
  }
  /// A generic list (`tuple = false`) or a tuple.
  static Value list(std::vector<Value> items, bool tuple = false);
  /// A dict with string keys (Python's `{'owner': 'me'}`), in the order
  /// given; a repeated key keeps its first place and its last value, as in Python.
  static Value dict(std::vector<std::pair<std::string, Value>> items);

  /// What this Value holds; never throws.
  [[nodiscard]] inline Kind kind() const noexcept;
  /// True when the value is None.
  [[nodiscard]] bool is_none() const noexcept { return kind() == Kind::kNone; }
  /// True for a bool (an int is not a bool).
  [[nodiscard]] bool is_bool() const noexcept { return kind() == Kind::kBool; }
  /// True for an int (a bool is not an int here, although `to_int()` accepts one).
  [[nodiscard]] bool is_int() const noexcept { return kind() == Kind::kInt; }
  /// True for a float.
  [[nodiscard]] bool is_double() const noexcept { return kind() == Kind::kDouble; }
  /// True for a complex number.
  [[nodiscard]] bool is_complex() const noexcept { return kind() == Kind::kComplex; }
  /// bool, int, float or complex: a Python number.
  [[nodiscard]] bool is_number() const noexcept { return is_bool() || is_int() || is_double() || is_complex(); }
  /// True for a str.
  [[nodiscard]] bool is_string() const noexcept { return kind() == Kind::kString; }
  /// True for a Tensor.
  [[nodiscard]] bool is_tensor() const noexcept { return kind() == Kind::kTensor; }
  /// True for a list of tensors.
  [[nodiscard]] bool is_tensor_list() const noexcept { return kind() == Kind::kTensorList; }
  /// True for a list of ints.
  [[nodiscard]] bool is_int_list() const noexcept { return kind() == Kind::kIntList; }
  /// True for a list of floats.
  [[nodiscard]] bool is_double_list() const noexcept { return kind() == Kind::kDoubleList; }
  /// True for a dtype.
  [[nodiscard]] bool is_dtype() const noexcept { return kind() == Kind::kDtype; }
  /// True for a device.
  [[nodiscard]] bool is_device() const noexcept { return kind() == Kind::kDevice; }
  /// True for a generic list (`Value::list(..., false)`).
  [[nodiscard]] bool is_list() const noexcept { return kind() == Kind::kList; }
  /// True for a tuple (`Value::list(..., true)`).
  [[nodiscard]] bool is_tuple() const noexcept { return kind() == Kind::kTuple; }
  /// True for a tensor-like object.
  [[nodiscard]] bool is_object() const noexcept { return kind() == Kind::kObject; }
  /// True for the NotImplemented sentinel.
  [[nodiscard]] bool is_not_implemented() const noexcept { return kind() == Kind::kNotImplemented; }
  /// True for a dict (`Value::dict`).
  [[nodiscard]] bool is_dict() const noexcept { return kind() == Kind::kDict; }

  // Accessors throw TypeError ("expected Tensor but got int") on a mismatch.
  /// The bool held; TypeError ("expected bool but got int") for anything else, ints included.
  [[nodiscard]] bool to_bool() const;
  /// int (bools are ints, as in Python).
  [[nodiscard]] std::int64_t to_int() const;
  /// float (ints convert, as in Python).
  [[nodiscard]] double to_double() const;
  /// complex (ints and floats convert, as in Python).
  [[nodiscard]] std::complex<double> to_complex() const;
  /// A bool, int, float or complex as a Scalar, or the item of a defined 0-dim tensor; TypeError otherwise.
  [[nodiscard]] Scalar to_scalar() const;
  /// The str held; TypeError when the value is not a str.
  [[nodiscard]] const std::string& to_string() const;
  /// The Tensor held; TypeError ("expected Tensor but got ...") when the value is not a Tensor.
  [[nodiscard]] const Tensor& to_tensor() const {
    if (const auto* t = std::get_if<Tensor>(&v_)) return *t;
    type_mismatch("Tensor");
  }
  /// The tensor held, or nullptr when the value is not a tensor (no throw:
  /// for hot paths that test and use in one step).
  [[nodiscard]] const Tensor* tensor_if() const noexcept { return std::get_if<Tensor>(&v_); }
  /// The list of tensors held; TypeError ("expected tuple of Tensors") otherwise.
  [[nodiscard]] const std::vector<Tensor>& to_tensor_list() const;
  /// The list of ints held; TypeError ("expected tuple of ints") otherwise.
  [[nodiscard]] const std::vector<std::int64_t>& to_int_list() const;
  /// The list of floats held; TypeError ("expected tuple of floats") otherwise.
  [[nodiscard]] const std::vector<double>& to_double_list() const;
  /// The dtype held; TypeError ("expected torch.dtype") otherwise.
  [[nodiscard]] ScalarType to_dtype() const;
  /// The device held, or a str parsed with Device::parse (which throws on a bad string); TypeError for other kinds.
  [[nodiscard]] Device to_device() const;
  /// Items of a generic list or tuple.
  [[nodiscard]] const std::vector<Value>& items() const;
  /// Entries of a dict, in insertion order.
  [[nodiscard]] const std::vector<std::pair<std::string, Value>>& dict_items() const;
  /// The entry `key` of a dict, or nullptr.
  [[nodiscard]] const Value* dict_get(std::string_view key) const;
  /// The object held (kObject); TypeError ("expected object") otherwise.
  [[nodiscard]] const std::shared_ptr<Object>& to_object() const;

  /// The Python type name of what is held: "NoneType", "bool", "int",
  /// "float", "str", "Tensor", "list", "tuple", "dict", "torch.dtype", ...
  [[nodiscard]] std::string type_name() const;
  /// Python's repr: "3", "0.4", "True", "'mean'", "tensor([1., 2.])",
  /// "torch.float32", "(1, 2)", "{'a': 1}".
  [[nodiscard]] std::string repr() const;

 private:
  using Storage = std::variant<std::monostate, bool, std::int64_t, double, std::string, Tensor,
                               std::vector<Tensor>, std::vector<std::int64_t>, std::vector<double>,
                               ScalarType, Device, std::shared_ptr<ValueList>, std::shared_ptr<Object>,
                               NotImplementedType, std::shared_ptr<ValueDict>, std::complex<double>>;
  [[noreturn]] void type_mismatch(const char* expected) const;
  Storage v_;
};

/// Storage of a generic list or tuple Value (Value::list).
struct ValueList {
  std::vector<Value> items; ///< The elements, in order.
  bool is_tuple = false; ///< True for a tuple, false for a list.
};

/// Storage of a dict Value (Value::dict): string keys, unique, in insertion order.
struct ValueDict {
  std::vector<std::pair<std::string, Value>> items; ///< The (key, value) entries, in insertion order.
};

inline Value::Kind Value::kind() const noexcept {
  // Variant alternatives 0..10 are in Kind order; index 11 (a list) is a
  // list or a tuple, and the later ones are shifted by one.
  static_assert(std::is_same_v<std::variant_alternative_t<5, Storage>, Tensor> &&
                std::is_same_v<std::variant_alternative_t<10, Storage>, Device> &&
                std::is_same_v<std::variant_alternative_t<12, Storage>, std::shared_ptr<Object>> &&
                std::is_same_v<std::variant_alternative_t<14, Storage>, std::shared_ptr<ValueDict>> &&
                std::is_same_v<std::variant_alternative_t<15, Storage>, std::complex<double>> &&
                std::variant_size_v<Storage> == 16 && static_cast<int>(Kind::kComplex) == 16);
  const std::size_t i = v_.index();
  if (i < 11) return static_cast<Kind>(i);
  if (i == 11) return std::get<11>(v_)->is_tuple ? Kind::kTuple : Kind::kList;
  return static_cast<Kind>(i + 1);
}

/// The boxed calling convention's operand stack.
using Stack = std::vector<Value>;

/// The data of `wick::tensor`: a number, a braced list of them nested to
/// any depth, or any Value (a Python-style list), as torch.tensor takes:
///
///   wick::tensor({{1., 2.}, {3., 4.}});     // float32, 2x2
///   wick::tensor({1, 2, 3});                // int64
///   wick::tensor({true, false});            // bool
///   wick::tensor(2.5);                      // 0-dim
///   wick::tensor(Value(std::vector<double>{1, 2}));
///
/// The dtype is inferred as torch.tensor infers it (int64 for ints, the
/// default float dtype for floats, complex64 for complex numbers) unless
/// given; ragged lists are refused with PyTorch's ValueError.
class TensorLiteral final {
 public:
  TensorLiteral() : value_(Value::list({})) {}
  /// A nested braced list: each item is a number, a Value or another braced list.
  TensorLiteral(std::initializer_list<TensorLiteral> items);  // NOLINT(google-explicit-constructor)
  /// A single number, or any Value (a Python-style list, a tensor, ...).
  template <class T>
    requires(!std::is_same_v<std::remove_cvref_t<T>, TensorLiteral> && std::is_constructible_v<Value, T>)
  TensorLiteral(T&& v) : value_(std::forward<T>(v)) {}  // NOLINT(google-explicit-constructor)
  /// The data as a Value: a scalar or a (nested) generic list.
  [[nodiscard]] const Value& value() const noexcept { return value_; }

 private:
  Value value_;
};

inline TensorLiteral::TensorLiteral(std::initializer_list<TensorLiteral> items) {
  std::vector<Value> values;
  values.reserve(items.size());
  for (const TensorLiteral& item : items) values.push_back(item.value_);
  value_ = Value::list(std::move(values));
}

/// Python's repr of a float: shortest round-trip digits, "1e-05", "3.0", "nan", "inf".
[[nodiscard]] WICK_API std::string python_float_repr(double v);
/// Python's int() of a float, truncated toward zero into wick's 64-bit ints:
/// ValueError "cannot convert float NaN to integer", OverflowError for an
/// infinity and for a value beyond int64 (where Python's int would grow).
[[nodiscard]] WICK_API std::int64_t python_int(double v);
/// Python's repr of a complex: "1j", "(1+2j)", "(1.5-0.5j)", "(nan+infj)".
[[nodiscard]] WICK_API std::string python_complex_repr(double real, double imag);
/// Python's repr of a str: single quotes, or double quotes when the text
/// holds a single quote and no double quote; backslash, the quote, \n, \r
/// and \t escaped, other control characters as \xNN, other bytes (UTF-8
/// text) as they are: `"it's"`, `'a\nb'`.
[[nodiscard]] WICK_API std::string python_str_repr(std::string_view s);

}  // namespace wick
