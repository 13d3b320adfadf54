// wick/error.h - the error hierarchy and the checking macros.
/// \file
/// Every error wick reports is a `wick::Error`. The subclasses mirror the
/// Python exception a PyTorch user would see for the same mistake:
///
///   try { wick::call("torch.add", {x}, {}); }
///   catch (const wick::TypeError& e) { std::puts(e.what()); }
///
/// `WICK_CHECK(cond, TypeError, "...", args...)` throws when `cond` is false;
/// the message is only formatted on failure. `WICK_INTERNAL_ASSERT` marks
/// wick's own invariants: a failure there is a bug in wick, not the caller.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

#include "wick/export.h"

namespace wick {

/// Root of the hierarchy. `type_name()` is the Python-style name
/// ("TypeError", ...) used by `wick eval` when it prints the error.
///
/// Like a Python exception, an error can carry notes: lines of context added
/// while it propagates, printed after the message by `what()`. `wick::call`
/// adds one naming the operator and the arguments it was called with to an
/// error raised by a kernel (Note [Call notes], dispatch/boxed_call.cpp):
///
///   Dimension out of range (expected to be in range of [-2, 1], but got 5)
///     in torch.softmax(input=Tensor(shape=[2, 3], dtype=float32), dim=5)
class WICK_API Error : public std::runtime_error {
 public:
  /// An error with message `msg` and no notes.
  explicit Error(const std::string& msg) : std::runtime_error(msg), message_(msg), text_(msg) {}
  /// The Python exception name ("TypeError", "ValueError", ...); "Error" for the base.
  [[nodiscard]] virtual const char* type_name() const noexcept { return "Error"; }
  /// The message, then each note on a line of its own.
  [[nodiscard]] const char* what() const noexcept override { return text_.c_str(); }
  /// The message without the notes.
  [[nodiscard]] const char* message() const noexcept { return message_.c_str(); }
  /// Replaces the message, keeping the notes (Note [Error prefixes]).
  void set_message(const std::string& msg) {
    text_ = msg + text_.substr(message_.size());
    message_ = msg;
  }
  /// Appends a line of context (Python's `add_note`); rethrow with `throw;`
  /// to keep the error's type.
  void add_note(const std::string& note) {
    text_ += "\n";
    text_ += note;
    ++notes_;
  }
  /// How many notes were added.
  [[nodiscard]] int notes() const noexcept { return notes_; }

 private:
  std::string message_;
  std::string text_;
  int notes_ = 0;
};

/// Declares error class `Name` derived from `Base`, whose type_name() is "Name".
#define WICK_DECLARE_ERROR(Name, Base)                                            \
  class WICK_API Name : public Base {                                            \
   public:                                                                       \
    explicit Name(const std::string& msg) : Base(msg) {}                         \
    [[nodiscard]] const char* type_name() const noexcept override { return #Name; } \
  };

WICK_DECLARE_ERROR(TypeError, Error)
WICK_DECLARE_ERROR(ValueError, Error)
WICK_DECLARE_ERROR(IndexError, Error)
WICK_DECLARE_ERROR(RuntimeError, Error)
WICK_DECLARE_ERROR(NotImplementedError, RuntimeError)
/// A matrix the operation cannot use: singular for solve and inv, not
/// positive-definite for cholesky (PyTorch's torch.linalg.LinAlgError).
WICK_DECLARE_ERROR(LinAlgError, RuntimeError)
WICK_DECLARE_ERROR(PluginError, Error)
/// A check that PyTorch writes as a Python `assert` (F.multi_head_attention_forward's shape checks).
WICK_DECLARE_ERROR(AssertionError, Error)
/// A number too large for its destination (Python's OverflowError: int() of
/// an infinite, or of a float beyond wick's 64-bit ints).
WICK_DECLARE_ERROR(OverflowError, Error)
/// A malformed schema string; the message shows the string and a caret under
/// the offending character.
WICK_DECLARE_ERROR(SchemaError, ValueError)
#undef WICK_DECLARE_ERROR

namespace detail {
template <typename... Args>
std::string str_cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
[[noreturn]] WICK_API void internal_assert_fail(const char* cond, const char* file, int line,
                                                const std::string& msg);
}  // namespace detail

}  // namespace wick

/// Throw `wick::ErrType` with the concatenated message when `cond` is false.
#define WICK_CHECK(cond, ErrType, ...)                                   \
  do {                                                                   \
    if (__builtin_expect(!(cond), 0)) {                                  \
      throw ::wick::ErrType(::wick::detail::str_cat(__VA_ARGS__));       \
    }                                                                    \
  } while (0)

/// Abort-free internal invariant: throws `RuntimeError` naming file and line.
#define WICK_INTERNAL_ASSERT(cond, ...)                                              \
  do {                                                                               \
    if (__builtin_expect(!(cond), 0)) {                                              \
      ::wick::detail::internal_assert_fail(#cond, __FILE__, __LINE__,                \
                                           ::wick::detail::str_cat("" __VA_ARGS__)); \
    }                                                                                \
  } while (0)
