// tools/wick/eval_lexer.h - tokens of `wick eval` expressions (private to wick_eval).
/// \file
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace wick::eval {

/// One token; `pos`/`end` are byte offsets into the expression.
struct Token {
  enum class Kind : std::uint8_t { kInt, kFloat, kImag, kString, kName, kKeyword, kOp, kEnd };
  Kind kind = Kind::kEnd;
  std::size_t pos = 0;
  std::size_t end = 0;  ///< one past the token's last byte
  std::string text;     ///< a name, an operator, or the decoded string
  std::int64_t int_value = 0;
  double float_value = 0.0;
};

/// The tokens of `text`, ending with one kEnd token. Throws SyntaxError for
/// a malformed number or string, or a character that starts no token.
[[nodiscard]] std::vector<Token> tokenize(std::string_view text);

/// Throws SyntaxError: "<what>\n  <the line of `text` holding `at`>\n  <caret under `at`>".
[[noreturn]] void fail_at(std::string_view text, std::size_t at, const std::string& what);

}  // namespace wick::eval
