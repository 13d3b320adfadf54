// wick/optim_algorithms.h - Adam, AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam and LBFGS.
/// \file
/// The optimizers of torch.optim 1.13 beyond SGD, on the base in wick/optim.h
/// (include that header; it includes this one). Each has an options struct
/// with PyTorch's names and defaults and the same constructors:
///
///   wick::optim::Adam opt(net->parameters(), {.lr = 1e-3, .weight_decay = 1e-4, .amsgrad = true});
///   wick::optim::RMSprop rms(net->parameters(), {.momentum = 0.9, .centered = true});
///   wick::optim::LBFGS lbfgs(net->parameters(), {.line_search_fn = "strong_wolfe"});
///   lbfgs.step([&] { lbfgs.zero_grad(); Tensor l = loss(net); l.backward(); return l; });
///
/// Each update is PyTorch's single-tensor (non-foreach) formula, computed in
/// the parameter's dtype; "t" below is the parameter's step count and g its
/// gradient (with weight_decay * p added when weight_decay != 0, and negated
/// first when maximize). Parameters without a gradient are skipped.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wick/export.h"
#include "wick/optim.h"
#include "wick/tensor.h"

namespace wick::optim {

/// Hyper-parameters of Adam (the names and defaults of torch.optim.Adam).
struct AdamOptions {
  double lr = 1e-3;  ///< learning rate (default 1e-3); ValueError if < 0
  /// Running-average coefficients of g and g^2 (default {0.9, 0.999}); ValueError unless in [0, 1).
  std::array<double, 2> betas = {0.9, 0.999};
  double eps = 1e-8;        ///< added to the denominator (default 1e-8); ValueError if < 0
  double weight_decay = 0;  ///< L2 penalty added to the gradient (default 0); ValueError if < 0
  bool amsgrad = false;     ///< use the maximum of past squared averages, AMSGrad (default false)
  bool maximize = false;    ///< maximize the objective instead of minimizing it (default false)

  /// Calls f(name, field) for each option, in declaration order (the by-name access of Optimizer).
  template <class F>
  void for_each_field(F&& f) {
    f("lr", lr);
    f("betas", betas);
    f("eps", eps);
    f("weight_decay", weight_decay);
    f("amsgrad", amsgrad);
    f("maximize", maximize);
  }
};
/// ValueError, as torch.optim.Adam: "Invalid learning rate: ...", "Invalid epsilon value: ...", "Invalid beta parameter
/// at index 0: ..." (and 1), "Invalid weight_decay value: ...".
WICK_API void check_options(const AdamOptions& options);

/// torch.optim.Adam (single-tensor path): m = beta1 m + (1 - beta1) g;  v = beta2 v + (1 - beta2) g^2 (g with weight
/// decay added,
///   negated when maximize); p -= lr / (1 - beta1^t) * m / (sqrt(v_or_max_v) / sqrt(1 - beta2^t) + eps).
/// State: step, "exp_avg", "exp_avg_sq", "max_exp_avg_sq" (amsgrad).
class WICK_API Adam final : public OptimizerWith<AdamOptions> {
 public:
  /// ValueError: check_options's, then as SGD's constructor.
  using OptimizerWith::OptimizerWith;

 private:
  void update() override;
};

/// Hyper-parameters of AdamW (the names and defaults of torch.optim.AdamW).
struct AdamWOptions {
  double lr = 1e-3;  ///< learning rate (default 1e-3); ValueError if < 0
  /// Running-average coefficients of g and g^2 (default {0.9, 0.999}); ValueError unless in [0, 1).
  std::array<double, 2> betas = {0.9, 0.999};
  double eps = 1e-8;           ///< added to the denominator (default 1e-8); ValueError if < 0
  double weight_decay = 1e-2;  ///< decoupled weight decay factor (default 1e-2); ValueError if < 0
  bool amsgrad = false;        ///< use the maximum of past squared averages, AMSGrad (default false)
  bool maximize = false;       ///< maximize the objective instead of minimizing it (default false)

  /// Calls f(name, field) for each option, in declaration order (the by-name access of Optimizer).
  template <class F>
  void for_each_field(F&& f) {
    f("lr", lr);
    f("betas", betas);
    f("eps", eps);
    f("weight_decay", weight_decay);
    f("amsgrad", amsgrad);
    f("maximize", maximize);
  }
};
/// ValueError, as torch.optim.AdamW: Adam's.
WICK_API void check_options(const AdamWOptions& options);

/// torch.optim.AdamW (single-tensor path): Adam with decoupled weight decay: p *= 1 - lr * weight_decay, then Adam's
/// update
///   without weight decay in the gradient. State as Adam.
class WICK_API AdamW final : public OptimizerWith<AdamWOptions> {
 public:
  /// ValueError: check_options's, then as SGD's constructor.
  using OptimizerWith::OptimizerWith;

 private:
  void update() override;
};

/// Hyper-parameters of RMSprop (the names and defaults of torch.optim.RMSprop).
struct RMSpropOptions {
  double lr = 1e-2;         ///< learning rate (default 1e-2); ValueError if < 0
  double alpha = 0.99;      ///< smoothing constant of the squared average (default 0.99); ValueError if < 0
  double eps = 1e-8;        ///< added to the denominator (default 1e-8); ValueError if < 0
  double weight_decay = 0;  ///< L2 penalty added to the gradient (default 0); ValueError if < 0
  double momentum = 0;      ///< momentum factor (default 0: none); ValueError if < 0
  bool centered = false;    ///< normalize by the estimated variance of the gradient (default false)
  bool maximize = false;    ///< maximize the objective instead of minimizing it (default false)

  /// Calls f(name, field) for each option, in declaration order (the by-name access of Optimizer).
  template <class F>
  void for_each_field(F&& f) {
    f("lr", lr);
    f("alpha", alpha);
    f("eps", eps);
    f("weight_decay", weight_decay);
    f("momentum", momentum);
    f("centered", centered);
    f("maximize", maximize);
  }
};
/// ValueError, as torch.optim.RMSprop: "Invalid learning rate: ...", "Invalid epsilon value: ...", "Invalid momentum
/// value: ...", "Invalid weight_decay value: ...", "Invalid alpha value: ...".
WICK_API void check_options(const RMSpropOptions& options);

/// torch.optim.RMSprop (single-tensor path): sq = alpha sq + (1 - alpha) g^2; avg = sqrt(sq - ga^2) (centered, ga =
/// alpha ga + (1 - alpha) g)
///   or sqrt(sq), plus eps; with momentum buf = momentum buf + g / avg, p -= lr buf, else
///   p -= lr g / avg. State: step, "square_avg", "momentum_buffer", "grad_avg".
class WICK_API RMSprop final : public OptimizerWith<RMSpropOptions> {
 public:
  /// ValueError: check_options's, then as SGD's constructor.
  using OptimizerWith::OptimizerWith;

 private:
  void update() override;
};

/// Hyper-parameters of Adagrad (the names and defaults of torch.optim.Adagrad).
struct AdagradOptions {
  double lr = 1e-2;                      ///< learning rate (default 1e-2); ValueError if < 0
  double lr_decay = 0;                   ///< learning-rate decay per step (default 0); ValueError if < 0
  double weight_decay = 0;               ///< L2 penalty added to the gradient (default 0); ValueError if < 0
  double initial_accumulator_value = 0;  ///< starting value of the "sum" state (default 0); ValueError if < 0
  double eps = 1e-10;                    ///< added to the denominator (default 1e-10); ValueError if < 0
  bool maximize = false;                 ///< maximize the objective instead of minimizing it (default false)

  /// Calls f(name, field) for each option, in declaration order (the by-name access of Optimizer).
  template <class F>
  void for_each_field(F&& f) {
    f("lr", lr);
    f("lr_decay", lr_decay);
    f("weight_decay", weight_decay);
    f("initial_accumulator_value", initial_accumulator_value);
    f("eps", eps);
    f("maximize", maximize);
  }
};
/// ValueError, as torch.optim.Adagrad: "Invalid learning rate: ...", "Invalid lr_decay value: ...", "Invalid
/// weight_decay value: ...", "Invalid initial_accumulator_value value: ...", "Invalid epsilon value: ...".
WICK_API void check_options(const AdagradOptions& options);

/// torch.optim.Adagrad (single-tensor path): sum += g^2; p -= lr / (1 + (t - 1) lr_decay) * g / (sqrt(sum) + eps).
/// State (created by the
///   constructor): step, "sum".
class WICK_API Adagrad final : public OptimizerWith<AdagradOptions> {
 public:
  /// ValueError: check_options's, then as SGD's constructor.
  explicit Adagrad(std::vector<Tensor> params, AdagradOptions options = {});
  /// Parameter groups written inline; their missing options come from `options`. Errors as above.
  Adagrad(std::initializer_list<ParamGroupSpec> groups, AdagradOptions options = {});
  /// Parameter groups whose missing options come from `options`. Errors as above, TypeError for an
  /// option of the wrong kind.
  Adagrad(std::vector<ParamGroupSpec> groups, AdagradOptions options = {});

 private:
  void create_state();
  void update() override;
};

/// Hyper-parameters of Adadelta (the names and defaults of torch.optim.Adadelta).
struct AdadeltaOptions {
  double lr = 1.0;          ///< factor applied to the delta (default 1.0); ValueError if < 0
  double rho = 0.9;         ///< coefficient of the running averages (default 0.9); ValueError unless in [0, 1]
  double eps = 1e-6;        ///< added inside the square roots (default 1e-6); ValueError if < 0
  double weight_decay = 0;  ///< L2 penalty added to the gradient (default 0); ValueError if < 0
  bool maximize = false;    ///< maximize the objective instead of minimizing it (default false)

  /// Calls f(name, field) for each option, in declaration order (the by-name access of Optimizer).
  template <class F>
  void for_each_field(F&& f) {
    f("lr", lr);
    f("rho", rho);
    f("eps", eps);
    f("weight_decay", weight_decay);
    f("maximize", maximize);
  }
};
/// ValueError, as torch.optim.Adadelta: "Invalid learning rate: ...", "Invalid rho value: ...", "Invalid epsilon value:
/// ...", "Invalid weight_decay value: ...".
WICK_API void check_options(const AdadeltaOptions& options);

/// torch.optim.Adadelta (single-tensor path): sq = rho sq + (1 - rho) g^2; delta = sqrt(acc + eps) / sqrt(sq + eps) *
/// g;
///   acc = rho acc + (1 - rho) delta^2; p -= lr delta. State: step, "square_avg", "acc_delta".
class WICK_API Adadelta final : public OptimizerWith<AdadeltaOptions> {
 public:
  /// ValueError: check_options's, then as SGD's constructor.
  using OptimizerWith::OptimizerWith;

 private:
  void update() override;
};

/// Hyper-parameters of Adamax (the names and defaults of torch.optim.Adamax).
struct AdamaxOptions {
  double lr = 2e-3;  ///< learning rate (default 2e-3); ValueError if < 0
  /// Coefficients of the average and the infinity norm (default {0.9, 0.999}); ValueError unless in [0, 1).
  std::array<double, 2> betas = {0.9, 0.999};
  double eps = 1e-8;        ///< added to |g| (default 1e-8); ValueError if < 0
  double weight_decay = 0;  ///< L2 penalty added to the gradient (default 0); ValueError if < 0
  bool maximize = false;    ///< maximize the objective instead of minimizing it (default false)

  /// Calls f(name, field) for each option, in declaration order (the by-name access of Optimizer).
  template <class F>
  void for_each_field(F&& f) {
    f("lr", lr);
    f("betas", betas);
    f("eps", eps);
    f("weight_decay", weight_decay);
    f("maximize", maximize);
  }
};
/// ValueError, as torch.optim.Adamax: Adam's.
WICK_API void check_options(const AdamaxOptions& options);

/// torch.optim.Adamax (single-tensor path): m = beta1 m + (1 - beta1) g; u = max(beta2 u, |g| + eps); p -= lr / (1 -
/// beta1^t) * m / u. State: step, "exp_avg", "exp_inf".
class WICK_API Adamax final : public OptimizerWith<AdamaxOptions> {
 public:
  /// ValueError: check_options's, then as SGD's constructor.
  using OptimizerWith::OptimizerWith;

 private:
  void update() override;
};

/// Hyper-parameters of NAdam (the names and defaults of torch.optim.NAdam).
struct NAdamOptions {
  double lr = 2e-3;  ///< learning rate (default 2e-3); ValueError if < 0
  /// Running-average coefficients of g and g^2 (default {0.9, 0.999}); ValueError unless in [0, 1).
  std::array<double, 2> betas = {0.9, 0.999};
  double eps = 1e-8;             ///< added to the denominator (default 1e-8); ValueError if < 0
  double weight_decay = 0;       ///< L2 penalty added to the gradient (default 0); ValueError if < 0
  double momentum_decay = 4e-3;  ///< decay of the momentum schedule mu_t (default 4e-3); ValueError if < 0

  /// Calls f(name, field) for each option, in declaration order (the by-name access of Optimizer).
  template <class F>
  void for_each_field(F&& f) {
    f("lr", lr);
    f("betas", betas);
    f("eps", eps);
    f("weight_decay", weight_decay);
    f("momentum_decay", momentum_decay);
  }
};
/// ValueError, as torch.optim.NAdam: Adam's, and "Invalid momentum_decay value: ...".
WICK_API void check_options(const NAdamOptions& options);

/// torch.optim.NAdam (single-tensor path): Adam with Nesterov momentum and the momentum schedule mu_t = beta1 (1 - 0.5
/// * 0.96^(t momentum_decay)). State: step, "mu_product" (a float32 0-dim tensor, as PyTorch keeps it), "exp_avg",
/// "exp_avg_sq".
class WICK_API NAdam final : public OptimizerWith<NAdamOptions> {
 public:
  /// ValueError: check_options's, then as SGD's constructor.
  using OptimizerWith::OptimizerWith;

 private:
  void update() override;
};

/// Hyper-parameters of RAdam (the names and defaults of torch.optim.RAdam).
struct RAdamOptions {
  double lr = 1e-3;  ///< learning rate (default 1e-3); ValueError if < 0
  /// Running-average coefficients of g and g^2 (default {0.9, 0.999}); ValueError unless in [0, 1).
  std::array<double, 2> betas = {0.9, 0.999};
  double eps = 1e-8;        ///< added to the denominator (default 1e-8); ValueError if < 0
  double weight_decay = 0;  ///< L2 penalty added to the gradient (default 0); ValueError if < 0

  /// Calls f(name, field) for each option, in declaration order (the by-name access of Optimizer).
  template <class F>
  void for_each_field(F&& f) {
    f("lr", lr);
    f("betas", betas);
    f("eps", eps);
    f("weight_decay", weight_decay);
  }
};
/// ValueError, as torch.optim.RAdam: Adam's.
WICK_API void check_options(const RAdamOptions& options);

/// torch.optim.RAdam (single-tensor path): Adam whose adaptive term is used, rectified, only once the variance estimate
/// is
///   tractable (rho_t > 5); before that p -= lr m / (1 - beta1^t). State: step, "exp_avg", "exp_avg_sq".
class WICK_API RAdam final : public OptimizerWith<RAdamOptions> {
 public:
  /// ValueError: check_options's, then as SGD's constructor.
  using OptimizerWith::OptimizerWith;

 private:
  void update() override;
};
/// Hyper-parameters of LBFGS (the names and defaults of torch.optim.LBFGS
/// 1.13: tolerance_grad is 1e-7; max_eval unset means max_iter * 5 / 4, which
/// the constructor stores).
struct LBFGSOptions {
  double lr = 1;               ///< learning rate, the step length of the fixed step (default 1)
  std::int64_t max_iter = 20;  ///< iterations per step() (default 20)
  /// Closure evaluations per step() (default unset: max_iter * 5 / 4).
  std::optional<std::int64_t> max_eval = std::nullopt;
  double tolerance_grad = 1e-7;     ///< stop when the largest |gradient| is at most this (default 1e-7)
  double tolerance_change = 1e-9;   ///< stop when the loss or the step changes by less (default 1e-9)
  std::int64_t history_size = 100;  ///< number of past updates kept (default 100)
  std::optional<std::string> line_search_fn = std::nullopt;  ///< unset, or "strong_wolfe"

  /// Calls f(name, field) for each option, in declaration order (the by-name access of Optimizer).
  template <class F>
  void for_each_field(F&& f) {
    f("lr", lr);
    f("max_iter", max_iter);
    f("max_eval", max_eval);
    f("tolerance_grad", tolerance_grad);
    f("tolerance_change", tolerance_change);
    f("history_size", history_size);
    f("line_search_fn", line_search_fn);
  }
};
/// torch.optim.LBFGS checks nothing at construction (an unknown
/// line_search_fn fails in step()).
WICK_API void check_options(const LBFGSOptions& options);

/// torch.optim.LBFGS: limited-memory BFGS over all parameters flattened into
/// one vector, with a fixed step or the strong-Wolfe line search. One group
/// only. step() needs a closure that clears the gradients, computes the loss,
/// calls backward and returns the loss (TypeError "step() missing 1 required
/// positional argument: 'closure'" without one); it returns the first loss.
/// State (on the first parameter): "func_evals", "n_iter", "d", "t",
/// "old_dirs.<k>", "old_stps.<k>", "ro.<k>", "H_diag", "prev_flat_grad",
/// "prev_loss" (numbers as 0-dim float64 tensors).
class WICK_API LBFGS final : public OptimizerWith<LBFGSOptions, /*kCountsSteps=*/false> {
 public:
  /// ValueError: "optimizer got an empty parameter list", "LBFGS doesn't
  /// support per-parameter options (parameter groups)", as SGD's for the
  /// parameters.
  explicit LBFGS(std::vector<Tensor> params, LBFGSOptions options = {});
  /// Parameter groups written inline; exactly one is accepted. Errors as above.
  LBFGS(std::initializer_list<ParamGroupSpec> groups, LBFGSOptions options = {});
  /// Parameter groups; exactly one is accepted (ValueError "LBFGS doesn't support per-parameter
  /// options (parameter groups)" for more), the others' errors as above.
  LBFGS(std::vector<ParamGroupSpec> groups, LBFGSOptions options = {});

 private:
  void update() override;
  Tensor run_step(const Closure& closure) override;
  [[nodiscard]] bool state_has_param_shape(std::string_view name) const override;
};

}  // namespace wick::optim
