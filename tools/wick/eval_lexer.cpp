// tools/wick/eval_lexer.cpp - the tokenizer of `wick eval` expressions.
/// \file
/// Python's rules for numbers (underscores, 0x/0o/0b, `1.`, `.5`, `1e-5`),
/// strings (both quotes, escapes, r'' raw strings, adjacent literals are
/// joined by the parser) and operators; a SyntaxError with a caret otherwise.
#include "eval_lexer.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string>
#include <system_error>
#include <vector>

#include "eval.h"

namespace wick::eval {
namespace {

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
    // An imaginary literal: "2j", "1.5e3J" (digits in base 10 only, as in Python).
    const bool imaginary = base == 10 && (peek() == 'j' || peek() == 'J');
    if (imaginary) {
      ++pos_;
      is_float = true;
    }
    if (is_ident_char(peek())) fail_at(text_, start, imaginary ? "invalid imaginary literal" : "invalid decimal literal");

    const char* first = clean.data();
    const char* last = clean.data() + clean.size();
    if (is_float) {
      t.kind = imaginary ? Token::Kind::kImag : Token::Kind::kFloat;
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
    static constexpr std::string_view kOps[] = {"**", "//", "==", "!=", "<=", ">=", "<<", ">>", "...", "(", ")", "[", "]",
                                                "{",  "}",  ",",  ":",  ".",  "=",  "+",   "-", "*", "/", "%",
                                                "@",  "<",  ">",  ";",  "&",  "|",  "^",   "~"};
    static constexpr std::string_view kUnsupported[] = {"<<=", ">>=", "->", ":=", "&=", "|=", "^=", "!"};
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

}  // namespace

// The caret line copies tabs and counts a UTF-8 character as one column.
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

std::vector<Token> tokenize(std::string_view text) { return Lexer(text).run(); }

}  // namespace wick::eval
