// dispatch/boxed_call.cpp - wick::call: the boxed call with Python's argument
// conventions (keywords, defaults, varargs int lists, wrapped numbers, out=).
/// \file
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/value_repr.h"
#include "dispatch/override_internal.h"
#include "dispatch/registry.h"
#include "wick/dispatcher.h"
#include "wick/error.h"
#include "wick/override.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

/// Note [Binding errors]
/// Argument-binding errors are worded as PyTorch's: a torch operator by its
/// bare name as Python reports it (`special_`, `linalg_` or `fft_` before
/// the name in those namespaces: `linalg_svd()`) (`add(): argument 'other' (position 2)
/// must be Tensor, not str`, `gelu() takes 1 positional argument but 2 were
/// given`, `maximum() missing 1 required positional arguments: "other"`,
/// PyTorch's plural included), the position only for an argument given by
/// position. A method counts positions and positional arguments without
/// the tensor it is called on (`t.where(c, 0.5)`: argument 'other'
/// (position 2); `maximum() takes 1 positional argument but 2 were
/// given`). PyTorch's own wording for a method that takes nothing but the
/// tensor is CPython's and varies (`Tensor.neg() takes no arguments (1
/// given)`); wick's is `neg() takes 0 positional arguments but 1 was
/// given`. A plugin's operator, for which PyTorch has no wording, keeps its qualified
/// name (`myops.scale() got an unexpected keyword argument 'beta'`).
std::string op_label(const OperatorHandle& op) {
  const std::string& q = op.qualified_name();
  if (q.rfind("torch.", 0) != 0) return q + "()";
  const std::string name = q.substr(q.rfind('.') + 1);
  // PyTorch's parser names these namespaces' functions by their ATen names (special_zeta(), linalg_svd(), fft_fft()).
  for (const std::string_view ns : {"special", "linalg", "fft"}) {
    if (q.size() == 6 + ns.size() + 1 + name.size() && q.compare(6, ns.size(), ns) == 0) {
      return std::string(ns) + "_" + name + "()";
    }
  }
  return name + "()";
}

/// `pos` for an argument given by keyword: no position in the message.
constexpr std::size_t kByKeyword = static_cast<std::size_t>(-1);

/// Note [self and input]
/// One rule for every operator, PyTorch's: a schema's `self` is spelled
/// `input` by functions (torch.add(input, other), myops.scale(input, ...))
/// and `self` by methods (namespaces ending in `.Tensor`: torch.Tensor.add,
/// myops.Tensor.scale), in signatures (`wick ops signature`), keyword
/// arguments and error notes alike; a function refuses `self=` and a method
/// `input=`, saying which spelling it takes.
/// The argument's name as Python spells it (`input` for a function's `self`).
std::string_view python_name(const OperatorHandle& op, const SchemaArgument& arg) {
  return arg.name == "self" && op.entry()->self_is_input() ? std::string_view("input") : std::string_view(arg.name);
}

/// The position Python names for the argument at index `i`: from 1, and a
/// method's `self` (the tensor it is called on) is not counted, as PyTorch
/// counts them (`t.where(c, 0.5)`: argument 'other' (position 2)).
std::size_t python_position(const OperatorHandle& op, std::size_t i) {
  return op.entry()->self_is_input() || i == 0 ? i + 1 : i;
}

[[noreturn]] void bad_type(const OperatorHandle& op, const SchemaArgument& arg, std::size_t pos,
                           const std::string& expected, const Value& got) {
  const std::string position = pos == kByKeyword ? "" : detail::str_cat(" (position ", python_position(op, pos), ")");
  throw TypeError(detail::str_cat(op_label(op), ": argument '", python_name(op, arg), "'", position, " must be ",
                                  expected, ", not ", got.type_name()));
}

bool all_items(const Value& v, bool (Value::*pred)() const noexcept) {
  for (const Value& item : v.items())
    if (!(item.*pred)()) return false;
  return true;
}

std::vector<std::int64_t> to_int_list(const OperatorHandle& op, const SchemaArgument& arg, std::size_t pos,
                                      const Value& v) {
  const std::int32_t n = arg.type.list_size;
  if (v.is_int_list()) return v.to_int_list();
  if (v.is_int() || v.is_bool()) return std::vector<std::int64_t>(n > 0 ? n : 1, v.to_int());
  if ((v.is_list() || v.is_tuple()) && all_items(v, &Value::is_int)) {
    std::vector<std::int64_t> out;
    for (const Value& item : v.items()) out.push_back(item.to_int());
    return out;
  }
  bad_type(op, arg, pos, "tuple of ints", v);
}

// A tensor-like the override protocol will see: it goes to the Override
// kernel as it is. Under DisableTorchFunction (and for objects that are not
// tensor-likes) it is just a value of the wrong type.
bool goes_to_override(const Value& v) noexcept {
  return is_tensor_like(v) && !tls_local_dispatch_key_set().excluded.has(DispatchKey::kOverride);
}

// Converts a bound argument to what the schema type expects.
Value convert(const OperatorHandle& op, const SchemaArgument& arg, std::size_t pos, Value v) {
  const SchemaType& t = arg.type;
  if (v.is_none()) {
    if (t.optional || t.kind == TypeKind::kAny) return v;
    bad_type(op, arg, pos, t.str(), v);
  }
  if (v.is_object() && goes_to_override(v)) return v;
  if (t.is_list) {
    switch (t.kind) {
      case TypeKind::kInt: {
        auto list = to_int_list(op, arg, pos, v);
        // int[1] takes any length (the size only says "one int may stand for
        // the list"); int[N] with N > 1 needs N ints or a single one.
        if (t.list_size > 1 && list.size() != static_cast<std::size_t>(t.list_size) && list.size() != 1)
          bad_type(op, arg, pos, "tuple of " + std::to_string(t.list_size) + " ints", v);
        return Value(std::move(list));
      }
      case TypeKind::kFloat: {
        if (v.is_double_list()) return v;
        if (v.is_number()) return Value(std::vector<double>{v.to_double()});
        if ((v.is_list() || v.is_tuple()) && all_items(v, &Value::is_number)) {
          std::vector<double> out;
          for (const Value& item : v.items()) out.push_back(item.to_double());
          return Value(std::move(out));
        }
        bad_type(op, arg, pos, "tuple of floats", v);
      }
      case TypeKind::kTensor: {
        if (v.is_tensor_list()) return v;
        if (t.element_optional && (v.is_list() || v.is_tuple())) {  // Tensor?[]: tensors and Nones, as a list
          for (const Value& item : v.items()) {
            if (!(item.is_tensor() || item.is_none() || (item.is_object() && goes_to_override(item))))
              bad_type(op, arg, pos, "tuple of Tensors or None", v);
          }
          return v.is_list() ? v : Value::list(std::vector<Value>(v.items()));
        }
        if (v.is_list() || v.is_tuple()) {
          bool has_object = false;
          std::vector<Tensor> out;
          for (std::size_t k = 0; k < v.items().size(); ++k) {
            const Value& item = v.items()[k];
            if (item.is_object() && goes_to_override(item)) {
              has_object = true;
            } else if (item.is_tensor()) {
              out.push_back(item.to_tensor());
            } else if (arg.variadic && pos != kByKeyword) {
              bad_type(op, arg, pos + k, "Tensor", item);  // *tensors: the item's own position
            } else {
              bad_type(op, arg, pos, "tuple of Tensors", v);
            }
          }
          if (has_object) return v;  // keep tensor-likes visible to the override layer
          return Value(std::move(out));
        }
        bad_type(op, arg, pos, "tuple of Tensors", v);
      }
      default:
        return v;
    }
  }
  switch (t.kind) {
    case TypeKind::kTensor:
      if (v.is_tensor()) return v;
      if (v.is_number() && arg.takes_number) return Value(wrap_scalar(v.to_scalar()));
      bad_type(op, arg, pos, "Tensor", v);
    case TypeKind::kInt:
      if (v.is_int() || v.is_bool()) return Value(v.to_int());
      bad_type(op, arg, pos, "int", v);
    case TypeKind::kFloat:
      if (v.is_number()) return Value(v.to_double());
      bad_type(op, arg, pos, "float", v);
    case TypeKind::kBool:
      if (v.is_bool()) return v;
      bad_type(op, arg, pos, "bool", v);
    case TypeKind::kStr:
      if (v.is_string()) return v;
      bad_type(op, arg, pos, "str", v);
    case TypeKind::kScalar:
      if (v.is_number()) return v;
      if (v.is_tensor() && v.to_tensor().defined() && v.to_tensor().numel() == 1 && v.to_tensor().dim() == 0)
        return Value(v.to_tensor().item());
      bad_type(op, arg, pos, "Number", v);
    case TypeKind::kScalarType:
      if (v.is_dtype()) return v;
      bad_type(op, arg, pos, "torch.dtype", v);
    case TypeKind::kDevice:
      if (v.is_device()) return v;
      if (v.is_string()) return Value(Device::parse(v.to_string()));
      bad_type(op, arg, pos, "torch.device", v);
    case TypeKind::kGenerator:
    case TypeKind::kAny:
      return v;
  }
  return v;
}

// Python allows `f(2, 3)` when an int list is the only positional parameter
// besides self (`torch.ones(2, 3)`, `x.reshape(2, 3)`, `x.permute(1, 0)`):
// the positional ints become the list. `x.sum(0, 1)` is not packed: sum has
// more positional parameters, so 1 goes to keepdim (and is refused there).
// Returns the range [first, end) of `args` to pack, empty when none.
std::pair<std::size_t, std::size_t> varargs_range(const FunctionSchema& s, const std::vector<Value>& args) {
  std::size_t npositional = 0;
  const SchemaArgument* lone = nullptr;  // the positional parameter after self, if it is the only one
  bool leading_self = false;
  for (const auto& a : s.arguments) {
    if (a.kwarg_only) continue;
    if (npositional == 0 && a.name == "self" && a.type.kind == TypeKind::kTensor) leading_self = true;
    if (npositional == (leading_self ? 1u : 0u)) lone = &a;
    ++npositional;
  }
  const std::size_t first = leading_self ? 1 : 0;
  if (lone == nullptr || npositional != first + 1 || args.size() <= first) return {0, 0};
  if (!lone->type.is_list || lone->type.kind != TypeKind::kInt) return {0, 0};
  std::size_t end = first;
  while (end < args.size() && args[end].is_int()) ++end;
  if (end - first < 2) return {0, 0};
  return {first, end};
}

void pack_varargs(std::vector<Value>& args, std::pair<std::size_t, std::size_t> range) {
  const auto [first, end] = range;
  std::vector<std::int64_t> packed;
  for (std::size_t i = first; i < end; ++i) packed.push_back(args[i].to_int());
  args.erase(args.begin() + static_cast<std::ptrdiff_t>(first), args.begin() + static_cast<std::ptrdiff_t>(end));
  args.insert(args.begin() + static_cast<std::ptrdiff_t>(first), Value(std::move(packed)));
}

}  // namespace

namespace {

bool is_out_overload(const OperatorEntry& e) { return e.overload == "out" || e.overload.ends_with("_out"); }
std::vector<OperatorHandle> sibling_overloads(const OperatorHandle& op, bool out);

// The out= variant of overload `op` (X.out of X, X.dim_out of X.dim), if any.
std::optional<OperatorHandle> out_variant_of(const OperatorHandle& op) {
  const OperatorEntry& e = *op.entry();
  return try_find_op(e.full_name + (e.overload.empty() ? ".out" : "_out"));
}

// `out=None` means "no out", as in PyTorch; `out=t` picks an out overload:
// the called overload's own, else (a plain name) the first out overload of
// the name, and binding tries the others (Note [Overload resolution]).
OperatorHandle select_overload(OperatorHandle op, const Kwargs& kwargs, Kwargs& filtered, const Kwargs*& kw) {
  kw = &kwargs;
  for (const auto& [key, value] : kwargs) {
    if (key == "out" && value.is_none()) {
      for (const auto& kv : kwargs)
        if (kv.first != "out") filtered.push_back(kv);
      kw = &filtered;
      break;
    }
  }
  for (const auto& [key, value] : *kw) {
    if (key == "out" && op.schema().find_argument("out") < 0) {
      std::optional<OperatorHandle> out_op = out_variant_of(op);
      if (!out_op && op.entry()->overload.empty()) {
        for (const OperatorHandle& other : sibling_overloads(op, /*out=*/true)) {
          out_op = other;
          break;
        }
      }
      WICK_CHECK(out_op.has_value(), TypeError, op_label(op), " got an unexpected keyword argument 'out'");
      op = *out_op;
    }
  }
  return op;
}

void check_some_tensor(const OperatorHandle& op, const FunctionSchema& s,
                       const std::vector<std::optional<Value>>& bound, std::size_t npositional);

// Binds positional and keyword arguments to the schema, fills defaults and
// converts each value (Python numbers for tensors become wrapped numbers).
// `keep_args`: copy rather than move out of `args`.
Stack bind_arguments(const OperatorHandle& op, const FunctionSchema& s, std::vector<Value>& args, const Kwargs& kw,
                     bool keep_args) {
  std::vector<std::optional<Value>> bound(s.arguments.size());
  std::uint64_t by_keyword = 0;  // bit i: argument i came by keyword (its position is not named in errors)
  std::size_t npositional = 0;
  for (const auto& a : s.arguments)
    if (!a.kwarg_only) ++npositional;
  if (args.size() > npositional) {
    // Python does not count the tensor a method is called on.
    const bool method = !op.entry()->self_is_input() && !args.empty();
    const std::size_t given = args.size() - (method ? 1 : 0);
    const std::size_t takes = npositional - (method ? 1 : 0);
    throw TypeError(detail::str_cat(op_label(op), " takes ", takes, " positional argument", takes == 1 ? "" : "s",
                                    " but ", given, given == 1 ? " was" : " were", " given"));
  }
  for (std::size_t i = 0; i < args.size(); ++i) bound[i] = keep_args ? args[i] : std::move(args[i]);
  for (const auto& [key, value] : kw) {
    // Note [self and input]: a function spells its `self` as `input`.
    const bool function = op.entry()->self_is_input();
    int idx = key == "self" && function ? -1 : s.find_argument(key);
    if (idx < 0 && key == "input" && function) idx = s.find_argument("self");
    WICK_CHECK(idx >= 0 || !(key == "self" && s.find_argument("self") >= 0), TypeError, op_label(op),
               " got an unexpected keyword argument 'self': a function spells it 'input' (its method, in a ",
               "namespace ending in .Tensor, spells it 'self')");
    WICK_CHECK(idx >= 0, TypeError, op_label(op), " got an unexpected keyword argument '", key, "'");
    WICK_CHECK(!bound[idx].has_value(), TypeError, op_label(op), " got multiple values for argument '", key, "'");
    bound[idx] = value;
    if (idx < 64) by_keyword |= std::uint64_t{1} << idx;
  }
  check_some_tensor(op, s, bound, args.size());
  Stack stack;
  stack.reserve(s.arguments.size());
  for (std::size_t i = 0; i < s.arguments.size(); ++i) {
    const SchemaArgument& arg = s.arguments[i];
    if (!bound[i] && arg.variadic) bound[i] = Value::list({});  // bind_one packs what there is
    if (!bound[i] && !arg.default_value) {
      // In argument order, as PyTorch checks them: every required argument
      // missing from here on, in PyTorch's wording, its plural included
      // ("missing 1 required positional arguments", "missing 2 ... argument").
      std::string missing;
      std::size_t nmissing = 0;
      for (std::size_t j = i; j < s.arguments.size(); ++j) {
        if (bound[j] || s.arguments[j].default_value || s.arguments[j].variadic) continue;
        missing += detail::str_cat(nmissing++ == 0 ? "" : ", ", "\"", python_name(op, s.arguments[j]), "\"");
      }
      throw TypeError(detail::str_cat(op_label(op), " missing ", nmissing, " required positional argument",
                                      nmissing == 1 ? "s" : "", ": ", missing));
    }
    if (!bound[i]) bound[i] = *arg.default_value;
    const bool keyword = i < 64 && ((by_keyword >> i) & 1U) != 0;
    stack.push_back(convert(op, arg, keyword ? kByKeyword : i, std::move(*bound[i])));
  }
  return stack;
}

// The index of the schema's variadic argument (Note [Variadic arguments] in
// dispatch/schema.cpp), or -1.
int variadic_index(const FunctionSchema& s) {
  for (std::size_t i = 0; i < s.arguments.size(); ++i)
    if (s.arguments[i].variadic) return static_cast<int>(i);
  return -1;
}

// Gathers the positional values from the variadic argument's position on
// into one list, unless a single list or tuple stands there already
// (torch.meshgrid([a, b]) as well as torch.meshgrid(a, b)).
void pack_variadic(std::vector<Value>& args, std::size_t first) {
  if (args.size() == first + 1 && (args[first].is_list() || args[first].is_tuple() || args[first].is_tensor_list()))
    return;
  std::vector<Value> items;
  if (first < args.size()) {
    items.assign(std::make_move_iterator(args.begin() + static_cast<std::ptrdiff_t>(first)),
                 std::make_move_iterator(args.end()));
    args.erase(args.begin() + static_cast<std::ptrdiff_t>(first), args.end());
  }
  args.push_back(Value::list(std::move(items)));
}

// Binds `args` (left intact) to one overload's schema, packing varargs ints
// and variadic arguments.
Stack bind_one(const OperatorHandle& op, const FunctionSchema& s, std::vector<Value>& args, const Kwargs& kw) {
  if (const int v = variadic_index(s); v >= 0 && args.size() >= static_cast<std::size_t>(v)) {
    std::vector<Value> packed = args;
    pack_variadic(packed, static_cast<std::size_t>(v));
    return bind_arguments(op, s, packed, kw, /*keep_args=*/false);
  }
  if (const auto range = varargs_range(s, args); range.second != 0) {
    std::vector<Value> packed = args;
    pack_varargs(packed, range);
    return bind_arguments(op, s, packed, kw, /*keep_args=*/false);
  }
  return bind_arguments(op, s, args, kw, /*keep_args=*/true);
}

// The other overloads of `op`'s name that a call may pick, in name order:
// the plain ones, or (`out`) the out= variants.
std::vector<OperatorHandle> sibling_overloads(const OperatorHandle& op, bool out) {
  std::vector<std::string> names;
  {
    auto& reg = Registry::get();
    std::shared_lock lock(reg.mutex);
    const OperatorEntry& self = *op.entry();
    for (const auto& [full, e] : reg.ops)
      if (e.get() != &self && e->defined() && e->qualified == self.qualified && is_out_overload(*e) == out)
        names.push_back(full);
  }
  std::sort(names.begin(), names.end());
  std::vector<OperatorHandle> result;
  for (const auto& n : names)
    if (auto h = try_find_op(n)) result.push_back(*h);
  return result;
}

// Note [Invalid combinations]
// When a call by plain name fits none of several overloads, PyTorch's
// argument parser says so for all of them at once, and wick words it as
// PyTorch does:
//   max() received an invalid combination of arguments - got (Tensor, list,
//   bool), but expected one of:
//    * (Tensor input)
//    * (Tensor input, int dim, bool keepdim)
//    * (Tensor input, Tensor other, *, Tensor out)
// "got" lists the Python types of the positional arguments (a method's self
// left out), then each keyword argument as name=type in the order of a
// std::unordered_map filled in call order, which is the order PyTorch's own
// parser prints them in (a kwargs-only list ends with ", ", as PyTorch's
// does). The overloads are printed with the parser's type names, each
// followed by why it refused the call ("didn't match because argument 'dim'
// (position 2) must be int, not list": PyTorch marks the mismatched
// arguments instead, wick names them). An operator with one overload
// reports that overload's own error, as PyTorch does.

// PyTorch's argument-parser names of the schema types, in TypeKind's order.
constexpr const char* kParserTypeNames[] = {"Tensor",      "int",          "float",           "bool",  "str", "Number",
                                            "torch.dtype", "torch.device", "torch.Generator", "object"};
static_assert(std::size(kParserTypeNames) == static_cast<std::size_t>(TypeKind::kAny) + 1);

// "Tensor", "tuple of ints", "Number".
std::string parser_type_name(const SchemaType& t) {
  const char* base = kParserTypeNames[static_cast<std::size_t>(t.kind)];
  return t.is_list ? std::string("tuple of ") + base + "s" : base;
}

// " * (Tensor input, int dim, bool keepdim, *, Tensor out)" for overload `e`;
// with argument `as_number` printed as PyTorch's Scalar overload prints it
// (" * (Number self, Tensor exponent, *, Tensor out)").
std::string parser_signature(const OperatorEntry& e, int as_number) {
  const FunctionSchema& s = *e.schema;
  std::vector<std::string> parts;
  bool star = false;
  const bool method = !e.self_is_input();
  for (std::size_t i = method ? 1 : 0; i < s.arguments.size(); ++i) {
    const SchemaArgument& a = s.arguments[i];
    if (a.kwarg_only && !star) {
      parts.emplace_back("*");
      star = true;
    }
    if (static_cast<int>(i) == as_number) {
      parts.push_back("Number " + a.name);
    } else {
      parts.push_back(parser_type_name(a.type) + " " + (a.name == "self" ? std::string("input") : a.name));
    }
  }
  const OperatorEntry* out = Registry::get().find(e.full_name + (e.overload.empty() ? ".out" : "_out"));
  if (out != nullptr && out->defined() && s.find_argument("out") < 0) {
    if (!star) parts.emplace_back("*");
    parts.emplace_back("Tensor out");
  }
  std::string text = " * (";
  for (std::size_t i = 0; i < parts.size(); ++i) text += (i == 0 ? "" : ", ") + parts[i];
  return text + ")";
}

// "torch.max.other_out" -> "torch.max.other"; "torch.all.out" -> "torch.all".
std::string plain_name_of(const OperatorEntry& e) {
  if (e.overload == "out") return e.qualified;
  if (e.overload.ends_with("_out")) return e.full_name.substr(0, e.full_name.size() - 4);
  return e.full_name;
}

TypeError invalid_combination(const OperatorHandle& called, const std::vector<const OperatorEntry*>& overloads,
                              const std::vector<Value>& args, const Kwargs& given,
                              const std::map<std::string, std::string>& reasons) {
  const bool method = !called.entry()->self_is_input();
  std::vector<std::string> got;
  for (std::size_t i = method ? 1 : 0; i < args.size(); ++i) got.push_back(args[i].type_name());
  std::unordered_map<std::string, std::string> keywords;  // PyTorch's order: see the note
  for (const auto& [key, value] : given) keywords.emplace(key, value.type_name());
  std::string text = op_label(called) + " received an invalid combination of arguments - got (";
  for (std::size_t i = 0; i < got.size(); ++i) text += (i == 0 ? "" : ", ") + got[i];
  for (const auto& [key, type] : keywords)
    text += (got.empty() ? "" : ", ") + key + "=" + type + (got.empty() ? ", " : "");
  text += "), but expected one of:";
  for (const OperatorEntry* e : overloads) {
    text += "\n" + parser_signature(*e, -1);
    // PyTorch marks the mismatched arguments here; wick says which, and why.
    if (const auto r = reasons.find(e->full_name); r != reasons.end()) {
      std::string_view why = r->second;  // "max(): argument 'dim' ..." or "max() takes ..."
      const std::string label = op_label(called);
      if (why.starts_with(label + ": ")) why.remove_prefix(label.size() + 2);
      if (why.starts_with(label + " ")) why.remove_prefix(label.size() + 1);
      text += "\n      didn't match: ";
      text += why;
    }
  }
  return TypeError(text);
}

// Note [Numbers for tensor arguments] (wick/library.h): numbers for every
// Tensor argument fit none of PyTorch's Tensor/Scalar overload pairs, unless
// the definition says they may all be numbers at once. `bound` holds the
// call's values by argument, `npositional` of them given by position.
void check_some_tensor(const OperatorHandle& op, const FunctionSchema& s,
                       const std::vector<std::optional<Value>>& bound, std::size_t npositional) {
  if (s.numbers_together) return;
  bool numbers = false;
  for (std::size_t i = 0; i < s.arguments.size(); ++i) {
    const SchemaArgument& a = s.arguments[i];
    if (a.type.kind != TypeKind::kTensor || a.type.is_list || (a.alias && a.alias->is_write && a.kwarg_only)) continue;
    // A missing argument is reported as missing, later.
    if (!bound[i]) {
      if (!a.default_value) return;
      continue;
    }
    if (!bound[i]->is_number() && !bound[i]->is_none()) return;  // a tensor (or a wrong type, reported later)
    numbers = numbers || (a.takes_number && bound[i]->is_number());
  }
  if (!numbers) return;
  const bool method = !op.entry()->self_is_input();
  std::string text = op_label(op) + " received an invalid combination of arguments - got (";
  std::string keywords;
  bool first = true;
  for (std::size_t i = method ? 1 : 0; i < npositional; ++i) {
    text += (first ? "" : ", ") + bound[i]->type_name();
    first = false;
  }
  for (std::size_t i = npositional; i < s.arguments.size(); ++i) {
    // Keyword arguments the caller gave (defaults are filled in later).
    if (!bound[i]) continue;
    text += (first ? "" : ", ") + s.arguments[i].name + "=" + bound[i]->type_name();
    first = false;
  }
  text += "), but expected one of:";
  const OperatorEntry* functional = op.entry();
  if (is_out_overload(*functional)) {
    const OperatorEntry* plain = Registry::get().find(plain_name_of(*functional));
    if (plain != nullptr && plain->defined()) functional = plain;
  }
  text += "\n" + parser_signature(*functional, -1);
  for (std::size_t i = 0; i < functional->schema->arguments.size(); ++i)
    if (functional->schema->arguments[i].takes_number) text += "\n" + parser_signature(*functional, static_cast<int>(i));
  throw TypeError(text);
}

// The plain overloads of `op`'s name (not the out variants), the unnamed one
// first, then in name order; caller holds no lock. None when one of them
// takes an `Any` argument: that is a function PyTorch writes in Python
// (torch.norm, torch.split), which has no overloads to list, and whose
// errors are Python's binding errors.
std::vector<const OperatorEntry*> plain_overloads(const OperatorHandle& op) {
  auto& reg = Registry::get();
  std::shared_lock lock(reg.mutex);
  std::vector<const OperatorEntry*> out;
  for (const auto& [full, e] : reg.ops) {
    if (!e->defined() || e->qualified != op.entry()->qualified || is_out_overload(*e)) continue;
    for (const SchemaArgument& a : e->schema->arguments)
      if (a.type.kind == TypeKind::kAny) return {};
    out.push_back(e.get());
  }
  std::sort(out.begin(), out.end(),
            [](const OperatorEntry* a, const OperatorEntry* b) { return a->full_name < b->full_name; });
  return out;
}

// Note [Overload resolution]: as with PyTorch's argument parser, a call by
// plain name binds to an overload its arguments fit: the unnamed one, else
// the first sibling in name order that fits (`torch.max(x, 1)` is
// torch.max.dim, `torch.var(x, 1)` torch.var.dim since an int is not a
// bool). When none fits, the unnamed overload's TypeError is reported. A call
// naming an overload ("torch.max.dim") binds to that one only. out= by plain
// name binds to an out variant the same way: the called overload's own
// (torch.all.out), else the next in name order that fits (torch.all(x, 1,
// out=o) is torch.all.dim_out). Siblings are only looked up when the first
// try fails.
Stack bind_overload(OperatorHandle& op, std::shared_ptr<const FunctionSchema>& schema, std::vector<Value>& args,
                    const Kwargs& kw, const OperatorHandle& called, const Kwargs& given) {
  schema = op.schema_ptr();
  try {
    return bind_one(op, *schema, args, kw);
  } catch (const TypeError& first) {
    // A named overload binds to that one only; out= tries every out variant.
    const bool out = is_out_overload(*op.entry());
    const bool plain_call = called.entry()->overload.empty();
    if (!op.entry()->overload.empty() && !(out && plain_call)) throw;
    // Why each overload refused the call, by the full name of its plain
    // overload (an out variant's reason is its functional's).
    std::map<std::string, std::string> reasons{{plain_name_of(*op.entry()), first.what()}};
    for (const OperatorHandle& other : sibling_overloads(op, out)) {
      std::shared_ptr<const FunctionSchema> s = other.schema_ptr();
      try {
        Stack stack = bind_one(other, *s, args, kw);
        op = other;
        schema = std::move(s);
        return stack;
      } catch (const TypeError& e) {
        reasons.emplace(plain_name_of(*other.entry()), e.what());
      }
    }
    if (const auto overloads = plain_overloads(called); overloads.size() > 1)
      throw invalid_combination(called, overloads, args, given, reasons);
    throw;
  }
}

// Note [Call notes]
// A kernel's error says what is wrong in the kernel's terms ("Dimension out
// of range ...", "The size of tensor a (3) must match ..."), as PyTorch's
// do; through the boxed API the caller may not know which operator of an
// expression raised it, nor with what. `call` therefore adds a note to a
// wick::Error raised below argument binding, naming the operator and the
// arguments as the caller gave them (tensors by shape and dtype):
//   in torch.softmax(input=Tensor(shape=[2, 3], dtype=float32), dim=5)
// Only the innermost call notes an error (a handler's nested call names
// the operator that failed). Binding errors already name the operator and
// the argument and get no note. The note is built only when an error is
// thrown: the call path pays nothing for it.

// Note [Error prefixes]
// A kernel or meta function starts its message with the operator that
// raised it ("torch.mm: mat1 and mat2 shapes cannot be multiplied ..."): in
// the typed C++ API that prefix is the only context an error has. Through
// the boxed API the call note names the operator the caller called, with
// its arguments, and a prefix naming another operator (a composite's part:
// `@` and F.linear reach torch.mm, F.cross_entropy reaches nll_loss) would
// name one the caller never called. The boxed call that adds the note
// therefore drops a leading "<operator>: " that names a registered operator
// other than the one called (or the one it aliases): the first line is then
// PyTorch's message. A prefix naming the operator called stays, as in the
// typed API (PyTorch's own texts carry it at times: "torch.clamp: At least
// one of 'min' or 'max' must not be None").
const std::string& root_name(const OperatorEntry& e) {
  return (e.alias_target != nullptr ? *e.alias_target : e).qualified;
}

void drop_operator_prefix(Error& e, const OperatorHandle& called) {
  const std::string_view m = e.message();
  const std::size_t colon = m.find(": ");
  if (colon == std::string_view::npos || colon == 0) return;
  const std::string_view name = m.substr(0, colon);
  if (name.find('.') == std::string_view::npos) return;  // not a qualified operator name
  const std::optional<OperatorHandle> prefixed = try_find_op(name);
  if (!prefixed || root_name(*prefixed->entry()) == root_name(*called.entry())) return;
  e.set_message(std::string(m.substr(colon + 2)));
}

/// A tensor argument by its type, shape and dtype.
std::string describe_tensor(const Tensor& t) {
  if (!t.defined()) return std::string("Tensor(undefined)");
  const TypeInfo* subclass = type_of(t.impl()->type_id());
  return detail::str_cat(subclass != nullptr ? subclass->name() : "Tensor", "(shape=", format_shape(t.sizes()),
                         ", dtype=", dtype_name(t.dtype()), t.device().is_cpu() ? "" : ", device=" + t.device().str(),
                         ")");
}

/// A short description of an argument: tensors by shape and dtype, long reprs cut.
std::string describe(const Value& v) {
  if (const Tensor* t = v.tensor_if()) return describe_tensor(*t);
  if (v.is_tensor_list() || v.is_list() || v.is_tuple()) {
    std::vector<std::string> parts;
    if (v.is_tensor_list()) {
      for (const Tensor& t : v.to_tensor_list()) parts.push_back(describe_tensor(t));
    } else {
      for (const Value& item : v.items()) parts.push_back(describe(item));
    }
    std::string out = v.is_tuple() ? "(" : "[";
    for (std::size_t i = 0; i < parts.size() && i < 4; ++i) out += (i ? ", " : "") + parts[i];
    if (parts.size() > 4) out += ", ...";
    return out + (v.is_tuple() ? ")" : "]");
  }
  std::string r = value_repr(v, &describe_tensor);
  constexpr std::size_t kMax = 60;
  if (r.size() > kMax) r = r.substr(0, kMax) + "...";
  return r;
}

/// "in torch.softmax(input=..., dim=5)": the caller's arguments, positional
/// ones named by the schema when they map onto it one to one.
std::string call_note(const OperatorHandle& op, const FunctionSchema& s, const std::vector<Value>& args,
                      const Kwargs& kw) {
  std::size_t npositional = 0;
  for (const auto& a : s.arguments)
    if (!a.kwarg_only) ++npositional;
  std::string out = "  in " + std::string(op.name()) + "(";
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i > 0) out += ", ";
    if (args.size() <= npositional) out += std::string(python_name(op, s.arguments[i])) + "=";
    out += describe(args[i]);
  }
  for (std::size_t i = 0; i < kw.size(); ++i)
    out += (i + args.size() > 0 ? ", " : "") + kw[i].first + "=" + describe(kw[i].second);
  return out + ")";
}

}  // namespace

Value call(std::string_view name, std::vector<Value> args, const Kwargs& kwargs) {
  Kwargs filtered;
  const Kwargs* kw = nullptr;
  const OperatorHandle called = find_op(name);
  OperatorHandle op = select_overload(called, kwargs, filtered, kw);
  // The caller's own arguments, for override handlers (Note [Boxed call frame]);
  // binding copies them, so `args` stays intact.
  bool overriding = has_torch_function(args);
  for (const auto& kv : *kw) overriding = overriding || goes_to_override(kv.second);
  // Held for the whole call: the operator may be undefined meanwhile.
  std::shared_ptr<const FunctionSchema> schema;
  Stack stack = bind_overload(op, schema, args, *kw, called, kwargs);
  BoxedCallFrame frame;
  if (overriding) frame = BoxedCallFrame{op.entry(), schema.get(), &args, kw};
  {
    BoxedCallFrame*& slot = tls_boxed_call_frame();
    BoxedCallFrame* saved = slot;
    slot = overriding ? &frame : nullptr;
    struct Restore {
      BoxedCallFrame*& slot;
      BoxedCallFrame* saved;
      ~Restore() { slot = saved; }
    } restore{slot, saved};
    try {
      op.call_boxed(stack);
    } catch (Error& e) {
      if (e.notes() == 0) {
        drop_operator_prefix(e, op);
        e.add_note(call_note(op, *schema, args, *kw));
      }
      throw;
    }
  }
  if (stack.empty()) return Value();
  if (stack.size() == 1) return std::move(stack[0]);
  return Value::list(std::move(stack), /*tuple=*/true);
}

Stack bind_call(std::string_view name, std::vector<Value> args, const Kwargs& kwargs) {
  Kwargs filtered;
  const Kwargs* kw = nullptr;
  const OperatorHandle called = find_op(name);
  OperatorHandle op = select_overload(called, kwargs, filtered, kw);
  std::shared_ptr<const FunctionSchema> schema;
  return bind_overload(op, schema, args, *kw, called, kwargs);
}

}  // namespace wick
