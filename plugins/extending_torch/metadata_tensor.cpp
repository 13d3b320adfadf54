// plugins/extending_torch/metadata_tensor.cpp - the note's MetadataTensor: a tensor with a metadata dict.
/// \file
/// Every operator runs on the wrapped tensors (the converting fallback), and
/// the tensors it returns are wrapped again with the metadata of the first
/// MetadataTensor argument, so the metadata goes wherever the data goes.
#include <memory>
#include <string>

#include <wick/ops.h>
#include <wick/override.h>

#include "extending_torch.h"

namespace extending_torch {
namespace {

using wick::Kwargs;
using wick::Tensor;
using wick::TypeInfo;
using wick::Value;

class MetadataTensor final : public wick::TensorLike {
 public:
  MetadataTensor(const TypeInfo& type, Tensor t, Value metadata)
      : TensorLike(type), t_(std::move(t)), metadata_(std::move(metadata)) {}
  /// As the note prints it: "Metadata:\n{...}\n\ndata:\ntensor(...)".
  [[nodiscard]] std::string repr() const override {
    return "Metadata:\n" + metadata_.repr() + "\n\ndata:\n" + t_.repr();
  }
  [[nodiscard]] const Tensor& tensor() const noexcept { return t_; }
  [[nodiscard]] const Value& metadata() const noexcept { return metadata_; }

 private:
  Tensor t_;
  Value metadata_;  // a dict with string keys, or None
};

Value make(const TypeInfo& type, Tensor t, Value metadata) {
  return Value(
      std::shared_ptr<wick::Object>(std::make_shared<MetadataTensor>(type, std::move(t), std::move(metadata))));
}

/// The MetadataTensor in `v`, or nullptr.
const MetadataTensor* get(const Value& v) {
  return v.is_object() ? dynamic_cast<const MetadataTensor*>(v.to_object().get()) : nullptr;
}

/// `MetadataTensor(data, metadata=None, dtype=None)`: the data as `torch.as_tensor` makes it.
Value construct(const TypeInfo& type, const std::vector<Value>& args, const Kwargs& kwargs) {
  const std::vector<Value> a =
      wick::bind_params(type.name(), {"data", {"metadata", Value()}, {"dtype", Value()}}, args, kwargs);
  WICK_CHECK(a[1].is_none() || a[1].is_dict(), TypeError, type.name(),
             "(): argument 'metadata' must be a dict or None, not ", a[1].type_name());
  WICK_CHECK(a[2].is_none() || a[2].is_dtype(), TypeError, type.name(),
             "(): argument 'dtype' must be a torch.dtype or None, not ", a[2].type_name());
  std::optional<wick::ScalarType> dtype;
  if (a[2].is_dtype()) dtype = a[2].to_dtype();
  Tensor t;
  if (a[0].is_tensor()) {  // as_tensor keeps a tensor as it is (converting only the dtype)
    t = dtype ? a[0].to_tensor().to(*dtype) : a[0].to_tensor();
  } else {
    t = wick::tensor(a[0], dtype);
  }
  return make(type, std::move(t), a[1]);
}

/// Wraps the tensors of an operator's result (inside tuples and lists too).
Value wrap(const TypeInfo& type, const Value& r, const Value& metadata) {
  if (r.is_tensor()) return make(type, r.to_tensor(), metadata);
  if (r.is_tensor_list()) {
    std::vector<Value> items;
    for (const Tensor& t : r.to_tensor_list()) items.push_back(make(type, t, metadata));
    return Value::list(std::move(items));
  }
  if (r.is_list() || r.is_tuple()) {
    std::vector<Value> items;
    for (const Value& item : r.items()) items.push_back(wrap(type, item, metadata));
    return Value::list(std::move(items), r.is_tuple());
  }
  return r;  // numbers, bools, None: nothing to attach metadata to
}

/// The note's __torch_function__: unwrap, call, rewrap with the first metadata.
Value handle(const wick::TorchFunctionCall& call) {
  const MetadataTensor* first = nullptr;
  for (const Value& a : call.args)
    if ((first = get(a)) != nullptr) break;
  for (const auto& kv : call.kwargs)
    if (first == nullptr) first = get(kv.second);
  if (first == nullptr) return wick::NotImplemented;  // only inside a list: not one of the note's cases
  return wrap(first->type(), wick::call_with_tensors(call), first->metadata());
}

Tensor to_tensor(const TypeInfo& type, const Value& v) {
  const MetadataTensor* m = get(v);
  WICK_CHECK(m != nullptr, TypeError, type.name(), ".to_tensor(): expected a ", type.name(), ", not ", v.type_name());
  return m->tensor();
}

}  // namespace

void register_metadata_tensor(wick::Library& lib) {
  lib.register_type({.name = "MetadataTensor", .handler = handle, .constructor = construct, .to_tensor = to_tensor});
}

}  // namespace extending_torch
