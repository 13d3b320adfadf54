// wick/opcheck.h - automated checks of an operator against its definition, and of a backend against the CPU.
/// \file
/// `opcheck` is what `wick opcheck` runs (PyTorch offers the same checks as
/// torch.library.opcheck); `test_backend` is what `wick test-backend` runs
/// (ggml's test-backend-ops, for any wick backend). Both call operators on
/// the sample calls of their definitions (`sample:` lines of the .ops file),
/// or on one generated from the schema.
///
///   for (const wick::CheckResult& r : wick::opcheck("torch.add"))
///     if (r.status == wick::CheckStatus::kFailed) std::cerr << r.op << " " << r.check << ": " << r.message << "\n";
///
/// Note [Sample syntax]
/// A sample is an argument list as Python writes it, with tensors spelled by
/// what they are for:
///   T[2, 3]      an input tensor of shape (2, 3) (T[] is 0-dim): random, in
///                the operator's domain, in the dtype the check asks for, and
///                differentiated by the autograd check
///   G[2, 3]      the same input tensor, made a leaf that requires grad in
///                every check (retain_grad, backward: what needs a graph)
///   D[2, 3]      the same input tensor in float64 whatever the check's
///                dtype (complex128 when that is complex): for operators
///                that take only that dtype (float_power_)
///   R[3], P[3]   a random (standard normal) or positive (0.5..1.5) tensor
///                of the check's floating dtype that is not an input
///   U[3]         a uniform [0, 1) tensor of that dtype that is not an input
///                (fractional max pooling's samples)
///   M[2, 3]      a random bool mask
///   C[2, 3]      a random complex tensor that is not an input: complex128
///                when the check's dtype is float64, else complex64 (its
///                parts standard normal)
///   L[[0, 2], [1, 0]], I[1, 3, 3], B[True, False]
///                an int64, int32 or bool tensor of these values (L[2] has
///                shape (1); L(2) and B(True) are 0-dim); I[...] gives
///                LAPACK's int32 pivots (linalg.lu_solve)
///   [T[2], T[3]] a list of input tensors (Tensor[])
///   2, -1.5, inf, True, None, 'mean', [0, 1], float64
///                numbers, strings, bools, None, int lists, dtype names
///   [[1, 2], [3.5, 4]], [True, False]
///                nested lists, lists with bools: torch.tensor's data
///   (1, slice(None, 2), ..., L[0, 1])
///                a tuple of values (no input tensors): a subscript key, with
///                Python's slice(...) and Ellipsis (wick/subscript.h)
///   abs, max     Python's builtins, as wick::Callable values: abs of a
///                tensor or a number, max of numbers (for operators that
///                take a callable: Tensor.apply_, map_, register_hook)
///   name=value   a keyword argument
/// `tags: domain=positive` (or unit, probability) draws inputs where the
/// operator is smooth (log, asin, binary_cross_entropy); `eps=` and `atol=`
/// tags set gradcheck's step and tolerance; `nondifferentiable` (the result
/// does not depend on the inputs' values: zeros_like) and `random` skip the
/// autograd check with that reason; with `refuses_grad` (resize_) the
/// autograd check checks that a call whose inputs require grad fails, as
/// PyTorch's does. Tags that say a check cannot apply:
///   may_alias    the result is an argument itself (or, where the schema
///                says `Tensor(a)`, a view of it) when it can be, a new
///                tensor otherwise (PyTorch's `to`, `cpu`, `reshape`,
///                `contiguous`, `dropout` in eval): the aliasing check
///                accepts either
///   device_copy  copies data to another device (cpu, cuda): a meta tensor
///                has no data to copy, so the meta check is skipped
///   device_dependent  the result depends on the tensor's device (autocast's
///                casts, DLPack's device): a meta tensor's answer is not the
///                CPU's, so the meta check is skipped
///   device=cuda  needs a device of that type: every check but the schema's
///                is skipped when none is available
///   process_group  a collective (torch.distributed.*): every check but the
///                schema's is skipped when no process group is initialised
///
/// Note [Sample lookup]
/// An overload without `sample:` lines of its own borrows them (and one
/// without `tags:`, its tags) from the first overload along this chain that
/// has some, so that variants need no copied lines:
///   an alias (torch.Tensor.add, torch.Tensor.__add__)  -> its target (torch.add)
///   an out= variant (torch.add.out, X.<ovl>_out)      -> its operator (torch.add, X.<ovl>)
///   a method <ns>.Tensor.X[.<ovl>]                     -> the function <ns>.X[.<ovl>] (self is
///                                                         its first positional input)
///   an in-place X_[.<ovl>]                             -> X[.<ovl>] in its namespace, else the
///                                                         function's (torch.Tensor.acos_ -> torch.acos)
///   a dunder __iX__                                    -> X_ in its namespace
/// An in-place overload that borrows an out-of-place operator's samples
/// drops those where the operator's result has more elements than self (self
/// would have to broadcast, which an in-place call refuses, as in PyTorch):
/// addmm_ runs addmm's samples whose `self` is already the product's shape.
/// With no samples along the chain, one is made from the schema of the
/// chain's last overload.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "wick/dispatch_key.h"
#include "wick/dispatcher.h"
#include "wick/export.h"
#include "wick/tensor.h"
#include "wick/value.h"

namespace wick {

/// One argument of a sample (Note [Sample syntax]).
struct SampleTensor {
  /// What the tensor is for: kInput T[...], kRandom R[...], kPositive P[...], kUniform U[...], kMask M[...], kComplex
  /// C[...].
  enum class Kind : std::uint8_t { kInput, kRandom, kPositive, kUniform, kMask, kComplex };
  Kind kind = Kind::kInput;         ///< which spelling it came from (default an input, T[...])
  std::vector<std::int64_t> shape;  ///< its shape (empty: 0-dim)
  bool requires_grad = false;       ///< G[...]: an input that requires grad in every check
  bool float64 = false;  ///< D[...]: an input in float64 (complex128 for a complex check) whatever the check's dtype
};
/// A list of input tensors, `[T[2], T[3]]` (a Tensor[] argument).
struct SampleTensorList {
  std::vector<std::vector<std::int64_t>> shapes;  ///< every one an input
};
/// One sample argument: a tensor to make, a list of input tensors, or a plain value (number, string, list, dtype, ...).
using SampleArg = std::variant<SampleTensor, SampleTensorList, Value>;

/// A parsed sample (parse_sample): an argument list as Python writes it.
struct Sample {
  std::vector<SampleArg> args;                            ///< the positional arguments
  std::vector<std::pair<std::string, SampleArg>> kwargs;  ///< the keyword arguments, in the order written
  std::string text;                                       ///< as written
};

/// Parses a sample; ValueError naming the position and what was expected.
[[nodiscard]] WICK_API Sample parse_sample(std::string_view text);

/// A sample made concrete: the call's arguments and keywords, and its input
/// tensors in order (the ones the autograd check differentiates).
struct SampleCall {
  std::vector<Value> args;     ///< the positional arguments
  Kwargs kwargs;               ///< the keyword arguments
  std::vector<Tensor> inputs;  ///< the input tensors, in argument order
};

/// Where a sample's inputs are drawn from, as the operator's `domain=` tag says.
/// kAboveOne: [1.2, 2.2), where acosh is defined. kInvertible: as
/// kAwayFromZero, plus 2n times the identity on each square matrix of n rows:
/// diagonally dominant with a positive diagonal, so invertible, well
/// conditioned and of positive determinant (solve, inv, det, logdet).
/// kHermitian: each square matrix symmetric, (X + X^T) / 2 (eigh); kSpd: that
/// plus 2n times the identity, positive-definite (cholesky). In these two the
/// autograd check differentiates the operator of the symmetric part of its
/// first input, as the operator reads one triangle.
enum class SampleDomain : std::uint8_t {
  kAwayFromZero,
  kPositive,
  kInsideUnit,
  kProbability,
  kAboveOne,
  kInvertible,
  kHermitian,
  kSpd,
};

/// Makes the tensors of `s`: inputs in `dtype` (int64 inputs are 1..3, bool
/// random) drawn in `domain`, on `device`; fixed tensors (L[...], B[...])
/// on `device` too.
[[nodiscard]] WICK_API SampleCall make_sample_call(const Sample& s, ScalarType dtype, Device device,
                                                   SampleDomain domain = SampleDomain::kAwayFromZero);
/// The same call with every tensor (inputs and fixed ones) moved to `device`.
[[nodiscard]] WICK_API SampleCall sample_call_on(const SampleCall& call, Device device);

/// The samples of overload `full_name`: its definition's, or those it
/// borrows (Note [Sample lookup]), or one generated from a schema (tensors
/// (2, 3), (3), (2, 1), numbers 1.5; empty when the schema has arguments it
/// cannot fill). ValueError for an unknown operator or a sample that does
/// not parse.
[[nodiscard]] WICK_API std::vector<Sample> samples_for(std::string_view full_name);
/// The tags that apply to overload `full_name`: its definition's, or those
/// it borrows (Note [Sample lookup]).
[[nodiscard]] WICK_API std::vector<std::string> tags_for(std::string_view full_name);
/// `full_name` followed by the overloads it borrows samples and tags from,
/// nearest first (Note [Sample lookup]): torch.Tensor.__ipow__,
/// torch.Tensor.pow_, torch.Tensor.pow, torch.pow.
[[nodiscard]] WICK_API std::vector<std::string> sample_lookup_chain(std::string_view full_name);

/// The outcome of one check.
enum class CheckStatus : std::uint8_t { kPassed, kFailed, kSkipped };

/// One check of one operator overload.
struct CheckResult {
  std::string op;                             ///< "torch.add.out"
  std::string check;                          ///< "schema", "aliasing", "meta", "autograd", or "backend"
  CheckStatus status = CheckStatus::kPassed;  ///< passed, failed, or skipped (not applicable, or no kernel to check)
  std::string message;                        ///< why it failed or was skipped
};

/// The checks of `wick opcheck`, for overload `op` ("torch.add.out") or, for
/// a qualified name ("torch.add"), every overload:
///   schema    the schema parses and prints back identically;
///   aliasing  on the CPU, a call mutates exactly the arguments marked
///             `(a!)` (their version counters move, the others' values and
///             versions do not; an optional one, `Tensor(a!)?`, may stay
///             untouched: batch_norm's running statistics outside training),
///             returns the out= / in-place argument itself, and returns a
///             view of an argument where, and only where, the schema says
///             so (`Tensor(a)`, every tensor of a `Tensor(a)[]`; the
///             `may_alias` tag relaxes this, Note [Sample syntax]);
///   meta      the same call on meta tensors gives the CPU result's sizes,
///             strides and dtypes (the meta function agrees with the kernel);
///   autograd  a differentiable floating operator has an autograd formula
///             (or is composite) and passes gradcheck, forward-mode
///             gradcheck and gradgradcheck in float64.
/// Each overload first reseeds the default generator from its name, so its
/// inputs do not depend on what ran before. ValueError for an unknown operator.
[[nodiscard]] WICK_API std::vector<CheckResult> opcheck(std::string_view op);

/// `wick test-backend`: every operator that has a kernel at `key` (the
/// backend of a plugin) runs its samples on the CPU and on the backend's
/// device; the results' values (within float tolerance), dtypes and sizes
/// must agree, and so must errors (type and text). A sample that throws on
/// one side only is a failure. Operators without a kernel at `key`, and
/// samples the CPU cannot run either way, are skipped.
[[nodiscard]] WICK_API std::vector<CheckResult> test_backend(DispatchKey key);

}  // namespace wick
