// wick/grad_scaler.h - loss scaling for mixed-precision training (torch.cuda.amp.GradScaler).
/// \file
/// Small float16 gradients underflow to zero. The scaler multiplies the loss
/// by a large factor before backward, divides the gradients by it before the
/// optimizer's step, skips the step when a gradient came out infinite or
/// NaN, and adapts the factor: halved after such a step, doubled after
/// `growth_interval` steps without one.
///
///   wick::autocast::GradScaler scaler;
///   for (...) {
///     opt.zero_grad();
///     Tensor loss;
///     {
///       wick::autocast::AutocastGuard amp(wick::DeviceType::kCUDA);
///       loss = loss_fn(net, batch);
///     }
///     scaler.scale(loss).backward();
///     scaler.step(opt);     // unscales, then opt.step() unless a gradient is inf or NaN
///     scaler.update();
///   }
#pragma once

#include <cstdint>
#include <vector>

#include "wick/export.h"
#include "wick/tensor.h"

namespace wick::autocast {

/// torch.cuda.amp.GradScaler's arguments and defaults.
struct GradScalerOptions {
  double init_scale = 65536.0;  ///< the first scale (default 2^16); ValueError unless > 0
  /// Scale multiplier after growth_interval finite steps (default 2); ValueError unless > 1.
  double growth_factor = 2.0;
  /// Scale multiplier after a step with inf/NaN gradients (default 0.5); ValueError unless in (0, 1).
  double backoff_factor = 0.5;
  /// Finite steps in a row before the scale grows (default 2000); ValueError unless >= 1.
  std::int64_t growth_interval = 2000;
  bool enabled = true;  ///< false: scale() and update() do nothing, step() just steps
};

/// Scales the loss and unscales the gradients for float16 training, skipping
/// the steps whose gradients overflowed (torch.cuda.amp.GradScaler).
class WICK_API GradScaler final {
 public:
  /// ValueError for a scale or factor that is not positive, a growth factor
  /// not above 1, a backoff factor not in (0, 1), a growth interval below 1.
  explicit GradScaler(GradScalerOptions options = {});

  /// loss * scale (recorded by autograd).
  [[nodiscard]] Tensor scale(const Tensor& loss) const;
  /// Divides each parameter's gradient by the scale, in place, and records
  /// whether any is infinite or NaN. At most once between two update()s
  /// (RuntimeError otherwise, as PyTorch); ValueError for float16 gradients
  /// ("Attempting to unscale FP16 gradients.").
  void unscale_(const std::vector<Tensor>& params);
  /// Unscales (unless unscale_ already ran) and runs opt.step() unless a
  /// gradient was infinite or NaN; returns whether it stepped.
  template <typename Optimizer>
  bool step(Optimizer& opt) {
    if (!options_.enabled) {
      opt.step();
      return true;
    }
    if (!unscaled_) unscale_(opt.params());
    if (found_inf_) return false;
    opt.step();
    return true;
  }
  /// The next scale: backoff_factor times it after inf or NaN gradients,
  /// growth_factor times it after growth_interval finite steps in a row.
  void update();

  /// The current scale (torch's get_scale()).
  [[nodiscard]] double get_scale() const noexcept { return scale_; }
  /// Whether the last unscale_ found an infinite or NaN gradient.
  [[nodiscard]] bool found_inf() const noexcept { return found_inf_; }
  /// The options given to the constructor.
  [[nodiscard]] const GradScalerOptions& options() const noexcept { return options_; }

 private:
  GradScalerOptions options_;
  double scale_;
  std::int64_t growth_tracker_ = 0;
  bool unscaled_ = false;
  bool found_inf_ = false;
};

}  // namespace wick::autocast
