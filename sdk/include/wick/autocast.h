// wick/autocast.h - automatic mixed precision: the Autocast dispatch key.
/// \file
/// Inside an `AutocastGuard`, the operators autocast covers cast their
/// floating inputs before they run: matrix products and convolutions to the
/// lower precision (bfloat16 on the CPU, float16 on CUDA, by default), and
/// the operators that need float32's range (losses, softmax, exp, log, sums
/// on CUDA) to float32. The casts happen at the `Autocast` key, above
/// `Autograd`, so autograd records them and gradients flow back in each
/// input's own dtype.
///
///   {
///     wick::autocast::AutocastGuard amp(wick::DeviceType::kCPU);   // bfloat16
///     Tensor y = wick::mm(a, b);                // computed in bfloat16
///     Tensor l = wick::nn::functional::mse_loss(y, t);  // in float32
///   }
///
/// Note [Autocast]
/// As PyTorch 1.13's autocast: a tensor argument is cast when it is a
/// floating tensor on the autocast device, and not float64; a call with an
/// explicit `dtype=` is left alone; the operator runs with the Autocast key
/// excluded, so the operators it calls are not cast again. The policy lists
/// are PyTorch 1.13's, restricted to the operators wick has (`policy()`).
/// The guard is thread-local and nests; leaving it restores the outer state.
/// A plugin gives its own operator a policy by registering `kernel(policy)`
/// at `DispatchKey::kAutocast`:
///
///   registrar.library("myops", wick::DispatchKey::kAutocast)
///       .impl_boxed("fused_matmul", wick::autocast::kernel(wick::autocast::CastPolicy::kLowerPrecision));
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "wick/device.h"
#include "wick/dispatcher.h"
#include "wick/dtype.h"
#include "wick/export.h"

namespace wick::autocast {

/// What autocast does with an operator's floating inputs.
enum class CastPolicy : std::uint8_t {
  kLowerPrecision = 0,  ///< to the autocast dtype (matmul, conv, linear)
  kFloat32 = 1,         ///< to float32 (losses, softmax, exp, log, ...)
  kPromote = 2,         ///< to the widest floating dtype among them (dot, atan2)
  // 3..15 reserved
};

/// Enables (or, with enabled = false, disables) autocast for `device` (CPU
/// or CUDA) in this thread for the guard's scope. `dtype`: float16 or
/// bfloat16 (default: bfloat16 on the CPU, float16 on CUDA). ValueError for
/// another device or dtype.
class WICK_API AutocastGuard final {
 public:
  /// Enters (or leaves) autocast for `device` with `dtype` until destruction, which restores the previous state; ValueError as the class says.
  explicit AutocastGuard(DeviceType device, std::optional<ScalarType> dtype = std::nullopt, bool enabled = true);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  DeviceType device_;
  bool was_enabled_;
  ScalarType was_dtype_;
};

/// Whether autocast is on for `device` in this thread (torch.is_autocast_enabled).
[[nodiscard]] WICK_API bool is_enabled(DeviceType device) noexcept;
/// The lower-precision dtype autocast uses for `device` in this thread.
[[nodiscard]] WICK_API ScalarType dtype(DeviceType device) noexcept;
/// The built-in policy of operator `op` ("torch.mm") on `device`, or
/// std::nullopt when autocast leaves it alone there.
[[nodiscard]] WICK_API std::optional<CastPolicy> policy(std::string_view op, DeviceType device);
/// The boxed Autocast kernel applying `policy` on every device: register it
/// for an operator at DispatchKey::kAutocast (Note [Autocast]).
[[nodiscard]] WICK_API std::shared_ptr<BoxedFunctor> kernel(CastPolicy policy);

}  // namespace wick::autocast
