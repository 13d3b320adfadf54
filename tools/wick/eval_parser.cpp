// tools/wick/eval_parser.cpp - the recursive-descent parser of `wick eval`.
/// \file
/// Turns tokens into a `Node` tree (grammar in eval.h). Every failure is a
/// SyntaxError whose message ends with the expression and a caret.
#include "eval.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "eval_lexer.h"

namespace wick::eval {
namespace {

/// Nesting of brackets and unary operators the parser follows (Python's own
/// limit is 200 parentheses) and the tallest tree it builds.
constexpr int kMaxNesting = 200;
constexpr std::uint32_t kMaxHeight = 1000;

class Parser {
 public:
  Parser(std::string_view text, std::vector<Token> tokens) : text_(text), toks_(std::move(tokens)) {}

  // Statements separated by ';' (a trailing one allowed), as on a Python
  // line; one statement is returned as it is.
  std::unique_ptr<Node> parse_input() {
    if (peek().kind == Token::Kind::kEnd) fail(peek().pos, "empty expression");
    const std::size_t start = peek().pos;
    auto first = statement();
    if (!is_op(";")) {
      expect_end();
      return first;
    }
    auto sequence = make(Node::Kind::kSequence, start);
    add_child(*sequence, std::move(first));
    while (accept(";")) {
      if (peek().kind == Token::Kind::kEnd) break;
      add_child(*sequence, statement());
    }
    expect_end();
    return sequence;
  }

 private:
  // One expression, or a bare tuple: `1, 2` is (1, 2), as in Python.
  std::unique_ptr<Node> statement() {
    const std::size_t start = peek().pos;
    auto first = expr();
    if (!is_op(",")) return first;
    // A bare tuple: `1, 2` is (1, 2), as in Python.
    auto tuple = make(Node::Kind::kTuple, start);
    add_child(*tuple, std::move(first));
    while (accept(",")) {
      if (peek().kind == Token::Kind::kEnd) break;
      add_child(*tuple, expr());
      if (!is_op(",")) break;
    }
    return tuple;
  }

  // --- tokens ------------------------------------------------------------------
  [[nodiscard]] const Token& peek(std::size_t ahead = 0) const noexcept {
    return toks_[std::min(i_ + ahead, toks_.size() - 1)];
  }
  [[nodiscard]] bool is_op(std::string_view s, std::size_t ahead = 0) const noexcept {
    const Token& t = peek(ahead);
    return t.kind == Token::Kind::kOp && t.text == s;
  }
  bool accept(std::string_view s) noexcept {
    if (!is_op(s)) return false;
    ++i_;
    return true;
  }
  [[nodiscard]] bool is_closer() const { return is_op(")") || is_op("]") || is_op("}"); }

  [[nodiscard]] std::string describe(const Token& t) const {
    if (t.kind == Token::Kind::kEnd) return "end of expression";
    return "'" + std::string(text_.substr(t.pos, t.end - t.pos)) + "'";
  }

  template <typename... Args>
  [[noreturn]] void fail(std::size_t at, const Args&... what) const {
    fail_at(text_, at, detail::str_cat(what...));
  }
  [[noreturn]] void unexpected(const char* wanted) const {
    const Token& t = peek();
    if (t.kind == Token::Kind::kKeyword) fail(t.pos, "keyword '", t.text, "' is not supported");
    fail(t.pos, "unexpected ", describe(t), " (expected ", wanted, ")");
  }

  void expect_end() const {
    const Token& t = peek();
    if (t.kind == Token::Kind::kEnd) return;
    if (t.kind == Token::Kind::kKeyword) fail(t.pos, "keyword '", t.text, "' is not supported");
    if (is_closer()) fail(t.pos, "unmatched '", t.text, "'");
    if (is_op("=")) fail(t.pos, "unexpected '=' (assignment is not supported; did you mean '=='?)");
    fail(t.pos, "unexpected ", describe(t), " after the expression");
  }

  /// After the items of a bracket opened at `open`: the closing `close`, or a
  /// precise error.
  void expect_close(const Token& open, std::string_view close) {
    if (accept(close)) return;
    const Token& t = peek();
    if (t.kind == Token::Kind::kEnd) fail(open.pos, "'", open.text, "' was never closed");
    if (is_closer()) {
      fail(t.pos, "closing parenthesis '", t.text, "' does not match opening parenthesis '", open.text, "'");
    }
    if (t.kind == Token::Kind::kKeyword) fail(t.pos, "keyword '", t.text, "' is not supported");
    fail(t.pos, "expected ',' or '", close, "' but found ", describe(t));
  }

  // --- nodes -------------------------------------------------------------------
  static std::unique_ptr<Node> make(Node::Kind kind, std::size_t pos) {
    auto n = std::make_unique<Node>();
    n->kind = kind;
    n->pos = pos;
    return n;
  }
  void add_child(Node& parent, std::unique_ptr<Node> child) const {
    parent.height = std::max(parent.height, child->height + 1);
    if (parent.height > kMaxHeight) fail(parent.pos, "expression too deeply nested or too long a chain of operators");
    parent.children.push_back(std::move(child));
  }

  /// Counts bracket and unary nesting on the way down.
  struct Nest {
    explicit Nest(const Parser& p, std::size_t pos) : parser(p) {
      if (++parser.nesting_ > kMaxNesting) parser.fail(pos, "too many nested parentheses or unary operators");
    }
    ~Nest() { --parser.nesting_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
    const Parser& parser;
  };

  // --- grammar -----------------------------------------------------------------
  std::unique_ptr<Node> expr() {
    return bool_chain("or", [this] { return conjunction(); });
  }
  std::unique_ptr<Node> conjunction() {
    return bool_chain("and", [this] { return negation(); });
  }

  // operand (keyword operand)*: left-associative `and` / `or` nodes.
  template <typename Operand>
  std::unique_ptr<Node> bool_chain(std::string_view keyword, Operand operand) {
    auto left = operand();
    while (peek().kind == Token::Kind::kKeyword && peek().text == keyword) {
      const std::size_t pos = peek().pos;
      ++i_;
      auto n = make(Node::Kind::kBoolOp, pos);
      n->text = std::string(keyword);
      add_child(*n, std::move(left));
      add_child(*n, operand());
      left = std::move(n);
    }
    return left;
  }

  std::unique_ptr<Node> negation() {
    const Token& t = peek();
    if (t.kind == Token::Kind::kKeyword && t.text == "not") {
      Nest nest(*this, t.pos);
      auto n = make(Node::Kind::kUnary, t.pos);
      n->unary_op = UnaryOp::kNot;
      ++i_;
      add_child(*n, negation());
      return n;
    }
    return compare();
  }

  std::unique_ptr<Node> compare() {
    auto left = bit_or();
    static constexpr std::pair<std::string_view, BinaryOp> kCompare[] = {{"==", BinaryOp::kEq}, {"!=", BinaryOp::kNe},
                                                                         {"<", BinaryOp::kLt},  {"<=", BinaryOp::kLe},
                                                                         {">", BinaryOp::kGt},  {">=", BinaryOp::kGe}};
    auto compare_op = [&]() -> std::optional<BinaryOp> {
      for (const auto& [sym, op] : kCompare) {
        if (is_op(sym)) return op;
      }
      return std::nullopt;
    };
    const std::optional<BinaryOp> op = compare_op();
    if (!op) return left;
    ++i_;
    auto node = binary(*op, std::move(left), bit_or());
    if (compare_op()) fail(peek().pos, "chained comparisons are not supported");
    return node;
  }

  // `next (symbol next)*`, left-associative: Python's |, ^ and & levels.
  std::unique_ptr<Node> left_chain(std::string_view symbol, BinaryOp op, std::unique_ptr<Node> (Parser::*next)()) {
    auto left = (this->*next)();
    while (accept(symbol)) left = binary(op, std::move(left), (this->*next)());
    return left;
  }
  std::unique_ptr<Node> bit_or() { return left_chain("|", BinaryOp::kOr, &Parser::bit_xor); }
  std::unique_ptr<Node> bit_xor() { return left_chain("^", BinaryOp::kXor, &Parser::bit_and); }
  std::unique_ptr<Node> bit_and() { return left_chain("&", BinaryOp::kAnd, &Parser::shift); }

  // Python's << and >> level, between & and + -.
  std::unique_ptr<Node> shift() {
    auto left = sum();
    for (;;) {
      if (accept("<<"))
        left = binary(BinaryOp::kLShift, std::move(left), sum());
      else if (accept(">>"))
        left = binary(BinaryOp::kRShift, std::move(left), sum());
      else
        return left;
    }
  }

  std::unique_ptr<Node> sum() {
    auto left = term();
    for (;;) {
      if (accept("+"))
        left = binary(BinaryOp::kAdd, std::move(left), term());
      else if (accept("-"))
        left = binary(BinaryOp::kSub, std::move(left), term());
      else
        return left;
    }
  }

  std::unique_ptr<Node> term() {
    auto left = factor();
    for (;;) {
      if (accept("*"))
        left = binary(BinaryOp::kMul, std::move(left), factor());
      else if (accept("//"))
        left = binary(BinaryOp::kFloorDiv, std::move(left), factor());
      else if (accept("/"))
        left = binary(BinaryOp::kDiv, std::move(left), factor());
      else if (accept("%"))
        left = binary(BinaryOp::kMod, std::move(left), factor());
      else if (accept("@"))
        left = binary(BinaryOp::kMatMul, std::move(left), factor());
      else
        return left;
    }
  }

  std::unique_ptr<Node> factor() {
    const Token& t = peek();
    Nest nest(*this, t.pos);
    if (is_op("~")) {
      auto n = make(Node::Kind::kUnary, t.pos);
      n->unary_op = UnaryOp::kInvert;
      ++i_;
      add_child(*n, factor());
      return n;
    }
    if (is_op("-") || is_op("+")) {
      const bool neg = t.text == "-";
      const std::size_t pos = t.pos;
      ++i_;
      // -9223372036854775808 is the one int literal that exists only negated.
      if (neg && peek().kind == Token::Kind::kInt && peek().text == "2**63" && !is_op("**", 1)) {
        auto lit = make(Node::Kind::kInt, pos);
        lit->int_value = INT64_MIN;
        ++i_;
        return lit;
      }
      auto n = make(Node::Kind::kUnary, pos);
      n->unary_op = neg ? UnaryOp::kNeg : UnaryOp::kPos;
      add_child(*n, factor());
      return n;
    }
    return power();
  }

  std::unique_ptr<Node> power() {
    auto base = postfix();
    if (accept("**")) return binary(BinaryOp::kPow, std::move(base), factor());
    return base;
  }

  std::unique_ptr<Node> binary(BinaryOp op, std::unique_ptr<Node> left, std::unique_ptr<Node> right) const {
    auto n = make(Node::Kind::kBinary, left->pos);
    n->binary_op = op;
    add_child(*n, std::move(left));
    add_child(*n, std::move(right));
    return n;
  }

  std::unique_ptr<Node> postfix() {
    auto node = atom();
    for (;;) {
      if (is_op(".")) {
        ++i_;
        const Token& name = peek();
        if (name.kind != Token::Kind::kName) {
          if (name.kind == Token::Kind::kKeyword) fail(name.pos, "keyword '", name.text, "' is not supported");
          fail(name.pos, "expected a name after '.' but found ", describe(name));
        }
        ++i_;
        if (node->kind == Node::Kind::kName) {  // Note [Eval names]: one dotted name
          node->text += "." + name.text;
          continue;
        }
        auto attr = make(Node::Kind::kAttribute, node->pos);
        attr->text = name.text;
        add_child(*attr, std::move(node));
        node = std::move(attr);
      } else if (is_op("(")) {
        node = call(std::move(node));
      } else if (is_op("[")) {
        node = subscript(std::move(node));
      } else {
        return node;
      }
    }
  }

  // value[index, ...]: each index an expression, a slice or '...'.
  std::unique_ptr<Node> subscript(std::unique_ptr<Node> value) {
    const Token& open = peek();
    ++i_;
    auto n = make(Node::Kind::kSubscript, value->pos);
    add_child(*n, std::move(value));
    if (is_op("]")) fail(peek().pos, "unexpected ']' (expected an index)");
    while (!is_op("]")) {
      if (peek().kind == Token::Kind::kEnd) fail(open.pos, "'[' was never closed");
      add_child(*n, index());
      if (!accept(",")) break;
    }
    expect_close(open, "]");
    return n;
  }

  std::unique_ptr<Node> index() {
    const std::size_t pos = peek().pos;
    if (accept("...")) return make(Node::Kind::kEllipsis, pos);
    auto bound = [&]() {
      return is_op(":") || is_op(",") || is_op("]") ? make(Node::Kind::kNone, peek().pos) : expr();
    };
    auto start = bound();
    if (!is_op(":")) return start;
    auto slice = make(Node::Kind::kSlice, pos);
    add_child(*slice, std::move(start));
    ++i_;
    add_child(*slice, bound());
    add_child(*slice, accept(":") ? bound() : make(Node::Kind::kNone, peek().pos));
    return slice;
  }

  std::unique_ptr<Node> call(std::unique_ptr<Node> callee) {
    const Token& open = peek();
    ++i_;
    ++open_brackets_;
    auto n = make(Node::Kind::kCall, callee->pos);
    add_child(*n, std::move(callee));
    while (!is_op(")")) {
      const Token& t = peek();
      if (t.kind == Token::Kind::kName && is_op("=", 1)) {
        for (const auto& kw : n->kwargs) {
          if (kw.first == t.text) fail(t.pos, "keyword argument repeated: ", t.text);
        }
        i_ += 2;
        auto value = expr();
        n->height = std::max(n->height, value->height + 1);
        if (n->height > kMaxHeight) fail(n->pos, "expression too deeply nested");
        n->kwargs.emplace_back(t.text, std::move(value));
      } else {
        if (t.kind == Token::Kind::kEnd) fail(open.pos, "'(' was never closed");
        if (is_op("*") || is_op("**")) fail(t.pos, "argument unpacking ('", t.text, "') is not supported");
        auto arg = expr();
        if (!n->kwargs.empty()) fail(arg->pos, "positional argument follows keyword argument");
        add_child(*n, std::move(arg));
      }
      if (!accept(",")) break;
    }
    expect_close(open, ")");
    --open_brackets_;
    return n;
  }

  /// Items up to `close`, with an optional trailing comma. Returns whether a
  /// comma was seen (it makes `(x,)` a tuple).
  bool items(Node& into, const Token& open, std::string_view close) {
    bool comma = false;
    while (!is_op(close)) {
      if (peek().kind == Token::Kind::kEnd) fail(open.pos, "'", open.text, "' was never closed");
      add_child(into, expr());
      if (!accept(",")) break;
      comma = true;
    }
    expect_close(open, close);
    return comma;
  }

  std::unique_ptr<Node> atom() {
    const Token& t = peek();
    switch (t.kind) {
      case Token::Kind::kInt: {
        if (t.text == "2**63") fail(t.pos, "integer literal too large (wick ints are 64-bit)");
        auto n = make(Node::Kind::kInt, t.pos);
        n->int_value = t.int_value;
        ++i_;
        return n;
      }
      case Token::Kind::kFloat:
      case Token::Kind::kImag: {
        auto n = make(t.kind == Token::Kind::kImag ? Node::Kind::kImag : Node::Kind::kFloat, t.pos);
        n->float_value = t.float_value;
        ++i_;
        return n;
      }
      case Token::Kind::kString: {
        auto n = make(Node::Kind::kString, t.pos);
        while (peek().kind == Token::Kind::kString) n->text += toks_[i_++].text;  // 'a' 'b' == 'ab'
        return n;
      }
      case Token::Kind::kName: {
        if (t.text == "True" || t.text == "False") {
          auto n = make(Node::Kind::kBool, t.pos);
          n->bool_value = t.text == "True";
          ++i_;
          return n;
        }
        auto n = make(t.text == "None" ? Node::Kind::kNone : Node::Kind::kName, t.pos);
        if (n->kind == Node::Kind::kName) n->text = t.text;
        ++i_;
        return n;
      }
      case Token::Kind::kOp:
        if (t.text == "(" || t.text == "[") return bracket();
        if (t.text == "...") {  // Ellipsis, anywhere an expression may be
          ++i_;
          return make(Node::Kind::kEllipsis, t.pos);
        }
        if (t.text == "{") return dict();
        break;
      default:
        break;
    }
    if (t.kind == Token::Kind::kEnd) fail(t.pos, "unexpected end of expression (expected an expression)");
    // Inside brackets `f(1, )` is fine and `[1, +]` wants an expression; with
    // nothing open, a closer is unmatched.
    if (is_closer() && open_brackets_ == 0) fail(t.pos, "unmatched '", t.text, "'");
    unexpected("an expression");
  }

  std::unique_ptr<Node> bracket() {
    const Token& open = peek();
    ++i_;
    ++open_brackets_;
    std::unique_ptr<Node> n;
    if (open.text == "[") {
      n = make(Node::Kind::kList, open.pos);
      items(*n, open, "]");
    } else if (accept(")")) {
      n = make(Node::Kind::kTuple, open.pos);  // ()
    } else {
      if (peek().kind == Token::Kind::kEnd) fail(open.pos, "'(' was never closed");
      auto first = expr();
      if (accept(")")) {
        n = std::move(first);  // plain grouping
      } else {
        if (!accept(",")) expect_close(open, ")");  // throws: neither ')' nor ','
        n = make(Node::Kind::kTuple, open.pos);
        add_child(*n, std::move(first));
        items(*n, open, ")");
      }
    }
    --open_brackets_;
    return n;
  }

  /// `{'key': expr, ...}`: keys are string literals (the dicts wick passes
  /// around have string keys).
  std::unique_ptr<Node> dict() {
    const Token& open = peek();
    ++i_;
    ++open_brackets_;
    auto n = make(Node::Kind::kDict, open.pos);
    while (!is_op("}")) {
      const Token& key = peek();
      if (key.kind == Token::Kind::kEnd) fail(open.pos, "'{' was never closed");
      if (key.kind != Token::Kind::kString) {
        if (is_closer()) expect_close(open, "}");  // throws: the wrong closer
        fail(key.pos, "dict keys must be string literals, not ", describe(key));
      }
      std::string text;
      while (peek().kind == Token::Kind::kString) text += toks_[i_++].text;
      if (!accept(":")) fail(peek().pos, "expected ':' after a dict key but found ", describe(peek()));
      auto value = expr();
      n->height = std::max(n->height, value->height + 1);
      if (n->height > kMaxHeight) fail(n->pos, "expression too deeply nested");
      n->kwargs.emplace_back(std::move(text), std::move(value));
      if (!accept(",")) break;
    }
    expect_close(open, "}");
    --open_brackets_;
    return n;
  }

  std::string_view text_;
  std::vector<Token> toks_;
  std::size_t i_ = 0;
  mutable int nesting_ = 0;
  int open_brackets_ = 0;  ///< brackets opened and not yet closed (exceptions end the parse)
};

// --- printing --------------------------------------------------------------------

std::string quote(const std::string& s) {
  const bool single = s.find('\'') == std::string::npos || s.find('"') != std::string::npos;
  const char q = single ? '\'' : '"';
  std::string out(1, q);
  for (char c : s) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c == q) {
          out += '\\';
          out += c;
        } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[(static_cast<unsigned char>(c) >> 4) & 0xF];
          out += kHex[static_cast<unsigned char>(c) & 0xF];
        } else {
          out += c;
        }
    }
  }
  out += q;
  return out;
}

void print(const Node& n, std::string& out) {
  auto list = [&](std::size_t first, bool tuple) {
    for (std::size_t k = first; k < n.children.size(); ++k) {
      if (k > first) out += ", ";
      print(*n.children[k], out);
    }
    if (tuple && n.children.size() - first == 1) out += ",";
  };
  switch (n.kind) {
    case Node::Kind::kInt:
      out += std::to_string(n.int_value);
      return;
    case Node::Kind::kFloat:
      out += python_float_repr(n.float_value);
      return;
    case Node::Kind::kImag:
      out += python_complex_repr(0.0, n.float_value);
      return;
    case Node::Kind::kString:
      out += quote(n.text);
      return;
    case Node::Kind::kBool:
      out += n.bool_value ? "True" : "False";
      return;
    case Node::Kind::kNone:
      out += "None";
      return;
    case Node::Kind::kName:
      out += n.text;
      return;
    case Node::Kind::kAttribute:
      // `5 .real`: printed as "5.real", the dot would belong to the number.
      if (n.children[0]->kind == Node::Kind::kInt) {
        out += "(";
        print(*n.children[0], out);
        out += ")";
      } else {
        print(*n.children[0], out);
      }
      out += "." + n.text;
      return;
    case Node::Kind::kCall:
      print(*n.children[0], out);
      out += "(";
      list(1, false);
      for (std::size_t k = 0; k < n.kwargs.size(); ++k) {
        if (k > 0 || n.children.size() > 1) out += ", ";
        out += n.kwargs[k].first + "=";
        print(*n.kwargs[k].second, out);
      }
      out += ")";
      return;
    case Node::Kind::kList:
      out += "[";
      list(0, false);
      out += "]";
      return;
    case Node::Kind::kTuple:
      out += "(";
      list(0, true);
      out += ")";
      return;
    case Node::Kind::kDict:
      out += "{";
      for (std::size_t k = 0; k < n.kwargs.size(); ++k) {
        if (k > 0) out += ", ";
        out += quote(n.kwargs[k].first) + ": ";
        print(*n.kwargs[k].second, out);
      }
      out += "}";
      return;
    case Node::Kind::kUnary:
      out += n.unary_op == UnaryOp::kNeg      ? "(-"
             : n.unary_op == UnaryOp::kPos    ? "(+"
             : n.unary_op == UnaryOp::kInvert ? "(~"
                                              : "(not ";
      print(*n.children[0], out);
      out += ")";
      return;
    case Node::Kind::kSubscript:
      print(*n.children[0], out);
      out += "[";
      list(1, false);
      out += "]";
      return;
    case Node::Kind::kSlice:  // start:stop, then :step when there is one
      for (std::size_t k = 0; k < 3; ++k) {
        if (k == 2 && n.children[k]->kind == Node::Kind::kNone) break;
        if (k > 0) out += ":";
        if (n.children[k]->kind != Node::Kind::kNone) print(*n.children[k], out);
      }
      return;
    case Node::Kind::kEllipsis:
      out += "...";
      return;
    case Node::Kind::kBoolOp:
      out += "(";
      print(*n.children[0], out);
      out += " " + n.text + " ";
      print(*n.children[1], out);
      out += ")";
      return;
    case Node::Kind::kSequence:
      for (std::size_t k = 0; k < n.children.size(); ++k) {
        if (k > 0) out += "; ";
        print(*n.children[k], out);
      }
      return;
    case Node::Kind::kBinary:
      out += "(";
      print(*n.children[0], out);
      out += " ";
      out += op_symbol(n.binary_op);
      out += " ";
      print(*n.children[1], out);
      out += ")";
      return;
  }
}

}  // namespace

std::string_view op_symbol(BinaryOp op) noexcept {
  switch (op) {
    case BinaryOp::kAdd:
      return "+";
    case BinaryOp::kSub:
      return "-";
    case BinaryOp::kMul:
      return "*";
    case BinaryOp::kDiv:
      return "/";
    case BinaryOp::kFloorDiv:
      return "//";
    case BinaryOp::kMod:
      return "%";
    case BinaryOp::kMatMul:
      return "@";
    case BinaryOp::kAnd:
      return "&";
    case BinaryOp::kOr:
      return "|";
    case BinaryOp::kXor:
      return "^";
    case BinaryOp::kLShift:
      return "<<";
    case BinaryOp::kRShift:
      return ">>";
    case BinaryOp::kPow:
      return "**";
    case BinaryOp::kEq:
      return "==";
    case BinaryOp::kNe:
      return "!=";
    case BinaryOp::kLt:
      return "<";
    case BinaryOp::kLe:
      return "<=";
    case BinaryOp::kGt:
      return ">";
    case BinaryOp::kGe:
      return ">=";
  }
  return "?";
}

std::unique_ptr<Node> parse(std::string_view expr) {
  Parser parser(expr, tokenize(expr));
  return parser.parse_input();
}

std::string to_string(const Node& node) {
  std::string out;
  print(node, out);
  return out;
}

}  // namespace wick::eval
