// wick/schema.h - operator schemas in PyTorch's native-function syntax.
/// \file
/// Operators are declared with schema strings such as
///
///   add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
///   add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
///   max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
///
/// Supported types: Tensor, Tensor?, Tensor[], int, int?, int[], int[N] (1 <= N <= 64),
/// int[]?, float, float?, float[], bool, bool?, str, str?, Scalar, Scalar?,
/// ScalarType?, Device?, Generator?, Any. Defaults: ints, floats (1e-5, -inf),
/// True/False, None, 'strings' or "strings", lists ([0, 1], []), and for
/// int[N] a single int that is repeated. A `*` starts keyword-only arguments.
/// A list argument written `Tensor[] *tensors` is variadic, Python's
/// `*tensors`: a boxed call gathers the positional values from there on into
/// it (or takes one list as it), and the arguments after it are keyword-only.
/// Alias annotations `Tensor(a)`, `Tensor(a!)`, `Tensor(a -> *)` are kept.
/// Returns: a single type, `()`, or a parenthesised list with optional names.
///
/// `parse_schema` throws SchemaError whose message shows the schema and a
/// caret under the offending character:
///
///   invalid schema: expected ')' but found 'Tensor'
///     add(Tensor self Tensor other) -> Tensor
///                     ^
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wick/export.h"
#include "wick/value.h"

namespace wick {

/// The base type of a schema argument or return (Tensor, int, float, ...), before list and optional markers.
enum class TypeKind : std::uint8_t {
  kTensor, kInt, kFloat, kBool, kStr, kScalar, kScalarType, kDevice, kGenerator, kAny,
};

/// The type of a schema argument or return: a base TypeKind with list and optional markers.
struct SchemaType {
  TypeKind kind = TypeKind::kTensor; ///< the base type (default Tensor)
  bool is_list = false; ///< `T[]` (or `T[N]`)
  /// N of int[N] (-1: any length).
  std::int32_t list_size = -1;
  /// `T?` or `T[]?`.
  bool optional = false;
  /// `Tensor?[]`: a list of optional elements.
  bool element_optional = false;

  /// The schema spelling: "Tensor?", "int[2]", "ScalarType?".
  [[nodiscard]] WICK_API std::string str() const;
  /// Equal when every field is.
  bool operator==(const SchemaType&) const noexcept = default;
};

/// An alias annotation: `Tensor(a)`, `Tensor(a!)`, `Tensor(a -> *)`.
struct AliasInfo {
  std::string set;        ///< the alias set's name: "a" in `Tensor(a!)`
  bool is_write = false;  ///< `!`: the operator writes to the tensor
  bool to_wildcard = false;  ///< `a -> *`: the tensor ends up in the wildcard set (stored in a list)
  /// Equal when every field is.
  bool operator==(const AliasInfo&) const noexcept = default;
};

/// One argument or return of a schema.
struct SchemaArgument {
  std::string name;  ///< the argument's name; may be empty for returns
  SchemaType type; ///< its type
  std::optional<AliasInfo> alias; ///< its alias annotation, if any
  /// Default as written ("1", "None", "'mean'", "[0, 1]").
  std::optional<std::string> default_text;
  /// The default as a Value (int 1, None, "mean", [0, 1]); for int[N] a
  /// single int is expanded to N copies.
  std::optional<Value> default_value;
  bool kwarg_only = false; ///< after the `*`: keyword-only
  /// A Tensor argument that a Python-style (boxed) call may give as a
  /// number, which is then wrapped (Note [Numbers for tensor arguments] in
  /// wick/library.h). Not part of the schema's text.
  bool takes_number = false;
  /// `Tensor[] *tensors`: Python's `*tensors` (a list type, never defaulted).
  bool variadic = false;
};

/// A parsed operator schema (parse_schema): name, overload, arguments and returns.
struct FunctionSchema {
  std::string name;      ///< the operator's name without overload: "add"
  std::string overload;  ///< the overload name: "out", or "" for the default overload
  std::vector<SchemaArgument> arguments; ///< the arguments in order
  std::vector<SchemaArgument> returns; ///< the returns in order (empty for `()`)
  /// A boxed call may give every `takes_number` argument a number at once
  /// (`*` in `numbers:`); otherwise one of its Tensor arguments must be
  /// given a tensor (Note [Numbers for tensor arguments] in wick/library.h).
  /// Not part of the schema's text.
  bool numbers_together = false;

  /// "add.out" or "add".
  [[nodiscard]] WICK_API std::string full_name() const;
  /// The schema in canonical spelling; parse_schema(s.str()) == s.
  [[nodiscard]] WICK_API std::string str() const;
  /// Python-style signature as `inspect.signature` prints it:
  ///   "(input, other, *, alpha=1, out=None)".
  /// With `rename_self`, an argument named `self` prints as `input`
  /// (torch.* functions); methods keep `self`. Out overloads are not merged
  /// here: the catalog adds `out=None` when an op has one.
  [[nodiscard]] WICK_API std::string python_signature(bool rename_self = true) const;
  /// Index of the argument named `name`, or -1.
  [[nodiscard]] WICK_API int find_argument(std::string_view name) const noexcept;
};

/// Parses one schema; throws SchemaError pointing at the bad character.
[[nodiscard]] WICK_API FunctionSchema parse_schema(std::string_view text);

}  // namespace wick
