// wick/forward_ad.h - forward-mode automatic differentiation: dual tensors and levels.
/// \file
/// Inside a `dual_level`, a dual tensor carries a tangent; every built-in
/// operator (and a custom Function's `jvp`) propagates tangents alongside its
/// result, so one forward pass gives a Jacobian-vector product.
///
///   namespace fwAD = wick::autograd::forward_ad;
///   fwAD::dual_level level;
///   Tensor x = fwAD::make_dual(primal, tangent);
///   auto [y, dy] = fwAD::unpack_dual(wick::sin(x));   // dy == cos(primal) * tangent
///
/// One level can be active at a time (nesting is a RuntimeError, as in
/// PyTorch 1.13). Tangents of a level are invisible once it exits.
#pragma once

#include <cstdint>

#include "wick/export.h"
#include "wick/tensor.h"

namespace wick::autograd::forward_ad {

/// Enters a new dual level for its lifetime (RAII).
class WICK_API dual_level final {  // NOLINT(readability-identifier-naming): PyTorch's name
 public:
  dual_level();
  ~dual_level();
  dual_level(const dual_level&) = delete;
  dual_level& operator=(const dual_level&) = delete;
  /// The level's id, unique in the process (levels do not nest: a second live one throws RuntimeError).
  [[nodiscard]] std::uint64_t id() const noexcept { return id_; }

 private:
  std::uint64_t id_;
};

/// A view of `primal` whose tangent is `tangent` (same shape; floating
/// dtype). RuntimeError outside a dual level or on a shape mismatch.
[[nodiscard]] WICK_API Tensor make_dual(const Tensor& primal, const Tensor& tangent);

/// What unpack_dual returns: the primal and its tangent at the current level.
struct UnpackedDual {
  Tensor primal;   ///< a view of the tensor without its tangent
  Tensor tangent;  ///< undefined when the tensor has none at this level
};
/// Splits a dual tensor into primal and tangent.
[[nodiscard]] WICK_API UnpackedDual unpack_dual(const Tensor& t);
/// The tangent of `t` at the current level (undefined when none).
[[nodiscard]] WICK_API Tensor tangent_of(const Tensor& t);
/// True while a dual level is active.
[[nodiscard]] WICK_API bool is_active() noexcept;

}  // namespace wick::autograd::forward_ad
