// tools/wick/eval_format.cpp - `wick eval --json`: values as JSON.
/// \file
/// Tensors are read element by element through their strides, so views
/// (transposes, slices) need no copy.
#include "eval.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "eval_internal.h"
#include "wick/error.h"
#include "wick/tensor.h"

namespace wick::eval {
namespace {

nlohmann::ordered_json float_json(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  return d;
}

/// A float32 as the double with the same shortest digits, so that 0.1f is
/// written 0.1 rather than 0.10000000149011612.
nlohmann::ordered_json float32_json(float f) {
  if (!std::isfinite(f)) return float_json(f);
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f);
  double d = f;
  if (ec == std::errc()) std::from_chars(buf, end, d);
  return d;
}

/// A complex number: {"real": ..., "imag": ...}.
nlohmann::ordered_json complex_json(nlohmann::ordered_json real, nlohmann::ordered_json imag) {
  return {{"real", std::move(real)}, {"imag", std::move(imag)}};
}

template <typename T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

nlohmann::ordered_json element(const char* p, ScalarType t) {
  switch (t) {
    case ScalarType::kBool:
      return load<bool>(p);
    case ScalarType::kUInt8:
      return load<std::uint8_t>(p);
    case ScalarType::kInt8:
      return load<std::int8_t>(p);
    case ScalarType::kInt16:
      return load<std::int16_t>(p);
    case ScalarType::kInt32:
      return load<std::int32_t>(p);
    case ScalarType::kInt64:
      return load<std::int64_t>(p);
    case ScalarType::kFloat16:  // every half and bfloat16 value is a float32 one
      return float32_json(load<Half>(p));
    case ScalarType::kBFloat16:
      return float32_json(load<BFloat16>(p));
    case ScalarType::kFloat32:
      return float32_json(load<float>(p));
    case ScalarType::kFloat64:
      return float_json(load<double>(p));
    case ScalarType::kComplex64:
      return complex_json(float32_json(load<float>(p)), float32_json(load<float>(p + 4)));
    case ScalarType::kComplex128:
      return complex_json(float_json(load<double>(p)), float_json(load<double>(p + 8)));
    default:
      break;
  }
  throw TypeError(detail::str_cat("to_json: unsupported dtype ", dtype_name(t)));
}

/// The elements at byte `offset` from `base`, from dim `d` on, nested by size.
nlohmann::ordered_json nested(const char* base, std::int64_t offset, const Tensor& t, std::int64_t d) {
  if (d == t.dim()) return element(base + offset, t.dtype());
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  const std::int64_t step = t.strides()[d] * static_cast<std::int64_t>(itemsize(t.dtype()));
  for (std::int64_t i = 0; i < t.sizes()[d]; ++i) out.push_back(nested(base, offset + i * step, t, d + 1));
  return out;
}

nlohmann::ordered_json tensor_json(const Tensor& t) {
  if (!t.defined()) return nullptr;
  WICK_CHECK(t.device().is_cpu(), RuntimeError, "to_json: the tensor is on ", t.device().str(),
             "; only CPU tensors can be written as JSON (move it with .cpu())");
  nlohmann::ordered_json shape = nlohmann::ordered_json::array();
  for (std::int64_t s : t.sizes()) shape.push_back(s);
  // An empty tensor has no element to read: only the nesting is written.
  const char* base = t.numel() == 0 ? nullptr : static_cast<const char*>(t.data_ptr());
  return {{"dtype", std::string(dtype_name(t.dtype()))}, {"shape", std::move(shape)}, {"data", nested(base, 0, t, 0)}};
}

}  // namespace

nlohmann::ordered_json to_json(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNone:
      return nullptr;
    case Value::Kind::kBool:
      return v.to_bool();
    case Value::Kind::kInt:
      return v.to_int();
    case Value::Kind::kDouble:
      return float_json(v.to_double());
    case Value::Kind::kComplex:
      return complex_json(float_json(v.to_complex().real()), float_json(v.to_complex().imag()));
    case Value::Kind::kString:
      return v.to_string();
    case Value::Kind::kTensor:
      return tensor_json(v.to_tensor());
    case Value::Kind::kTensorList: {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const Tensor& t : v.to_tensor_list()) out.push_back(tensor_json(t));
      return out;
    }
    case Value::Kind::kIntList:
      return v.to_int_list();
    case Value::Kind::kDoubleList: {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (double d : v.to_double_list()) out.push_back(float_json(d));
      return out;
    }
    case Value::Kind::kDtype:
      return "torch." + std::string(dtype_name(v.to_dtype()));
    case Value::Kind::kDevice:
      return v.to_device().str();
    case Value::Kind::kList:
    case Value::Kind::kTuple: {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const Value& item : v.items()) out.push_back(to_json(item));
      return out;
    }
    case Value::Kind::kDict: {
      nlohmann::ordered_json out = nlohmann::ordered_json::object();
      for (const auto& [key, item] : v.dict_items()) out[key] = to_json(item);
      return out;
    }
    case Value::Kind::kObject:
      if (const auto* size = dynamic_cast<const TorchSize*>(v.to_object().get())) return size->sizes();  // a list
      if (const auto* named = dynamic_cast<const NamedTuple*>(v.to_object().get())) {  // a list, as a tuple is
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const Value& item : named->items()) out.push_back(to_json(item));
        return out;
      }
      return v.repr();
    case Value::Kind::kNotImplemented:
      return v.repr();
  }
  return nullptr;
}

}  // namespace wick::eval
