// core/frontend/serialize.cpp - SerializationError and the format-choosing save/load of tensors, state_dicts and modules.
/// \file
#include "wick/serialize.h"

#include <unordered_map>
#include <utility>

#include "wick/nn.h"
#include "wick/optim.h"
#include "wick/tensor_util.h"

namespace wick {

namespace {
std::string error_text(const std::string& path, const std::string& key, const std::string& what) {
  return key.empty() ? path + ": " + what : path + ": '" + key + "': " + what;
}
constexpr const char* kTensorKey = "tensor";
}  // namespace

SerializationError::SerializationError(std::string path, std::string key, const std::string& what)
    : RuntimeError(error_text(path, key, what)), path_(std::move(path)), key_(std::move(key)) {}

SerializationFormat resolve_format(const std::string& path, SerializationFormat format) {
  if (format != SerializationFormat::kAuto) return format;
  constexpr std::string_view kExt = ".safetensors";
  return path.ends_with(kExt) ? SerializationFormat::kSafetensors : SerializationFormat::kPyTorch;
}

void save(const Tensor& tensor, const std::string& path, SerializationFormat format) {
  if (resolve_format(path, format) == SerializationFormat::kSafetensors) {
    save_safetensors(path, {{kTensorKey, tensor}});
  } else {
    save_pt(tensor, path);
  }
}

void save(const NamedTensors& tensors, const std::string& path, SerializationFormat format) {
  if (resolve_format(path, format) == SerializationFormat::kSafetensors) {
    save_safetensors(path, tensors);
  } else {
    save_pt(tensors, path);
  }
}

void save(const nn::Module& module, const std::string& path, SerializationFormat format) {
  save(module.state_dict(), path, format);
}

NamedTensors load(const std::string& path, SerializationFormat format) {
  if (resolve_format(path, format) == SerializationFormat::kSafetensors) return load_safetensors(path).tensors;
  return load_pt(path);
}

Tensor load_tensor(const std::string& path, SerializationFormat format) {
  if (resolve_format(path, format) == SerializationFormat::kSafetensors) {
    SafetensorsContents c = load_safetensors(path);
    if (c.tensors.size() != 1) {
      throw SerializationError(path, "", "the file holds " + std::to_string(c.tensors.size()) +
                                             " tensors, not one (use wick::load)");
    }
    return std::move(c.tensors[0].second);
  }
  return load_pt_tensor(path);
}

nn::IncompatibleKeys load(nn::Module& module, const std::string& path, SerializationFormat format, bool strict) {
  const NamedTensors state = load(path, format);
  std::unordered_map<std::string, const Tensor*> in_file;
  for (const auto& [name, t] : state) in_file.emplace(name, &t);
  std::unordered_map<std::string, bool> in_model;
  // Everything is checked before Module::load_state_dict copies anything.
  for (const auto& [name, dst] : module.state_dict()) {
    in_model.emplace(name, true);
    auto it = in_file.find(name);
    if (it == in_file.end()) {
      if (strict) throw SerializationError(path, name, "missing from the file (the model " + module.name() + " has it)");
      continue;
    }
    const Tensor& src = *it->second;
    if (src.dtype() != dst.dtype()) {
      throw SerializationError(path, name, "the file's tensor is " + std::string(dtype_name(src.dtype())) +
                                               ", the model's is " + std::string(dtype_name(dst.dtype())));
    }
    if (!src.sizes().equals(dst.sizes())) {
      throw SerializationError(path, name, "the file's tensor has shape " + format_shape(src.sizes()) +
                                               ", the model's has shape " + format_shape(dst.sizes()));
    }
  }
  if (strict) {
    for (const auto& [name, t] : state) {
      if (in_model.find(name) == in_model.end()) {
        throw SerializationError(path, name, "the model " + module.name() + " has no such parameter or buffer");
      }
    }
  }
  try {
    return module.load_state_dict(state, strict);
  } catch (const Error& e) {
    throw SerializationError(path, "", e.message());
  }
}

void save(const optim::Optimizer& optimizer, const std::string& path, SerializationFormat format) {
  save(optimizer.state_dict(), path, format);
}

void load(optim::Optimizer& optimizer, const std::string& path, SerializationFormat format) {
  const NamedTensors state = load(path, format);
  try {
    optimizer.load_state_dict(state);
  } catch (const Error& e) {
    throw SerializationError(path, "", e.message());
  }
}

}  // namespace wick
