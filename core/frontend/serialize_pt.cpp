// core/frontend/serialize_pt.cpp - PyTorch 1.13's .pt zip format: save_pt, load_pt, load_pt_tensor.
/// \file
/// A .pt file is a zip whose records share one top-level folder (torch.save
/// names it after the file; wick writes "archive"): `data.pkl` (the pickled
/// object, Note [The pickle subset]), `data/<key>` (each storage's bytes,
/// little-endian, uncompressed) and `version` ("3\n").
#include <bit>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/frontend/serialize_pickle.h"
#include "core/frontend/serialize_zip.h"
#include "wick/checked.h"
#include "wick/serialize.h"

static_assert(std::endian::native == std::endian::little, "the .pt format stores little-endian bytes");

namespace wick {

using serialize_detail::PickledTensor;
using serialize_detail::ZipReader;
using serialize_detail::ZipWriter;

namespace {

constexpr const char* kArchive = "archive/";

serialize_detail::Unpickled read_pt(const std::string& path) {
  const ZipReader zip(path);
  const std::vector<std::string> names = zip.names();
  if (names.empty()) throw SerializationError(path, "", "the archive is empty");
  // Every record sits under the folder of the first (PyTorch's reader does the same).
  const std::size_t slash = names[0].find('/');
  if (slash == std::string::npos) {
    throw SerializationError(path, names[0], "not a PyTorch archive (its records are not in one folder)");
  }
  const std::string prefix = names[0].substr(0, slash + 1);
  const std::optional<std::uint64_t> pkl = zip.find(prefix + "data.pkl");
  if (!pkl) throw SerializationError(path, "data.pkl", "the archive has no data.pkl record");
  std::string pickle(zip.size(*pkl), '\0');
  zip.read(*pkl, pickle.data(), pickle.size(), "data.pkl");

  const serialize_detail::StorageLoader load = [&](const std::string& key, ScalarType dtype,
                                                   std::int64_t numel) -> Storage {
    const std::string record = "data/" + key;
    const std::optional<std::uint64_t> rec = zip.find(prefix + record);
    if (!rec) throw SerializationError(path, record, "the storage's record is missing");
    const std::optional<std::int64_t> nbytes = try_mul(numel, static_cast<std::int64_t>(itemsize(dtype)));
    const std::uint64_t have = zip.size(*rec);
    if (!nbytes || static_cast<std::uint64_t>(*nbytes) > have) {
      throw SerializationError(path, record,
                               "the record has " + std::to_string(have) + " bytes, too few for " +
                                   std::to_string(numel) + " elements of " + std::string(dtype_name(dtype)));
    }
    Storage s = IntrusivePtr<StorageImpl>::make(static_cast<std::size_t>(*nbytes), Device(DeviceType::kCPU));
    zip.read(*rec, s->data(), static_cast<std::uint64_t>(*nbytes), record);
    return s;
  };
  return serialize_detail::unpickle(reinterpret_cast<const unsigned char*>(pickle.data()), pickle.size(), load,
                                    path);
}

/// What a save writes: data.pkl's view of each tensor, and the storages'
/// bytes (kept alive by `keep` until the archive is closed).
struct Plan {
  std::vector<std::pair<std::string, PickledTensor>> entries;
  std::vector<std::pair<std::string, const StorageImpl*>> records;  // key, storage
  std::vector<Tensor> keep;
};

PickledTensor plan_tensor(Plan& plan, std::unordered_map<const StorageImpl*, std::size_t>& seen,
                          const std::string& path, const std::string& name, const Tensor& tensor) {
  if (!tensor.defined()) throw SerializationError(path, name, "cannot save an undefined tensor");
  Tensor t = tensor.device().is_cpu() ? tensor : tensor.to(Device(DeviceType::kCPU));
  const StorageImpl* storage = t.storage().get();
  const std::size_t item = itemsize(t.dtype());
  PickledTensor p;
  p.dtype = t.dtype();
  p.storage_numel = static_cast<std::int64_t>(storage->nbytes() / item);
  p.storage_offset = t.storage_offset();
  p.sizes.assign(t.sizes().begin(), t.sizes().end());
  p.strides.assign(t.strides().begin(), t.strides().end());
  p.requires_grad = t.requires_grad();
  auto [it, added] = seen.emplace(storage, plan.records.size());
  if (added) {
    plan.records.emplace_back(std::to_string(plan.records.size()), storage);
    plan.keep.push_back(t);
  } else {
    const Tensor& first = plan.keep[it->second];
    if (first.dtype() != t.dtype()) {
      throw SerializationError(path, name,
                               "Cannot save multiple tensors or storages that view the same data as different types");
    }
  }
  p.storage_key = plan.records[it->second].first;
  return p;
}

void write_pt(const std::string& path, const std::string& pickle, const Plan& plan) {
  ZipWriter zip(path);
  zip.add(std::string(kArchive) + "data.pkl", pickle.data(), pickle.size());
  for (std::size_t k = 0; k < plan.records.size(); ++k) {
    const Tensor& t = plan.keep[k];
    const std::size_t item = itemsize(t.dtype());
    const std::size_t nbytes = plan.records[k].second->nbytes() / item * item;
    zip.add(std::string(kArchive) + "data/" + plan.records[k].first, plan.records[k].second->data(), nbytes);
  }
  static constexpr char kVersion[] = "3\n";
  zip.add(std::string(kArchive) + "version", kVersion, 2);
  zip.close();
}

}  // namespace

bool pt_format_available() noexcept { return serialize_detail::zip_available(); }

void save_pt(const Tensor& tensor, const std::string& path) {
  Plan plan;
  std::unordered_map<const StorageImpl*, std::size_t> seen;
  const PickledTensor p = plan_tensor(plan, seen, path, "", tensor);
  write_pt(path, serialize_detail::pickle_tensor(p, path), plan);
}

void save_pt(const NamedTensors& tensors, const std::string& path) {
  Plan plan;
  std::unordered_map<const StorageImpl*, std::size_t> seen;
  std::unordered_map<std::string, bool> names;
  for (const auto& [name, t] : tensors) {
    if (!names.emplace(name, true).second) throw SerializationError(path, name, "the name is given twice");
    plan.entries.emplace_back(name, plan_tensor(plan, seen, path, name, t));
  }
  write_pt(path, serialize_detail::pickle_dict(plan.entries, path), plan);
}

Tensor load_pt_tensor(const std::string& path) {
  serialize_detail::Unpickled u = read_pt(path);
  if (!u.is_tensor) throw SerializationError(path, "", "the file holds a dict of tensors, not one tensor");
  return std::move(u.tensor);
}

NamedTensors load_pt(const std::string& path) {
  serialize_detail::Unpickled u = read_pt(path);
  if (u.is_tensor) throw SerializationError(path, "", "the file holds one tensor, not a dict of tensors");
  return std::move(u.dict);
}

}  // namespace wick
