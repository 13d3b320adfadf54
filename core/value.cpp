// core/value.cpp - the boxed Value: accessors, type names and repr.
/// \file
#include "wick/value.h"

#include <algorithm>
#include <string>

#include "wick/callable.h"
#include "wick/error.h"

namespace wick {

std::string Object::repr() const { return "<" + type_name() + " object>"; }

Value::Value(const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::kBool: v_ = s.to<bool>(); break;
    case Scalar::Kind::kInt: v_ = s.to<std::int64_t>(); break;
    case Scalar::Kind::kDouble: v_ = s.to<double>(); break;
    case Scalar::Kind::kComplex: v_ = s.to<std::complex<double>>(); break;
  }
}

Value Value::list(std::vector<Value> items, bool tuple) {
  Value v;
  v.v_ = std::make_shared<ValueList>(ValueList{std::move(items), tuple});
  return v;
}

Value Value::dict(std::vector<std::pair<std::string, Value>> items) {
  auto d = std::make_shared<ValueDict>();
  for (auto& item : items) {
    auto it = std::find_if(d->items.begin(), d->items.end(), [&](const auto& kv) { return kv.first == item.first; });
    if (it != d->items.end()) {
      it->second = std::move(item.second);  // as in Python: the last value, at the first key's place
    } else {
      d->items.push_back(std::move(item));
    }
  }
  Value v;
  v.v_ = std::move(d);
  return v;
}

void Value::type_mismatch(const char* expected) const {
  throw TypeError(detail::str_cat("expected ", expected, " but got ", type_name()));
}

bool Value::to_bool() const {
  if (const bool* b = std::get_if<bool>(&v_)) return *b;
  type_mismatch("bool");
}
std::int64_t Value::to_int() const {
  if (const auto* i = std::get_if<std::int64_t>(&v_)) return *i;
  if (const bool* b = std::get_if<bool>(&v_)) return *b ? 1 : 0;
  type_mismatch("int");
}
double Value::to_double() const {
  if (const double* d = std::get_if<double>(&v_)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&v_)) return static_cast<double>(*i);
  if (const bool* b = std::get_if<bool>(&v_)) return *b ? 1.0 : 0.0;
  type_mismatch("float");
}
std::complex<double> Value::to_complex() const {
  if (const auto* c = std::get_if<std::complex<double>>(&v_)) return *c;
  if (is_number()) return to_double();
  type_mismatch("complex");
}
Scalar Value::to_scalar() const {
  if (const auto* c = std::get_if<std::complex<double>>(&v_)) return *c;
  if (const double* d = std::get_if<double>(&v_)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&v_)) return *i;
  if (const bool* b = std::get_if<bool>(&v_)) return *b;
  if (const Tensor* t = std::get_if<Tensor>(&v_); t != nullptr && t->defined() && t->dim() == 0)
    return t->item();
  type_mismatch("Number");
}
const std::string& Value::to_string() const {
  if (const auto* s = std::get_if<std::string>(&v_)) return *s;
  type_mismatch("str");
}
const std::vector<Tensor>& Value::to_tensor_list() const {
  if (const auto* t = std::get_if<std::vector<Tensor>>(&v_)) return *t;
  type_mismatch("tuple of Tensors");
}
const std::vector<std::int64_t>& Value::to_int_list() const {
  if (const auto* t = std::get_if<std::vector<std::int64_t>>(&v_)) return *t;
  type_mismatch("tuple of ints");
}
const std::vector<double>& Value::to_double_list() const {
  if (const auto* t = std::get_if<std::vector<double>>(&v_)) return *t;
  type_mismatch("tuple of floats");
}
ScalarType Value::to_dtype() const {
  if (const auto* t = std::get_if<ScalarType>(&v_)) return *t;
  type_mismatch("torch.dtype");
}
Device Value::to_device() const {
  if (const auto* d = std::get_if<Device>(&v_)) return *d;
  if (const auto* s = std::get_if<std::string>(&v_)) return Device::parse(*s);
  type_mismatch("torch.device");
}
const std::vector<Value>& Value::items() const {
  if (const auto* l = std::get_if<std::shared_ptr<ValueList>>(&v_)) return (*l)->items;
  type_mismatch("list");
}
const std::vector<std::pair<std::string, Value>>& Value::dict_items() const {
  if (const auto* d = std::get_if<std::shared_ptr<ValueDict>>(&v_)) return (*d)->items;
  type_mismatch("dict");
}
const Value* Value::dict_get(std::string_view key) const {
  for (const auto& [k, v] : dict_items())
    if (k == key) return &v;
  return nullptr;
}
const std::shared_ptr<Object>& Value::to_object() const {
  if (const auto* o = std::get_if<std::shared_ptr<Object>>(&v_)) return *o;
  type_mismatch("object");
}

std::string Value::type_name() const {
  switch (kind()) {
    case Kind::kNone: return "NoneType";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kDouble: return "float";
    case Kind::kString: return "str";
    case Kind::kTensor: return "Tensor";
    case Kind::kTensorList:
    case Kind::kIntList:
    case Kind::kDoubleList:
    case Kind::kList: return "list";
    case Kind::kTuple: return "tuple";
    case Kind::kDtype: return "torch.dtype";
    case Kind::kDevice: return "torch.device";
    case Kind::kObject: return to_object()->type_name();
    case Kind::kNotImplemented: return "NotImplementedType";
    case Kind::kDict: return "dict";
    case Kind::kComplex: return "complex";
  }
  return "object";
}

Value Callable::operator()(const std::vector<Value>& args) const {
  WICK_CHECK(static_cast<bool>(fn_), TypeError, "'function' object is empty and cannot be called");
  return fn_(args);
}

const Callable* as_callable(const Value& v) noexcept {
  if (!v.is_object()) return nullptr;
  return dynamic_cast<const Callable*>(v.to_object().get());
}

}  // namespace wick
