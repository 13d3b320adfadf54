// core/frontend/serialize_pickle_writer.cpp - writes data.pkl as torch.save does (protocol 2).
/// \file
/// The output follows PyTorch 1.13's own pickles op for op, minus the memo
/// (an unpickler needs none: each global and string is simply written again)
/// and minus the state_dict's `_metadata` (load_state_dict works without it).
#include "core/frontend/serialize_pickle.h"

namespace wick::serialize_detail {

namespace {

class Writer {
 public:
  void op(unsigned char c) { out_.push_back(static_cast<char>(c)); }
  void le(std::uint64_t v, int n) {
    for (int k = 0; k < n; ++k) out_.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
  }
  void str(const std::string& s) {
    op('X');  // BINUNICODE
    le(s.size(), 4);
    out_ += s;
  }
  void integer(std::int64_t v) {
    if (v >= 0 && v < 256) {
      op('K');
      le(static_cast<std::uint64_t>(v), 1);
    } else if (v >= 0 && v < 65536) {
      op('M');
      le(static_cast<std::uint64_t>(v), 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      op('J');
      le(static_cast<std::uint32_t>(static_cast<std::int32_t>(v)), 4);
    } else {
      op(0x8a);  // LONG1, 8 bytes two's complement
      op(8);
      le(static_cast<std::uint64_t>(v), 8);
    }
  }
  void global(const std::string& module, const std::string& name) {
    op('c');
    out_ += module + "\n" + name + "\n";
  }
  void int_tuple(const std::vector<std::int64_t>& xs) {
    op('(');
    for (std::int64_t x : xs) integer(x);
    op('t');
  }
  void ordered_dict() {
    global("collections", "OrderedDict");
    op(')');
    op('R');
  }
  void tensor(const PickledTensor& t, const std::string& path) {
    global("torch._utils", "_rebuild_tensor_v2");
    op('(');
    op('(');  // persistent id ('storage', <type>, key, 'cpu', numel)
    str("storage");
    global("torch", storage_type_name(t.dtype, path, t.storage_key));
    str(t.storage_key);
    str("cpu");
    integer(t.storage_numel);
    op('t');
    op('Q');  // BINPERSID
    integer(t.storage_offset);
    int_tuple(t.sizes);
    int_tuple(t.strides);
    op(t.requires_grad ? 0x88 : 0x89);
    ordered_dict();  // backward hooks
    op('t');
    op('R');
  }
  std::string finish() {
    op('.');
    return std::move(out_);
  }
  void begin() {
    op(0x80);
    op(2);
  }

 private:
  std::string out_;
};

}  // namespace

std::string pickle_tensor(const PickledTensor& t, const std::string& path) {
  Writer w;
  w.begin();
  w.tensor(t, path);
  return w.finish();
}

std::string pickle_dict(const std::vector<std::pair<std::string, PickledTensor>>& entries, const std::string& path) {
  Writer w;
  w.begin();
  w.ordered_dict();
  if (!entries.empty()) {
    w.op('(');
    for (const auto& [name, t] : entries) {
      w.str(name);
      w.tensor(t, path);
    }
    w.op('u');
  }
  return w.finish();
}

}  // namespace wick::serialize_detail
