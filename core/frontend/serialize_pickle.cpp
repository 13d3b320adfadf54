// core/frontend/serialize_pickle.cpp - the pickle machine that reads PyTorch's data.pkl.
/// \file
/// Note [The pickle subset]
/// torch.save pickles its object with protocol 2 and keeps each storage's
/// bytes outside the pickle, referring to them by persistent id. A tensor is
/// the call `torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
/// requires_grad, hooks)`, a state_dict an `OrderedDict` filled by SETITEMS
/// and given its `_metadata` by BUILD. This machine knows exactly the
/// opcodes those pickles use (and the few protocol-4 ones that cost nothing)
/// and the globals they name: OrderedDict, the tensor and parameter rebuild
/// functions, and the typed storages. Any other opcode or global is an
/// error: nothing named by a file is ever called.
///
/// Every length is checked against the bytes left before it is used, and the
/// machine allocates only in proportion to the bytes it has read. Objects are
/// kept in one arena; when the machine is done it empties every container
/// before releasing them, so neither a cycle made through the memo nor a
/// deeply nested object can leak or overflow the stack on destruction.
#include "core/frontend/serialize_pickle.h"

#include <bit>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "wick/checked.h"

namespace wick::serialize_detail {

namespace {

enum class Kind : std::uint8_t { kNone, kBool, kInt, kFloat, kStr, kTuple, kList, kDict, kGlobal, kStorage, kTensor };
enum class Global : std::uint8_t { kOrderedDict, kRebuildTensorV2, kRebuildParameter, kStorageType };

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kNone: return "None";
    case Kind::kBool: return "a bool";
    case Kind::kInt: return "an int";
    case Kind::kFloat: return "a float";
    case Kind::kStr: return "a str";
    case Kind::kTuple: return "a tuple";
    case Kind::kList: return "a list";
    case Kind::kDict: return "a dict";
    case Kind::kGlobal: return "a class or function";
    case Kind::kStorage: return "a storage";
    case Kind::kTensor: return "a tensor";
  }
  return "an object";
}

struct Obj {
  Kind kind = Kind::kNone;
  bool b = false;
  std::int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<std::shared_ptr<Obj>> items;                                  // tuple, list
  std::vector<std::pair<std::shared_ptr<Obj>, std::shared_ptr<Obj>>> dict;  // insertion order
  Global global = Global::kOrderedDict;
  ScalarType dtype = ScalarType::kFloat32;  // storage type, storage
  Storage storage;
  Tensor tensor;
};
using Ref = std::shared_ptr<Obj>;

struct StorageName {
  const char* name;
  ScalarType dtype;
};
constexpr StorageName kStorageNames[] = {
    {"FloatStorage", ScalarType::kFloat32},        {"DoubleStorage", ScalarType::kFloat64},
    {"HalfStorage", ScalarType::kFloat16},         {"BFloat16Storage", ScalarType::kBFloat16},
    {"LongStorage", ScalarType::kInt64},           {"IntStorage", ScalarType::kInt32},
    {"ShortStorage", ScalarType::kInt16},          {"CharStorage", ScalarType::kInt8},
    {"ByteStorage", ScalarType::kUInt8},           {"BoolStorage", ScalarType::kBool},
    {"ComplexFloatStorage", ScalarType::kComplex64}, {"ComplexDoubleStorage", ScalarType::kComplex128},
};

constexpr std::size_t kMaxDims = 64;

class Machine {
 public:
  Machine(const unsigned char* data, std::size_t n, const StorageLoader& load, const std::string& path)
      : p_(data), end_(data + n), load_(load), path_(path) {}
  ~Machine() {
    // Note [The pickle subset]: empty every container first, then release.
    for (const Ref& o : arena_) {
      o->items.clear();
      o->dict.clear();
    }
  }
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  Ref run();

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw SerializationError(path_, "data.pkl", what + " (at byte " + std::to_string(pos_) + " of the pickle)");
  }
  Ref make(Kind k) {
    arena_.push_back(std::make_shared<Obj>());
    arena_.back()->kind = k;
    return arena_.back();
  }
  const unsigned char* take(std::size_t n) {
    if (static_cast<std::size_t>(end_ - p_) < n) fail("truncated pickle");
    const unsigned char* at = p_;
    p_ += n;
    return at;
  }
  std::uint64_t le(std::size_t n) {
    const unsigned char* b = take(n);
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < n; ++k) v |= static_cast<std::uint64_t>(b[k]) << (8 * k);
    return v;
  }
  std::string line() {
    const void* nl = std::memchr(p_, '\n', static_cast<std::size_t>(end_ - p_));
    if (nl == nullptr) fail("truncated pickle");
    const auto* at = static_cast<const unsigned char*>(nl);
    std::string s(reinterpret_cast<const char*>(p_), static_cast<std::size_t>(at - p_));
    p_ = at + 1;
    return s;
  }
  void push(Ref r) { stack_.push_back(std::move(r)); }
  Ref pop() {
    if (stack_.size() <= floor()) fail("pickle stack underflow");
    Ref r = std::move(stack_.back());
    stack_.pop_back();
    return r;
  }
  Ref& top() {
    if (stack_.size() <= floor()) fail("pickle stack underflow");
    return stack_.back();
  }
  std::size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  std::vector<Ref> pop_mark() {
    if (marks_.empty()) fail("MARK missing");
    const std::size_t m = marks_.back();
    marks_.pop_back();
    std::vector<Ref> out(std::make_move_iterator(stack_.begin() + static_cast<std::ptrdiff_t>(m)),
                         std::make_move_iterator(stack_.end()));
    stack_.resize(m);
    return out;
  }
  Ref make_int(std::int64_t v) {
    Ref r = make(Kind::kInt);
    r->i = v;
    return r;
  }
  Ref make_tuple(std::vector<Ref> items) {
    Ref r = make(Kind::kTuple);
    r->items = std::move(items);
    return r;
  }
  void memo_put(std::uint64_t k) {
    if (memo_.size() >= kMaxMemo && memo_.find(k) == memo_.end()) fail("memo too large");
    memo_[k] = top();
  }
  void memo_get(std::uint64_t k) {
    auto it = memo_.find(k);
    if (it == memo_.end()) fail("memo key " + std::to_string(k) + " was never stored");
    push(it->second);
  }
  Ref global(const std::string& module, const std::string& name);
  void set_items(const Ref& dict, std::vector<Ref> kv);
  Ref persistent_load(const Ref& pid);
  Ref reduce(const Ref& callable, const Ref& args);
  Ref rebuild_tensor(const std::vector<Ref>& a);
  std::int64_t want_int(const Ref& r, const char* what) {
    if (r->kind != Kind::kInt) fail(std::string(what) + " must be an int, not " + kind_name(r->kind));
    return r->i;
  }
  std::vector<std::int64_t> want_ints(const Ref& r, const char* what) {
    if (r->kind != Kind::kTuple && r->kind != Kind::kList) fail(std::string(what) + " must be a tuple");
    if (r->items.size() > kMaxDims) fail(std::string(what) + " has too many dimensions");
    std::vector<std::int64_t> out;
    for (const Ref& x : r->items) out.push_back(want_int(x, what));
    return out;
  }

  static constexpr std::size_t kMaxMemo = std::size_t{1} << 24;
  const unsigned char* p_;
  const unsigned char* end_;
  std::size_t pos_ = 0;
  const StorageLoader& load_;
  const std::string& path_;
  std::vector<Ref> arena_;
  std::vector<Ref> stack_;
  std::vector<std::size_t> marks_;
  std::unordered_map<std::uint64_t, Ref> memo_;
  std::unordered_map<std::string, Ref> storages_;
};

Ref Machine::global(const std::string& module, const std::string& name) {
  Ref g = make(Kind::kGlobal);
  if (module == "collections" && name == "OrderedDict") {
    g->global = Global::kOrderedDict;
  } else if (module == "torch._utils" && name == "_rebuild_tensor_v2") {
    g->global = Global::kRebuildTensorV2;
  } else if (module == "torch._utils" && name == "_rebuild_parameter") {
    g->global = Global::kRebuildParameter;
  } else {
    bool found = false;
    if (module == "torch") {
      for (const StorageName& s : kStorageNames) {
        if (name == s.name) {
          g->global = Global::kStorageType;
          g->dtype = s.dtype;
          found = true;
        }
      }
    }
    if (!found) fail("unsupported global '" + module + "." + name + "' (only tensors and dicts of them load)");
  }
  return g;
}

void Machine::set_items(const Ref& dict, std::vector<Ref> kv) {
  if (dict->kind != Kind::kDict) fail(std::string("SETITEM on ") + kind_name(dict->kind));
  if (kv.size() % 2 != 0) fail("SETITEMS with an odd number of items");
  for (std::size_t k = 0; k < kv.size(); k += 2) dict->dict.emplace_back(std::move(kv[k]), std::move(kv[k + 1]));
}

Ref Machine::persistent_load(const Ref& pid) {
  const auto& a = pid->items;
  if (pid->kind != Kind::kTuple || a.size() != 5 || a[0]->kind != Kind::kStr || a[0]->s != "storage") {
    fail("unsupported persistent id (expected ('storage', type, key, location, numel))");
  }
  if (a[1]->kind != Kind::kGlobal || a[1]->global != Global::kStorageType) fail("persistent id without a storage type");
  if (a[2]->kind != Kind::kStr || a[3]->kind != Kind::kStr) fail("persistent id with a non-string key or location");
  const std::int64_t numel = want_int(a[4], "a storage's size");
  if (numel < 0) fail("negative storage size");
  const std::string& key = a[2]->s;
  auto it = storages_.find(key);
  if (it != storages_.end()) {
    if (it->second->dtype != a[1]->dtype) fail("storage '" + key + "' is used with two dtypes");
    return it->second;
  }
  Ref s = make(Kind::kStorage);
  s->dtype = a[1]->dtype;
  s->storage = load_(key, s->dtype, numel);  // the location ("cpu", "cuda:0") is ignored: tensors load on the CPU
  s->i = numel;
  storages_.emplace(key, s);
  return s;
}

Ref Machine::rebuild_tensor(const std::vector<Ref>& a) {
  if (a.size() < 6 || a.size() > 7) fail("_rebuild_tensor_v2 takes 6 or 7 arguments");
  if (a[0]->kind != Kind::kStorage) fail("_rebuild_tensor_v2 needs a storage");
  const std::int64_t offset = want_int(a[1], "a storage offset");
  const std::vector<std::int64_t> sizes = want_ints(a[2], "a tensor's size");
  const std::vector<std::int64_t> strides = want_ints(a[3], "a tensor's stride");
  if (a[4]->kind != Kind::kBool) fail("requires_grad must be a bool");
  if (sizes.size() != strides.size()) fail("a tensor's size and stride have different lengths");
  // The highest element the view addresses must lie in the storage.
  std::int64_t numel = 1;
  std::int64_t last = offset;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0 || strides[d] < 0) fail("negative size or stride");
    numel = checked_mul(numel, sizes[d], "torch.load");
    if (sizes[d] > 0) last = checked_add(last, checked_mul(sizes[d] - 1, strides[d], "torch.load"), "torch.load");
  }
  if (offset < 0 || (numel > 0 && last >= a[0]->i)) {
    fail("a tensor of size " + std::to_string(numel) + " at offset " + std::to_string(offset) +
         " does not fit its storage of " + std::to_string(a[0]->i) + " elements");
  }
  Ref t = make(Kind::kTensor);
  t->tensor = Tensor(IntrusivePtr<TensorImpl>::make(a[0]->storage, a[0]->dtype, IntArrayRef(sizes),
                                                    IntArrayRef(strides), offset));
  if (a[4]->b && is_floating(a[0]->dtype)) t->tensor.requires_grad_(true);
  return t;
}

Ref Machine::reduce(const Ref& callable, const Ref& args) {
  if (callable->kind != Kind::kGlobal || args->kind != Kind::kTuple) fail("REDUCE needs a global and a tuple");
  const std::vector<Ref>& a = args->items;
  switch (callable->global) {
    case Global::kOrderedDict:
      if (!a.empty()) fail("OrderedDict called with arguments");
      return make(Kind::kDict);
    case Global::kRebuildTensorV2: return rebuild_tensor(a);
    case Global::kRebuildParameter: {
      if (a.size() != 3 || a[0]->kind != Kind::kTensor || a[1]->kind != Kind::kBool) {
        fail("_rebuild_parameter takes (tensor, requires_grad, hooks)");
      }
      Ref t = make(Kind::kTensor);
      t->tensor = a[0]->tensor.detach();
      if (a[1]->b && is_floating(t->tensor.dtype())) t->tensor.requires_grad_(true);
      return t;
    }
    case Global::kStorageType: break;
  }
  fail("a storage type cannot be called");
}

Ref Machine::run() {
  const unsigned char* begin = p_;
  for (;;) {
    pos_ = static_cast<std::size_t>(p_ - begin);
    const unsigned char op = *take(1);
    switch (op) {
      case 0x80: {  // PROTO
        const unsigned v = *take(1);
        if (v > 5) fail("unsupported pickle protocol " + std::to_string(v));
        break;
      }
      case 0x95: take(8); break;  // FRAME: a hint only
      case '.': {                 // STOP
        if (stack_.size() != 1 || !marks_.empty()) fail("the pickle ends with " + std::to_string(stack_.size()) + " objects");
        return stack_.back();
      }
      case '(': marks_.push_back(stack_.size()); break;  // MARK
      case '}': push(make(Kind::kDict)); break;           // EMPTY_DICT
      case ']': push(make(Kind::kList)); break;           // EMPTY_LIST
      case ')': push(make_tuple({})); break;              // EMPTY_TUPLE
      case 't': push(make_tuple(pop_mark())); break;      // TUPLE
      case 0x85: push(make_tuple({pop()})); break;        // TUPLE1
      case 0x86: {                                        // TUPLE2
        Ref b = pop();
        Ref a = pop();
        push(make_tuple({a, b}));
        break;
      }
      case 0x87: {  // TUPLE3
        Ref c = pop();
        Ref b = pop();
        Ref a = pop();
        push(make_tuple({a, b, c}));
        break;
      }
      case 'X':      // BINUNICODE
      case 0x8c: {   // SHORT_BINUNICODE
        const std::size_t n = static_cast<std::size_t>(le(op == 'X' ? 4 : 1));
        const unsigned char* at = take(n);
        Ref s = make(Kind::kStr);
        s->s.assign(reinterpret_cast<const char*>(at), n);
        push(s);
        break;
      }
      case 'K': push(make_int(static_cast<std::int64_t>(le(1)))); break;  // BININT1
      case 'M': push(make_int(static_cast<std::int64_t>(le(2)))); break;  // BININT2
      case 'J': push(make_int(static_cast<std::int32_t>(static_cast<std::uint32_t>(le(4))))); break;  // BININT
      case 0x8a: {  // LONG1
        const std::size_t n = *take(1);
        if (n > 8) fail("integer too large");
        std::uint64_t v = le(n);
        if (n > 0 && n < 8 && (v >> (8 * n - 1)) != 0) v |= ~std::uint64_t{0} << (8 * n);  // sign-extend
        push(make_int(static_cast<std::int64_t>(v)));
        break;
      }
      case 'N': push(make(Kind::kNone)); break;  // NONE
      case 0x88:                                 // NEWTRUE
      case 0x89: {                               // NEWFALSE
        Ref b = make(Kind::kBool);
        b->b = op == 0x88;
        push(b);
        break;
      }
      case 'G': {  // BINFLOAT: big-endian
        const unsigned char* at = take(8);
        std::uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits = (bits << 8) | at[k];
        Ref f = make(Kind::kFloat);
        f->f = std::bit_cast<double>(bits);
        push(f);
        break;
      }
      case 'c': {  // GLOBAL
        const std::string module = line();
        const std::string name = line();
        push(global(module, name));
        break;
      }
      case 0x93: {  // STACK_GLOBAL
        Ref name = pop();
        Ref module = pop();
        if (name->kind != Kind::kStr || module->kind != Kind::kStr) fail("STACK_GLOBAL needs two strings");
        push(global(module->s, name->s));
        break;
      }
      case 'Q': push(persistent_load(pop())); break;  // BINPERSID
      case 'R': {                                     // REDUCE
        Ref args = pop();
        Ref callable = pop();
        push(reduce(callable, args));
        break;
      }
      case 'b': {  // BUILD: only the _metadata of an OrderedDict, which is dropped
        (void)pop();
        const Kind k = top()->kind;
        if (k != Kind::kDict && k != Kind::kTensor) fail(std::string("BUILD on ") + kind_name(k));
        break;
      }
      case 's': {  // SETITEM
        Ref v = pop();
        Ref k = pop();
        set_items(top(), {k, v});
        break;
      }
      case 'u': {  // SETITEMS
        std::vector<Ref> kv = pop_mark();
        set_items(top(), std::move(kv));
        break;
      }
      case 'a': {  // APPEND
        Ref v = pop();
        if (top()->kind != Kind::kList) fail("APPEND to a non-list");
        top()->items.push_back(std::move(v));
        break;
      }
      case 'e': {  // APPENDS
        std::vector<Ref> vs = pop_mark();
        if (top()->kind != Kind::kList) fail("APPENDS to a non-list");
        for (Ref& v : vs) top()->items.push_back(std::move(v));
        break;
      }
      case 'q': memo_put(le(1)); break;            // BINPUT
      case 'r': memo_put(le(4)); break;            // LONG_BINPUT
      case 0x94: memo_put(memo_.size()); break;    // MEMOIZE
      case 'h': memo_get(le(1)); break;            // BINGET
      case 'j': memo_get(le(4)); break;            // LONG_BINGET
      case '0': pop(); break;                      // POP
      case '1': pop_mark(); break;                 // POP_MARK
      case '2': push(top()); break;                // DUP
      default: {
        static constexpr char kHex[] = "0123456789abcdef";
        fail(std::string("unsupported pickle opcode 0x") + kHex[op >> 4] + kHex[op & 15]);
      }
    }
  }
}

}  // namespace

std::string storage_type_name(ScalarType dtype, const std::string& path, const std::string& key) {
  for (const StorageName& s : kStorageNames) {
    if (s.dtype == dtype) return s.name;
  }
  throw SerializationError(path, key, std::string("dtype ") + std::string(dtype_name(dtype)) +
                                          " has no PyTorch storage type");
}

Unpickled unpickle(const unsigned char* data, std::size_t n, const StorageLoader& load_storage,
                   const std::string& path) {
  Machine m(data, n, load_storage, path);
  const Ref r = m.run();
  Unpickled out;
  if (r->kind == Kind::kTensor) {
    out.is_tensor = true;
    out.tensor = r->tensor;
    return out;
  }
  if (r->kind != Kind::kDict) {
    throw SerializationError(path, "", std::string("the file holds ") + kind_name(r->kind) +
                                           ", not a tensor or a dict of tensors");
  }
  // Later SETITEMs of a key replace its value and keep its place, as in a dict.
  std::unordered_map<std::string, std::size_t> index;
  for (const auto& [k, v] : r->dict) {
    if (k->kind != Kind::kStr) {
      throw SerializationError(path, "", std::string("the dict has a key that is ") + kind_name(k->kind) +
                                             ", not a str");
    }
    if (v->kind != Kind::kTensor) {
      throw SerializationError(path, k->s, std::string("holds ") + kind_name(v->kind) + ", not a tensor");
    }
    auto [it, added] = index.emplace(k->s, out.dict.size());
    if (added) {
      out.dict.emplace_back(k->s, v->tensor);
    } else {
      out.dict[it->second].second = v->tensor;
    }
  }
  return out;
}

}  // namespace wick::serialize_detail
