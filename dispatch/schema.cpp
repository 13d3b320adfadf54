// dispatch/schema.cpp - parsing and printing of operator schemas.
/// \file
/// A hand-written recursive-descent parser for the native-function schema
/// syntax described in wick/schema.h, the canonical printer, and the
/// Python-style signature printer.
///
/// Note [Default literals]
/// A default is lexed once into a `Literal` (None, bool, int, float, string,
/// list). The literal is checked against the argument's type and converted to
/// a Value; the text is kept verbatim in `default_text`. `python_signature`
/// re-lexes `default_text` to print Python's repr, so it works the same for a
/// schema built by hand and never needs Value's printing. `int reduction=Mean`
/// (at::Reduction, as PyTorch spells it) is an int literal: Mean=1, Sum=2.
///
/// Note [Variadic arguments]
/// `Tensor[] *tensors` is Python's `*tensors`: a positional list argument
/// that a boxed call fills with every positional value from its position on
/// (dispatch/boxed_call.cpp), so `torch.meshgrid(a, b)` binds tensors=[a, b].
/// As in Python, at most one argument is variadic, it has no default, and
/// what follows it is keyword-only without a `*`. PyTorch has no such schema
/// type (its Python layer packs `*tensors` before ATen sees a TensorList);
/// wick keeps it in the schema so that the catalog's signatures, boxed calls
/// and overrides all see the Python signature.
#include "wick/schema.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "wick/error.h"
#include "wick/value.h"

namespace wick {
namespace {

/// The largest N of `int[N]`.
constexpr std::int32_t kMaxFixedListSize = 64;

constexpr bool is_ident_start(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
constexpr bool is_ident_char(char c) noexcept { return is_ident_start(c) || is_digit(c); }
constexpr bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Indexed by TypeKind.
constexpr std::string_view kKindNames[] = {"Tensor", "int",        "float",  "bool",      "str",
                                           "Scalar", "ScalarType", "Device", "Generator", "Any"};

std::string kind_name(TypeKind k) { return std::string(kKindNames[static_cast<std::size_t>(k)]); }

std::optional<TypeKind> kind_from_name(std::string_view s) noexcept {
  if (s == "SymInt") return TypeKind::kInt;
  for (std::size_t i = 0; i < std::size(kKindNames); ++i) {
    if (kKindNames[i] == s) return static_cast<TypeKind>(i);
  }
  return std::nullopt;
}

/// The part of a type's spelling after the base name and any alias
/// annotation: "?", "[]", "?[]", "[2]?".
std::string type_suffix(const SchemaType& t) {
  std::string out;
  if (t.is_list) {
    if (t.element_optional) out += '?';
    out += t.list_size >= 0 ? "[" + std::to_string(t.list_size) + "]" : "[]";
  }
  if (t.optional) out += '?';
  return out;
}

/// The type with its alias annotation in place: "Tensor(a!)[]".
std::string type_with_alias(const SchemaArgument& arg) {
  std::string out = kind_name(arg.type.kind);
  if (arg.alias) {
    out += "(" + arg.alias->set;
    if (arg.alias->is_write) out += '!';
    if (arg.alias->to_wildcard) out += " -> *";
    out += ')';
  }
  return out + type_suffix(arg.type);
}

/// Arguments or returns joined by ", ", with `*` before the first keyword-only one.
template <typename Fn>
std::string join_arguments(const std::vector<SchemaArgument>& args, Fn&& print) {
  std::string out;
  bool star_done = false;
  for (const SchemaArgument& a : args) {
    if (&a != args.data()) out += ", ";
    star_done = star_done || a.variadic;  // Python: what follows *args is keyword-only without a '*'
    if (a.kwarg_only && !star_done) {
      out += "*, ";
      star_done = true;
    }
    out += print(a);
  }
  return out;
}

// See Note [Default literals].
struct Literal {
  enum class Kind : std::uint8_t { kNone, kBool, kInt, kNamedInt, kFloat, kStr, kList };
  Kind kind = Kind::kNone;
  bool b = false;
  std::int64_t i = 0;  // kInt, kNamedInt
  double d = 0.0;
  std::string s;               // kStr: the unescaped contents
  std::vector<Literal> items;  // kList
};


std::string python_repr(const Literal& lit) {
  switch (lit.kind) {
    case Literal::Kind::kNone: return "None";
    case Literal::Kind::kBool: return lit.b ? "True" : "False";
    case Literal::Kind::kInt:
    case Literal::Kind::kNamedInt: return std::to_string(lit.i);
    case Literal::Kind::kFloat: return python_float_repr(lit.d);
    case Literal::Kind::kStr: return python_str_repr(lit.s);
    case Literal::Kind::kList: break;
  }
  std::string out = "[";
  for (const Literal& item : lit.items) {
    if (out.size() > 1) out += ", ";
    out += python_repr(item);
  }
  return out + "]";
}

/// The default list's Value for a list type, or nullopt when an element does
/// not fit. Lists of ints and floats get their typed Values; bools a generic list.
std::optional<Value> list_default(const Literal& lit, TypeKind kind) {
  using K = Literal::Kind;
  std::vector<std::int64_t> ints;
  std::vector<double> floats;
  std::vector<Value> bools;
  for (const Literal& e : lit.items) {
    if (kind == TypeKind::kInt && e.kind == K::kInt) {
      ints.push_back(e.i);
    } else if (kind == TypeKind::kFloat && (e.kind == K::kInt || e.kind == K::kFloat)) {
      floats.push_back(e.kind == K::kInt ? static_cast<double>(e.i) : e.d);
    } else if (kind == TypeKind::kBool && e.kind == K::kBool) {
      bools.emplace_back(e.b);
    } else {
      return std::nullopt;
    }
  }
  switch (kind) {
    case TypeKind::kInt: return Value(std::move(ints));
    case TypeKind::kFloat: return Value(std::move(floats));
    case TypeKind::kBool: return Value::list(std::move(bools));
    case TypeKind::kTensor: return Value(std::vector<Tensor>{});  // only `[]` reaches here
    default: return std::nullopt;
  }
}

/// Converts a default literal to the Value kept in `default_value`, or
/// nullopt when the literal does not fit the type.
std::optional<Value> default_to_value(const Literal& lit, const SchemaType& t) {
  using K = Literal::Kind;
  const TypeKind k = t.kind;
  if (lit.kind == K::kNone) {
    if (t.optional || k == TypeKind::kAny) return Value();
    return std::nullopt;
  }
  if (t.is_list) {
    if (lit.kind == K::kList) return list_default(lit, k);
    if (lit.kind == K::kInt && k == TypeKind::kInt && t.list_size > 0) {  // int[2] stride=1
      return Value(std::vector<std::int64_t>(static_cast<std::size_t>(t.list_size), lit.i));
    }
    return std::nullopt;
  }
  const bool any_number = k == TypeKind::kScalar || k == TypeKind::kAny;
  switch (lit.kind) {
    case K::kBool:
      if (k == TypeKind::kBool || any_number) return Value(lit.b);
      break;
    case K::kInt:
      // A float argument keeps an int-looking default an int: Python prints `1`.
      if (k == TypeKind::kInt || k == TypeKind::kFloat || any_number) return Value(lit.i);
      break;
    case K::kNamedInt:
      if (k == TypeKind::kInt) return Value(lit.i);
      break;
    case K::kFloat:
      if (k == TypeKind::kFloat || any_number) return Value(lit.d);
      break;
    case K::kStr:
      if (k == TypeKind::kStr || k == TypeKind::kAny) return Value(lit.s);
      break;
    default: break;
  }
  return std::nullopt;
}

/// A cursor over one schema string; every failure throws SchemaError with a
/// caret under the offending character.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  FunctionSchema parse_schema() {
    FunctionSchema schema;
    skip_space();
    if (!is_ident_char(peek())) fail(pos_, "empty operator name");
    if (!is_ident_start(peek())) fail(pos_, "invalid operator name '", token_at(pos_), "'");
    schema.name = std::string(identifier());
    if (peek() == '.') {
      ++pos_;
      if (!is_ident_char(peek())) fail(pos_, "empty overload name");
      if (!is_ident_start(peek())) fail(pos_, "invalid overload name '", token_at(pos_), "'");
      schema.overload = std::string(identifier());
    }
    if (!accept('(')) fail(pos_, "expected '(' but found ", found_at(pos_));
    parse_arguments(schema.arguments);
    skip_space();
    if (at_end()) fail(pos_, "missing '->' before the return type");
    if (!accept("->")) fail(pos_, "expected '->' but found ", found_at(pos_));
    parse_returns(schema.returns);
    skip_space();
    if (!at_end()) fail(pos_, "trailing characters '", text_.substr(pos_), "' after the schema");
    return schema;
  }

  /// `text_` as one whole default literal; nullopt if it is not one.
  std::optional<Literal> parse_whole_literal() {
    try {
      skip_space();
      Literal lit = literal();
      skip_space();
      if (at_end()) return lit;
    } catch (const SchemaError&) {
    }
    return std::nullopt;
  }

 private:
  [[nodiscard]] bool at_end() const noexcept { return pos_ >= text_.size(); }
  [[nodiscard]] char peek(std::size_t ahead = 0) const noexcept {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void skip_space() noexcept {
    while (!at_end() && is_space(text_[pos_])) ++pos_;
  }
  /// Skips whitespace, then consumes `s` if it comes next.
  bool accept(std::string_view s) noexcept {
    skip_space();
    if (text_.substr(pos_, s.size()) != s) return false;
    pos_ += s.size();
    return true;
  }
  bool accept(char c) noexcept { return accept(std::string_view(&c, 1)); }
  std::string_view identifier() noexcept {
    const std::size_t start = pos_;
    while (is_ident_char(peek())) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  /// The token at `p` as an error shows it: a word, a number, "->", or one character.
  [[nodiscard]] std::string_view token_at(std::size_t p) const {
    const auto char_at = [&](std::size_t q) { return q < text_.size() ? text_[q] : '\0'; };
    const char c = char_at(p);
    const bool number = is_digit(c) || (c == '-' && is_digit(char_at(p + 1)));
    std::size_t end = p + 1;
    if (number || is_ident_char(c)) {
      while (is_ident_char(char_at(end)) || (number && char_at(end) == '.')) ++end;
    } else if (c == '-' && char_at(p + 1) == '>') {
      end = p + 2;
    }
    return text_.substr(p, end - p);
  }
  /// "'x'" or "end of schema", for "... but found <it>".
  [[nodiscard]] std::string found_at(std::size_t p) const {
    if (p >= text_.size()) return "end of schema";
    return "'" + std::string(token_at(p)) + "'";
  }

  template <typename... Args>
  [[noreturn]] void fail(std::size_t at, const Args&... what) const {
    throw SchemaError(detail::str_cat("invalid schema: ", what..., "\n  ", text_, "\n  ",
                                      std::string(std::min(at, text_.size()), ' '), "^"));
  }

  void parse_arguments(std::vector<SchemaArgument>& args) {
    if (accept(')')) return;
    bool kwarg_only = false;
    bool seen_default = false;
    for (;;) {
      if (accept('*')) {
        if (kwarg_only) fail(pos_ - 1, "duplicate '*'");  // also '*' after a variadic argument, as in Python
        kwarg_only = true;
        if (!accept(',')) fail(pos_, "expected ',' after '*' but found ", found_at(pos_));
        continue;
      }
      skip_space();
      const std::size_t arg_start = pos_;
      SchemaArgument arg = argument_head(/*is_return=*/false);
      for (const SchemaArgument& other : args) {
        if (other.name == arg.name) fail(name_pos_, "duplicate argument name '", arg.name, "'");
      }
      if (arg.variadic) {
        if (kwarg_only) fail(arg_start, "variadic argument '", arg.name, "' after '*' or another variadic argument");
        if (seen_default) fail(arg_start, "variadic argument '", arg.name, "' follows default argument");
      }
      arg.kwarg_only = kwarg_only;
      skip_space();
      if (arg.variadic && peek() == '=') fail(pos_, "variadic argument '", arg.name, "' cannot have a default");
      if (arg.variadic) kwarg_only = true;  // as in Python, what follows *args is keyword-only
      if (accept('=')) {
        parse_default(arg);
        seen_default = seen_default || !kwarg_only;
      } else if (seen_default && !kwarg_only) {
        fail(arg_start, "non-default argument '", arg.name, "' follows default argument");
      }
      args.push_back(std::move(arg));
      if (accept(')')) return;
      if (!accept(',')) fail(pos_, "expected ')' but found ", found_at(pos_));
    }
  }

  void parse_returns(std::vector<SchemaArgument>& rets) {
    if (!accept('(')) {
      rets.push_back(argument_head(/*is_return=*/true, /*allow_name=*/false));
      return;
    }
    if (accept(')')) return;
    for (;;) {
      SchemaArgument ret = argument_head(/*is_return=*/true);
      for (const SchemaArgument& other : rets) {
        if (!ret.name.empty() && other.name == ret.name) {
          fail(name_pos_, "duplicate return name '", ret.name, "'");
        }
      }
      rets.push_back(std::move(ret));
      if (accept(')')) return;
      if (!accept(',')) fail(pos_, "expected ')' but found ", found_at(pos_));
    }
  }

  /// `Type[(alias)][suffixes] name`; for returns the name is optional.
  SchemaArgument argument_head(bool is_return, bool allow_name = true) {
    SchemaArgument arg;
    skip_space();
    const std::size_t type_pos = pos_;
    if (!is_ident_start(peek())) {
      fail(pos_, is_return ? "expected return type" : "expected argument type", " but found ", found_at(pos_));
    }
    const std::string_view type_name = identifier();
    const std::optional<TypeKind> kind = kind_from_name(type_name);
    if (!kind) fail(type_pos, "unknown type '", type_name, "'");
    arg.type.kind = *kind;
    if (peek() == '(') {
      // Any(a): a result that may hold views of the (a) arguments (atleast_1d).
      if (*kind != TypeKind::kTensor && *kind != TypeKind::kAny)
        fail(pos_, "alias annotation on non-Tensor type '", type_name, "'");
      arg.alias = alias_annotation();
    }
    type_suffixes(arg.type);
    if (!allow_name) return arg;
    skip_space();
    if (!is_return && peek() == '*') {  // Note [Variadic arguments]
      if (!arg.type.is_list || arg.type.optional) fail(pos_, "only a list type can be variadic, not '", arg.type.str(), "'");
      arg.variadic = true;
      ++pos_;
    }
    name_pos_ = pos_;
    if (is_ident_start(peek())) {
      arg.name = std::string(identifier());
    } else if (!is_return) {
      fail(pos_, "expected argument name but found ", found_at(pos_));
    }
    return arg;
  }

  /// `(a)`, `(a!)`, `(a -> *)`, `(a! -> *)`; `pos_` is at the '('.
  AliasInfo alias_annotation() {
    AliasInfo info;
    ++pos_;
    skip_space();
    if (!is_ident_char(peek())) fail(pos_, "expected alias set name but found ", found_at(pos_));
    info.set = std::string(identifier());
    info.is_write = accept('!');
    if (accept("->")) {
      if (!accept('*')) fail(pos_, "expected '*' after '->' in alias annotation but found ", found_at(pos_));
      info.to_wildcard = true;
    }
    if (!accept(')')) fail(pos_, "expected ')' to close the alias annotation but found ", found_at(pos_));
    return info;
  }

  /// `?`, `[]`, `[N]`, `[]?`, `?[]` directly after the type (no whitespace).
  void type_suffixes(SchemaType& t) {
    if (peek() == '?') {
      ++pos_;
      (peek() == '[' ? t.element_optional : t.optional) = true;
    }
    if (peek() == '[') {
      ++pos_;
      t.is_list = true;
      if (is_digit(peek())) {
        const std::size_t num_pos = pos_;
        while (is_digit(peek())) ++pos_;
        const auto [ptr, ec] = std::from_chars(text_.data() + num_pos, text_.data() + pos_, t.list_size);
        // A fixed size is a handful of dims (int[2] stride); a default such
        // as `int[1000000000] x=1` would expand to that many ints.
        if (ec != std::errc() || t.list_size <= 0 || t.list_size > kMaxFixedListSize) {
          fail(num_pos, "invalid list size '", text_.substr(num_pos, pos_ - num_pos), "' (expected 1 to ",
               kMaxFixedListSize, ")");
        }
      }
      if (peek() != ']') fail(pos_, "expected ']' but found ", found_at(pos_));
      ++pos_;
      if (peek() == '?') {
        ++pos_;
        t.optional = true;
      }
    }
    if (peek() == '?' || peek() == '[') fail(pos_, "unexpected '", peek(), "' in type");
  }

  void parse_default(SchemaArgument& arg) {
    skip_space();
    const std::size_t start = pos_;
    const Literal lit = literal();
    const std::string_view text = text_.substr(start, pos_ - start);
    std::optional<Value> value = default_to_value(lit, arg.type);
    if (!value) {
      fail(start, "default value '", text, "' does not match type '", kind_name(arg.type.kind),
           type_suffix(arg.type), "'");
    }
    arg.default_text = std::string(text);
    arg.default_value = std::move(*value);
  }

  Literal literal() {
    const char c = peek();
    if (c == '\'' || c == '"') return string_literal();
    if (c == '[') return list_literal();
    if (is_digit(c) || c == '.' || (c == '-' && !is_ident_start(peek(1)))) return number_literal();
    if (is_ident_start(c) || c == '-') return word_literal();
    fail(pos_, "expected a default value but found ", found_at(pos_));
  }

  /// None, True, False, inf, -inf, nan, Mean, Sum.
  Literal word_literal() {
    const std::size_t start = pos_;
    const bool negative = peek() == '-';
    if (negative) ++pos_;
    const std::string_view word = identifier();
    Literal lit;
    if (word == "inf" || word == "nan") {
      lit.kind = Literal::Kind::kFloat;
      lit.d = word == "inf" ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
      if (negative) lit.d = -lit.d;
      return lit;
    }
    if (negative) fail(start, "invalid number '", text_.substr(start, pos_ - start), "'");
    if (word == "True" || word == "False") {
      lit.kind = Literal::Kind::kBool;
      lit.b = word == "True";
    } else if (word == "Mean" || word == "Sum") {
      lit.kind = Literal::Kind::kNamedInt;
      lit.i = word == "Mean" ? 1 : 2;
    } else if (word != "None") {
      fail(start, "invalid default value '", word, "'");
    }
    return lit;
  }

  Literal string_literal() {
    const std::size_t start = pos_;
    const char quote = text_[pos_++];
    Literal lit;
    lit.kind = Literal::Kind::kStr;
    for (;;) {
      if (at_end()) fail(start, "unterminated string");
      const char c = text_[pos_++];
      if (c == quote) return lit;
      if (c != '\\') {
        lit.s += c;
        continue;
      }
      if (at_end()) fail(start, "unterminated string");
      const char e = text_[pos_++];
      if (e == 'n') {
        lit.s += '\n';
      } else if (e == 't') {
        lit.s += '\t';
      } else if (e == 'r') {
        lit.s += '\r';
      } else {
        if (e != '\\' && e != '\'' && e != '"') lit.s += '\\';  // unknown escapes stay, as in Python
        lit.s += e;
      }
    }
  }

  Literal list_literal() {
    Literal lit;
    lit.kind = Literal::Kind::kList;
    ++pos_;  // '['
    if (accept(']')) return lit;
    for (;;) {
      skip_space();
      if (peek() == '[') fail(pos_, "nested lists are not supported in defaults");
      lit.items.push_back(literal());
      if (accept(']')) return lit;
      if (!accept(',')) fail(pos_, "expected ']' but found ", found_at(pos_));
    }
  }

  /// -?digits[.digits][e[+-]digits]: an int unless it has a '.' or an exponent.
  Literal number_literal() {
    const std::size_t start = pos_;
    const auto digits = [&] {
      const std::size_t from = pos_;
      while (is_digit(peek())) ++pos_;
      return pos_ > from;
    };
    if (peek() == '-') ++pos_;
    bool ok = digits();
    bool is_float = false;
    if (peek() == '.') {
      ++pos_;
      is_float = true;
      ok = digits() || ok;
    }
    if (ok && (peek() == 'e' || peek() == 'E')) {
      ++pos_;
      is_float = true;
      if (peek() == '-' || peek() == '+') ++pos_;
      ok = digits();
    }
    if (!ok || is_ident_char(peek()) || peek() == '.') fail(start, "invalid number '", token_at(start), "'");
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    Literal lit;
    std::from_chars_result r{};
    if (is_float) {
      lit.kind = Literal::Kind::kFloat;
      r = std::from_chars(first, last, lit.d);
    } else {
      lit.kind = Literal::Kind::kInt;
      r = std::from_chars(first, last, lit.i);
    }
    if (r.ec == std::errc::result_out_of_range) {
      fail(start, "number '", text_.substr(start, pos_ - start), "' out of range");
    }
    if (r.ec != std::errc() || r.ptr != last) fail(start, "invalid number '", token_at(start), "'");
    return lit;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t name_pos_ = 0;  // where the last argument name started
};

}  // namespace

std::string SchemaType::str() const { return kind_name(kind) + type_suffix(*this); }

std::string FunctionSchema::full_name() const { return overload.empty() ? name : name + "." + overload; }

std::string FunctionSchema::str() const {
  std::string out = full_name() + "(" + join_arguments(arguments, [](const SchemaArgument& a) {
                      return type_with_alias(a) + (a.variadic ? " *" : " ") + a.name +
                             (a.default_text ? "=" + *a.default_text : "");
                    });
  out += ") -> ";
  if (returns.size() == 1 && returns[0].name.empty()) return out + type_with_alias(returns[0]);
  return out + "(" + join_arguments(returns, [](const SchemaArgument& r) {
           return type_with_alias(r) + (r.name.empty() ? "" : " " + r.name);
         }) + ")";
}

std::string FunctionSchema::python_signature(bool rename_self) const {
  return "(" + join_arguments(arguments, [&](const SchemaArgument& a) {
           std::string out = (a.variadic ? "*" : "") + (rename_self && a.name == "self" ? std::string("input") : a.name);
           if (!a.default_text) return out;
           const std::optional<Literal> lit = Parser(*a.default_text).parse_whole_literal();
           return out + "=" + (lit ? python_repr(*lit) : *a.default_text);  // unparsable: as written
         }) + ")";
}

int FunctionSchema::find_argument(std::string_view arg_name) const noexcept {
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].name == arg_name) return static_cast<int>(i);
  }
  return -1;
}

FunctionSchema parse_schema(std::string_view text) { return Parser(text).parse_schema(); }

}  // namespace wick
