// core/frontend/samples.cpp - the sample calls of operator definitions: parsing and making their tensors.
/// \file
/// The syntax is Note [Sample syntax] in wick/opcheck.h.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/frontend/out_variant.h"
#include "wick/autograd.h"
#include "wick/callable.h"
#include "wick/catalog.h"
#include "wick/error.h"
#include "wick/opcheck.h"
#include "wick/ops.h"
#include "wick/subscript.h"

namespace wick {
namespace {

// Python's builtins abs and max, the functions samples pass where an operator
// takes a callable (Tensor.apply_, map_, register_hook): abs of a tensor or
// a number, max of numbers. Numbers go through torch.abs and
// torch.maximum on 0-dim tensors, so the builtins add no arithmetic of their own.
Value python_function(const std::string& name) {
  Callable::Fn fn;
  if (name == "abs") {
    fn = [](const std::vector<Value>& args) {
      WICK_CHECK(args.size() == 1, TypeError, "abs() takes exactly one argument (", args.size(), " given)");
      if (args[0].is_tensor()) return Value(wick::abs(args[0].to_tensor()));
      return Value(wick::abs(tensor(args[0])).item());
    };
  } else {
    fn = [](const std::vector<Value>& args) {
      WICK_CHECK(args.size() >= 2, TypeError, "max expected at least 2 arguments, got ", args.size());
      Tensor best = tensor(args[0]);
      for (std::size_t k = 1; k < args.size(); ++k) best = maximum(best, tensor(args[k]));
      return Value(best.item());
    };
  }
  return Value(std::static_pointer_cast<Object>(std::make_shared<Callable>(std::move(fn))));
}

class SampleParser {
 public:
  explicit SampleParser(std::string_view text) : text_(text) {}

  Sample parse() {
    Sample s;
    s.text = std::string(text_);
    skip_space();
    while (pos_ < text_.size()) {
      // name=value
      const std::size_t save = pos_;
      if (std::isalpha(static_cast<unsigned char>(peek())) || peek() == '_') {
        std::string name = identifier();
        skip_space();
        if (peek() == '=') {
          ++pos_;
          s.kwargs.emplace_back(std::move(name), value());
          finish_item();
          continue;
        }
        pos_ = save;
      }
      WICK_CHECK(s.kwargs.empty(), ValueError, where("a positional argument after a keyword one"));
      s.args.push_back(value());
      finish_item();
    }
    return s;
  }

 private:
  [[nodiscard]] std::string where(std::string_view what) const {
    return detail::str_cat("sample '", text_, "' at ", pos_, ": ", what);
  }
  [[nodiscard]] char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skip_space();
    WICK_CHECK(peek() == c, ValueError, where(detail::str_cat("expected '", std::string(1, c), "'")));
    ++pos_;
    skip_space();
  }
  void finish_item() {
    skip_space();
    if (pos_ < text_.size()) expect(',');
  }
  std::string identifier() {
    const std::size_t start = pos_;
    while (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_') ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  // A number, or a nested list of them (L[...], B[...]) as a Value.
  Value number() {
    skip_space();
    const std::size_t start = pos_;
    if (peek() == '-' || peek() == '+') ++pos_;
    if (text_.substr(pos_).starts_with("inf")) {
      pos_ += 3;
      return Value(text_[start] == '-' ? -std::numeric_limits<double>::infinity()
                                       : std::numeric_limits<double>::infinity());
    }
    if (text_.substr(pos_).starts_with("nan")) {
      pos_ += 3;
      return Value(std::numeric_limits<double>::quiet_NaN());
    }
    bool floating = false;
    while (std::isdigit(static_cast<unsigned char>(peek())) || peek() == '.' || peek() == 'e' || peek() == 'E' ||
           ((peek() == '-' || peek() == '+') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E'))) {
      floating = floating || peek() == '.' || peek() == 'e' || peek() == 'E';
      ++pos_;
    }
    const std::string_view digits = text_.substr(start, pos_ - start);
    WICK_CHECK(!digits.empty() && digits != "-" && digits != "+", ValueError, where("expected a number"));
    if (floating) {
      double d = 0;
      const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), d);
      WICK_CHECK(ec == std::errc() && ptr == digits.data() + digits.size(), ValueError, where("bad number"));
      return Value(d);
    }
    std::int64_t i = 0;
    const std::string_view unsigned_digits = digits.front() == '+' ? digits.substr(1) : digits;
    const auto [ptr, ec] = std::from_chars(unsigned_digits.data(), unsigned_digits.data() + unsigned_digits.size(), i);
    WICK_CHECK(ec == std::errc() && ptr == unsigned_digits.data() + unsigned_digits.size(), ValueError,
               where("bad integer"));
    return Value(i);
  }

  // Values of L[...] / B[...]: numbers, bools, nested lists.
  Value literal() {
    skip_space();
    if (peek() == '[') {
      ++pos_;
      std::vector<Value> items;
      skip_space();
      while (peek() != ']') {
        items.push_back(literal());
        skip_space();
        if (peek() != ']') expect(',');
      }
      ++pos_;
      return Value::list(std::move(items));
    }
    if (text_.substr(pos_).starts_with("True")) {
      pos_ += 4;
      return Value(true);
    }
    if (text_.substr(pos_).starts_with("False")) {
      pos_ += 5;
      return Value(false);
    }
    return number();
  }

  std::vector<std::int64_t> shape() {
    expect('[');
    std::vector<std::int64_t> dims;
    while (peek() != ']') {
      const Value d = number();
      WICK_CHECK(d.is_int() && d.to_int() >= 0, ValueError, where("a shape takes non-negative ints"));
      dims.push_back(d.to_int());
      skip_space();
      if (peek() != ']') expect(',');
    }
    ++pos_;
    return dims;
  }

  SampleArg value() {
    skip_space();
    const char c = peek();
    if (c == '\'' || c == '"') {
      const std::size_t end = text_.find(c, pos_ + 1);
      WICK_CHECK(end != std::string_view::npos, ValueError, where("an unterminated string"));
      std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
      pos_ = end + 1;
      return Value(std::move(s));
    }
    if (c == '[') return list();
    if (c == '(') return tuple();
    if (text_.substr(pos_).starts_with("...")) {
      pos_ += 3;
      return ellipsis();
    }
    if (std::isalpha(static_cast<unsigned char>(c))) {
      const std::size_t save = pos_;
      const std::string word = identifier();
      if (word == "slice" && peek() == '(') return slice();
      if (word == "Ellipsis") return ellipsis();
      if ((word == "L" || word == "B") && peek() == '(') {
        // L(2), B(True): a 0-dim int64 or bool tensor.
        ++pos_;
        const Value v = literal();
        expect(')');
        return Value(tensor(v, word == "L" ? ScalarType::kInt64 : ScalarType::kBool));
      }
      if (word.size() == 1 && peek() == '[') {
        switch (word[0]) {
          case 'T':
            return SampleTensor{SampleTensor::Kind::kInput, shape()};
          case 'G':
            return SampleTensor{SampleTensor::Kind::kInput, shape(), /*requires_grad=*/true};
          case 'D':
            return SampleTensor{SampleTensor::Kind::kInput, shape(), /*requires_grad=*/false, /*float64=*/true};
          case 'R':
            return SampleTensor{SampleTensor::Kind::kRandom, shape()};
          case 'P':
            return SampleTensor{SampleTensor::Kind::kPositive, shape()};
          case 'U':
            return SampleTensor{SampleTensor::Kind::kUniform, shape()};
          case 'M':
            return SampleTensor{SampleTensor::Kind::kMask, shape()};
          case 'C':
            return SampleTensor{SampleTensor::Kind::kComplex, shape()};
          case 'L':
            return Value(tensor(literal(), ScalarType::kInt64));
          case 'I':
            return Value(tensor(literal(), ScalarType::kInt32));
          case 'B':
            return Value(tensor(literal(), ScalarType::kBool));
          default:
            break;
        }
      }
      if (word == "True") return Value(true);
      if (word == "False") return Value(false);
      if (word == "None") return Value();
      if (word == "abs" || word == "max") return python_function(word);
      if (word == "inf" || word == "nan") {
        pos_ = save;
        return number();
      }
      try {
        return Value(parse_dtype(word));
      } catch (const TypeError&) {
        pos_ = save;
        throw ValueError(where(detail::str_cat("unknown name '", word, "'")));
      }
    }
    return number();
  }

  // (1, slice(None, 2), ..., L[0, 1]): a tuple of values (a subscript key);
  // input tensors cannot be items.
  Value tuple() {
    expect('(');
    std::vector<Value> items;
    bool comma = false;
    while (peek() != ')') {
      SampleArg item = value();
      auto* v = std::get_if<Value>(&item);
      WICK_CHECK(v != nullptr, ValueError, where("a tuple holds values, not input tensors"));
      items.push_back(std::move(*v));
      skip_space();
      comma = false;
      if (peek() != ')') {
        expect(',');
        comma = true;
      }
    }
    ++pos_;
    WICK_CHECK(items.size() != 1 || comma, ValueError, where("a one-item tuple is written (x,)"));
    return Value::list(std::move(items), /*tuple=*/true);
  }

  // slice(stop), slice(start, stop[, step]): each bound an int or None.
  Value slice() {
    expect('(');
    std::vector<std::optional<std::int64_t>> parts;
    while (peek() != ')') {
      SampleArg part = value();
      const auto* v = std::get_if<Value>(&part);
      WICK_CHECK(v != nullptr && (v->is_none() || v->is_int()), ValueError, where("a slice bound is an int or None"));
      parts.push_back(v->is_none() ? std::nullopt : std::optional<std::int64_t>(v->to_int()));
      skip_space();
      if (peek() != ')') expect(',');
    }
    ++pos_;
    WICK_CHECK(!parts.empty() && parts.size() <= 3, ValueError, where("slice takes 1 to 3 bounds"));
    if (parts.size() == 1) return make_slice(std::nullopt, parts[0]);
    return make_slice(parts[0], parts[1], parts.size() == 3 ? parts[2] : std::nullopt);
  }

  // [1, 2] (ints), [1.5, 2.5] (floats), [T[2], T[3]] (input tensors),
  // [[1, 2], [3, 4]] and [True, 0.5] (torch.tensor's data: nested lists, bools).
  SampleArg list() {
    expect('[');
    std::vector<SampleArg> items;
    while (peek() != ']') {
      items.push_back(value());
      skip_space();
      if (peek() != ']') expect(',');
    }
    ++pos_;
    SampleTensorList tensors;
    std::vector<std::int64_t> ints;
    std::vector<double> floats;
    bool has_bool = false;
    const auto nested = [](const SampleArg& item) {
      const auto* v = std::get_if<Value>(&item);
      return v != nullptr && (v->is_int_list() || v->is_double_list() || v->is_list());
    };
    if (!items.empty() && std::all_of(items.begin(), items.end(), nested)) {
      std::vector<Value> rows;
      for (SampleArg& item : items) rows.push_back(std::move(std::get<Value>(item)));
      return Value::list(std::move(rows));
    }
    // [L[0, 2], None]: indices (Tensor?[]), literal tensors and Nones.
    const auto index_item = [](const SampleArg& item) {
      const auto* v = std::get_if<Value>(&item);
      return v != nullptr && (v->is_tensor() || v->is_none());
    };
    if (!items.empty() && std::all_of(items.begin(), items.end(), index_item)) {
      std::vector<Value> values;
      for (SampleArg& item : items) values.push_back(std::move(std::get<Value>(item)));
      return Value::list(std::move(values));
    }
    for (const SampleArg& item : items) {
      if (const auto* t = std::get_if<SampleTensor>(&item); t != nullptr && t->kind == SampleTensor::Kind::kInput) {
        tensors.shapes.push_back(t->shape);
      } else if (const auto* v = std::get_if<Value>(&item); v != nullptr && v->is_int()) {
        ints.push_back(v->to_int());
        floats.push_back(static_cast<double>(v->to_int()));
      } else if (v != nullptr && v->is_double()) {
        floats.push_back(v->to_double());
      } else if (v != nullptr && v->is_bool()) {
        has_bool = true;
      } else {
        throw ValueError(where("a list holds input tensors (T[...]) or numbers"));
      }
    }
    if (!tensors.shapes.empty()) {
      WICK_CHECK(tensors.shapes.size() == items.size(), ValueError, where("a list mixes tensors and numbers"));
      return tensors;
    }
    if (has_bool) {  // [True, 0.5]: data for torch.tensor
      std::vector<Value> values;
      for (SampleArg& item : items) values.push_back(std::move(std::get<Value>(item)));
      return Value::list(std::move(values));
    }
    if (ints.size() == items.size()) return Value(std::move(ints));
    return Value(std::move(floats));
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

// An input tensor of `shape`: |x| in [0.5, 1.5) with a random sign (no kinks
// at 0, no ties, no poles), or positive, or inside (-0.9, 0.9), or in
// [0.3, 0.9) for probabilities; integers 1..3, bools random.
Tensor make_input(const std::vector<std::int64_t>& shape, ScalarType dtype, Device device, SampleDomain d) {
  const IntArrayRef sizes(shape);
  Tensor x;
  if (dtype == ScalarType::kBool) {
    x = gt(rand(sizes, ScalarType::kFloat64), 0.5);
  } else if (!is_floating(dtype)) {
    x = randint(1, 4, sizes, dtype);
  } else {
    Tensor mag = add(rand(sizes, ScalarType::kFloat64), 0.5);
    if (d == SampleDomain::kPositive) {
      x = mag;
    } else if (d == SampleDomain::kProbability) {
      x = mul(mag, 0.6);
    } else if (d == SampleDomain::kAboveOne) {
      x = add(mag, 0.7);
    } else {
      if (d == SampleDomain::kInsideUnit) mag = mul(mag, 0.6);
      const Tensor sign = sub(mul(gt(rand(sizes, ScalarType::kFloat64), 0.5).to(ScalarType::kFloat64), 2.0), 1.0);
      x = mul(mag, sign);
      const std::size_t r = shape.size();
      const bool square = r >= 2 && shape[r - 1] == shape[r - 2];
      if (square && (d == SampleDomain::kHermitian || d == SampleDomain::kSpd))
        x = mul(add(x, x.transpose(-2, -1)), 0.5);
      if (square && (d == SampleDomain::kInvertible || d == SampleDomain::kSpd)) {
        const std::int64_t n = shape[r - 1];
        x = add(x, mul(eye(n, std::nullopt, ScalarType::kFloat64), static_cast<double>(2 * n)));
      }
    }
    x = x.to(dtype);
  }
  return device.is_cpu() ? x : x.to(device);
}

Tensor make_fixed(const SampleTensor& t, ScalarType dtype, Device device) {
  const IntArrayRef sizes(t.shape);
  const ScalarType floating = is_floating(dtype) ? dtype : ScalarType::kFloat64;
  Tensor x;
  switch (t.kind) {
    case SampleTensor::Kind::kRandom:
      x = randn(sizes, floating);
      break;
    case SampleTensor::Kind::kPositive:
      x = add(rand(sizes, floating), 0.5);
      break;
    case SampleTensor::Kind::kUniform:
      x = rand(sizes, floating);
      break;
    case SampleTensor::Kind::kMask:
      x = gt(rand(sizes, ScalarType::kFloat64), 0.5);
      break;
    case SampleTensor::Kind::kComplex: {
      const ScalarType part = floating == ScalarType::kFloat64 ? floating : ScalarType::kFloat32;
      x = complex(randn(sizes, part), randn(sizes, part));
      break;
    }
    case SampleTensor::Kind::kInput:
      break;
  }
  return device.is_cpu() ? x : x.to(device);
}

}  // namespace

Sample parse_sample(std::string_view text) { return SampleParser(text).parse(); }

SampleCall make_sample_call(const Sample& s, ScalarType dtype, Device device, SampleDomain domain) {
  SampleCall call;
  auto make = [&](const SampleArg& a) -> Value {
    if (const auto* t = std::get_if<SampleTensor>(&a)) {
      if (t->kind != SampleTensor::Kind::kInput) return Value(make_fixed(*t, dtype, device));
      const ScalarType d = !t->float64 ? dtype : is_complex(dtype) ? ScalarType::kComplex128 : ScalarType::kFloat64;
      call.inputs.push_back(make_input(t->shape, d, device, domain));
      if (t->requires_grad && autograd::is_differentiable_type(d)) call.inputs.back().requires_grad_(true);
      return Value(call.inputs.back());
    }
    if (const auto* l = std::get_if<SampleTensorList>(&a)) {
      std::vector<Tensor> list;
      for (const auto& shape : l->shapes) {
        call.inputs.push_back(make_input(shape, dtype, device, domain));
        list.push_back(call.inputs.back());
      }
      return Value(std::move(list));
    }
    const Value& v = std::get<Value>(a);
    if (v.is_tensor() && !device.is_cpu()) return Value(v.to_tensor().to(device));
    return v;
  };
  for (const SampleArg& a : s.args) call.args.push_back(make(a));
  for (const auto& [name, a] : s.kwargs) call.kwargs.emplace_back(name, make(a));
  return call;
}

SampleCall sample_call_on(const SampleCall& call, Device device) {
  auto move = [&](const Value& v) -> Value {
    if (v.is_tensor() && v.to_tensor().defined()) return Value(v.to_tensor().to(device));
    if (v.is_tensor_list()) {
      std::vector<Tensor> list;
      for (const Tensor& t : v.to_tensor_list()) list.push_back(t.to(device));
      return Value(std::move(list));
    }
    return v;
  };
  SampleCall out;
  for (const Value& v : call.args) out.args.push_back(move(v));
  for (const auto& [name, v] : call.kwargs) out.kwargs.emplace_back(name, move(v));
  for (const Tensor& t : call.inputs) out.inputs.push_back(t.to(device));
  return out;
}

namespace {

bool writes_first_argument(const FunctionSchema& s) {
  return !s.arguments.empty() && s.arguments[0].alias && s.arguments[0].alias->is_write;
}

using frontend::is_out_variant;

// The overload `op` borrows samples and tags from (Note [Sample lookup] in
// wick/opcheck.h), or nothing.
std::optional<std::string> lender_of(const std::string& op) {
  const OperatorHandle h = find_op(op);
  std::string target = operator_info(op).alias_of;
  if (!target.empty()) return target;
  const FunctionSchema& s = h.schema();
  const std::string& qualified = h.qualified_name();
  const std::string ns = qualified.substr(0, qualified.size() - s.name.size() - 1);
  if (is_out_variant(s)) {
    if (s.overload == "out") return qualified;
    if (s.overload.ends_with("_out")) return qualified + "." + s.overload.substr(0, s.overload.size() - 4);
    return std::nullopt;
  }
  const bool method = is_method_namespace(ns);
  const std::string function_ns = method ? ns.substr(0, ns.size() - std::string_view(".Tensor").size()) : "";
  const std::string& name = s.name;
  std::vector<std::string> candidates;
  if (method) candidates.push_back(function_ns + "." + name);
  if (name.size() > 1 && name.back() == '_' && name.front() != '_') {
    const std::string base = name.substr(0, name.size() - 1);
    candidates.push_back(ns + "." + base);
    if (method) candidates.push_back(function_ns + "." + base);
  }
  if (name.size() > 5 && name.starts_with("__i") && name.ends_with("__")) {
    candidates.push_back(ns + "." + name.substr(3, name.size() - 5) + "_");
  }
  for (std::string& c : candidates) {
    if (!s.overload.empty()) c += "." + s.overload;
    if (try_find_op(c)) return c;
  }
  return std::nullopt;
}

// Whether sample `s` of the out-of-place operator `op` gives a result with
// more elements than its first argument: in place, self would broadcast.
bool broadcasts_self(const std::string& op, const Sample& s) {
  try {
    const SampleCall c = make_sample_call(s, ScalarType::kFloat32, Device());
    if (c.args.empty() || !c.args.front().is_tensor()) return false;
    const Value result = wick::call(op, c.args, c.kwargs);
    return result.is_tensor() && result.to_tensor().numel() > c.args.front().to_tensor().numel();
  } catch (const std::exception&) {
    return false;  // the checks run it again and report the error
  }
}

}  // namespace

std::vector<std::string> sample_lookup_chain(std::string_view full_name) {
  std::vector<std::string> chain{std::string(find_op(full_name).name())};
  while (auto next = lender_of(chain.back())) {
    if (std::find(chain.begin(), chain.end(), *next) != chain.end()) break;
    chain.push_back(std::move(*next));
  }
  return chain;
}

std::vector<std::string> tags_for(std::string_view full_name) {
  for (const std::string& name : sample_lookup_chain(full_name)) {
    OperatorInfo info = operator_info(name);
    if (!info.tags.empty()) return std::move(info.tags);
  }
  return {};
}

std::vector<Sample> samples_for(std::string_view full_name) {
  const std::vector<std::string> chain = sample_lookup_chain(full_name);
  for (const std::string& name : chain) {
    const OperatorInfo info = operator_info(name);
    if (info.samples.empty()) continue;
    std::vector<Sample> out;
    for (const std::string& text : info.samples) out.push_back(parse_sample(text));
    if (name == chain.front() || !writes_first_argument(find_op(chain.front()).schema()) ||
        writes_first_argument(find_op(name).schema())) {
      return out;
    }
    // An in-place overload borrowing an out-of-place operator's samples.
    std::erase_if(out, [&](const Sample& s) { return broadcasts_self(name, s); });
    return out;
  }
  // One from the schema: tensors (2, 3), (3), (2, 1) to exercise
  // broadcasting, numbers 1.5; arguments with defaults keep them.
  static const std::vector<std::vector<std::int64_t>> shapes = {{2, 3}, {3}, {2, 1}};
  const FunctionSchema schema = find_op(chain.back()).schema();
  Sample generic;
  std::size_t n_tensors = 0;
  for (const SchemaArgument& a : schema.arguments) {
    if (a.default_value || a.kwarg_only) break;
    if (a.type.kind == TypeKind::kTensor && !a.type.is_list) {
      generic.args.emplace_back(
          SampleTensor{SampleTensor::Kind::kInput, shapes[std::min(n_tensors++, shapes.size() - 1)]});
    } else if (a.type.kind == TypeKind::kScalar) {
      generic.args.emplace_back(Value(1.5));
    } else if (a.type.kind == TypeKind::kInt && a.type.is_list) {
      generic.args.emplace_back(Value(std::vector<std::int64_t>{2, 3}));
    } else {
      return {};
    }
  }
  generic.text = "(from the schema)";
  return {generic};
}

}  // namespace wick
