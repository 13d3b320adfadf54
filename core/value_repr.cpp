// core/value_repr.cpp - Python's repr of a boxed value, tensors written by the caller.
/// \file
#include "core/value_repr.h"

#include <string>

#include "wick/device.h"
#include "wick/dtype.h"
#include "wick/tensor.h"
#include "wick/value.h"

namespace wick {
namespace {
template <typename T, typename F>
std::string join(const std::vector<T>& xs, F&& f, bool tuple) {
  std::string s = tuple ? "(" : "[";
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (i) s += ", ";
    s += f(xs[i]);
  }
  if (tuple && xs.size() == 1) s += ",";
  s += tuple ? ")" : "]";
  return s;
}
}  // namespace

std::string python_str_repr(std::string_view s) {
  const char q = s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos ? '"' : '\'';
  constexpr char kHex[] = "0123456789abcdef";
  std::string out(1, q);
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == q || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += c;
    }
  }
  return out + q;
}

std::string value_repr(const Value& value, TensorRepr tensor_repr) {
  auto repr = [&](const Value& v) { return value_repr(v, tensor_repr); };
  switch (value.kind()) {
    case Value::Kind::kNone:
      return "None";
    case Value::Kind::kBool:
      return value.to_bool() ? "True" : "False";
    case Value::Kind::kInt:
      return std::to_string(value.to_int());
    case Value::Kind::kDouble:
      return python_float_repr(value.to_double());
    case Value::Kind::kComplex: {
      const std::complex<double> c = value.to_complex();
      return python_complex_repr(c.real(), c.imag());
    }
    case Value::Kind::kString:
      return python_str_repr(value.to_string());
    case Value::Kind::kTensor:
      return tensor_repr(value.to_tensor());
    case Value::Kind::kTensorList:
      return join(value.to_tensor_list(), tensor_repr, false);
    case Value::Kind::kIntList:
      return join(
          value.to_int_list(), [](std::int64_t i) { return std::to_string(i); }, false);
    case Value::Kind::kDoubleList:
      return join(value.to_double_list(), python_float_repr, false);
    case Value::Kind::kList:
    case Value::Kind::kTuple:
      return join(value.items(), repr, value.is_tuple());
    case Value::Kind::kDtype:
      return "torch." + std::string(dtype_name(value.to_dtype()));
    case Value::Kind::kDevice:
      return "device(type='" + device_type_name(value.to_device().type()) + "'" +
             (value.to_device().index() >= 0 ? ", index=" + std::to_string(value.to_device().index()) : "") + ")";
    case Value::Kind::kObject:
      return value.to_object()->repr();
    case Value::Kind::kNotImplemented:
      return "NotImplemented";
    case Value::Kind::kDict: {
      std::string s = "{";
      for (const auto& [k, v] : value.dict_items()) {
        if (s.size() > 1) s += ", ";
        s += python_str_repr(k) + ": " + repr(v);
      }
      return s + "}";
    }
  }
  return "?";
}

}  // namespace wick
