// core/frontend/serialize_pickle.h - the pickle subset of PyTorch's data.pkl: a reader and a writer.
/// \file
/// Private to the serialization frontend (Note [The pickle subset],
/// serialize_pickle.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "wick/dtype.h"
#include "wick/serialize.h"
#include "wick/storage.h"
#include "wick/tensor.h"

namespace wick::serialize_detail {

/// What data.pkl held: one tensor, or a dict of tensors.
struct Unpickled {
  bool is_tensor = false;
  Tensor tensor;
  NamedTensors dict;
};

/// Loads the storage a persistent id names: ('storage', <dtype>Storage, key,
/// location, numel). The storage must hold at least numel elements.
using StorageLoader = std::function<Storage(const std::string& key, ScalarType dtype, std::int64_t numel)>;

/// Runs the pickle machine over `data`. SerializationError naming `path` and
/// "data.pkl" for a truncated or malformed pickle, an opcode or global outside
/// the subset, a tensor that does not fit its storage, or a result that is
/// not a tensor or a dict of them (naming the key).
[[nodiscard]] Unpickled unpickle(const unsigned char* data, std::size_t n, const StorageLoader& load_storage,
                                 const std::string& path);

/// The storage name "FloatStorage" for a dtype; SerializationError naming
/// `path` and `key` for one PyTorch has no storage for.
[[nodiscard]] std::string storage_type_name(ScalarType dtype, const std::string& path, const std::string& key);

/// One tensor as data.pkl refers to it.
struct PickledTensor {
  std::string storage_key;  // the record data/<key>
  ScalarType dtype = ScalarType::kFloat32;
  std::int64_t storage_numel = 0;
  std::int64_t storage_offset = 0;
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> strides;
  bool requires_grad = false;
};

/// data.pkl for one tensor (protocol 2, as torch.save writes it).
[[nodiscard]] std::string pickle_tensor(const PickledTensor& t, const std::string& path);
/// data.pkl for an OrderedDict of tensors.
[[nodiscard]] std::string pickle_dict(const std::vector<std::pair<std::string, PickledTensor>>& entries,
                                      const std::string& path);

}  // namespace wick::serialize_detail
