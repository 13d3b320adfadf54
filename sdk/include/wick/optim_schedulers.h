// wick/optim_schedulers.h - learning-rate schedulers (torch.optim.lr_scheduler 1.13).
/// \file
/// A scheduler changes its optimizer's per-group learning rates; call its
/// step() after the optimizer's:
///
///   wick::optim::SGD opt(net->parameters(), {.lr = 0.1, .momentum = 0.9});
///   wick::optim::StepLR sched(opt, /*step_size=*/30, /*gamma=*/0.1);
///   for (int epoch = 0; epoch < 100; ++epoch) {
///     train(net, opt);
///     sched.step();
///   }
///   sched.get_last_lr();   // one lr per group
///
/// As in PyTorch, constructing a scheduler with last_epoch = -1 stores each
/// group's lr as its "initial_lr" (unless the group has one) and takes the
/// first step (last_epoch becomes 0). With another last_epoch (resuming),
/// every group must already have "initial_lr" (IndexError, PyTorch's
/// KeyError text, otherwise). The scheduler keeps a reference to the
/// optimizer, which must outlive it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "wick/export.h"
#include "wick/optim.h"

namespace wick::optim {

/// The base of the epoch-driven schedulers (PyTorch's _LRScheduler).
class WICK_API LRScheduler {
 public:
  virtual ~LRScheduler();
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  /// Advances one epoch and sets every group's lr.
  void step();
  /// Jumps to `epoch` (PyTorch's deprecated step(epoch)): the closed form
  /// where the scheduler has one, else the recursive rule.
  void step(std::int64_t epoch);
  /// The lrs the last step set, one per group.
  [[nodiscard]] const std::vector<double>& get_last_lr() const noexcept { return last_lr_; }
  /// Each group's "initial_lr" when the scheduler was made, the lrs the schedule starts from.
  [[nodiscard]] const std::vector<double>& base_lrs() const noexcept { return base_lrs_; }
  /// The epoch of the last step (0 after construction with last_epoch = -1).
  [[nodiscard]] std::int64_t last_epoch() const noexcept { return last_epoch_; }

 protected:
  /// Records the base lrs: with last_epoch = -1, stores each group's lr as "initial_lr" where missing;
  /// otherwise IndexError when a group has no "initial_lr". Does not step (see initial_step()).
  LRScheduler(Optimizer& optimizer, std::int64_t last_epoch);
  /// The first step; each constructor calls it last (get_lr is virtual).
  void initial_step();
  /// The lrs for last_epoch_ (PyTorch's get_lr; may read the groups' current lrs).
  [[nodiscard]] virtual std::vector<double> get_lr() = 0;
  /// The lrs for last_epoch_ from base_lrs alone, where the schedule has a closed form.
  [[nodiscard]] virtual std::optional<std::vector<double>> closed_form_lr() const { return std::nullopt; }
  /// Every group's current lr.
  [[nodiscard]] std::vector<double> group_lrs() const;

  Optimizer& optimizer_;          ///< the scheduled optimizer (not owned; must outlive the scheduler)
  std::int64_t last_epoch_;       ///< the epoch of the last step
  std::int64_t step_count_ = 0;   ///< steps taken, the initial one included
  std::vector<double> base_lrs_;  ///< each group's "initial_lr"
  std::vector<double> last_lr_;   ///< the lrs after the last step, one per group

 private:
  void apply(const std::vector<double>& lrs);
};

/// lr = base_lr * lr_lambda(epoch), one function for all groups or one per
/// group (ValueError "Expected 2 lr_lambdas, but got 1").
class WICK_API LambdaLR final : public LRScheduler {
 public:
  /// The factor applied to the base lr at an epoch.
  using Lambda = std::function<double(std::int64_t)>;
  /// One `lr_lambda` for every group; takes the first step. IndexError when resuming (last_epoch != -1)
  /// and a group has no "initial_lr".
  LambdaLR(Optimizer& optimizer, Lambda lr_lambda, std::int64_t last_epoch = -1);
  /// One lambda per group: ValueError "Expected 2 lr_lambdas, but got 1" when the counts differ; else
  /// as above.
  LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, std::int64_t last_epoch = -1);

 private:
  std::vector<double> get_lr() override;
  std::vector<Lambda> lambdas_;
};

/// lr *= gamma every step_size epochs.
class WICK_API StepLR final : public LRScheduler {
 public:
  /// Decays by `gamma` (default 0.1) every `step_size` epochs; takes the first step. ValueError when
  /// step_size <= 0; IndexError when resuming and a group has no "initial_lr".
  StepLR(Optimizer& optimizer, std::int64_t step_size, double gamma = 0.1, std::int64_t last_epoch = -1);

 private:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  std::int64_t step_size_;
  double gamma_;
};

/// lr *= gamma at each milestone (a milestone listed k times multiplies by gamma^k).
class WICK_API MultiStepLR final : public LRScheduler {
 public:
  /// Decays by `gamma` (default 0.1) at each of `milestones` (any order); takes the first step.
  /// IndexError when resuming and a group has no "initial_lr".
  MultiStepLR(Optimizer& optimizer, std::vector<std::int64_t> milestones, double gamma = 0.1,
              std::int64_t last_epoch = -1);

 private:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  std::vector<std::int64_t> milestones_;  // sorted
  double gamma_;
};

/// lr *= gamma every epoch.
class WICK_API ExponentialLR final : public LRScheduler {
 public:
  /// Decays by `gamma` every epoch; takes the first step. IndexError when resuming and a group has no
  /// "initial_lr".
  ExponentialLR(Optimizer& optimizer, double gamma, std::int64_t last_epoch = -1);

 private:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  double gamma_;
};

/// Cosine annealing from the initial lr to eta_min over T_max epochs, in
/// PyTorch 1.13's recursive form (so lr changes made outside the scheduler
/// carry over), rising again after T_max.
class WICK_API CosineAnnealingLR final : public LRScheduler {
 public:
  /// Half a cosine period of `t_max` epochs (PyTorch's T_max) down to `eta_min` (default 0); takes the
  /// first step. ValueError when t_max <= 0; IndexError when resuming and a group has no "initial_lr".
  CosineAnnealingLR(Optimizer& optimizer, std::int64_t t_max, double eta_min = 0, std::int64_t last_epoch = -1);

 private:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  std::int64_t t_max_;
  double eta_min_;
};

/// torch.optim.lr_scheduler.OneCycleLR's arguments. `max_lr` holds one
/// value for all groups or one per group; set total_steps, or epochs and
/// steps_per_epoch.
struct OneCycleLROptions {
  /// The peak lr, one value or one per group (ValueError "expected 2 values for max_lr, got 3" otherwise).
  std::vector<double> max_lr;
  /// Steps in the cycle (unset by default: epochs * steps_per_epoch); ValueError unless > 0.
  std::optional<std::int64_t> total_steps = std::nullopt;
  /// Epochs, used with steps_per_epoch when total_steps is unset (ValueError unless > 0).
  std::optional<std::int64_t> epochs = std::nullopt;
  /// Steps per epoch, used with epochs when total_steps is unset (ValueError unless > 0).
  std::optional<std::int64_t> steps_per_epoch = std::nullopt;
  double pct_start = 0.3;  ///< fraction of the cycle spent raising the lr (default 0.3); ValueError unless in [0, 1]
  std::string anneal_strategy = "cos";  ///< "cos" or "linear"
  bool cycle_momentum = true;           ///< cycle the momentum inversely to the lr (default true)
  double base_momentum = 0.85;          ///< the momentum at the lr's peak (default 0.85)
  double max_momentum = 0.95;           ///< the momentum at the cycle's ends (default 0.95)
  double div_factor = 25.;              ///< initial_lr = max_lr / div_factor (default 25)
  double final_div_factor = 1e4;        ///< min_lr = initial_lr / final_div_factor (default 1e4)
  bool three_phase = false;             ///< add a phase back to initial_lr before the final annealing (default false)
  std::int64_t last_epoch = -1;         ///< the step to resume after (default -1: start a new cycle)
};

/// The 1cycle policy: lr rises from max_lr / div_factor to max_lr over
/// pct_start of the steps, then anneals to initial_lr / final_div_factor
/// (three_phase: back to the initial lr first); with cycle_momentum the
/// momentum (SGD's momentum, or beta1 of the Adam family) moves inversely
/// between max_momentum and base_momentum. Stores "initial_lr", "max_lr",
/// "min_lr" (and "max_momentum", "base_momentum") in each group. ValueError
/// with PyTorch's texts for invalid arguments, an optimizer without momentum
/// when cycle_momentum, and stepping past total_steps ("Tried to step 11
/// times. The specified number of total steps is 10").
class WICK_API OneCycleLR final : public LRScheduler {
 public:
  /// Checks `options` and stores the group values, then takes the first step. ValueError for invalid
  /// options, or when cycle_momentum and the optimizer has neither "momentum" nor "betas".
  OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& options);
  /// The number of steps in the cycle (total_steps, or epochs * steps_per_epoch).
  [[nodiscard]] std::int64_t total_steps() const noexcept { return total_steps_; }

 private:
  struct Phase {
    double end_step;
    const char* start_lr;
    const char* end_lr;
    const char* start_momentum;
    const char* end_momentum;
  };
  std::vector<double> get_lr() override;
  [[nodiscard]] double anneal(double start, double end, double pct) const;
  std::int64_t total_steps_ = 0;
  std::vector<Phase> phases_;
  bool cos_ = true;
  bool cycle_momentum_ = true;
  bool use_beta1_ = false;
};

/// torch.optim.lr_scheduler.ReduceLROnPlateau's arguments. `min_lr` holds
/// one value for all groups or one per group.
struct ReduceLROnPlateauOptions {
  std::string mode = "min";            ///< "min" or "max"
  double factor = 0.1;                 ///< multiplier of the lr on a plateau (default 0.1); ValueError unless < 1
  std::int64_t patience = 10;          ///< bad epochs tolerated before reducing (default 10)
  double threshold = 1e-4;             ///< minimum improvement that counts (default 1e-4)
  std::string threshold_mode = "rel";  ///< "rel" or "abs"
  std::int64_t cooldown = 0;           ///< epochs to wait after a reduction (default 0)
  std::vector<double> min_lr = {0};    ///< lower bound of the lrs (default {0}); ValueError for a wrong count
  double eps = 1e-8;                   ///< a reduction smaller than this is skipped (default 1e-8)
};

/// Multiplies the lrs by `factor` when the metric passed to step() has not
/// improved (by threshold, relative or absolute) for more than `patience`
/// steps, then waits `cooldown` steps; lrs stop at min_lr, and a change
/// smaller than eps is skipped. ValueError: "Factor should be < 1.0.",
/// "expected 2 min_lrs, got 1", "mode foo is unknown!", "threshold mode foo
/// is unknown!".
class WICK_API ReduceLROnPlateau final {
 public:
  /// Schedules `optimizer` (which must outlive the scheduler); takes no step. ValueError as above.
  ReduceLROnPlateau(Optimizer& optimizer, ReduceLROnPlateauOptions options = {});

  /// One epoch with its metric (e.g. the validation loss).
  void step(double metric);
  /// The lrs after the last step (empty before the first).
  [[nodiscard]] const std::vector<double>& get_last_lr() const noexcept { return last_lr_; }
  /// The number of step() calls so far.
  [[nodiscard]] std::int64_t last_epoch() const noexcept { return last_epoch_; }
  /// The best metric seen (+inf in "min" mode, -inf in "max" mode before the first step).
  [[nodiscard]] double best() const noexcept { return best_; }
  /// Consecutive steps without improvement since the last reduction or improvement.
  [[nodiscard]] std::int64_t num_bad_epochs() const noexcept { return num_bad_epochs_; }
  /// Cooldown steps left before bad epochs count again.
  [[nodiscard]] std::int64_t cooldown_counter() const noexcept { return cooldown_counter_; }

 private:
  [[nodiscard]] bool is_better(double a, double best) const;

  Optimizer& optimizer_;
  ReduceLROnPlateauOptions options_;
  std::vector<double> min_lrs_;
  double best_;
  std::int64_t num_bad_epochs_ = 0;
  std::int64_t cooldown_counter_ = 0;
  std::int64_t last_epoch_ = 0;
  std::vector<double> last_lr_;
};

}  // namespace wick::optim
