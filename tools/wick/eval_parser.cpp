// tools/wick/eval_parser.cpp - tokenizer and recursive-descent parser of `wick eval`.
/// \file
/// Turns an expression into a `Node` tree (grammar in eval.h). Every failure
/// is a SyntaxError whose message ends with the expression and a caret.
#include "wick/eval.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace wick::eval {
namespace {

/// Nesting of brackets and unary operators the parser follows (Python's own
/// limit is 200 parentheses) and the tallest tree it builds.
constexpr int kMaxNesting = 200;
constexpr std::uint32_t kMaxHeight = 1000;

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) noexcept { return is_ident_start(c) || is_digit(c); }
bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

bool is_keyword(std::string_view s) noexcept {
  static constexpr std::string_view kKeywords[] = {
      "and",      "as",     "assert",  "async", "await", "break",  "class", "continue", "def",  "del",  "elif",
      "else",     "except", "finally", "for",   "from",  "global", "if",    "import",   "in",   "is",   "lambda",
      "nonlocal", "not",    "or",      "pass",  "raise", "return", "try",   "while",    "with", "yield"};
  for (std::string_view k : kKeywords) {
    if (s == k) return true;
  }
  return false;
}

/// "<what>\n  <line of the expression>\n  <caret>", the caret under byte `at`.
[[noreturn]] void fail_at(std::string_view text, std::size_t at, const std::string& what) {
  at = std::min(at, text.size());
  // Show the line holding `at` (expressions may span lines inside brackets).
  std::size_t begin = 0;
  if (at > 0) {
    const std::size_t nl = text.rfind('\n', at - 1);
    if (nl != std::string_view::npos) begin = nl + 1;
  }
  std::size_t end = text.find('\n', at);
  if (end == std::string_view::npos) end = text.size();
  std::string msg = what;
  msg += "\n  ";
  msg += text.substr(begin, end - begin);
  msg += "\n  ";
  for (std::size_t i = begin; i < at; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) == 0x80) continue;  // UTF-8 continuation byte: same column
    msg += c == '\t' ? '\t' : ' ';
  }
  msg += '^';
  throw SyntaxError(msg, at);
}

struct Token {
  enum class Kind : std::uint8_t { kInt, kFloat, kString, kName, kKeyword, kOp, kEnd };
  Kind kind = Kind::kEnd;
  std::size_t pos = 0;
  std::size_t end = 0;  ///< one past the token's last byte
  std::string text;     ///< a name, an operator, or the decoded string
  std::int64_t int_value = 0;
  double float_value = 0.0;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      while (pos_ < text_.size() && (is_space(text_[pos_]) || line_continuation())) ++pos_;
      Token t;
      t.pos = pos_;
      if (pos_ >= text_.size()) {
        t.end = pos_;
        out.push_back(std::move(t));
        return out;
      }
      const char c = text_[pos_];
      if (is_digit(c) || (c == '.' && is_digit(peek(1)))) {
        number(t);
      } else if (c == '\'' || c == '"') {
        string(t, false);
      } else if (is_ident_start(c)) {
        name(t);
      } else {
        op(t);
      }
      t.end = pos_;
      out.push_back(std::move(t));
    }
  }

 private:
  [[nodiscard]] char peek(std::size_t ahead = 0) const noexcept {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  /// A backslash ending a line joins it to the next, as in Python.
  bool line_continuation() noexcept {
    if (peek() != '\\') return false;
    if (peek(1) == '\n') return ++pos_, true;
    if (peek(1) == '\r' && peek(2) == '\n') return pos_ += 2, true;
    return false;
  }

  /// Digits of `base` with single underscores between them; returns them
  /// without the underscores.
  std::string digits(int base, std::size_t literal_start) {
    std::string out;
    auto ok = [&](char ch) {
      if (base == 16) return is_digit(ch) || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
      return ch >= '0' && ch < static_cast<char>('0' + base);
    };
    while (pos_ < text_.size()) {
      if (ok(peek())) {
        out += peek();
        ++pos_;
      } else if (peek() == '_' && !out.empty() && ok(peek(1))) {
        ++pos_;
      } else {
        break;
      }
    }
    if (peek() == '_' || (base != 10 && is_digit(peek()))) {
      fail_at(text_, literal_start, base == 10 ? "invalid decimal literal" : "invalid digit in integer literal");
    }
    return out;
  }

  void number(Token& t) {
    const std::size_t start = pos_;
    std::string clean;  // the literal without underscores
    bool is_float = false;
    int base = 10;
    if (peek() == '0' &&
        (peek(1) == 'x' || peek(1) == 'X' || peek(1) == 'o' || peek(1) == 'O' || peek(1) == 'b' || peek(1) == 'B')) {
      const char p = static_cast<char>(peek(1) | 0x20);
      base = p == 'x' ? 16 : p == 'o' ? 8 : 2;
      pos_ += 2;
      if (peek() == '_') ++pos_;
      clean = digits(base, start);
      if (clean.empty()) fail_at(text_, start, "invalid integer literal");
    } else {
      clean = digits(10, start);
      if (peek() == '.') {
        is_float = true;
        clean += '.';
        ++pos_;
        if (is_digit(peek())) clean += digits(10, start);
      }
      if (peek() == 'e' || peek() == 'E') {
        const std::size_t sign = (peek(1) == '+' || peek(1) == '-') ? 1 : 0;
        if (!is_digit(peek(1 + sign))) fail_at(text_, start, "invalid decimal literal");
        is_float = true;
        clean += 'e';
        if (sign != 0) clean += peek(1);
        pos_ += 1 + sign;
        clean += digits(10, start);
      }
    }
    if (peek() == 'j' || peek() == 'J') fail_at(text_, start, "complex numbers are not supported");
    if (is_ident_char(peek())) fail_at(text_, start, "invalid decimal literal");

    const char* first = clean.data();
    const char* last = clean.data() + clean.size();
    if (is_float) {
      t.kind = Token::Kind::kFloat;
      auto [ptr, ec] = std::from_chars(first, last, t.float_value);
      if (ec == std::errc::result_out_of_range) {
        t.float_value = std::strtod(clean.c_str(), nullptr);  // inf, or a (sub)normal near zero
      } else if (ec != std::errc() || ptr != last) {
        fail_at(text_, start, "invalid decimal literal");
      }
      return;
    }
    if (base == 10 && clean.size() > 1 && clean[0] == '0' && clean.find_first_not_of('0') != std::string::npos) {
      fail_at(text_, start,
              "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
    }
    t.kind = Token::Kind::kInt;
    std::uint64_t u = 0;
    auto [ptr, ec] = std::from_chars(first, last, u, base);
    if (ec != std::errc() || ptr != last || u > static_cast<std::uint64_t>(INT64_MAX) + 1) {
      fail_at(text_, start, "integer literal too large (wick ints are 64-bit)");
    }
    // 2**63 is only valid as the operand of a unary minus; the parser checks.
    t.int_value = static_cast<std::int64_t>(u);
    t.text = u == static_cast<std::uint64_t>(INT64_MAX) + 1 ? "2**63" : "";
  }

  void name(Token& t) {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && is_ident_char(text_[pos_])) ++pos_;
    std::string_view word = text_.substr(start, pos_ - start);
    if (peek() == '\'' || peek() == '"') {  // string prefix
      std::string lower;
      for (char ch : word) lower += static_cast<char>(ch | 0x20);
      if (lower == "r" || lower == "u") {
        string(t, lower == "r");
        t.pos = start;
        return;
      }
      if (lower.size() <= 3 && lower.find_first_not_of("rbfu") == std::string::npos) {
        fail_at(text_, start, "string prefix '" + std::string(word) + "' is not supported");
      }
    }
    t.kind = is_keyword(word) ? Token::Kind::kKeyword : Token::Kind::kName;
    t.text = std::string(word);
  }

  static void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  /// `n` hex digits after an escape starting at `esc`.
  std::uint32_t hex_escape(std::size_t esc, int n, const char* what) {
    std::uint32_t v = 0;
    for (int i = 0; i < n; ++i) {
      const char h = peek();
      int d = -1;
      if (is_digit(h))
        d = h - '0';
      else if (h >= 'a' && h <= 'f')
        d = h - 'a' + 10;
      else if (h >= 'A' && h <= 'F')
        d = h - 'A' + 10;
      if (d < 0) fail_at(text_, esc, std::string("truncated ") + what + " escape");
      v = v * 16 + static_cast<std::uint32_t>(d);
      ++pos_;
    }
    return v;
  }

  void string(Token& t, bool raw) {
    const std::size_t start = pos_;
    const char quote = text_[pos_++];
    t.kind = Token::Kind::kString;
    for (;;) {
      if (pos_ >= text_.size() || peek() == '\n') fail_at(text_, start, "unterminated string literal");
      const char c = text_[pos_++];
      if (c == quote) return;
      if (c != '\\') {
        t.text += c;
        continue;
      }
      if (pos_ >= text_.size()) fail_at(text_, start, "unterminated string literal");
      const std::size_t esc = pos_ - 1;
      const char e = text_[pos_++];
      if (raw) {  // a raw string keeps the backslash; it still cannot end the string
        t.text += '\\';
        t.text += e;
        continue;
      }
      switch (e) {
        case '\n':
          break;
        case '\\':
          t.text += '\\';
          break;
        case '\'':
          t.text += '\'';
          break;
        case '"':
          t.text += '"';
          break;
        case 'a':
          t.text += '\a';
          break;
        case 'b':
          t.text += '\b';
          break;
        case 'f':
          t.text += '\f';
          break;
        case 'n':
          t.text += '\n';
          break;
        case 'r':
          t.text += '\r';
          break;
        case 't':
          t.text += '\t';
          break;
        case 'v':
          t.text += '\v';
          break;
        case 'x':
          append_utf8(t.text, hex_escape(esc, 2, "\\xXX"));
          break;
        case 'u':
          append_utf8(t.text, hex_escape(esc, 4, "\\uXXXX"));
          break;
        case 'U': {
          const std::uint32_t cp = hex_escape(esc, 8, "\\UXXXXXXXX");
          if (cp > 0x10FFFF) fail_at(text_, esc, "illegal Unicode character");
          append_utf8(t.text, cp);
          break;
        }
        default:
          if (e >= '0' && e <= '7') {  // up to three octal digits
            std::uint32_t v = static_cast<std::uint32_t>(e - '0');
            for (int i = 0; i < 2 && peek() >= '0' && peek() <= '7'; ++i)
              v = v * 8 + static_cast<std::uint32_t>(text_[pos_++] - '0');
            append_utf8(t.text, v);
          } else {  // unknown escapes keep their backslash, as in Python
            t.text += '\\';
            t.text += e;
          }
      }
    }
  }

  void op(Token& t) {
    static constexpr std::string_view kOps[] = {"**", "==", "!=", "<=", ">=", "(", ")", "[", "]", ",",
                                                ".",  "=",  "+",  "-",  "*",  "/", "@", "<", ">"};
    static constexpr std::string_view kUnsupported[] = {"//", "<<", ">>", "->", ":=", "%", "~", "&",
                                                        "|",  "^",  ":",  ";",  "{",  "}", "!"};
    const std::string_view rest = text_.substr(pos_);
    for (std::string_view u : kUnsupported) {
      if (rest.starts_with(u) && !(u == "!" && rest.starts_with("!="))) {
        fail_at(text_, pos_, "operator '" + std::string(u) + "' is not supported");
      }
    }
    for (std::string_view o : kOps) {
      if (rest.starts_with(o)) {
        t.kind = Token::Kind::kOp;
        t.text = std::string(o);
        pos_ += o.size();
        return;
      }
    }
    const auto c = static_cast<unsigned char>(text_[pos_]);
    if (c >= 0x80) fail_at(text_, pos_, "invalid non-ASCII character (names and operators are ASCII)");
    fail_at(text_, pos_, std::string("invalid character '") + static_cast<char>(c) + "'");
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

class Parser {
 public:
  Parser(std::string_view text, std::vector<Token> tokens) : text_(text), toks_(std::move(tokens)) {}

  std::unique_ptr<Node> parse_input() {
    if (peek().kind == Token::Kind::kEnd) fail(peek().pos, "empty expression");
    const std::size_t start = peek().pos;
    auto first = expr();
    if (!is_op(",")) {
      expect_end();
      return first;
    }
    // A bare tuple: `1, 2` is (1, 2), as in Python.
    auto tuple = make(Node::Kind::kTuple, start);
    add_child(*tuple, std::move(first));
    while (accept(",")) {
      if (peek().kind == Token::Kind::kEnd) break;
      add_child(*tuple, expr());
      if (!is_op(",")) break;
    }
    expect_end();
    return tuple;
  }

 private:
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
    if (is_op(")") || is_op("]")) fail(t.pos, "unmatched '", t.text, "'");
    if (is_op("=")) fail(t.pos, "unexpected '=' (assignment is not supported; did you mean '=='?)");
    fail(t.pos, "unexpected ", describe(t), " after the expression");
  }

  /// After the items of a bracket opened at `open`: the closing `close`, or a
  /// precise error.
  void expect_close(const Token& open, std::string_view close) {
    if (accept(close)) return;
    const Token& t = peek();
    if (t.kind == Token::Kind::kEnd) fail(open.pos, "'", open.text, "' was never closed");
    if (is_op(")") || is_op("]")) {
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
    explicit Nest(const Parser& p, std::size_t pos) : p_(p) {
      if (++p_.nesting_ > kMaxNesting) p_.fail(pos, "too many nested parentheses or unary operators");
    }
    ~Nest() { --p_.nesting_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
    const Parser& p_;
  };

  // --- grammar -----------------------------------------------------------------
  std::unique_ptr<Node> expr() {
    auto left = sum();
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
    auto node = binary(*op, std::move(left), sum());
    if (compare_op()) fail(peek().pos, "chained comparisons are not supported");
    return node;
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
      else if (accept("/"))
        left = binary(BinaryOp::kDiv, std::move(left), factor());
      else if (accept("@"))
        left = binary(BinaryOp::kMatMul, std::move(left), factor());
      else
        return left;
    }
  }

  std::unique_ptr<Node> factor() {
    const Token& t = peek();
    Nest nest(*this, t.pos);
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
      } else {
        return node;
      }
    }
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
      case Token::Kind::kFloat: {
        auto n = make(Node::Kind::kFloat, t.pos);
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
        break;
      default:
        break;
    }
    if (t.kind == Token::Kind::kEnd) fail(t.pos, "unexpected end of expression (expected an expression)");
    // Inside brackets `f(1, )` is fine and `[1, +]` wants an expression; with
    // nothing open, a closer is unmatched.
    if ((is_op(")") || is_op("]")) && open_brackets_ == 0) fail(t.pos, "unmatched '", t.text, "'");
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
      print(*n.children[0], out);
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
    case Node::Kind::kUnary:
      out += n.unary_op == UnaryOp::kNeg ? "(-" : "(+";
      print(*n.children[0], out);
      out += ")";
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
    case BinaryOp::kMatMul:
      return "@";
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
  Parser parser(expr, Lexer(expr).run());
  return parser.parse_input();
}

std::string to_string(const Node& node) {
  std::string out;
  print(node, out);
  return out;
}

}  // namespace wick::eval
