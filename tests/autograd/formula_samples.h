// tests/autograd/formula_samples.h - sample calls of catalog operators, and their formula check.
/// \file
/// A `Sample` is one boxed call of a catalog operator with its tensor
/// arguments left as shapes: the caller makes the inputs (float64 for
/// gradcheck, any dtype for kernel coverage) and `call_sample` fills them in.
/// `samples_for` gives an entry's explicit samples, its definition's, or one
/// generated from its schema; `check_formula` runs gradcheck (backward and forward mode) and
/// gradgradcheck over them. Used by formula_coverage_test.cpp (the whole
/// catalog) and operator_catalog_test.cpp (issue 6's operator list).
///
///   for (const Sample& s : samples_for(entry)) {
///     tensor_list in = make_inputs(s, domain_of(entry), ScalarType::kFloat32);
///     Value r = call_sample(entry.qualified_name, s, in);
///   }
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "wick/autograd.h"
#include "wick/catalog.h"
#include "wick/dispatcher.h"

namespace wick::testing {

/// Where an operator's random inputs lie so that its derivative is smooth there.
enum class Domain { kAwayFromZero, kPositive, kInsideUnit, kProbability, kAboveOne, kInvertible, kHermitian, kSpd };

struct TensorArg {
  std::vector<std::int64_t> shape;
  bool float64 = false;  ///< D[...]: float64 (complex128 for a complex dtype) whatever the dtype asked for
};
/// A Tensor[] argument whose tensors are all inputs.
struct TensorListArg {
  std::vector<std::vector<std::int64_t>> shapes;
};
/// An input tensor, a list of them, or a fixed value (indices, masks, options).
using Arg = std::variant<TensorArg, Value, TensorListArg>;

struct Sample {
  std::vector<Arg> args;
  Kwargs kwargs = {};
  double eps = 1e-6;
  double atol = 1e-5;
};

/// The samples of a catalog entry: explicit ones (by qualified name, then by
/// name; an alias's by its target's), else its definition's `sample:` lines
/// (wick/opcheck.h), else one generated from the schema; empty when none can
/// be built.
[[nodiscard]] std::vector<Sample> samples_for(const CatalogEntry& e);

[[nodiscard]] Domain domain_of(const std::string& name);
/// The entry's domain: an alias's is its target's (torch.arccos: acos's).
[[nodiscard]] Domain domain_of(const CatalogEntry& e);

/// The sample's inputs, in argument order (a TensorListArg's tensors in
/// turn), requiring grad. Floating dtypes: values in `d` (away from kinks,
/// ties and poles); int64: values in 1..3; bool: random.
[[nodiscard]] autograd::tensor_list make_inputs(const Sample& s, Domain d, ScalarType dtype = ScalarType::kFloat64);

/// Calls `qualified_name` with the sample's arguments, tensors taken from
/// `inputs` in order. `clone_first`: an in-place operator writes into a
/// copy of the first input (a leaf that requires grad cannot be written).
/// `value_dtype`: floating tensors among the sample's fixed values (weights,
/// running statistics) are converted to it when it is floating too.
Value call_sample(const std::string& qualified_name, const Sample& s, const autograd::tensor_list& inputs,
                  bool clone_first = false, ScalarType value_dtype = ScalarType::kFloat64);

/// The result as one tensor: the first of a tuple (max.dim: the values), a
/// Tensor[] (split, chunk) flattened and concatenated.
[[nodiscard]] Tensor as_one_tensor(const Value& result);

/// Whether the entry's first argument is written in place (`Tensor(a!) self`).
[[nodiscard]] bool writes_first_argument(const FunctionSchema& s);
[[nodiscard]] bool has_tensor_argument(const FunctionSchema& s);

/// Creation functions that take a tensor only for its shape (zeros_like, ...).
[[nodiscard]] bool result_never_requires_grad(const std::string& name);

/// What check_formula found for one catalog entry.
struct FormulaCheck {
  enum class Kind {
    kGradchecked,        ///< floating result: every sample passed (unless `failures`)
    kNonDifferentiable,  ///< integer or bool result, or a *_like creation function
    kNoSample,           ///< no explicit sample and none generated from the schema
    kNoTensorArgument,   ///< nothing to differentiate (creation functions)
  };
  Kind kind = Kind::kNoSample;
  std::size_t samples = 0;
  /// One line per failed sample: gradcheck or gradgradcheck mismatch, an
  /// error thrown, or a non-differentiable result that requires grad.
  std::vector<std::string> failures;
};

/// Runs every sample of `e` on float64 inputs that require grad. A floating
/// result must pass gradcheck (backward and forward mode) and gradgradcheck;
/// any other result must not require grad.
[[nodiscard]] FormulaCheck check_formula(const CatalogEntry& e);

}  // namespace wick::testing
