// tools/wick/eval.cpp - evaluating `wick eval` expressions through the boxed API.
/// \file
/// Walks the tree `parse` builds. Names resolve as Note [Eval names] says;
/// operators and tensor methods go through `wick::call`; arithmetic on two
/// Python numbers is done here, as Python does it (eval_number.cpp).
#include "eval.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "eval_internal.h"
#include "wick/autograd.h"
#include "wick/callable.h"
#include "wick/catalog.h"
#include "wick/dispatcher.h"
#include "wick/dtype.h"
#include "wick/layout.h"
#include "wick/loader.h"
#include "wick/override.h"
#include "wick/random.h"
#include "wick/subscript.h"

namespace wick::eval {
namespace {

/// Something callable: an operator, a tensor method bound to its tensor, or
/// a builtin ("float", "torch.manual_seed").
struct Callable {
  enum class Kind : std::uint8_t { kOp, kMethod, kBuiltin };
  Kind kind;
  std::string name;  ///< operator name, method name, or builtin name
  Value self;        ///< the tensor of a method
};
/// A module such as `torch.nn`.
struct Namespace {
  std::string path;
};
/// What a sub-expression evaluates to; only a Value can be an operand.
using Thing = std::variant<Value, Callable, Namespace>;

constexpr std::string_view kBuiltins[] = {"abs", "format", "len", "max", "min", "slice", "type"};
/// Python's number types: classes (`type(1.0) == float`) that convert when called.
constexpr std::string_view kNumberTypes[] = {"float", "int", "bool", "complex"};
/// Tensor methods that are not operators (Note [Tensor attributes in eval]).
constexpr std::string_view kTensorBuiltins[] = {"stride"};

Value make_type(std::string name, const TypeInfo* info) {
  return Value(std::shared_ptr<Object>(std::make_shared<PyType>(std::move(name), info)));
}

/// `type(v)`: a subclass or tensor-like type, Tensor, or the Python type.
Value type_of_value(const Value& v) {
  if (const TypeInfo* t = type_of(v)) return make_type(t->name(), t);
  return make_type(v.type_name(), nullptr);
}

/// Tensors and tensor-likes: what operators and tensor methods accept.
bool is_tensorish(const Value& v) noexcept { return v.is_tensor() || (v.is_object() && is_tensor_like(v)); }

std::string_view dunder(BinaryOp op) noexcept {
  switch (op) {
    case BinaryOp::kAdd:
      return "__add__";
    case BinaryOp::kSub:
      return "__sub__";
    case BinaryOp::kMul:
      return "__mul__";
    case BinaryOp::kDiv:
      return "__truediv__";
    case BinaryOp::kFloorDiv:
      return "__floordiv__";
    case BinaryOp::kMod:
      return "__mod__";
    case BinaryOp::kMatMul:
      return "__matmul__";
    case BinaryOp::kPow:
      return "__pow__";
    case BinaryOp::kAnd:
      return "__and__";
    case BinaryOp::kOr:
      return "__or__";
    case BinaryOp::kXor:
      return "__xor__";
    case BinaryOp::kLShift:
      return "__lshift__";
    case BinaryOp::kRShift:
      return "__rshift__";
    case BinaryOp::kEq:
      return "__eq__";
    case BinaryOp::kNe:
      return "__ne__";
    case BinaryOp::kLt:
      return "__lt__";
    case BinaryOp::kLe:
      return "__le__";
    case BinaryOp::kGt:
      return "__gt__";
    case BinaryOp::kGe:
      return "__ge__";
  }
  return "";
}

/// The dunder the right operand answers with when the left one cannot:
/// `2 - x` is `x.__rsub__(2)`, `2 < x` is `x.__gt__(2)`.
std::string_view reflected_dunder(BinaryOp op) noexcept {
  switch (op) {
    case BinaryOp::kAdd:
      return "__radd__";
    case BinaryOp::kSub:
      return "__rsub__";
    case BinaryOp::kMul:
      return "__rmul__";
    case BinaryOp::kDiv:
      return "__rtruediv__";
    case BinaryOp::kFloorDiv:
      return "__rfloordiv__";
    case BinaryOp::kMod:
      return "__rmod__";
    case BinaryOp::kMatMul:
      return "__rmatmul__";
    case BinaryOp::kPow:
      return "__rpow__";
    case BinaryOp::kAnd:
      return "__rand__";
    case BinaryOp::kOr:
      return "__ror__";
    case BinaryOp::kXor:
      return "__rxor__";
    case BinaryOp::kLShift:
      return "__rlshift__";
    case BinaryOp::kRShift:
      return "__rrshift__";
    case BinaryOp::kEq:
      return "__eq__";
    case BinaryOp::kNe:
      return "__ne__";
    case BinaryOp::kLt:
      return "__gt__";
    case BinaryOp::kLe:
      return "__ge__";
    case BinaryOp::kGt:
      return "__lt__";
    case BinaryOp::kGe:
      return "__le__";
  }
  return "";
}

bool is_comparison(BinaryOp op) noexcept { return op >= BinaryOp::kEq; }

/// dtype attributes of `torch` that wick has, and PyTorch's others (which
/// parse_dtype rejects with a message listing what wick supports).
constexpr std::string_view kDtypeNames[] = {
    "float32", "float", "float64", "double", "float16", "half", "bfloat16",  "int64",  "long",       "int32",
    "int",     "int16", "short",   "int8",   "uint8",   "bool", "complex64", "cfloat", "complex128", "cdouble"};
constexpr std::string_view kOtherTorchDtypes[] = {"complex32", "chalf"};

template <std::size_t N>
bool one_of(std::string_view s, const std::string_view (&set)[N]) noexcept {
  for (std::string_view x : set) {
    if (s == x) return true;
  }
  return false;
}

// A name that is not defined. When plugin files on the search path failed
// to load (refused by the trust checks or the allowlist, built for another
// ABI), one of them may have defined it: the error says which and why.
template <typename E = NameError>
E undefined(const std::string& message) {
  E e(message);
  const std::vector<PluginLoadError> failed = plugin_errors();
  if (!failed.empty()) {
    e.add_note(failed.size() == 1 ? "a plugin file on the search path was not loaded, which may be why:"
                                  : "plugin files on the search path were not loaded, which may be why:");
    for (const PluginLoadError& f : failed) e.add_note("  " + f.message);
  }
  return e;
}

class Evaluator {
 public:
  explicit Evaluator(const Scope& scope) : scope_(scope) {}

  Value value(const Node& n) { return as_value(eval(n)); }

  /// A call's argument: a value, or a function (a builtin such as abs, an
  /// operator, a bound method) passed as a wick::Callable, for the operators
  /// that take one (Tensor.apply_, map_, register_hook): `x.apply_(abs)`.
  Value argument(const Node& n) {
    Thing t = eval(n);
    auto* c = std::get_if<Callable>(&t);
    if (c == nullptr) return as_value(std::move(t));
    auto fn = [c = *c](const std::vector<Value>& args) { return invoke(c, args, {}); };
    return Value(std::static_pointer_cast<Object>(std::make_shared<wick::Callable>(std::move(fn))));
  }

  Value as_value(Thing t) const {
    if (auto* v = std::get_if<Value>(&t)) return std::move(*v);
    if (auto* c = std::get_if<Callable>(&t)) {
      const std::string name = c->kind == Callable::Kind::kMethod ? "torch.Tensor." + c->name : c->name;
      throw TypeError(detail::str_cat("'", name, "' is a function, not a value (call it: ", name, "(...))"));
    }
    throw TypeError(detail::str_cat("'", std::get<Namespace>(t).path, "' is a module, not a value"));
  }

 private:
  Thing eval(const Node& n) {
    switch (n.kind) {
      case Node::Kind::kInt:
        return Value(n.int_value);
      case Node::Kind::kFloat:
        return Value(n.float_value);
      case Node::Kind::kImag:
        return Value(std::complex<double>(0.0, n.float_value));
      case Node::Kind::kString:
        return Value(n.text);
      case Node::Kind::kBool:
        return Value(n.bool_value);
      case Node::Kind::kNone:
        return Value();
      case Node::Kind::kName:
        return name(n.text);
      case Node::Kind::kAttribute:
        return attribute(eval(*n.children[0]), n.text, true);
      case Node::Kind::kCall:
        return call(n);
      case Node::Kind::kList:
      case Node::Kind::kTuple: {
        std::vector<Value> items;
        items.reserve(n.children.size());
        for (const auto& c : n.children) items.push_back(value(*c));
        return Value::list(std::move(items), n.kind == Node::Kind::kTuple);
      }
      case Node::Kind::kDict: {
        std::vector<std::pair<std::string, Value>> items;
        items.reserve(n.kwargs.size());
        for (const auto& [key, node] : n.kwargs) items.emplace_back(key, value(*node));
        return Value::dict(std::move(items));
      }
      case Node::Kind::kUnary:
        return unary(n.unary_op, value(*n.children[0]));
      case Node::Kind::kBoolOp: {  // Python: `a and b` is a when a is false, else b; `or` the reverse
        Value left = value(*n.children[0]);
        if (truth(left) == (n.text == "or")) return left;
        return value(*n.children[1]);
      }
      case Node::Kind::kBinary: {
        Value l = value(*n.children[0]);
        Value r = value(*n.children[1]);
        return binary(n.binary_op, l, r);
      }
      case Node::Kind::kSequence: {
        for (std::size_t k = 0; k + 1 < n.children.size(); ++k) (void)eval(*n.children[k]);
        return eval(*n.children.back());
      }
      case Node::Kind::kSubscript: {
        const Value base = value(*n.children[0]);
        std::vector<Value> items;
        for (std::size_t k = 1; k < n.children.size(); ++k) items.push_back(value(*n.children[k]));
        return subscript(base, items);
      }
      case Node::Kind::kSlice:  // start:stop:step inside a subscript
        return make_slice(slice_bound(value(*n.children[0])), slice_bound(value(*n.children[1])),
                          slice_bound(value(*n.children[2])));
      case Node::Kind::kEllipsis:
        return ellipsis();
    }
    WICK_INTERNAL_ASSERT(false, "unknown node kind");
    return Value();
  }

  /// A slice's start, stop or step: None, an int, or a 0-dim integer tensor.
  static std::optional<std::int64_t> slice_bound(const Value& v) {
    if (v.is_none()) return std::nullopt;
    if (v.is_int() || v.is_bool()) return v.to_int();
    if (v.is_tensor() && v.to_tensor().dim() == 0 && !is_floating(v.to_tensor().dtype()))
      return v.to_tensor().item().to<std::int64_t>();
    throw TypeError("slice indices must be integers or None or have an __index__ method");
  }

  // --- names -------------------------------------------------------------------

  /// A dotted name, part by part (Note [Eval names]).
  Thing name(const std::string& dotted) {
    std::vector<std::string> parts;
    for (std::size_t start = 0;;) {
      const std::size_t dot = dotted.find('.', start);
      parts.push_back(dotted.substr(start, dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    Thing t = first_name(parts[0], parts.size() == 1);
    for (std::size_t k = 1; k < parts.size(); ++k) t = attribute(std::move(t), parts[k], k + 1 == parts.size());
    return t;
  }

  Thing first_name(const std::string& n, bool last) {
    if (auto it = scope_.find(n); it != scope_.end()) return it->second;
    if (one_of(n, kBuiltins)) return Callable{Callable::Kind::kBuiltin, n, Value()};
    if (n == "Ellipsis") return ellipsis();
    if (one_of(n, kNumberTypes)) return make_type(n, nullptr);
    if (n == "F") return Namespace{"torch.nn.functional"};
    if (const TypeInfo* t = find_type(n)) return make_type(t->name(), t);
    if (!last && is_namespace(n)) return Namespace{n};
    if (try_find_op(n)) return Callable{Callable::Kind::kOp, n, Value()};
    if (is_namespace(n)) return Namespace{n};
    throw undefined(detail::str_cat("name '", n, "' is not defined"));
  }

  /// `base.attr`; `last` when nothing follows (a namespace is then preferred
  /// to an operator of the same name only when more parts follow).
  Thing attribute(Thing base, const std::string& attr, bool last) {
    if (auto* ns = std::get_if<Namespace>(&base)) {
      const std::string path = ns->path + "." + attr;
      if (path == "torch.Tensor" && last)
        return make_type("Tensor", nullptr);  // the class; `torch.Tensor.add` is a name
      if (!last && is_namespace(path)) return Namespace{path};
      if (try_find_op(path)) return Callable{Callable::Kind::kOp, path, Value()};
      // torch re-exports torch.functional's functions (torch.unique is torch.functional.unique).
      if (ns->path == "torch" && try_find_op("torch.functional." + attr)) {
        return Callable{Callable::Kind::kOp, "torch.functional." + attr, Value()};
      }
      if (path == "torch.manual_seed" || path == "torch.initial_seed" || path == "torch.Size") {
        return Callable{Callable::Kind::kBuiltin, path, Value()};
      }
      if (ns->path == "torch" && one_of(attr, kDtypeNames)) return Value(parse_dtype(attr));
      if (path == "torch.strided") return strided_layout();
      if (ns->path == "torch" && one_of(attr, kOtherTorchDtypes)) (void)parse_dtype(attr);  // throws TypeError
      if (is_namespace(path)) return Namespace{path};
      throw undefined<AttributeError>(detail::str_cat("module '", ns->path, "' has no attribute '", attr, "'"));
    }
    if (auto* c = std::get_if<Callable>(&base)) {
      throw AttributeError(detail::str_cat("function '", c->kind == Callable::Kind::kMethod ? "torch.Tensor." : "",
                                           c->name, "' has no attribute '", attr, "'"));
    }
    Value& v = std::get<Value>(base);
    if (const PyType* type = as_type(v); type != nullptr && attr == "__name__") return Value(type->name());
    if (v.is_object()) {
      if (const auto* t = dynamic_cast<const NamedTuple*>(v.to_object().get())) {
        if (const Value* f = t->field(attr)) return *f;
      }
    }
    if (is_tensorish(v)) {
      // A property (x.shape, x.T) is read by calling it; a method is bound to the tensor.
      const std::string op = "torch.Tensor." + attr;
      if (try_find_op(op)) {
        if (operator_info(op).property) return as_python_result(op, wick::call(op, {std::move(v)}));
        return Callable{Callable::Kind::kMethod, attr, std::move(v)};
      }
      if (v.is_tensor() && one_of(attr, kTensorBuiltins)) {
        return Callable{Callable::Kind::kBuiltin, "Tensor." + attr, std::move(v)};
      }
      throw AttributeError(
          detail::str_cat("'", as_type(type_of_value(v))->name(), "' object has no attribute '", attr, "'"));
    }
    throw AttributeError(detail::str_cat("'", v.type_name(), "' object has no attribute '", attr, "'"));
  }

  // Note [Results as Python sees them]
  // PyTorch's Python binding returns a `Tensor[]` result as a tuple, and
  // several returns as a named tuple when the schema names them
  // (`max.dim(...) -> (Tensor values, Tensor indices)` gives
  // torch.return_types.max), a plain tuple otherwise. ATen names the
  // torch.linalg functions with a prefix (torch.return_types.linalg_slogdet).
  // The sizes (x.shape, x.size()) are a torch.Size.
  static Value as_python_result(const std::string& op, Value r) {
    if ((op == "torch.Tensor.shape" || op == "torch.Tensor.size") && r.is_int_list()) {
      return Value(std::make_shared<TorchSize>(r.to_int_list()));
    }
    if (r.is_tensor_list()) {
      std::vector<Value> items(r.to_tensor_list().begin(), r.to_tensor_list().end());
      return Value::list(std::move(items), /*tuple=*/true);
    }
    if (!r.is_tuple()) return r;
    const std::size_t n = r.items().size();
    for (const CatalogEntry& e : catalog_entries()) {
      if (e.qualified_name != op) continue;
      for (const std::string& overload : e.overloads) {
        const FunctionSchema schema = find_op(overload).schema();
        if (schema.returns.size() != n) continue;
        std::vector<std::string> names;
        for (const SchemaArgument& ret : schema.returns) names.push_back(ret.name);
        if (std::find(names.begin(), names.end(), "") != names.end()) continue;
        const std::string type = e.ns == "torch.linalg" ? "linalg_" + schema.name : schema.name;
        return Value(std::make_shared<NamedTuple>(type, std::move(names), r.items()));
      }
    }
    return r;
  }

  // Note [Tensor attributes in eval]
  // A tensor's properties and metadata methods are catalog operators
  // (Note [Tensor metadata operators] in dispatch/ops/attributes.ops), which
  // a tensor-like can override: eval reads `x.shape` by calling the
  // property torch.Tensor.shape. What PyTorch does not let __torch_function__
  // see stays here: x.stride().

  // A tensor's method that is not an operator (Note [Tensor attributes in eval]).
  static Value tensor_builtin(const std::string& method, const Tensor& t, const std::vector<Value>& args,
                              const Kwargs& kwargs) {
    const std::string name = method.substr(std::string_view("Tensor.").size());
    if (name != "stride") throw AttributeError(detail::str_cat("'Tensor' object has no attribute '", name, "'"));
    // A tuple of all strides, or one dim's.
    WICK_CHECK(args.size() + kwargs.size() <= 1 && (kwargs.empty() || kwargs[0].first == "dim"), TypeError,
               "stride() takes at most one argument: dim");
    if (args.empty() && kwargs.empty()) {
      std::vector<Value> strides;
      for (const std::int64_t s : t.strides()) strides.emplace_back(s);
      return Value::list(std::move(strides), /*tuple=*/true);
    }
    const Value& d = args.empty() ? kwargs[0].second : args[0];
    WICK_CHECK(d.is_int() && !d.is_bool(), TypeError, "stride(): argument 'dim' must be int, not ", d.type_name());
    return Value(t.stride(d.to_int()));
  }

  /// A prefix of some operator's name (computed once per evaluation).
  bool is_namespace(const std::string& path) {
    if (!namespaces_) {
      namespaces_.emplace(
          std::set<std::string, std::less<>>{"torch", "torch.Tensor", "torch.nn", "torch.nn.functional"});
      for (const CatalogEntry& e : catalog_entries()) {
        for (std::size_t dot = e.qualified_name.find('.'); dot != std::string::npos;
             dot = e.qualified_name.find('.', dot + 1)) {
          namespaces_->insert(e.qualified_name.substr(0, dot));
        }
      }
    }
    return namespaces_->count(path) != 0;
  }

  // --- calls -------------------------------------------------------------------

  Thing call(const Node& n) {
    Thing callee = eval(*n.children[0]);
    std::vector<Value> args;
    args.reserve(n.children.size());
    for (std::size_t k = 1; k < n.children.size(); ++k) args.push_back(argument(*n.children[k]));
    Kwargs kwargs;
    kwargs.reserve(n.kwargs.size());
    for (const auto& [key, node] : n.kwargs) kwargs.emplace_back(key, argument(*node));

    if (auto* c = std::get_if<Callable>(&callee)) return invoke(*c, std::move(args), std::move(kwargs));
    if (auto* ns = std::get_if<Namespace>(&callee)) {
      throw TypeError(detail::str_cat("'module' object is not callable (", ns->path, ")"));
    }
    const Value& v = std::get<Value>(callee);
    if (const PyType* type = as_type(v)) {
      if (type->info() != nullptr) return new_instance(type->info(), args, kwargs);
      if (type->name() == "Tensor") return new_instance(nullptr, args, kwargs);
      if (one_of(type->name(), kNumberTypes)) return builtin(type->name(), args, kwargs);
      throw TypeError(detail::str_cat("cannot create '", type->name(), "' instances in wick eval"));
    }
    throw TypeError(detail::str_cat("'", v.type_name(), "' object is not callable"));
  }

  // PyTorch's Python binding gives its factory functions (torch.tensor,
  // torch.ones, torch.zeros_like, ...) a `requires_grad=` keyword that is not
  // in their schemas: taken out of `kwargs` here and applied to the result.
  /// Calls an operator, a bound method or a builtin (a call in the
  /// expression, or a function value called by an operator).
  static Value invoke(const Callable& c, std::vector<Value> args, Kwargs kwargs) {
    switch (c.kind) {
      case Callable::Kind::kOp: {
        const std::optional<bool> requires_grad = take_requires_grad(c.name, kwargs);
        Value result = as_python_result(c.name, wick::call(c.name, std::move(args), kwargs));
        if (requires_grad.value_or(false)) {
          Tensor t = result.to_tensor();
          t.requires_grad_(true);
        }
        return result;
      }
      case Callable::Kind::kMethod:
        args.insert(args.begin(), c.self);
        return as_python_result("torch.Tensor." + c.name,
                                wick::call("torch.Tensor." + c.name, std::move(args), kwargs));
      case Callable::Kind::kBuiltin:
        break;
    }
    if (c.self.is_tensor()) return tensor_builtin(c.name, c.self.to_tensor(), args, kwargs);
    return builtin(c.name, args, kwargs);
  }

  static std::optional<bool> take_requires_grad(const std::string& op, Kwargs& kwargs) {
    const auto it =
        std::find_if(kwargs.begin(), kwargs.end(), [](const auto& kv) { return kv.first == "requires_grad"; });
    if (it == kwargs.end() || find_op(op).schema().find_argument("requires_grad") >= 0) return std::nullopt;
    static const std::set<std::string, std::less<>> factories = [] {
      std::set<std::string, std::less<>> names;
      for (const std::string& name : ignored_functions("torch")) names.insert(name);
      for (const std::string& name : overridable_functions("torch"))
        if (name.size() > 5 && name.compare(name.size() - 5, 5, "_like") == 0) names.insert(name);
      return names;
    }();
    if (factories.count(op) == 0) return std::nullopt;  // the call reports the unexpected keyword
    WICK_CHECK(it->second.is_bool(), TypeError, op.substr(op.rfind('.') + 1),
               "(): argument 'requires_grad' must be bool, not ", it->second.type_name());
    const bool flag = it->second.to_bool();
    kwargs.erase(it);
    return flag;
  }

  static Value builtin(const std::string& name, const std::vector<Value>& args, const Kwargs& kwargs) {
    if (name == "torch.manual_seed") {
      WICK_CHECK(args.size() + kwargs.size() == 1 && (kwargs.empty() || kwargs[0].first == "seed"), TypeError,
                 "manual_seed() takes one argument: seed");
      const Value& seed = args.empty() ? kwargs[0].second : args[0];
      WICK_CHECK(seed.is_int() || seed.is_bool(), TypeError, "manual_seed(): argument 'seed' must be int, not ",
                 seed.type_name());
      manual_seed(static_cast<std::uint64_t>(seed.to_int()));
      return Value(std::make_shared<GeneratorObject>(&default_generator()));  // PyTorch returns the generator
    }
    if (name == "torch.Size") {  // torch.Size([2, 3]): a tuple of ints
      WICK_CHECK(args.size() <= 1 && kwargs.empty(), TypeError, "Size() takes at most 1 argument (", args.size(),
                 " given)");
      std::vector<std::int64_t> sizes;
      if (!args.empty()) {
        WICK_CHECK(args[0].is_list() || args[0].is_tuple() || args[0].is_int_list(), TypeError, "'",
                   args[0].type_name(), "' object is not iterable");
        for (const Value& item : args[0].items()) {
          WICK_CHECK(item.is_int() && !item.is_bool(), TypeError,
                     "torch.Size() takes an iterable of 'int' (item 0 is '", item.type_name(), "')");
          sizes.push_back(item.to_int());
        }
      }
      return Value(std::make_shared<TorchSize>(std::move(sizes)));
    }
    if (name == "torch.initial_seed") {
      WICK_CHECK(args.empty() && kwargs.empty(), TypeError, "initial_seed() takes no arguments");
      return Value(static_cast<std::int64_t>(default_generator().initial_seed()));
    }
    WICK_CHECK(kwargs.empty(), TypeError, name, "() takes no keyword arguments");
    if (name == "type") {
      WICK_CHECK(args.size() == 1, TypeError, "type() takes 1 argument (", args.size(), " given)");
      return type_of_value(args[0]);
    }
    if (name == "slice") {  // slice(stop) or slice(start, stop[, step])
      WICK_CHECK(!args.empty(), TypeError, "slice expected at least 1 argument, got 0");
      WICK_CHECK(args.size() <= 3, TypeError, "slice expected at most 3 arguments, got ", args.size());
      if (args.size() == 1) return make_slice(std::nullopt, slice_bound(args[0]));
      return make_slice(slice_bound(args[0]), slice_bound(args[1]),
                        args.size() == 3 ? slice_bound(args[2]) : std::nullopt);
    }
    if (name == "abs") {
      WICK_CHECK(args.size() == 1, TypeError, "abs() takes exactly one argument (", args.size(), " given)");
      if (is_tensorish(args[0])) {
        const char* op = try_find_op("torch.Tensor.__abs__") ? "torch.Tensor.__abs__" : "torch.abs";
        return wick::call(op, {args[0]});
      }
      return number_abs(args[0]);
    }
    if (name == "format") {  // format(value, spec=''): a tensor's __format__; a number's is a 0-dim tensor's
      WICK_CHECK(!args.empty() && args.size() <= 2, TypeError, "format expected at most 2 arguments, got ",
                 args.size());
      const Value spec = args.size() == 2 ? args[1] : Value(std::string());
      WICK_CHECK(spec.is_string(), TypeError, "format() argument 2 must be str, not ", spec.type_name());
      if (is_tensorish(args[0])) return wick::call("torch.Tensor.__format__", {args[0], spec});
      WICK_CHECK(args[0].is_number(), TypeError, "wick formats numbers and tensors, not ", args[0].type_name());
      Kwargs exact;  // a Python float is a double: float64 (complex128), not the default dtype
      if (args[0].is_double()) exact.emplace_back("dtype", Value(ScalarType::kFloat64));
      if (args[0].is_complex()) exact.emplace_back("dtype", Value(ScalarType::kComplex128));
      return wick::call("torch.Tensor.__format__", {wick::call("torch.tensor", {args[0]}, exact), spec});
    }
    if (name == "max" || name == "min") {  // of numbers: max(a, b, ...) or max(iterable)
      WICK_CHECK(!args.empty(), TypeError, name, " expected at least 1 argument, got 0");
      std::vector<Value> items = args;
      if (args.size() == 1) {
        const Value& v = args[0];
        WICK_CHECK(v.is_list() || v.is_tuple() || v.is_int_list() || v.is_double_list(), TypeError, "'", v.type_name(),
                   "' object is not iterable");
        items.clear();
        if (v.is_int_list()) {
          for (const std::int64_t x : v.to_int_list()) items.emplace_back(x);
        } else if (v.is_double_list()) {
          for (const double x : v.to_double_list()) items.emplace_back(x);
        } else {
          items = v.items();
        }
        WICK_CHECK(!items.empty(), ValueError, name, "() arg is an empty sequence");
      }
      const BinaryOp better = name == "max" ? BinaryOp::kGt : BinaryOp::kLt;
      Value best = items[0];
      for (std::size_t k = 1; k < items.size(); ++k) {
        if (number_binary(better, items[k], best).to_bool()) best = items[k];
      }
      return best;
    }
    if (name == "len") {  // a tensor's is torch.Tensor.__len__
      WICK_CHECK(args.size() == 1, TypeError, "len() takes exactly one argument (", args.size(), " given)");
      const Value& v = args[0];
      if (is_tensorish(v)) return wick::call("torch.Tensor.__len__", {v});
      if (v.is_string()) return Value(static_cast<std::int64_t>(v.to_string().size()));
      if (v.is_dict()) return Value(static_cast<std::int64_t>(v.dict_items().size()));
      if (v.is_list() || v.is_tuple()) return Value(static_cast<std::int64_t>(v.items().size()));
      if (v.is_tensor_list()) return Value(static_cast<std::int64_t>(v.to_tensor_list().size()));
      if (v.is_int_list()) return Value(static_cast<std::int64_t>(v.to_int_list().size()));
      if (v.is_double_list()) return Value(static_cast<std::int64_t>(v.to_double_list().size()));
      if (v.is_object()) {
        if (const auto* size = dynamic_cast<const TorchSize*>(v.to_object().get()))
          return Value(static_cast<std::int64_t>(size->sizes().size()));
      }
      throw TypeError(detail::str_cat("object of type '", v.type_name(), "' has no len()"));
    }
    if (name == "complex") {  // complex(real=0, imag=0) of numbers
      WICK_CHECK(args.size() <= 2 && kwargs.empty(), TypeError, "complex() takes at most 2 arguments (", args.size(),
                 " given)");
      const std::complex<double> re = args.empty() ? 0.0 : to_complex(args[0]);
      const std::complex<double> im = args.size() < 2 ? 0.0 : to_complex(args[1]);
      // Python's parts, not re + 1j * im: complex(-0.0, 2) keeps its -0.0.
      return Value(std::complex<double>(re.real() - im.imag(), re.imag() + im.real()));
    }
    WICK_CHECK(args.size() <= 1, TypeError, name, " expected at most 1 argument, got ", args.size());
    if (name == "float") return args.empty() ? Value(0.0) : to_float(args[0]);
    if (name == "int") return args.empty() ? Value(std::int64_t{0}) : to_int(args[0]);
    return args.empty() ? Value(false) : Value(truth(args[0]));  // bool
  }

  // --- operators ---------------------------------------------------------------

  static Value unary(UnaryOp op, const Value& v) {
    if (op == UnaryOp::kNot) return Value(!truth(v));  // Python truthiness: a tensor needs one element
    if (v.is_number()) return number_unary(op, v);
    const char* symbol = op == UnaryOp::kNeg ? "-" : op == UnaryOp::kPos ? "+" : "~";
    if (is_tensorish(v)) {
      if (op == UnaryOp::kNeg) return wick::call("torch.Tensor.__neg__", {v});
      if (op == UnaryOp::kInvert) return wick::call("torch.Tensor.__invert__", {v});
      if (try_find_op("torch.Tensor.__pos__")) return wick::call("torch.Tensor.__pos__", {v});
      return v;
    }
    throw TypeError(detail::str_cat("bad operand type for unary ", symbol, ": '", v.type_name(), "'"));
  }

  static Value binary(BinaryOp op, const Value& l, const Value& r) {
    if (l.is_number() && r.is_number()) return number_binary(op, l, r);
    if (is_tensorish(l)) {
      Value out = dispatch_dunder(dunder(op), l, r);
      if (out.is_not_implemented() && is_tensorish(r)) out = dispatch_dunder(reflected_dunder(op), r, l);
      if (!out.is_not_implemented()) return out;
    } else if (is_tensorish(r)) {
      Value out = dispatch_dunder(reflected_dunder(op), r, l);
      if (!out.is_not_implemented()) return out;
    } else if (op == BinaryOp::kEq || op == BinaryOp::kNe) {
      return Value(values_equal(l, r) == (op == BinaryOp::kEq));
    } else if (is_comparison(op) && l.is_string() && r.is_string()) {
      const int c = l.to_string().compare(r.to_string());
      return Value(op == BinaryOp::kLt ? c < 0 : op == BinaryOp::kLe ? c <= 0 : op == BinaryOp::kGt ? c > 0 : c >= 0);
    }
    if (is_comparison(op)) {
      throw TypeError(detail::str_cat("'", op_symbol(op), "' not supported between instances of '", l.type_name(),
                                      "' and '", r.type_name(), "'"));
    }
    std::string missing;  // a tensor's dunder that the catalog does not have yet
    if ((is_tensorish(l) || is_tensorish(r)) && !try_find_op(detail::str_cat("torch.Tensor.", dunder(op))))
      missing = detail::str_cat(" (torch.Tensor.", dunder(op), " is not implemented in wick yet)");
    throw TypeError(detail::str_cat("unsupported operand type(s) for ", op_symbol(op), ": '", l.type_name(), "' and '",
                                    r.type_name(), "'", missing));
  }

  /// `torch.Tensor.<name>(self, other)`, or NotImplemented when the catalog
  /// has no such dunder.
  static Value dispatch_dunder(std::string_view name, const Value& self, const Value& other) {
    const std::string op = detail::str_cat("torch.Tensor.", name);
    if (!try_find_op(op)) return Value(NotImplemented);
    return wick::call(op, {self, other});
  }

  const Scope& scope_;
  std::optional<std::set<std::string, std::less<>>> namespaces_;
};

}  // namespace

Value evaluate(std::string_view expr, const Scope& scope) {
  const std::unique_ptr<Node> tree = parse(expr);
  Evaluator ev(scope);
  return ev.value(*tree);
}

std::string format(const Value& v) { return v.repr(); }

}  // namespace wick::eval
