// tools/wick/eval.h - the expression engine behind `wick eval EXPR`.
/// \file
/// Parses a small subset of Python expressions and evaluates it through the
/// boxed API (`wick::call`), so that what a PyTorch user would type works:
///
///   wick::init();
///   wick::Value v = wick::eval::evaluate("torch.add(torch.tensor([[1., 2.]]), 3, alpha=2)");
///   std::cout << wick::eval::format(v) << "\n";   // tensor([[7., 8.]])
///   std::cout << wick::eval::to_json(v) << "\n";  // {"dtype":"float32","shape":[1,2],"data":[[7.0,8.0]]}
///
/// The grammar, loosest binding first:
///
///   input      := stmt (';' stmt)* [';'] END
///   stmt       := expr (',' expr)* [',']            (a bare tuple, as in Python)
///   expr       := conj ('or' conj)*                  (short-circuit; the value decides, as in Python)
///   conj       := neg ('and' neg)*
///   neg        := 'not' neg | compare
///   compare    := bitor [('==' | '!=' | '<' | '<=' | '>' | '>=') bitor]
///   bitor      := bitxor ('|' bitxor)*
///   bitxor     := bitand ('^' bitand)*
///   bitand     := sum ('&' sum)*
///   sum        := term (('+' | '-') term)*
///   term       := factor (('*' | '/' | '//' | '%' | '@') factor)*
///   factor     := ('-' | '+' | '~') factor | power
///   power      := postfix ['**' factor]             (right-associative; -2**2 == -4)
///   postfix    := atom ('.' NAME | '(' [args] ')' | '[' index (',' index)* [','] ']')*
///   index      := expr | [expr] ':' [expr] [':' [expr]]     (a slice: slice(start, stop, step))
///   args       := arg (',' arg)* [',']              (keywords after positionals)
///   arg        := NAME '=' expr | expr
///   atom       := INT | FLOAT | STRING+ | True | False | None | '...' | NAME
///               | '(' ')' | '(' expr ')' | '(' expr ',' [expr (',' expr)* [',']] ')'
///               | '[' [expr (',' expr)* [',']] ']'
///               | '{' [STRING+ ':' expr (',' STRING+ ':' expr)* [',']] '}'
///
/// Note [Eval names]
/// A dotted name made only of names (`torch.nn.functional.relu`) is one
/// `kName` node and is resolved as a whole when evaluated: a variable of the
/// scope (then the rest are attributes of its value), a builtin (`abs`,
/// `len`, `slice`, `type`), `Ellipsis`, a class (`float`, `int`, `bool`, or a registered tensor-like or
/// subclass such as `ScalarTensor`), a dtype (`torch.float32`),
/// `torch.manual_seed`, an operator of the catalog (`wick::try_find_op`), or a
/// namespace (a prefix of an operator's name, such as `torch.nn`). `F` is
/// `torch.nn.functional`, as in `import torch.nn.functional as F`. An
/// attribute of a tensor or tensor-like names a method: `x.reshape(2, 3)`
/// calls `torch.Tensor.reshape(x, 2, 3)`.
///
/// Classes are values: `type(x)` gives the class of `x` (`SubTensor`,
/// `Tensor`, `float`), printed by its name, with `.__name__`, compared with
/// `==`, and called to make an instance (`wick::new_instance` for registered
/// types and for `torch.Tensor(...)`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "wick/error.h"
#include "wick/value.h"

namespace wick::eval {

/// A malformed expression. The message names the problem, then shows the
/// expression with a caret under the offending character:
///
///   unexpected ',' (expected an expression)
///     torch.add(1,,2)
///                 ^
class SyntaxError : public wick::ValueError {
 public:
  SyntaxError(const std::string& msg, std::size_t column) : ValueError(msg), column_(column) {}
  [[nodiscard]] const char* type_name() const noexcept override { return "SyntaxError"; }
  /// Byte offset of the caret in the expression.
  [[nodiscard]] std::size_t column() const noexcept { return column_; }

 private:
  std::size_t column_;
};

/// An unknown name: "name 'foo' is not defined".
class NameError : public wick::Error {
 public:
  explicit NameError(const std::string& msg) : Error(msg) {}
  [[nodiscard]] const char* type_name() const noexcept override { return "NameError"; }
};

/// An attribute that does not exist: "module 'torch' has no attribute
/// 'foo'", "'Tensor' object has no attribute 'foo'" (Python's AttributeError).
class AttributeError : public wick::Error {
 public:
  explicit AttributeError(const std::string& msg) : Error(msg) {}
  [[nodiscard]] const char* type_name() const noexcept override { return "AttributeError"; }
};

/// Python-number division or power by zero: "division by zero".
class ZeroDivisionError : public wick::Error {
 public:
  explicit ZeroDivisionError(const std::string& msg) : Error(msg) {}
  [[nodiscard]] const char* type_name() const noexcept override { return "ZeroDivisionError"; }
};

// Python-number arithmetic whose result does not fit (an int outside int64:
// Python ints are unbounded, wick's are not; a float power that overflows)
// raises wick::OverflowError (wick/error.h).

enum class UnaryOp : std::uint8_t { kNeg, kPos, kInvert, kNot };
enum class BinaryOp : std::uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kFloorDiv,
  kMod,
  kMatMul,
  kPow,
  kAnd,
  kOr,
  kXor,
  kLShift,
  kRShift,
  kEq,  // the comparisons come last (is_comparison)
  kNe,
  kLt,
  kLe,
  kGt,
  kGe
};

/// "+", "**", "<=", ...
[[nodiscard]] std::string_view op_symbol(BinaryOp op) noexcept;

/// One node of the syntax tree. Which fields are used depends on `kind`.
struct Node {
  enum class Kind : std::uint8_t {
    kInt,     ///< int_value
    kFloat,   ///< float_value
    kImag,    ///< float_value: the imaginary literal `float_value`j
    kString,  ///< text
    kBool,    ///< bool_value
    kNone,
    kName,       ///< text: a dotted name, "torch.nn.functional.relu" (Note [Eval names])
    kAttribute,  ///< children[0] . text, on a value that is not a plain name: `f(x).sum`
    kCall,       ///< children[0](children[1..], kwargs)
    kList,       ///< [children...]
    kTuple,      ///< (children...)
    kDict,       ///< {kwargs[i].first: kwargs[i].second, ...}
    kUnary,      ///< unary_op children[0]
    kBinary,     ///< children[0] binary_op children[1]
    kSequence,   ///< children[0]; children[1]; ...: each in turn, the value is the last's
    kSubscript,  ///< children[0][children[1], ...] (Note [Subscripts])
    kSlice,      ///< start:stop:step in a subscript; children[0..2], kNone where left out
    kEllipsis,   ///< `...` (Ellipsis)
    kBoolOp,     ///< children[0] and/or children[1] (text), Python's short-circuit: the deciding operand
  };

  Kind kind = Kind::kNone;
  /// Byte offset of the node's first character in the expression.
  std::size_t pos = 0;
  std::int64_t int_value = 0;
  double float_value = 0.0;
  bool bool_value = false;
  std::string text;
  UnaryOp unary_op = UnaryOp::kNeg;
  BinaryOp binary_op = BinaryOp::kAdd;
  std::vector<std::unique_ptr<Node>> children;
  std::vector<std::pair<std::string, std::unique_ptr<Node>>> kwargs;
  /// Levels of nodes from this one down; the parser caps it so that walking
  /// the tree cannot exhaust the stack.
  std::uint32_t height = 1;
};

/// Parses a whole expression; throws SyntaxError (never anything else).
[[nodiscard]] std::unique_ptr<Node> parse(std::string_view expr);

/// The tree printed back as an expression with every operation in
/// parentheses: "-2**2" gives "(-(2 ** 2))". For tests and debugging.
[[nodiscard]] std::string to_string(const Node& node);

/// Variables an expression may use by name (tests, the golden checks).
using Scope = std::map<std::string, wick::Value, std::less<>>;

/// Parses and evaluates `expr` through the boxed API. Throws SyntaxError,
/// NameError, ZeroDivisionError, OverflowError, or whatever the operator
/// raises (`wick::TypeError`, ...); a result that is not a value (a bare
/// `torch.add`, a namespace) is a TypeError.
[[nodiscard]] wick::Value evaluate(std::string_view expr, const Scope& scope = {});

/// What `wick eval` prints: the Python repr (`v.repr()`): tensors as PyTorch
/// prints them, floats as Python does ("0.3333333333333333", "nan").
[[nodiscard]] std::string format(const wick::Value& v);

/// What `wick eval --json` prints. A tensor is {"dtype": "float32", "shape":
/// [2], "data": [7.0, 10.0]} with `data` nested by shape (the number itself
/// for a 0-dim tensor); NaN and infinities are the strings "nan", "inf",
/// "-inf". Numbers, bools, strings and None map to JSON, lists and tuples to
/// arrays, a dtype to "torch.float32", a device to "cpu". Throws
/// wick::RuntimeError for a tensor that is not on the CPU.
[[nodiscard]] nlohmann::ordered_json to_json(const wick::Value& v);

}  // namespace wick::eval
