// wick/serialize.h - saving and loading tensors, state_dicts and modules as PyTorch .pt and safetensors files.
/// \file
/// Two formats other tools read:
///
/// - PyTorch's zip format, as `torch.save` writes it in PyTorch 1.13 (a zip
///   of `archive/data.pkl`, one record per storage, `archive/version`).
///   Loading runs a small pickle machine that knows only what a tensor or a
///   state_dict needs; any other global is refused, never called.
/// - safetensors (a JSON header, then the tensors' bytes), for any dtype but
///   complex, with a string-to-string `__metadata__` map.
///
///   wick::save(model, "model.pt");                 // model.state_dict(), read by torch.load
///   wick::save(sd, "model.safetensors");           // the format follows the extension
///   wick::load(model, "model.pt");                 // checks every key, shape and dtype first
///   wick::NamedTensors sd = wick::load("ckpt.pt"); // a state_dict, in the file's order
///   wick::Tensor t = wick::load_tensor("x.pt");    // a file holding one tensor
///
/// Every problem with a file (it cannot be opened, it is truncated or
/// corrupt, it holds something other than tensors, a tensor does not fit the
/// model) is a `SerializationError` whose message starts with the file and,
/// when there is one, the key. Sizes read from a file are bounded by the
/// file's own size before anything is allocated. Tensors load on the CPU
/// (tensors saved from CUDA too); views load as views of one storage, and
/// tensors that shared a storage when saved share one when loaded (.pt).
///
/// Note [Saving an optimizer]
/// Everything that saves or loads a flat state goes through `NamedTensors`:
/// `save(optimizer, path)` writes `optimizer.state_dict()` (its per-parameter
/// state and every group's options, wick/optim.h) and `load(optimizer,
/// path)` checks and restores it, as `torch::save(opt, ...)` /
/// `torch::load(opt, ...)` do; any other object with `state_dict()` /
/// `load_state_dict(NamedTensors)` needs one line per direction.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "wick/error.h"
#include "wick/export.h"
#include "wick/nn.h"
#include "wick/tensor.h"

namespace wick {

namespace optim {
class Optimizer;
}  // namespace optim

/// A state_dict: names and tensors, in order.
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

/// Which file format to read or write.
enum class SerializationFormat : std::int8_t {
  kAuto = 0,         ///< from the extension: ".safetensors" is safetensors, anything else .pt
  kPyTorch = 1,      ///< torch.save's zip format (PyTorch 1.13)
  kSafetensors = 2,  ///< safetensors
};

/// A file that cannot be read or written as asked. `path()` is the file,
/// `key()` the tensor or record concerned ("" when none); the message reads
/// "<path>: '<key>': <what>" (without the key part when there is none).
class WICK_API SerializationError : public RuntimeError {
 public:
  /// An error about `path` and `key` ("" for none) whose message is built from `what` as the class says.
  SerializationError(std::string path, std::string key, const std::string& what);
  /// "SerializationError".
  [[nodiscard]] const char* type_name() const noexcept override { return "SerializationError"; }
  /// The file concerned.
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  /// The tensor or record concerned, or "" when none.
  [[nodiscard]] const std::string& key() const noexcept { return key_; }

 private:
  std::string path_;
  std::string key_;
};

/// The format `format` names, or for kAuto the one `path`'s extension names.
[[nodiscard]] WICK_API SerializationFormat resolve_format(const std::string& path, SerializationFormat format);

/// Whether this build can read and write .pt files (it needs libzip; without
/// it those functions throw a SerializationError saying so).
[[nodiscard]] WICK_API bool pt_format_available() noexcept;

// --- safetensors ----------------------------------------------------------------

/// What a safetensors file holds: its tensors in the header's order and its
/// `__metadata__` map.
struct SafetensorsContents {
  NamedTensors tensors; ///< the tensors, in the header's order
  std::map<std::string, std::string> metadata; ///< the `__metadata__` entries (string to string)
};

/// Writes `tensors` (any device and layout: saved contiguous, from the CPU)
/// and `metadata`. SerializationError for a complex tensor (safetensors has
/// no complex dtype), an undefined tensor, a repeated or empty name, or a
/// file that cannot be written.
WICK_API void save_safetensors(const std::string& path, const NamedTensors& tensors,
                               const std::map<std::string, std::string>& metadata = {});
/// Reads a safetensors file, validating it strictly: the header length must
/// fit in the file, the header must be a JSON object of entries with a known
/// dtype, a shape and data offsets, each entry's bytes must be its shape
/// times its item size, and the entries must tile the data exactly (no gap,
/// no overlap, nothing left over). SerializationError naming the file and the
/// key otherwise.
[[nodiscard]] WICK_API SafetensorsContents load_safetensors(const std::string& path);

// --- PyTorch .pt ------------------------------------------------------------------

/// Writes one tensor as `torch.save(t, path)` would in PyTorch 1.13.
WICK_API void save_pt(const Tensor& tensor, const std::string& path);
/// Writes an OrderedDict of `tensors`, as `torch.save(model.state_dict(),
/// path)` would. Views and tensors sharing a storage are saved with their
/// storage once; SerializationError for tensors that view one storage with
/// different dtypes, an undefined tensor, or a repeated name.
WICK_API void save_pt(const NamedTensors& tensors, const std::string& path);
/// The tensor a .pt file holds. SerializationError when it holds something
/// else (a dict: use `load_pt`) or cannot be read.
[[nodiscard]] WICK_API Tensor load_pt_tensor(const std::string& path);
/// The dict or OrderedDict of tensors a .pt file holds, in its order (string
/// keys, tensor values). SerializationError when it holds something else or
/// cannot be read: globals other than OrderedDict, torch's tensor and
/// parameter rebuild functions and storage types are refused.
[[nodiscard]] WICK_API NamedTensors load_pt(const std::string& path);

// --- by object ---------------------------------------------------------------------

/// Saves `tensor` (.pt: as torch.save; safetensors: under the name "tensor").
WICK_API void save(const Tensor& tensor, const std::string& path,
                   SerializationFormat format = SerializationFormat::kAuto);
/// Saves a state_dict.
WICK_API void save(const NamedTensors& tensors, const std::string& path,
                   SerializationFormat format = SerializationFormat::kAuto);
/// Saves `module.state_dict()`.
WICK_API void save(const nn::Module& module, const std::string& path,
                   SerializationFormat format = SerializationFormat::kAuto);
/// The state_dict a file holds (safetensors: its tensors; the metadata is
/// dropped, see load_safetensors).
[[nodiscard]] WICK_API NamedTensors load(const std::string& path,
                                         SerializationFormat format = SerializationFormat::kAuto);
/// The one tensor a file holds (safetensors: a file of exactly one tensor).
[[nodiscard]] WICK_API Tensor load_tensor(const std::string& path,
                                          SerializationFormat format = SerializationFormat::kAuto);
/// Loads a file's state_dict into `module`. Unlike `Module::load_state_dict`
/// (which converts dtypes, as PyTorch does), every tensor must have the
/// model's dtype and shape, and with `strict` every model key must be present
/// and no other: otherwise a SerializationError names the file and the first
/// offending key, and the module is left untouched.
WICK_API nn::IncompatibleKeys load(nn::Module& module, const std::string& path,
                                   SerializationFormat format = SerializationFormat::kAuto, bool strict = true);
/// A holder (`nn::Linear`, a WICK_MODULE) saves and loads its module, as
/// `torch::save(model, path)` takes libtorch's holders.
template <class Impl>
void save(const nn::ModuleHolder<Impl>& holder, const std::string& path,
          SerializationFormat format = SerializationFormat::kAuto) {
  save(static_cast<const nn::Module&>(*holder), path, format);
}
/// Loads a holder's module from `path` (see load of an nn::Module for the format, `strict` and the errors).
template <class Impl>
nn::IncompatibleKeys load(const nn::ModuleHolder<Impl>& holder, const std::string& path,
                          SerializationFormat format = SerializationFormat::kAuto, bool strict = true) {
  return load(static_cast<nn::Module&>(*holder), path, format, strict);
}
/// Saves `optimizer.state_dict()` (Note [Saving an optimizer]).
WICK_API void save(const optim::Optimizer& optimizer, const std::string& path,
                   SerializationFormat format = SerializationFormat::kAuto);
/// Restores an optimizer saved by save(optimizer): its state and group
/// options. A file that does not fit it (another optimizer, other parameter
/// counts or shapes) is a SerializationError naming the file, and the
/// optimizer is left untouched.
WICK_API void load(optim::Optimizer& optimizer, const std::string& path,
                   SerializationFormat format = SerializationFormat::kAuto);

}  // namespace wick
