// tests/cli/eval_parser_test.cpp - the `wick eval` expression engine.
/// \file
/// Parsing (precedence, literals, calls, brackets), syntax errors and their
/// carets, Python-number arithmetic, builtins, names and `to_json`: all
/// without a backend. A few end-to-end cases load the CPU backend with
/// `wick::init()` and skip when the operators they need are absent.

#include <cstdint>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tools/wick/eval.h"
#include "wick/dispatcher.h"
#include "wick/loader.h"
#include "wick/random.h"
#include "wick/tensor.h"
#include "wick/value.h"
#include "tests/support/test_paths.h"

namespace {

using json = nlohmann::ordered_json;
using wick::Value;
namespace ev = wick::eval;

/// The expression parsed and printed back fully parenthesised.
std::string tree(std::string_view expr) { return ev::to_string(*ev::parse(expr)); }

/// What `wick eval EXPR` prints.
std::string run(std::string_view expr, const ev::Scope& scope = {}) { return ev::format(ev::evaluate(expr, scope)); }

/// The SyntaxError `parse(expr)` throws (a failure when it does not).
ev::SyntaxError syntax_error(std::string_view expr) {
  try {
    (void)ev::parse(expr);
  } catch (const ev::SyntaxError& e) {
    return e;
  }
  ADD_FAILURE() << "no SyntaxError for: " << expr;
  return ev::SyntaxError("", 0);
}

/// The first line of a message (without the boxed call's note).
std::string first_line(const std::string& message) { return message.substr(0, message.find('\n')); }

/// The message of the error of type `E` evaluating `expr` throws.
template <typename E>
std::string error_of(std::string_view expr) {
  try {
    (void)ev::evaluate(expr);
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << expr << ": wrong exception type: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no exception for: " << expr;
  return "";
}

// --- parsing ---------------------------------------------------------------------

TEST(EvalParser, Precedence) {
  EXPECT_EQ(tree("1 + 2 * 3"), "(1 + (2 * 3))");
  EXPECT_EQ(tree("(1 + 2) * 3"), "((1 + 2) * 3)");
  EXPECT_EQ(tree("1 - 2 - 3"), "((1 - 2) - 3)");
  EXPECT_EQ(tree("1 / 2 * 3"), "((1 / 2) * 3)");
  EXPECT_EQ(tree("a @ b + c"), "((a @ b) + c)");
  EXPECT_EQ(tree("1 + 2 < 3 * 4"), "((1 + 2) < (3 * 4))");
  EXPECT_EQ(tree("x == y + 1"), "(x == (y + 1))");
  EXPECT_EQ(tree("a >= b"), "(a >= b)");
  EXPECT_EQ(tree("a != b"), "(a != b)");
}

TEST(EvalParser, PowerIsRightAssociativeAndBindsTighterThanUnaryMinus) {
  EXPECT_EQ(tree("2 ** 3 ** 2"), "(2 ** (3 ** 2))");
  EXPECT_EQ(tree("-2**2"), "(-(2 ** 2))");
  EXPECT_EQ(tree("2**-1"), "(2 ** (-1))");
  EXPECT_EQ(tree("-x ** -y"), "(-(x ** (-y)))");
  EXPECT_EQ(tree("2 * -3"), "(2 * (-3))");
  EXPECT_EQ(tree("--1"), "(-(-1))");
  EXPECT_EQ(tree("+-1"), "(+(-1))");
  EXPECT_EQ(tree("-x.sum()"), "(-x.sum())");
  EXPECT_EQ(tree("-x.pow(2) ** 2"), "(-(x.pow(2) ** 2))");
  EXPECT_EQ(tree("a % b * c"), "((a % b) * c)");  // one precedence level with * / @
  EXPECT_EQ(tree("a + b % -c"), "(a + (b % (-c)))");
}

TEST(EvalParser, CallsWithKeywords) {
  EXPECT_EQ(tree("torch.add(x, 3, alpha=2)"), "torch.add(x, 3, alpha=2)");
  EXPECT_EQ(tree("f()"), "f()");
  EXPECT_EQ(tree("f(a=1)"), "f(a=1)");
  EXPECT_EQ(tree("f(1, 2,)"), "f(1, 2)");
  EXPECT_EQ(tree("f(x == 1, k=-2 ** 2)"), "f((x == 1), k=(-(2 ** 2)))");

  const auto n = ev::parse("torch.nn.functional.relu(x, inplace=False)");
  ASSERT_EQ(n->kind, ev::Node::Kind::kCall);
  ASSERT_EQ(n->children.size(), 2U);
  EXPECT_EQ(n->children[0]->kind, ev::Node::Kind::kName);
  EXPECT_EQ(n->children[0]->text, "torch.nn.functional.relu");
  EXPECT_EQ(n->children[1]->text, "x");
  ASSERT_EQ(n->kwargs.size(), 1U);
  EXPECT_EQ(n->kwargs[0].first, "inplace");
  EXPECT_EQ(n->kwargs[0].second->kind, ev::Node::Kind::kBool);
}

TEST(EvalParser, MethodChains) {
  const auto n = ev::parse("torch.arange(12.).reshape(2, 3, 2)");
  EXPECT_EQ(ev::to_string(*n), "torch.arange(12.0).reshape(2, 3, 2)");
  ASSERT_EQ(n->kind, ev::Node::Kind::kCall);
  const ev::Node& callee = *n->children[0];
  ASSERT_EQ(callee.kind, ev::Node::Kind::kAttribute);
  EXPECT_EQ(callee.text, "reshape");
  EXPECT_EQ(callee.children[0]->kind, ev::Node::Kind::kCall);
  EXPECT_EQ(tree("x.t().sum(dim=0).mean()"), "x.t().sum(dim=0).mean()");
  EXPECT_EQ(tree("(a + b).sum()"), "(a + b).sum()");
  EXPECT_EQ(tree("x . view ( 6 , 2 )"), "x.view(6, 2)");
  EXPECT_EQ(ev::parse("x.view(6, 2)")->children[0]->text, "x.view");  // one dotted name
}

TEST(EvalParser, NestedListsAndTuples) {
  EXPECT_EQ(tree("[[1, 2], (3,), (), (4, 5), []]"), "[[1, 2], (3,), (), (4, 5), []]");
  EXPECT_EQ(tree("[1, 2,]"), "[1, 2]");
  EXPECT_EQ(tree("(1, 2,)"), "(1, 2)");
  EXPECT_EQ(ev::parse("(1)")->kind, ev::Node::Kind::kInt);
  EXPECT_EQ(ev::parse("(1,)")->kind, ev::Node::Kind::kTuple);
  EXPECT_EQ(ev::parse("()")->kind, ev::Node::Kind::kTuple);
  EXPECT_EQ(ev::parse("[]")->kind, ev::Node::Kind::kList);
  EXPECT_EQ(tree("1, 2"), "(1, 2)");  // a bare tuple, as Python's eval reads it
  EXPECT_EQ(tree("1,"), "(1,)");
  EXPECT_EQ(tree("torch.sum(x, dim=(0, 2))"), "torch.sum(x, dim=(0, 2))");
}

TEST(EvalParser, NumberLiterals) {
  auto float_of = [](std::string_view s) {
    const auto n = ev::parse(s);
    EXPECT_EQ(n->kind, ev::Node::Kind::kFloat) << s;
    return n->float_value;
  };
  auto int_of = [](std::string_view s) {
    const auto n = ev::parse(s);
    EXPECT_EQ(n->kind, ev::Node::Kind::kInt) << s;
    return n->int_value;
  };
  EXPECT_EQ(float_of("1."), 1.0);
  EXPECT_EQ(float_of(".5"), 0.5);
  EXPECT_EQ(float_of("1e-5"), 1e-5);
  EXPECT_EQ(float_of("2.5e10"), 2.5e10);
  EXPECT_EQ(float_of("1E3"), 1000.0);
  EXPECT_EQ(float_of("1.e2"), 100.0);
  EXPECT_EQ(float_of("1_000.25"), 1000.25);
  EXPECT_EQ(float_of("1e400"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(float_of("0.1"), 0.1);
  EXPECT_EQ(int_of("0"), 0);
  EXPECT_EQ(int_of("00"), 0);
  EXPECT_EQ(int_of("42"), 42);
  EXPECT_EQ(int_of("1_000_000"), 1000000);
  EXPECT_EQ(int_of("0x1F"), 31);
  EXPECT_EQ(int_of("0o17"), 15);
  EXPECT_EQ(int_of("0b101"), 5);
  EXPECT_EQ(int_of("9223372036854775807"), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(int_of("-9223372036854775808"), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(tree("1e-5"), "1e-05");
  EXPECT_EQ(tree("2.5e10"), "25000000000.0");
}

TEST(EvalParser, StringsAndKeywordLiterals) {
  EXPECT_EQ(ev::parse("'mean'")->text, "mean");
  EXPECT_EQ(ev::parse("\"mean\"")->text, "mean");
  EXPECT_EQ(ev::parse(R"('it\'s')")->text, "it's");
  EXPECT_EQ(ev::parse(R"("a\tb\n\\ \x41\u00e9")")->text, "a\tb\n\\ A\xc3\xa9");
  EXPECT_EQ(ev::parse(R"('a' "b" 'c')")->text, "abc");
  EXPECT_EQ(ev::parse(R"(r'\d\'')")->text, R"(\d\')");
  EXPECT_EQ(ev::parse(R"('\q')")->text, R"(\q)");  // unknown escapes stay
  EXPECT_EQ(ev::parse("''")->text, "");
  EXPECT_EQ(tree(R"(f(approximate='tanh'))"), "f(approximate='tanh')");
  EXPECT_EQ(tree(R"("it's")"), R"("it's")");
  EXPECT_EQ(ev::parse("True")->kind, ev::Node::Kind::kBool);
  EXPECT_TRUE(ev::parse("True")->bool_value);
  EXPECT_FALSE(ev::parse("False")->bool_value);
  EXPECT_EQ(ev::parse("None")->kind, ev::Node::Kind::kNone);
  EXPECT_EQ(ev::parse("Truely")->kind, ev::Node::Kind::kName);
}

// Python's repr of a str (PyTorch 1.13 under Python 3 prints these).
TEST(EvalParser, StringsPrintAsPythonsRepr) {
  EXPECT_EQ(run(R"("it's")"), R"("it's")");
  EXPECT_EQ(run(R"('say "hi"')"), R"('say "hi"')");
  EXPECT_EQ(run(R"('both \' and "')"), R"('both \' and "')");
  EXPECT_EQ(run(R"('a\nb\tc\rd')"), R"('a\nb\tc\rd')");
  EXPECT_EQ(run(R"('back\\slash')"), R"('back\\slash')");
  EXPECT_EQ(run(R"('\x01\x7f')"), R"('\x01\x7f')");
  EXPECT_EQ(run(R"('caf\u00e9')"), "'caf\xc3\xa9'");  // printable text stays as it is
  EXPECT_EQ(run(R"(["it's", 'x'])"), R"(["it's", 'x'])");
}

// Python's `//` on numbers, and torch.floor_divide (__floordiv__,
// __rfloordiv__) on tensors, with PyTorch 1.13's results.
TEST(EvalParser, FloorDivision) {
  wick::init();
  EXPECT_EQ(tree("a // b * c"), "((a // b) * c)");
  EXPECT_EQ(run("7 // 2"), "3");
  EXPECT_EQ(run("-7 // 2"), "-4");
  EXPECT_EQ(run("7.5 // 2"), "3.0");
  EXPECT_EQ(run("-7.5 // 2"), "-4.0");
  EXPECT_EQ(run("1 // 0.1"), "9.0");  // Python's, from the remainder: not floor(1 / 0.1)
  EXPECT_EQ(run("True // 2"), "0");
  EXPECT_EQ(error_of<ev::ZeroDivisionError>("7 // 0"), "integer division or modulo by zero");
  EXPECT_EQ(error_of<ev::ZeroDivisionError>("7.0 // 0"), "float floor division by zero");
  EXPECT_EQ(error_of<wick::OverflowError>("(-9223372036854775807 - 1) // -1"),
            "integer result of -9223372036854775808 // -1 does not fit in 64 bits (wick ints are int64)");
  EXPECT_EQ(run("torch.tensor([7., -7.]) // 2"), "tensor([ 3., -4.])");
  EXPECT_EQ(run("torch.tensor([7, -7]) // 2"), "tensor([ 3, -4])");
  EXPECT_EQ(run("7 // torch.tensor([2., -2.])"), "tensor([ 3., -4.])");
  EXPECT_EQ(run("torch.tensor([5, -5]).floor_divide(3)"), "tensor([ 1, -2])");
}

// PyTorch's Tensor.where(condition, y) is torch.where(condition, self, y).
TEST(EvalParser, TensorWhereTakesTheConditionAsItsArgument) {
  wick::init();
  EXPECT_EQ(run("torch.tensor([1., 2.]).where(torch.tensor([True, False]), torch.tensor([0., 0.]))"),
            "tensor([1., 0.])");
  EXPECT_EQ(run("torch.tensor([1., 2.]).where(condition=torch.tensor([False, True]), other=torch.tensor([7., 7.]))"),
            "tensor([7., 2.])");
  EXPECT_EQ(run("torch.where(torch.tensor([True, False]), torch.tensor([1., 2.]), torch.tensor([0., 0.]))"),
            "tensor([1., 0.])");
}

// What PyTorch 1.13 refuses or truncates in creation and unary functions.
TEST(EvalParser, ArangeOfIntegerDtypesAndBoolRefusals) {
  wick::init();
  EXPECT_EQ(run("torch.arange(0, 5, 1.5, dtype=torch.int64)"), "tensor([0, 1, 2, 3, 4])");  // step 1.5 -> 1
  EXPECT_EQ(run("torch.arange(0.5, 5.9, 1.5, dtype=torch.int32)"), "tensor([0, 1, 2, 3], dtype=torch.int32)");
  EXPECT_EQ(run("torch.arange(10, 0, -2.5, dtype=torch.int64)"), "tensor([10,  8,  6,  4,  2])");
  EXPECT_EQ(run("torch.arange(1, 2.5, 0.5, dtype=torch.float64)"), "tensor([1.0000, 1.5000, 2.0000], dtype=torch.float64)");
  EXPECT_NE(error_of<wick::RuntimeError>("torch.arange(0, 5, 0.5, dtype=torch.int64)").find("step must be nonzero"),
            std::string::npos);
  EXPECT_NE(error_of<wick::RuntimeError>("torch.arange(3, dtype=torch.bool)").find("\"arange_cpu\" not implemented for 'Bool'"),
            std::string::npos);
  EXPECT_NE(error_of<wick::RuntimeError>("torch.arange(float('nan'), 2, dtype=torch.int64)")
                .find("value cannot be converted to type int64_t without overflow"),
            std::string::npos);
  EXPECT_NE(error_of<wick::RuntimeError>("torch.abs(torch.tensor([True]))").find("\"abs_cpu\" not implemented for 'Bool'"),
            std::string::npos);
}

// Note [Results as Python sees them]: a Tensor[] result is a tuple, named
// returns a torch.return_types named tuple.
TEST(EvalParser, ResultsAsPythonSeesThem) {
  wick::init();
  EXPECT_EQ(run("torch.split(torch.arange(5), 2)"), "(tensor([0, 1]), tensor([2, 3]), tensor([4]))");
  EXPECT_EQ(run("torch.chunk(torch.arange(4), 1)"), "(tensor([0, 1, 2, 3]),)");
  EXPECT_EQ(run("torch.arange(6).split([2, 4])"), "(tensor([0, 1]), tensor([2, 3, 4, 5]))");
  EXPECT_EQ(run("torch.max(torch.tensor([[1., 5.], [3., 2.]]), 1)"),
            "torch.return_types.max(\nvalues=tensor([5., 3.]),\nindices=tensor([1, 0]))");
  EXPECT_EQ(run("torch.tensor([[1., 5.], [3., 2.]]).min(dim=0, keepdim=True)"),
            "torch.return_types.min(\nvalues=tensor([[1., 2.]]),\nindices=tensor([[0, 1]]))");
  EXPECT_EQ(run("torch.max(torch.tensor([[1., 5.], [3., 2.]]), 1).indices"), "tensor([1, 0])");
  EXPECT_EQ(run("torch.max(torch.tensor([1., 5.]))"), "tensor(5.)");  // one return: a tensor
  EXPECT_EQ(ev::to_json(ev::evaluate("torch.max(torch.tensor([[1., 5.]]), 1)")),
            json::parse(R"([{"dtype": "float32", "shape": [1], "data": [5.0]},
                            {"dtype": "int64", "shape": [1], "data": [1]}])"));
  EXPECT_EQ(error_of<ev::AttributeError>("torch.max(torch.ones(2, 2), 1).nope"),
            "'max' object has no attribute 'nope'");
}

TEST(EvalParser, NodePositions) {
  const auto n = ev::parse("  torch.add(x,  y)");
  EXPECT_EQ(n->pos, 2U);
  EXPECT_EQ(n->children[1]->pos, 12U);
  EXPECT_EQ(n->children[2]->pos, 16U);
}

TEST(EvalParser, ParsesEveryGoldenExpression) {
  for (const char* file : {"/golden/print.json", "/golden/ops-basic.json"}) {
    std::ifstream in(wick_test::reference_dir() + file);
    ASSERT_TRUE(in.good()) << "no golden file " << file;
    const json golden = json::parse(in);
    int count = 0;
    for (const auto& c : golden.at("cases")) {
      const std::string expr = c.contains("expr") ? c.at("expr").get<std::string>() : c.at("op").get<std::string>();
      EXPECT_NO_THROW((void)ev::parse(expr)) << expr;
      ++count;
    }
    EXPECT_GT(count, 10) << file;
  }
}

// --- syntax errors -----------------------------------------------------------------

/// The caret line of a SyntaxError message (its last line).
std::string caret_line(const ev::SyntaxError& e) {
  const std::string msg = e.what();
  return msg.substr(msg.rfind('\n') + 1);
}

TEST(EvalParser, SyntaxErrorShowsExpressionAndCaret) {
  const ev::SyntaxError e = syntax_error("torch.add(1,,2)");
  EXPECT_EQ(e.column(), 12U);
  EXPECT_STREQ(e.type_name(), "SyntaxError");
  EXPECT_EQ(std::string(e.what()),
            "unexpected ',' (expected an expression)\n"
            "  torch.add(1,,2)\n"
            "              ^");
  const wick::ValueError& as_value_error = e;  // a SyntaxError is a ValueError
  EXPECT_STREQ(as_value_error.type_name(), "SyntaxError");
}

TEST(EvalParser, SyntaxErrorColumns) {
  struct Case {
    const char* expr;
    std::size_t column;
    const char* message_start;
  };
  const Case cases[] = {
      {"torch.add(1, 2", 9, "'(' was never closed"},
      {"[1, [2, 3]", 0, "'[' was never closed"},
      {"f(", 1, "'(' was never closed"},
      {"(1 + 2))", 7, "unmatched ')'"},
      {")", 0, "unmatched ')'"},
      {"f(1]", 3, "closing parenthesis ']' does not match opening parenthesis '('"},
      {"f(1 2)", 4, "expected ',' or ')' but found '2'"},
      {"[1 2]", 3, "expected ',' or ']' but found '2'"},
      {"1 2", 2, "unexpected '2' after the expression"},
      {"torch.add(1, 2) x", 16, "unexpected 'x' after the expression"},
      {"1 +", 3, "unexpected end of expression"},
      {"1 + * 2", 4, "unexpected '*' (expected an expression)"},
      {"'abc", 0, "unterminated string literal"},
      {"f('abc)", 2, "unterminated string literal"},
      {"", 0, "empty expression"},
      {"   ", 3, "empty expression"},
      {"f(a=1, 2)", 7, "positional argument follows keyword argument"},
      {"f(a=1, a=2)", 7, "keyword argument repeated: a"},
      {"1 < 2 < 3", 6, "chained comparisons are not supported"},
      {"x = 1", 2, "unexpected '='"},
      {"x <<= 2", 2, "operator '<<=' is not supported"},
      {"x >>= 2", 2, "operator '>>=' is not supported"},
      {"x if y else z", 2, "keyword 'if' is not supported"},
      {"x &= 1", 2, "operator '&=' is not supported"},
      {"a is b", 2, "keyword 'is' is not supported"},
      {"x.", 2, "expected a name after '.' but found end of expression"},
      {"x.1", 1, "unexpected '.1' after the expression"},
      {"1e", 0, "invalid decimal literal"},
      {"1_", 0, "invalid decimal literal"},
      {"12abc", 0, "invalid decimal literal"},
      {"0123", 0, "leading zeros in decimal integer literals are not permitted"},
      {"1jj", 0, "invalid imaginary literal"},
      {"99999999999999999999", 0, "integer literal too large"},
      {"9223372036854775808", 0, "integer literal too large"},
      {"f(*args)", 2, "argument unpacking ('*') is not supported"},
      {"a $ b", 2, "invalid character '$'"},
      {"f'x'", 0, "string prefix 'f' is not supported"},
      {R"('\x4')", 1, "truncated \\xXX escape"},
  };
  for (const Case& c : cases) {
    const ev::SyntaxError e = syntax_error(c.expr);
    EXPECT_EQ(e.column(), c.column) << c.expr << "\n" << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(c.message_start, 0), 0U) << c.expr << "\n" << e.what();
    // The caret sits under the column: "  " + column spaces + "^".
    EXPECT_EQ(caret_line(e), std::string(2 + c.column, ' ') + "^") << c.expr;
  }
}

TEST(EvalParser, SyntaxErrorCaretOnTheRightLine) {
  const ev::SyntaxError e = syntax_error("f(1,\n  ,2)");
  EXPECT_EQ(e.column(), 7U);
  EXPECT_EQ(std::string(e.what()), "unexpected ',' (expected an expression)\n    ,2)\n    ^");
}

TEST(EvalParser, DeepNestingIsAnErrorNotACrash) {
  const std::string deep = std::string(5000, '(') + "1" + std::string(5000, ')');
  EXPECT_NE(std::string(syntax_error(deep).what()).find("too many nested"), std::string::npos);
  EXPECT_NE(std::string(syntax_error(std::string(5000, '-') + "1").what()).find("too many nested"), std::string::npos);
  std::string chain = "1";
  for (int i = 0; i < 5000; ++i) chain += "+1";
  EXPECT_NE(std::string(syntax_error(chain).what()).find("too deeply nested"), std::string::npos);
  // Within the limits both work.
  EXPECT_EQ(run(std::string(100, '(') + "1" + std::string(100, ')')), "1");
  std::string shorter = "1";
  for (int i = 0; i < 500; ++i) shorter += "+1";
  EXPECT_EQ(run(shorter), "501");
}

// --- Python numbers ------------------------------------------------------------------

TEST(EvalParser, PythonNumberArithmetic) {
  EXPECT_EQ(run("1/3"), "0.3333333333333333");
  EXPECT_EQ(run("2**10"), "1024");
  EXPECT_EQ(run("-2**2"), "-4");
  EXPECT_EQ(run("(-2)**2"), "4");
  EXPECT_EQ(run("2**-1"), "0.5");
  EXPECT_EQ(run("2 ** 3 ** 2"), "512");
  EXPECT_EQ(run("2**62"), "4611686018427387904");
  EXPECT_EQ(run("(-2)**63"), "-9223372036854775808");
  EXPECT_EQ(run("7 / 2"), "3.5");
  EXPECT_EQ(run("6 / 2"), "3.0");
  EXPECT_EQ(run("1 + 2 * 3"), "7");
  EXPECT_EQ(run("10 - 20"), "-10");
  EXPECT_EQ(run("1 + 2.0"), "3.0");
  EXPECT_EQ(run("3 * 1.5"), "4.5");
  EXPECT_EQ(run("0.1 + 0.2"), "0.30000000000000004");
  EXPECT_EQ(run("2 ** 0.5"), "1.4142135623730951");
  EXPECT_EQ(run("1e-5"), "1e-05");
  EXPECT_EQ(run("1e16"), "1e+16");
  EXPECT_EQ(run("-0.0"), "-0.0");
  EXPECT_EQ(run("+True"), "1");
  EXPECT_EQ(run("-True"), "-1");
  EXPECT_EQ(run("True + True"), "2");
  EXPECT_EQ(run("True * 2.5"), "2.5");
  EXPECT_EQ(run("1e308 * 10"), "inf");
}

TEST(EvalParser, PythonNumberComparisons) {
  EXPECT_EQ(run("1 < 2"), "True");
  EXPECT_EQ(run("2 <= 1"), "False");
  EXPECT_EQ(run("1 == 1.0"), "True");
  EXPECT_EQ(run("True == 1"), "True");
  EXPECT_EQ(run("3 > 2.5"), "True");
  EXPECT_EQ(run("3 >= 3.5"), "False");
  EXPECT_EQ(run("1 != 2"), "True");
  // Ints and floats compare exactly, as in Python (2**53 + 1 is no double).
  EXPECT_EQ(run("2**53 + 1 == 2.0**53"), "False");
  EXPECT_EQ(run("2**53 + 1 > 2.0**53"), "True");
  EXPECT_EQ(run("float('nan') == float('nan')"), "False");
  EXPECT_EQ(run("float('nan') != float('nan')"), "True");
  EXPECT_EQ(run("float('nan') < 1"), "False");
  EXPECT_EQ(run("'a' == 'a'"), "True");
  EXPECT_EQ(run("'a' < 'b'"), "True");
  EXPECT_EQ(run("[1, (2, 'x')] == [1.0, (2, 'x')]"), "True");
  EXPECT_EQ(run("[1, 2] == (1, 2)"), "False");
  EXPECT_EQ(run("None == None"), "True");
  EXPECT_EQ(run("None != 0"), "True");
  EXPECT_EQ(run("torch.float32 == torch.float"), "True");
  // % takes the divisor's sign, as in Python.
  EXPECT_EQ(run("-7 % 2"), "1");
  EXPECT_EQ(run("7 % -2"), "-1");
  EXPECT_EQ(run("-7.5 % 2"), "0.5");
  EXPECT_EQ(run("7.5 % -2"), "-0.5");
  EXPECT_EQ(run("-0.0 % 2"), "0.0");
  EXPECT_EQ(run("-5 % float('inf')"), "inf");
  EXPECT_EQ(run("True % 2"), "1");
  EXPECT_EQ(run("(-9223372036854775807 - 1) % -1"), "0");
}

TEST(EvalParser, PythonNumberErrors) {
  EXPECT_EQ(error_of<ev::ZeroDivisionError>("1/0"), "division by zero");
  EXPECT_EQ(error_of<ev::ZeroDivisionError>("1.0/0"), "float division by zero");
  EXPECT_EQ(error_of<ev::ZeroDivisionError>("1/0.0"), "float division by zero");
  EXPECT_EQ(error_of<ev::ZeroDivisionError>("0 ** -1"), "0.0 cannot be raised to a negative power");
  EXPECT_EQ(error_of<ev::ZeroDivisionError>("7 % 0"), "integer modulo by zero");
  EXPECT_EQ(error_of<ev::ZeroDivisionError>("7.0 % 0"), "float modulo");
  EXPECT_NE(error_of<wick::OverflowError>("9223372036854775807 + 1").find("does not fit in 64 bits"), std::string::npos);
  EXPECT_NE(error_of<wick::OverflowError>("2**63").find("2 ** 63"), std::string::npos);
  EXPECT_NE(error_of<wick::OverflowError>("3**100").find("does not fit"), std::string::npos);
  EXPECT_NE(error_of<wick::OverflowError>("-(-9223372036854775807 - 1)").find("does not fit"), std::string::npos);
  EXPECT_EQ(error_of<wick::OverflowError>("10.0 ** 400"), "(34, 'Numerical result out of range')");
  EXPECT_NE(error_of<wick::ValueError>("(-8) ** 0.5").find("complex"), std::string::npos);
  EXPECT_EQ(error_of<wick::TypeError>("1 @ 2"), "unsupported operand type(s) for @: 'int' and 'int'");
  EXPECT_EQ(error_of<wick::TypeError>("'a' + 1"), "unsupported operand type(s) for +: 'str' and 'int'");
  EXPECT_EQ(error_of<wick::TypeError>("'a' < 1"), "'<' not supported between instances of 'str' and 'int'");
  EXPECT_EQ(error_of<wick::TypeError>("-'a'"), "bad operand type for unary -: 'str'");
  EXPECT_STREQ(ev::ZeroDivisionError("x").type_name(), "ZeroDivisionError");
  EXPECT_STREQ(wick::OverflowError("x").type_name(), "OverflowError");
}

TEST(EvalParser, DictLiterals) {
  EXPECT_EQ(tree("{'owner': 'me', \"n\": [1, 2],}"), "{'owner': 'me', 'n': [1, 2]}");
  EXPECT_EQ(tree("f(x, {})"), "f(x, {})");
  EXPECT_EQ(ev::parse("{'a' 'b': 1}")->kwargs[0].first, "ab");  // adjacent strings join, as in Python
  EXPECT_EQ(run("{'owner': 'Ministry of Silly Walks'}"), "{'owner': 'Ministry of Silly Walks'}");
  EXPECT_EQ(run("{'a': 1, 'b': {'c': None}, 'a': 2}"), "{'a': 2, 'b': {'c': None}}");  // Python's last-wins
  EXPECT_EQ(run("{}"), "{}");
  EXPECT_EQ(run("{'a': 1} == {'a': 1}"), "True");
  EXPECT_EQ(run("{'a': 1, 'b': 2} == {'b': 2, 'a': 1}"), "True");
  EXPECT_EQ(run("{'a': 1} != {'a': 2}"), "True");
  const Value d = ev::evaluate("{'k': [1, 2.5]}");
  ASSERT_TRUE(d.is_dict());
  ASSERT_NE(d.dict_get("k"), nullptr);
  EXPECT_TRUE(d.dict_get("k")->is_list());
  EXPECT_EQ(d.dict_get("nope"), nullptr);
  EXPECT_EQ(d.type_name(), "dict");
  EXPECT_EQ(ev::to_json(d), json::parse(R"({"k": [1, 2.5]})"));
  struct Case {
    const char* expr;
    std::size_t column;
    const char* message_start;
  };
  const Case errors[] = {
      {"{1: 2}", 1, "dict keys must be string literals, not '1'"},
      {"{'a' 2}", 5, "expected ':' after a dict key but found '2'"},
      {"{'a': 2", 0, "'{' was never closed"},
      {"{'a': 2]", 7, "closing parenthesis ']' does not match opening parenthesis '{'"},
      {"{'a': 1 'b': 2}", 8, "expected ',' or '}' but found"},
      {"}", 0, "unmatched '}'"},
      {"x[1:2", 1, "'[' was never closed"},
      {"x[1:2:3:4]", 7, "expected ',' or ']' but found ':'"},
  };
  for (const Case& c : errors) {
    const ev::SyntaxError e = syntax_error(c.expr);
    EXPECT_EQ(e.column(), c.column) << c.expr << "\n" << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(c.message_start, 0), 0U) << c.expr << "\n" << e.what();
  }
}

TEST(EvalParser, TypesOfValues) {
  EXPECT_EQ(run("type(1.5)"), "<class 'float'>");
  EXPECT_EQ(run("type(1)"), "<class 'int'>");
  EXPECT_EQ(run("type(True)"), "<class 'bool'>");
  EXPECT_EQ(run("type('s')"), "<class 'str'>");
  EXPECT_EQ(run("type(None)"), "<class 'NoneType'>");
  EXPECT_EQ(run("type([1])"), "<class 'list'>");
  EXPECT_EQ(run("type({})"), "<class 'dict'>");
  EXPECT_EQ(run("type(type(1))"), "<class 'type'>");
  EXPECT_EQ(run("type(1.5).__name__"), "'float'");
  EXPECT_EQ(run("type(1.5) == float"), "True");
  EXPECT_EQ(run("type(1) == float"), "False");
  EXPECT_EQ(run("type(1) != float"), "True");
  EXPECT_EQ(run("float"), "<class 'float'>");
  EXPECT_EQ(run("type(2.5)(3)"), "3.0");  // calling the class converts, as float(3)
  EXPECT_EQ(run("[type(1), type(2.5)] == [int, float]"), "True");
  EXPECT_EQ(run("bool({})"), "False");
  EXPECT_EQ(run("bool({'a': 0})"), "True");
  EXPECT_EQ(run("int('7')"), "7");
  EXPECT_EQ(error_of<wick::TypeError>("type()"), "type() takes 1 argument (0 given)");
  EXPECT_EQ(error_of<wick::TypeError>("type('s')(1)"), "cannot create 'str' instances in wick eval");
  EXPECT_EQ(error_of<wick::TypeError>("float + 1"), "unsupported operand type(s) for +: 'type' and 'int'");
}

TEST(EvalParser, Builtins) {
  EXPECT_EQ(run("float('nan')"), "nan");
  EXPECT_EQ(run("float('NaN')"), "nan");
  EXPECT_EQ(run("float('inf')"), "inf");
  EXPECT_EQ(run("float('-INF')"), "-inf");
  EXPECT_EQ(run("float(' +Infinity ')"), "inf");
  EXPECT_EQ(run("-float('inf')"), "-inf");
  EXPECT_EQ(run("float('1_000.5')"), "1000.5");
  EXPECT_EQ(run("float(' 1e-3 ')"), "0.001");
  EXPECT_EQ(run("float(3)"), "3.0");
  EXPECT_EQ(run("float(True)"), "1.0");
  EXPECT_EQ(run("float()"), "0.0");
  EXPECT_EQ(run("int(2.9)"), "2");
  EXPECT_EQ(run("int(-2.9)"), "-2");
  EXPECT_EQ(run("int(' -7 ')"), "-7");
  EXPECT_EQ(run("int('1_000')"), "1000");
  EXPECT_EQ(run("int(True)"), "1");
  EXPECT_EQ(run("int('-9223372036854775808')"), "-9223372036854775808");
  EXPECT_EQ(run("bool(0)"), "False");
  EXPECT_EQ(run("bool(0.5)"), "True");
  EXPECT_EQ(run("bool('')"), "False");
  EXPECT_EQ(run("bool([0])"), "True");
  EXPECT_EQ(run("bool(())"), "False");
  EXPECT_EQ(run("bool(None)"), "False");
  EXPECT_EQ(run("abs(-3)"), "3");
  EXPECT_EQ(run("abs(-2.5)"), "2.5");
  EXPECT_EQ(run("abs(False)"), "0");

  EXPECT_EQ(error_of<wick::ValueError>("float('abc')"), "could not convert string to float: 'abc'");
  EXPECT_EQ(error_of<wick::ValueError>("float('1__0')"), "could not convert string to float: '1__0'");
  EXPECT_EQ(error_of<wick::ValueError>("float('nan(1)')"), "could not convert string to float: 'nan(1)'");
  EXPECT_EQ(error_of<wick::ValueError>("int('4.2')"), "invalid literal for int() with base 10: '4.2'");
  EXPECT_EQ(error_of<wick::ValueError>("int(float('nan'))"), "cannot convert float NaN to integer");
  EXPECT_EQ(error_of<wick::OverflowError>("int(float('-inf'))"), "cannot convert float infinity to integer");
  EXPECT_NE(error_of<wick::OverflowError>("int(1e19)").find("does not fit"), std::string::npos);
  EXPECT_NE(error_of<wick::OverflowError>("int('9223372036854775808')").find("does not fit"), std::string::npos);
  EXPECT_EQ(error_of<wick::TypeError>("float([1])"), "float() argument must be a string or a real number, not 'list'");
  EXPECT_EQ(error_of<wick::TypeError>("abs('x')"), "bad operand type for abs(): 'str'");
  EXPECT_EQ(error_of<wick::TypeError>("float(1, 2)"), "float expected at most 1 argument, got 2");
  EXPECT_EQ(error_of<wick::TypeError>("int(x=1.5)"), "int() takes no keyword arguments");
}

TEST(EvalParser, ValuesFormatAsPythonRepr) {
  EXPECT_EQ(run("(1, 2)"), "(1, 2)");
  EXPECT_EQ(run("(1,)"), "(1,)");
  EXPECT_EQ(run("()"), "()");
  EXPECT_EQ(run("[1, [2, 3.5], 'a']"), "[1, [2, 3.5], 'a']");
  EXPECT_EQ(run("'hi'"), "'hi'");
  EXPECT_EQ(run("None"), "None");
  EXPECT_EQ(run("True"), "True");
  EXPECT_EQ(run("1, 2.5"), "(1, 2.5)");
  EXPECT_EQ(run("torch.float64"), "torch.float64");
  EXPECT_EQ(run("torch.long"), "torch.int64");
  EXPECT_EQ(run("torch.bool"), "torch.bool");
  EXPECT_EQ(run("torch.double"), "torch.float64");

  const Value list = ev::evaluate("[1, (2.5, True), None]");
  ASSERT_TRUE(list.is_list());
  ASSERT_EQ(list.items().size(), 3U);
  EXPECT_TRUE(list.items()[0].is_int());
  EXPECT_TRUE(list.items()[1].is_tuple());
  EXPECT_TRUE(list.items()[1].items()[0].is_double());
  EXPECT_TRUE(list.items()[1].items()[1].is_bool());
  EXPECT_TRUE(list.items()[2].is_none());
  EXPECT_EQ(ev::evaluate("torch.int").to_dtype(), wick::ScalarType::kInt32);
}

TEST(EvalParser, Scope) {
  const ev::Scope scope{{"x", Value(3)}, {"y", Value(1.5)}, {"s", Value("mean")}};
  EXPECT_EQ(run("x * 2 + y", scope), "7.5");
  EXPECT_EQ(run("[x, s]", scope), "[3, 'mean']");
  EXPECT_EQ(error_of<ev::NameError>("x"), "name 'x' is not defined");  // no scope, no x
}

// --- names ---------------------------------------------------------------------------

TEST(EvalParser, UnknownNames) {
  EXPECT_EQ(error_of<ev::NameError>("foo"), "name 'foo' is not defined");
  EXPECT_EQ(error_of<ev::NameError>("foo(1, 2)"), "name 'foo' is not defined");
  EXPECT_EQ(error_of<ev::NameError>("foo.bar(1)"), "name 'foo' is not defined");
  EXPECT_EQ(error_of<ev::NameError>("1 + nope"), "name 'nope' is not defined");
  EXPECT_EQ(error_of<ev::AttributeError>("torch.foo"), "module 'torch' has no attribute 'foo'");
  EXPECT_EQ(error_of<ev::AttributeError>("torch.foo(1)"), "module 'torch' has no attribute 'foo'");
  EXPECT_EQ(error_of<ev::AttributeError>("torch.nn.functional.nope(1)"),
            "module 'torch.nn.functional' has no attribute 'nope'");
  EXPECT_EQ(error_of<ev::AttributeError>("F.nope(1)"), "module 'torch.nn.functional' has no attribute 'nope'");
  EXPECT_EQ(error_of<ev::AttributeError>("(1).real"), "'int' object has no attribute 'real'");
  EXPECT_EQ(error_of<ev::AttributeError>("'a'.upper()"), "'str' object has no attribute 'upper'");
  EXPECT_STREQ(ev::NameError("x").type_name(), "NameError");
  EXPECT_STREQ(ev::AttributeError("x").type_name(), "AttributeError");
}

// The Python attributes and methods of a tensor that are not operators
// (Note [Tensor attributes in eval]), with PyTorch 1.13's results.
TEST(EvalParser, TensorAttributesAndMethods) {
  wick::init();
  EXPECT_EQ(run("torch.ones(2, 3).shape"), "torch.Size([2, 3])");
  EXPECT_EQ(run("torch.ones(2, 3).size()"), "torch.Size([2, 3])");
  EXPECT_EQ(ev::to_json(ev::evaluate("torch.ones(2, 3).shape")), json::parse("[2, 3]"));
  EXPECT_EQ(run("torch.ones(2, 3).size(1)"), "3");
  EXPECT_EQ(run("torch.ones(2, 3).size(dim=-2)"), "2");
  EXPECT_EQ(run("torch.ones(2, 3, 4).T.shape"), "torch.Size([4, 3, 2])");
  EXPECT_EQ(run("torch.tensor([[1, 2], [3, 4]]).T"), "tensor([[1, 3],\n        [2, 4]])");
  EXPECT_EQ(run("torch.ones(2, dtype=torch.float64).dtype"), "torch.float64");
  EXPECT_EQ(run("torch.ones(2).device"), "device(type='cpu')");
  EXPECT_EQ(run("torch.ones(2, 3).ndim"), "2");
  EXPECT_EQ(run("torch.ones(2, 3).dim()"), "2");
  EXPECT_EQ(run("torch.ones(2, 3).numel()"), "6");
  EXPECT_EQ(run("torch.ones(2).requires_grad"), "False");
  EXPECT_EQ(run("torch.ones(2).is_leaf"), "True");
  EXPECT_EQ(run("torch.tensor(2.5).item()"), "2.5");
  EXPECT_EQ(run("torch.tensor([7]).item()"), "7");
  EXPECT_EQ(run("torch.tensor(True).item()"), "True");
  EXPECT_EQ(run("torch.tensor([[1, 2], [3, 4]]).tolist()"), "[[1, 2], [3, 4]]");
  EXPECT_EQ(run("torch.tensor([0.5, 1.]).tolist()"), "[0.5, 1.0]");
  EXPECT_EQ(run("torch.tensor(3.).tolist()"), "3.0");
  EXPECT_EQ(run("torch.tensor([True, False]).tolist()"), "[True, False]");
  EXPECT_EQ(run("torch.ones(2).long()"), "tensor([1, 1])");
  EXPECT_EQ(run("torch.tensor([1, 0]).float()"), "tensor([1., 0.])");
  EXPECT_EQ(run("torch.tensor([1, 0]).double().dtype"), "torch.float64");
  EXPECT_EQ(run("torch.tensor([1, 0]).bool()"), "tensor([ True, False])");
  EXPECT_EQ(run("torch.tensor([1.5]).int().dtype"), "torch.int32");
  // These are catalog operators (Note [Tensor metadata operators]): their
  // errors carry the boxed call's note, and extra arguments are worded as
  // PyTorch's argument parser words them.
  EXPECT_EQ(error_of<wick::ValueError>("torch.ones(2).item()"),
            "only one element tensors can be converted to Python scalars\n"
            "  in torch.Tensor.item(self=Tensor(shape=[2], dtype=float32))");
  EXPECT_EQ(error_of<wick::IndexError>("torch.ones(2, 3).size(5)"),
            "Dimension out of range (expected to be in range of [-2, 1], but got 5)\n"
            "  in torch.Tensor.size.int(self=Tensor(shape=[2, 3], dtype=float32), dim=5)");
  EXPECT_EQ(first_line(error_of<wick::TypeError>("torch.ones(2).size(0.5)")),
            "size() received an invalid combination of arguments - got (float), but expected one of:");
  EXPECT_EQ(error_of<wick::TypeError>("torch.ones(2).item(1)"), "item() takes 0 positional arguments but 1 was given");
  EXPECT_EQ(error_of<ev::AttributeError>("torch.ones(2).nope"), "'Tensor' object has no attribute 'nope'");
}

TEST(EvalParser, NamesThatAreNotValues) {
  EXPECT_EQ(error_of<wick::TypeError>("torch"), "'torch' is a module, not a value");
  EXPECT_EQ(error_of<wick::TypeError>("torch.nn"), "'torch.nn' is a module, not a value");
  EXPECT_NE(error_of<wick::TypeError>("abs").find("is a function, not a value"), std::string::npos);
  EXPECT_EQ(error_of<wick::TypeError>("1(2)"), "'int' object is not callable");
  EXPECT_EQ(error_of<wick::TypeError>("torch.nn(2)"), "'module' object is not callable (torch.nn)");
  EXPECT_NE(error_of<wick::TypeError>("torch.complex32").find("unknown dtype 'torch.complex32'"), std::string::npos);
}

TEST(EvalParser, ManualSeedSeedsTheDefaultGenerator) {
  double a[4];
  double b[4];
  const Value g = ev::evaluate("torch.manual_seed(1234)");  // PyTorch returns the generator
  ASSERT_TRUE(g.is_object());
  EXPECT_TRUE(g.repr().starts_with("<torch._C.Generator object at 0x")) << g.repr();
  wick::default_generator().uniform(a, 4);
  wick::manual_seed(1234);
  wick::default_generator().uniform(b, 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(a[i], b[i]);
  (void)ev::evaluate("torch.manual_seed(seed=99)");
  wick::default_generator().uniform(a, 4);
  wick::manual_seed(1234);
  wick::default_generator().uniform(b, 4);
  EXPECT_NE(a[0], b[0]);
  EXPECT_THROW((void)ev::evaluate("torch.manual_seed('x')"), wick::TypeError);
}

// --- to_json -------------------------------------------------------------------------

TEST(EvalParser, JsonOfPythonValues) {
  EXPECT_EQ(ev::to_json(ev::evaluate("3")), json(3));
  EXPECT_TRUE(ev::to_json(ev::evaluate("3")).is_number_integer());
  EXPECT_EQ(ev::to_json(ev::evaluate("2.5")), json(2.5));
  EXPECT_EQ(ev::to_json(ev::evaluate("True")), json(true));
  EXPECT_EQ(ev::to_json(ev::evaluate("None")), json(nullptr));
  EXPECT_EQ(ev::to_json(ev::evaluate("'s'")), json("s"));
  EXPECT_EQ(ev::to_json(ev::evaluate("float('nan')")), json("nan"));
  EXPECT_EQ(ev::to_json(ev::evaluate("float('-inf')")), json("-inf"));
  EXPECT_EQ(ev::to_json(ev::evaluate("torch.float32")), json("torch.float32"));
  EXPECT_EQ(ev::to_json(ev::evaluate("[1, (2.5, False), []]")), json::parse("[1, [2.5, false], []]"));
  EXPECT_EQ(ev::to_json(Value(std::vector<std::int64_t>{1, 2})), json::parse("[1, 2]"));
  EXPECT_EQ(ev::to_json(Value(wick::Device())), json("cpu"));
}

TEST(EvalParser, JsonOfTensorsReadsStrides) {
  // 2x3 float32 0..5, then its transpose (a non-contiguous view).
  wick::Tensor t = wick::make_empty({2, 3}, wick::ScalarType::kFloat32);
  float* p = t.data_ptr<float>();
  for (int i = 0; i < 6; ++i) p[i] = static_cast<float>(i) + 0.1F;
  p[5] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(ev::to_json(Value(t)),
            json::parse(R"({"dtype": "float32", "shape": [2, 3], "data": [[0.1, 1.1, 2.1], [3.1, 4.1, "nan"]]})"));
  const wick::Tensor tt = wick::make_view(t, {3, 2}, {1, 3}, 0);
  EXPECT_EQ(ev::to_json(Value(tt)).at("data"), json::parse(R"([[0.1, 3.1], [1.1, 4.1], [2.1, "nan"]])"));
  const wick::Tensor row = wick::make_view(t, {2}, {1}, 4);  // offset into the storage
  EXPECT_EQ(ev::to_json(Value(row)).at("data"), json::parse(R"([4.1, "nan"])"));

  wick::Tensor scalar = wick::make_empty({}, wick::ScalarType::kInt64);
  *scalar.data_ptr<std::int64_t>() = -7;
  EXPECT_EQ(ev::to_json(Value(scalar)), json::parse(R"({"dtype": "int64", "shape": [], "data": -7})"));

  wick::Tensor flags = wick::make_empty({2}, wick::ScalarType::kBool);
  flags.data_ptr<bool>()[0] = true;
  flags.data_ptr<bool>()[1] = false;
  EXPECT_EQ(ev::to_json(Value(flags)).at("data"), json::parse("[true, false]"));

  wick::Tensor ints = wick::make_empty({1, 2}, wick::ScalarType::kInt32);
  ints.data_ptr<std::int32_t>()[0] = 1;
  ints.data_ptr<std::int32_t>()[1] = -2;
  EXPECT_EQ(ev::to_json(Value(ints)).dump(), R"({"dtype":"int32","shape":[1,2],"data":[[1,-2]]})");

  wick::Tensor d = wick::make_empty({1}, wick::ScalarType::kFloat64);
  d.data_ptr<double>()[0] = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(ev::to_json(Value(d)).at("data"), json::parse(R"(["-inf"])"));

  const wick::Tensor empty = wick::make_empty({2, 0}, wick::ScalarType::kFloat32);
  EXPECT_EQ(ev::to_json(Value(empty)), json::parse(R"({"dtype": "float32", "shape": [2, 0], "data": [[], []]})"));
  EXPECT_EQ(ev::to_json(Value(std::vector<wick::Tensor>{scalar})),
            json::parse(R"([{"dtype": "int64", "shape": [], "data": -7}])"));
}

// --- end to end (needs the CPU backend) -----------------------------------------------

/// Loads the backends; false when the operators `ops` are not all there.
bool have_ops(std::initializer_list<const char*> ops) {
  wick::init();
  for (const char* op : ops) {
    if (!wick::try_find_op(op)) return false;
  }
  return true;
}

json data_of(std::string_view expr) { return ev::to_json(ev::evaluate(expr)).at("data"); }

TEST(EvalParser, EndToEndOperatorCall) {
  ASSERT_TRUE(have_ops({"torch.add", "torch.tensor"}));
  EXPECT_EQ(ev::to_json(ev::evaluate("torch.add(torch.tensor([[1., 2.]]), 3, alpha=2)")),
            json::parse(R"({"dtype": "float32", "shape": [1, 2], "data": [[7.0, 8.0]]})"));
  EXPECT_EQ(run("torch.add(torch.tensor([7., 10.]), 0)"), "tensor([ 7., 10.])");
  EXPECT_EQ(error_of<ev::AttributeError>("torch.tensor([1.]).nope()"), "'Tensor' object has no attribute 'nope'");
}

TEST(EvalParser, EndToEndTypesOfTensors) {
  wick::init();
  ASSERT_TRUE(wick::try_find_op("torch.tensor"));
  EXPECT_EQ(run("type(torch.ones(1))"), "<class 'torch.Tensor'>");
  EXPECT_EQ(run("type(torch.ones(1)) == type(torch.zeros(2))"), "True");
  EXPECT_EQ(run("type(torch.ones(1)) == torch.Tensor"), "True");
  EXPECT_EQ(run("torch.Tensor"), "<class 'torch.Tensor'>");
  EXPECT_EQ(error_of<wick::TypeError>("torch.neg(type(1))"),
            "neg(): argument 'input' (position 1) must be Tensor, not type");
  EXPECT_EQ(run("torch.Tensor([1, 2])"), "tensor([1., 2.])");
  EXPECT_EQ(run("torch.Tensor(torch.tensor([1, 2]))"), "tensor([1, 2])");  // an alias, as in PyTorch 1.13
  EXPECT_EQ(run("torch.Tensor()"), "tensor([])");
  EXPECT_EQ(run("type(torch.ones(1))([[1, 2]])"), "tensor([[1., 2.]])");
}

TEST(EvalParser, EndToEndOperatorsOnTensors) {
  ASSERT_TRUE(have_ops({"torch.tensor", "torch.Tensor.__add__", "torch.Tensor.__mul__", "torch.Tensor.__neg__",
                        "torch.Tensor.__rsub__", "torch.Tensor.__rtruediv__", "torch.Tensor.__gt__"}));
  EXPECT_EQ(data_of("torch.tensor([1., 2.]) * 2 + 1"), json::parse("[3.0, 5.0]"));
  EXPECT_EQ(data_of("-torch.tensor([1., -2.])"), json::parse("[-1.0, 2.0]"));
  EXPECT_EQ(data_of("2 - torch.tensor([1., 2.])"), json::parse("[1.0, 0.0]"));
  EXPECT_EQ(data_of("2 / torch.tensor([1., 4.])"), json::parse("[2.0, 0.5]"));
  EXPECT_EQ(data_of("1 < torch.tensor([0., 2.])"), json::parse("[false, true]"));
  EXPECT_EQ(data_of("torch.tensor([1, 2]) + torch.tensor([10, 20])"), json::parse("[11, 22]"));
  EXPECT_EQ(ev::to_json(ev::evaluate("torch.tensor([1, 2]) * 2.5")).at("dtype"), "float32");
}

TEST(EvalParser, EndToEndGoldenPrints) {
  ASSERT_TRUE(
      have_ops({"torch.tensor", "torch.ones", "torch.zeros", "torch.arange", "torch.eye", "torch.Tensor.reshape"}));
  std::ifstream in(wick_test::reference_dir() + "/golden/print.json");
  ASSERT_TRUE(in.good()) << "no golden print.json";
  const json golden = json::parse(in);
  for (const auto& c : golden.at("cases")) {
    const std::string expr = c.at("expr");
    try {
      EXPECT_EQ(run(expr), c.at("repr").get<std::string>()) << expr;
    } catch (const std::exception& e) {
      ADD_FAILURE() << expr << ": " << e.what();
    }
  }
}

TEST(EvalParser, EndToEndModuloUsesRemainder) {
  ASSERT_TRUE(have_ops({"torch.remainder", "torch.tensor"}));
  EXPECT_EQ(run("torch.tensor([-3., 4.]) % 2"), "tensor([1., 0.])");
  EXPECT_EQ(run("7 % torch.tensor([-3., 4.])"), "tensor([-2.,  3.])");  // Tensor.__rmod__
  EXPECT_EQ(run("2 % torch.tensor([3])"), "tensor([2])");
}

}  // namespace

namespace {

// Issue 18, item 6: subscripts (Note [Subscripts] in tools/wick/eval_subscript.cpp).
// Every expected text is PyTorch 1.13's for the same expression.
TEST(EvalParser, SubscriptsOfTensorsAsPyTorch) {
  wick::init();
  EXPECT_EQ(tree("x[0, 1:, ::2, ..., None]"), "x[0, 1:, ::2, ..., None]");
  EXPECT_EQ(tree("-x[0] ** 2"), "(-(x[0] ** 2))");
  const ev::Scope scope{{"x", ev::evaluate("torch.arange(12.).reshape(3, 4)")}};
  auto at = [&](std::string_view e) { return run(e, scope); };
  EXPECT_EQ(at("x[0]"), "tensor([0., 1., 2., 3.])");
  EXPECT_EQ(at("x[:, 1]"), "tensor([1., 5., 9.])");
  EXPECT_EQ(at("x[..., None].shape"), "torch.Size([3, 4, 1])");
  EXPECT_EQ(at("x[1:3]"), "tensor([[ 4.,  5.,  6.,  7.],\n        [ 8.,  9., 10., 11.]])");
  EXPECT_EQ(at("x[::2]"), "tensor([[ 0.,  1.,  2.,  3.],\n        [ 8.,  9., 10., 11.]])");
  EXPECT_EQ(at("x[-1, -2]"), "tensor(10.)");
  EXPECT_EQ(at("x[torch.tensor([2, 0])]"), "tensor([[ 8.,  9., 10., 11.],\n        [ 0.,  1.,  2.,  3.]])");
  EXPECT_EQ(at("x[:, torch.tensor([[1, -1], [0, 0]])]"),
            "tensor([[[ 1.,  3.],\n         [ 0.,  0.]],\n\n        [[ 5.,  7.],\n         [ 4.,  4.]],\n\n"
            "        [[ 9., 11.],\n         [ 8.,  8.]]])");
  EXPECT_EQ(at("x[x > 5]"), "tensor([ 6.,  7.,  8.,  9., 10., 11.])");
  EXPECT_EQ(at("x[torch.tensor([True, False, True])]"),
            "tensor([[ 0.,  1.,  2.,  3.],\n        [ 8.,  9., 10., 11.]])");
  EXPECT_EQ(at("x[None, 1:, ..., ::3]"), "tensor([[[ 4.,  7.],\n         [ 8., 11.]]])");
  EXPECT_EQ(at("x[5:100]"), "tensor([], size=(0, 4))");
  EXPECT_EQ(at("x.shape[-1:]"), "torch.Size([4])");
  EXPECT_EQ(at("x.shape[0]"), "3");
  EXPECT_EQ(at("torch.max(x, 1)[0]"), "tensor([ 3.,  7., 11.])");
  // Tensor subscripts are calls of torch.Tensor.__getitem__: the message,
  // then the call note.
  const auto first_line = [](const std::string& m) { return m.substr(0, m.find('\n')); };
  const std::string x = "torch.arange(12.).reshape(3, 4)";
  EXPECT_EQ(first_line(error_of<wick::IndexError>(x + "[5]")), "index 5 is out of bounds for dimension 0 with size 3");
  EXPECT_EQ(first_line(error_of<wick::IndexError>(x + "[0, 0, 0]")), "too many indices for tensor of dimension 2");
  EXPECT_EQ(first_line(error_of<wick::IndexError>(x + "[1.5]")),
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got "
            "float)");
  EXPECT_EQ(first_line(error_of<wick::ValueError>(x + "[::-1]")), "step must be greater than zero");
  EXPECT_EQ(first_line(error_of<wick::IndexError>(x + "[torch.tensor([3])]")),
            "index 3 is out of bounds for dimension 0 with size 3");
  EXPECT_EQ(error_of<wick::IndexError>(x + ".shape[5]"), "tuple index out of range");
}

TEST(EvalParser, SubscriptsOfPythonSequences) {
  EXPECT_EQ(run("[1, 2, 3][::-1]"), "[3, 2, 1]");
  EXPECT_EQ(run("(1, 2, 3)[1:]"), "(2, 3)");
  EXPECT_EQ(run("(1, 2, 3)[-3]"), "1");
  EXPECT_EQ(run("'hello'[1:4]"), "'ell'");
  EXPECT_EQ(run("'hello'[-1]"), "'o'");
  EXPECT_EQ(run("[0, 1, 2, 3, 4, 5][5:0:-2]"), "[5, 3, 1]");
  EXPECT_EQ(error_of<wick::IndexError>("[1, 2][2]"), "list index out of range");
  EXPECT_EQ(error_of<wick::TypeError>("[1, 2][0, 1]"), "list indices must be integers or slices, not tuple");
  EXPECT_EQ(error_of<wick::TypeError>("3[0]"), "'int' object is not subscriptable");
  EXPECT_EQ(error_of<wick::ValueError>("[1, 2][::0]"), "slice step cannot be zero");
  EXPECT_EQ(std::string(syntax_error("x[]").what()), "unexpected ']' (expected an index)\n  x[]\n    ^");
}

// Python's `not`, `&`, `|`, `^`, `~` on numbers, and truthiness of tensors.
TEST(EvalParser, BitwiseAndLogicalOperatorsOnNumbers) {
  wick::init();
  EXPECT_EQ(tree("a & b | c ^ d"), "((a & b) | (c ^ d))");
  EXPECT_EQ(tree("not a == b"), "(not (a == b))");
  EXPECT_EQ(tree("a | b == c"), "((a | b) == c)");
  EXPECT_EQ(tree("~a + b"), "((~a) + b)");
  EXPECT_EQ(run("3 & 5"), "1");
  EXPECT_EQ(run("3 | 5"), "7");
  EXPECT_EQ(run("3 ^ 5"), "6");
  // Shifts bind between & and +, as in Python; a negative count is a
  // ValueError, a result past int64 an OverflowError.
  EXPECT_EQ(tree("a << b + c & d"), "((a << (b + c)) & d)");
  EXPECT_EQ(run("7 << 2"), "28");
  EXPECT_EQ(run("-7 >> 1"), "-4");
  EXPECT_EQ(run("True << 3"), "8");
  EXPECT_EQ(run("5 >> 70"), "0");
  EXPECT_EQ(run("torch.tensor([1, 2]) << 2"), "tensor([4, 8])");
  EXPECT_EQ(run("3 << torch.tensor([1, 2])"), "tensor([ 6, 12])");
  EXPECT_THROW(run("1 << -1"), wick::ValueError);
  EXPECT_THROW(run("1 << 63"), wick::OverflowError);
  EXPECT_THROW(run("1.5 << 1"), wick::TypeError);
  EXPECT_EQ(run("True & False"), "False");
  EXPECT_EQ(run("True | 2"), "3");
  EXPECT_EQ(run("~5"), "-6");
  EXPECT_EQ(run("~True"), "-2");
  EXPECT_EQ(run("not 0"), "True");
  EXPECT_EQ(run("not torch.tensor(0.)"), "True");
  EXPECT_EQ(run("not not 'a'"), "True");
  EXPECT_EQ(error_of<wick::TypeError>("1.5 & 2"), "unsupported operand type(s) for &: 'float' and 'int'");
  EXPECT_EQ(error_of<wick::TypeError>("~1.5"), "bad operand type for unary ~: 'float'");
  EXPECT_EQ(first_line(error_of<wick::RuntimeError>("not torch.tensor([1., 2.])")),
            "Boolean value of Tensor with more than one value is ambiguous");
}

}  // namespace
