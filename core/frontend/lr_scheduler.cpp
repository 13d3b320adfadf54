// core/frontend/lr_scheduler.cpp - the learning-rate schedulers of wick/optim_schedulers.h.
/// \file
/// Each get_lr follows torch.optim.lr_scheduler 1.13, including its
/// recursive forms (StepLR, ExponentialLR and CosineAnnealingLR multiply or
/// adjust the group's current lr rather than recomputing it from base_lrs),
/// so values agree with PyTorch to rounding.
#include "wick/optim_schedulers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

#include "wick/checked.h"
#include "wick/error.h"
#include "wick/value.h"

namespace wick::optim {

// --- LRScheduler -----------------------------------------------------------------------------

LRScheduler::LRScheduler(Optimizer& optimizer, std::int64_t last_epoch)
    : optimizer_(optimizer), last_epoch_(last_epoch) {
  const std::size_t n = optimizer.param_group_count();
  if (last_epoch == -1) {
    for (std::size_t g = 0; g < n; ++g) {
      if (!optimizer.group_has(g, "initial_lr")) optimizer.set_option(g, "initial_lr", optimizer.lr(g));
    }
  } else {
    for (std::size_t g = 0; g < n; ++g) {
      WICK_CHECK(optimizer.group_has(g, "initial_lr"), IndexError,
                 "\"param 'initial_lr' is not specified in param_groups[", g, "] when resuming an optimizer\"");
    }
  }
  for (std::size_t g = 0; g < n; ++g) base_lrs_.push_back(optimizer.option(g, "initial_lr").to_double());
}

LRScheduler::~LRScheduler() = default;

void LRScheduler::initial_step() {
  step_count_ = 0;
  step();
}

std::vector<double> LRScheduler::group_lrs() const {
  std::vector<double> lrs;
  for (std::size_t g = 0; g < optimizer_.param_group_count(); ++g) lrs.push_back(optimizer_.lr(g));
  return lrs;
}

void LRScheduler::apply(const std::vector<double>& lrs) {
  for (std::size_t g = 0; g < lrs.size() && g < optimizer_.param_group_count(); ++g) optimizer_.set_lr(g, lrs[g]);
  last_lr_ = group_lrs();
}

void LRScheduler::step() {
  step_count_ += 1;
  last_epoch_ += 1;
  apply(get_lr());
}

void LRScheduler::step(std::int64_t epoch) {
  step_count_ += 1;
  last_epoch_ = epoch;
  std::optional<std::vector<double>> closed = closed_form_lr();
  apply(closed ? *closed : get_lr());
}

// --- LambdaLR --------------------------------------------------------------------------------

LambdaLR::LambdaLR(Optimizer& optimizer, Lambda lr_lambda, std::int64_t last_epoch)
    : LambdaLR(optimizer, std::vector<Lambda>(optimizer.param_group_count(), std::move(lr_lambda)), last_epoch) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<Lambda> lr_lambdas, std::int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), lambdas_(std::move(lr_lambdas)) {
  WICK_CHECK(lambdas_.size() == optimizer.param_group_count(), ValueError, "Expected ", optimizer.param_group_count(),
             " lr_lambdas, but got ", lambdas_.size());
  initial_step();
}

std::vector<double> LambdaLR::get_lr() {
  std::vector<double> lrs;
  for (std::size_t g = 0; g < base_lrs_.size(); ++g) lrs.push_back(base_lrs_[g] * lambdas_[g](last_epoch_));
  return lrs;
}

// --- StepLR, MultiStepLR, ExponentialLR ------------------------------------------------------

StepLR::StepLR(Optimizer& optimizer, std::int64_t step_size, double gamma, std::int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), step_size_(step_size), gamma_(gamma) {
  WICK_CHECK(step_size > 0, ValueError, "StepLR: step_size must be positive, got ", step_size);
  initial_step();
}

std::vector<double> StepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

std::optional<std::vector<double>> StepLR::closed_form_lr() const {
  // Python's // floors.
  const std::int64_t k = last_epoch_ >= 0 ? last_epoch_ / step_size_ : -((-last_epoch_ + step_size_ - 1) / step_size_);
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * std::pow(gamma_, static_cast<double>(k)));
  return lrs;
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<std::int64_t> milestones, double gamma,
                         std::int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), milestones_(std::move(milestones)), gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
  initial_step();
}

std::vector<double> MultiStepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  const auto count = std::count(milestones_.begin(), milestones_.end(), last_epoch_);
  if (count == 0) return lrs;
  for (double& lr : lrs) lr *= std::pow(gamma_, static_cast<double>(count));
  return lrs;
}

std::optional<std::vector<double>> MultiStepLR::closed_form_lr() const {
  const auto passed = std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin();
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * std::pow(gamma_, static_cast<double>(passed)));
  return lrs;
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma, std::int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), gamma_(gamma) {
  initial_step();
}

std::vector<double> ExponentialLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) return lrs;
  for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

std::optional<std::vector<double>> ExponentialLR::closed_form_lr() const {
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * std::pow(gamma_, static_cast<double>(last_epoch_)));
  return lrs;
}

// --- CosineAnnealingLR -----------------------------------------------------------------------

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, std::int64_t t_max, double eta_min, std::int64_t last_epoch)
    : LRScheduler(optimizer, last_epoch), t_max_(t_max), eta_min_(eta_min) {
  WICK_CHECK(t_max > 0, ValueError, "CosineAnnealingLR: T_max must be positive, got ", t_max);
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lr() {
  constexpr double kPi = std::numbers::pi;
  const auto epoch = static_cast<double>(last_epoch_);
  const auto t_max = static_cast<double>(t_max_);
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) return lrs;
  if (step_count_ == 1 && last_epoch_ > 0) {
    for (std::size_t g = 0; g < lrs.size(); ++g) {
      lrs[g] = eta_min_ + (base_lrs_[g] - eta_min_) * (1 + std::cos(epoch * kPi / t_max)) / 2;
    }
    return lrs;
  }
  // Python's % is non-negative for a positive divisor.
  const std::int64_t period = checked_mul(2, t_max_, "2 * T_max");
  if ((((last_epoch_ - 1 - t_max_) % period) + period) % period == 0) {
    for (std::size_t g = 0; g < lrs.size(); ++g) {
      lrs[g] = lrs[g] + (base_lrs_[g] - eta_min_) * (1 - std::cos(kPi / t_max)) / 2;
    }
    return lrs;
  }
  for (double& lr : lrs) {
    lr = (1 + std::cos(kPi * epoch / t_max)) / (1 + std::cos(kPi * (epoch - 1) / t_max)) * (lr - eta_min_) + eta_min_;
  }
  return lrs;
}

std::optional<std::vector<double>> CosineAnnealingLR::closed_form_lr() const {
  std::vector<double> lrs;
  for (double base : base_lrs_) {
    lrs.push_back(
        eta_min_ +
        (base - eta_min_) *
            (1 + std::cos(std::numbers::pi * static_cast<double>(last_epoch_) / static_cast<double>(t_max_))) / 2);
  }
  return lrs;
}

// --- OneCycleLR ------------------------------------------------------------------------------

namespace {
// One value per group from a list of one or of one per group (PyTorch's _format_param).
std::vector<double> per_group(const std::vector<double>& values, std::size_t groups, const char* name) {
  if (values.size() == 1) return std::vector<double>(groups, values[0]);
  WICK_CHECK(values.size() == groups, ValueError, "expected ", groups, " values for ", name, ", got ", values.size());
  return values;
}

// Checks the arguments and stores the group values before the base
// constructor reads "initial_lr", as PyTorch does.
Optimizer& prepare_one_cycle(Optimizer& optimizer, const OneCycleLROptions& o) {
  std::int64_t total_steps = 0;
  if (o.total_steps) {
    WICK_CHECK(*o.total_steps > 0, ValueError, "Expected positive integer total_steps, but got ", *o.total_steps);
    total_steps = *o.total_steps;
  } else {
    WICK_CHECK(o.epochs && o.steps_per_epoch, ValueError,
               "You must define either total_steps OR (epochs AND steps_per_epoch)");
    WICK_CHECK(*o.epochs > 0, ValueError, "Expected positive integer epochs, but got ", *o.epochs);
    WICK_CHECK(*o.steps_per_epoch > 0, ValueError, "Expected positive integer steps_per_epoch, but got ",
               *o.steps_per_epoch);
    total_steps = checked_mul(*o.epochs, *o.steps_per_epoch, "OneCycleLR's epochs * steps_per_epoch");
  }
  WICK_CHECK(total_steps > 0, ValueError, "Expected positive integer total_steps, but got ", total_steps);
  WICK_CHECK(o.pct_start >= 0 && o.pct_start <= 1, ValueError, "Expected float between 0 and 1 pct_start, but got ",
             python_float_repr(o.pct_start));
  WICK_CHECK(o.anneal_strategy == "cos" || o.anneal_strategy == "linear", ValueError,
             "anneal_strategy must by one of 'cos' or 'linear', instead got ", o.anneal_strategy);
  const std::size_t n = optimizer.param_group_count();
  const std::vector<double> max_lrs = per_group(o.max_lr, n, "max_lr");
  if (o.last_epoch == -1) {
    for (std::size_t g = 0; g < n; ++g) {
      optimizer.set_option(g, "initial_lr", max_lrs[g] / o.div_factor);
      optimizer.set_option(g, "max_lr", max_lrs[g]);
      optimizer.set_option(g, "min_lr", max_lrs[g] / o.div_factor / o.final_div_factor);
    }
  }
  if (o.cycle_momentum) {
    WICK_CHECK(optimizer.has_option("momentum") || optimizer.has_option("betas"), ValueError,
               "optimizer must support momentum with `cycle_momentum` option enabled");
    const bool use_beta1 = optimizer.has_option("betas");
    if (o.last_epoch == -1) {
      for (std::size_t g = 0; g < n; ++g) {
        if (use_beta1) {
          const std::vector<double> betas = optimizer.option(g, "betas").to_double_list();
          optimizer.set_option(g, "betas", std::vector<double>{o.max_momentum, betas[1]});
        } else {
          optimizer.set_option(g, "momentum", o.max_momentum);
        }
        optimizer.set_option(g, "max_momentum", o.max_momentum);
        optimizer.set_option(g, "base_momentum", o.base_momentum);
      }
    }
  }
  return optimizer;
}
}  // namespace

OneCycleLR::OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& options)
    : LRScheduler(prepare_one_cycle(optimizer, options), options.last_epoch),
      total_steps_(options.total_steps ? *options.total_steps
                                       : checked_mul(*options.epochs, *options.steps_per_epoch, "total_steps")),
      cos_(options.anneal_strategy == "cos"),
      cycle_momentum_(options.cycle_momentum),
      use_beta1_(options.cycle_momentum && optimizer.has_option("betas")) {
  const auto total = static_cast<double>(total_steps_);
  const double pct = options.pct_start;
  if (options.three_phase) {
    phases_ = {{pct * total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {2 * pct * total - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"},
               {total - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"}};
  } else {
    phases_ = {{pct * total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {total - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"}};
  }
  initial_step();
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (cos_) return end + (start - end) / 2.0 * (std::cos(std::numbers::pi * pct) + 1);
  return (end - start) * pct + start;
}

std::vector<double> OneCycleLR::get_lr() {
  const std::int64_t step_num = last_epoch_;
  WICK_CHECK(step_num <= total_steps_, ValueError, "Tried to step ", step_num + 1,
             " times. The specified number of total steps is ", total_steps_);
  std::vector<double> lrs;
  for (std::size_t g = 0; g < optimizer_.param_group_count(); ++g) {
    double start_step = 0;
    double lr = 0;
    double momentum = 0;
    for (std::size_t i = 0; i < phases_.size(); ++i) {
      const Phase& phase = phases_[i];
      if (static_cast<double>(step_num) <= phase.end_step || i + 1 == phases_.size()) {
        const double pct = (static_cast<double>(step_num) - start_step) / (phase.end_step - start_step);
        lr = anneal(optimizer_.option(g, phase.start_lr).to_double(), optimizer_.option(g, phase.end_lr).to_double(),
                    pct);
        if (cycle_momentum_) {
          momentum = anneal(optimizer_.option(g, phase.start_momentum).to_double(),
                            optimizer_.option(g, phase.end_momentum).to_double(), pct);
        }
        break;
      }
      start_step = phase.end_step;
    }
    lrs.push_back(lr);
    if (cycle_momentum_) {
      if (use_beta1_) {
        const std::vector<double> betas = optimizer_.option(g, "betas").to_double_list();
        optimizer_.set_option(g, "betas", std::vector<double>{momentum, betas[1]});
      } else {
        optimizer_.set_option(g, "momentum", momentum);
      }
    }
  }
  return lrs;
}

// --- ReduceLROnPlateau -----------------------------------------------------------------------

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, ReduceLROnPlateauOptions options)
    : optimizer_(optimizer), options_(std::move(options)) {
  WICK_CHECK(options_.factor < 1.0, ValueError, "Factor should be < 1.0.");
  const std::size_t n = optimizer.param_group_count();
  if (options_.min_lr.size() == 1) {
    min_lrs_.assign(n, options_.min_lr[0]);
  } else {
    WICK_CHECK(options_.min_lr.size() == n, ValueError, "expected ", n, " min_lrs, got ", options_.min_lr.size());
    min_lrs_ = options_.min_lr;
  }
  WICK_CHECK(options_.mode == "min" || options_.mode == "max", ValueError, "mode ", options_.mode, " is unknown!");
  WICK_CHECK(options_.threshold_mode == "rel" || options_.threshold_mode == "abs", ValueError, "threshold mode ",
             options_.threshold_mode, " is unknown!");
  best_ = options_.mode == "min" ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
}

bool ReduceLROnPlateau::is_better(double a, double best) const {
  const bool rel = options_.threshold_mode == "rel";
  if (options_.mode == "min") return rel ? a < best * (1. - options_.threshold) : a < best - options_.threshold;
  return rel ? a > best * (options_.threshold + 1.) : a > best + options_.threshold;
}

void ReduceLROnPlateau::step(double metric) {
  last_epoch_ += 1;
  if (is_better(metric, best_)) {
    best_ = metric;
    num_bad_epochs_ = 0;
  } else {
    num_bad_epochs_ += 1;
  }
  if (cooldown_counter_ > 0) {
    cooldown_counter_ -= 1;
    num_bad_epochs_ = 0;  // bad epochs in cooldown do not count
  }
  if (num_bad_epochs_ > options_.patience) {
    for (std::size_t g = 0; g < optimizer_.param_group_count(); ++g) {
      const double old_lr = optimizer_.lr(g);
      const double new_lr = std::max(old_lr * options_.factor, min_lrs_[g]);
      if (old_lr - new_lr > options_.eps) optimizer_.set_lr(g, new_lr);
    }
    cooldown_counter_ = options_.cooldown;
    num_bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (std::size_t g = 0; g < optimizer_.param_group_count(); ++g) last_lr_.push_back(optimizer_.lr(g));
}

}  // namespace wick::optim
