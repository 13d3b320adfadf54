// wick/optim.h - optimizers that update parameters in place from their gradients (torch.optim).
/// \file
/// The optimizers of torch.optim 1.13 (single-tensor update rules) on one
/// base, `Optimizer`, with parameter groups, per-parameter state and a flat
/// state_dict:
///
///   wick::optim::SGD opt(net->parameters(), {.lr = 0.1, .momentum = 0.9});
///   for (...) {
///     opt.zero_grad();
///     loss(net, batch).backward();
///     opt.step();
///   }
///
///   // Per-group options, as torch.optim's list of dicts: a group's missing
///   // options come from the defaults.
///   wick::optim::Adam adam({{.params = base}, {.params = head, .options = {{"lr", 1e-4}}}}, {.lr = 1e-3});
///   adam.param_groups()[1].options.lr = 5e-5;   // takes effect on the next step
///   adam.state(w).at("exp_avg");               // optimizer.state[w]['exp_avg']
///
/// This header declares the base and SGD; the adaptive optimizers (Adam,
/// AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam) and LBFGS are in
/// wick/optim_algorithms.h, included at the end; the learning-rate schedulers
/// in wick/optim_schedulers.h.
///
/// Note [Optimizer options are typed, groups are dicts]
/// Each optimizer has an options struct with torch.optim's names and
/// defaults (designated-initializer friendly), and every parameter group
/// holds its own copy, so `param_groups()[i].options.lr` is typed. Code that
/// works on any optimizer (the schedulers, state_dict) reaches the same
/// fields by name through `option()` / `set_option()`, as PyTorch's
/// group['lr']; names an optimizer does not have ("initial_lr", "max_lr",
/// ... that schedulers add) are kept per group as numbers in `extra`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "wick/export.h"
#include "wick/tensor.h"
#include "wick/value.h"

namespace wick::optim {

/// Named option values, as the extra keys of a torch.optim group dict:
/// {{"lr", 1e-4}, {"betas", std::vector<double>{0.8, 0.9}}, {"nesterov", true}}.
using OptionList = std::vector<std::pair<std::string, Value>>;

/// One parameter group to construct an optimizer from (torch.optim's
/// {'params': [...], 'lr': ...}).
struct ParamGroupSpec {
  std::vector<Tensor> params;  ///< the group's parameters (defined leaf tensors; ValueError otherwise)
  OptionList options = {};     ///< options overriding the optimizer's defaults for this group (default: none)
};

/// A parameter group: its parameters, its options, and the numbers
/// schedulers add to it ("initial_lr", "max_lr", "min_lr", ...).
template <class Options>
struct ParamGroup {
  std::vector<Tensor> params;           ///< the group's parameters, each listed once
  Options options;                      ///< the group's own copy of the options (group['lr'], ...)
  std::map<std::string, double> extra;  ///< numbers under names the optimizer has no option for
};

/// One parameter's optimizer state (torch's optimizer.state[p]): its step
/// count (for the optimizers that keep one) and its named tensors, in the
/// order they were created.
struct WICK_API ParamState {
  std::int64_t step = 0;  ///< steps taken for this parameter (state['step']; stays 0 for SGD and LBFGS)
  std::vector<std::pair<std::string, Tensor>> tensors;  ///< named state tensors, in creation order

  /// Whether nothing has been stored yet (before the parameter's first step).
  [[nodiscard]] bool empty() const noexcept { return tensors.empty() && step == 0; }
  /// Whether a state tensor called `name` exists (PyTorch's `name in state[p]`).
  [[nodiscard]] bool contains(std::string_view name) const noexcept;
  /// The tensor called `name`; IndexError when there is none (PyTorch: KeyError).
  [[nodiscard]] const Tensor& at(std::string_view name) const;
  /// The tensor called `name`, mutable; IndexError when there is none.
  [[nodiscard]] Tensor& at(std::string_view name);
  /// Stores `value` under `name`, replacing an entry of that name.
  Tensor& set(std::string_view name, Tensor value);
};

/// The flat state_dict of an optimizer: keys "state.<i>.<name>" (i numbers
/// the parameters across groups in order, as PyTorch numbers them),
/// "state.<i>.step", "param_groups.<g>.params" (the indices, int64) and
/// "param_groups.<g>.<option>" (float64: 0-dim for numbers and bools, 1-D for
/// betas; NaN for an unset optional number; int64 character codes for a
/// string option).
using OptimizerStateDict = std::vector<std::pair<std::string, Tensor>>;

/// The base of every optimizer. Not copyable (the state refers to the
/// parameters by identity).
class WICK_API Optimizer {
 public:
  /// Re-evaluates the model and returns the loss.
  using Closure = std::function<Tensor()>;

  virtual ~Optimizer();
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  /// One update of every parameter that has a gradient, in place (the
  /// parameters keep their identity) and without recording a graph. With a
  /// closure, it is called first with grad mode on and its loss is returned
  /// (undefined without one). LBFGS requires a closure (TypeError).
  Tensor step(const Closure& closure = {});
  /// Zeroes the parameters' gradients in place, or resets them to undefined.
  void zero_grad(bool set_to_none = false);

  /// Adds a group; its missing options come from the defaults. ValueError:
  /// "can't optimize a non-leaf Tensor" (or an undefined one), "some
  /// parameters appear in more than one parameter group", an option value of
  /// the wrong kind. A parameter listed twice in the group is kept once.
  void add_param_group(ParamGroupSpec group);

  /// Every parameter, group by group.
  [[nodiscard]] std::vector<Tensor> params() const;
  /// The number of parameter groups (len(optimizer.param_groups)).
  [[nodiscard]] std::size_t param_group_count() const { return group_count(); }
  /// Whether the optimizer has an option called `name` (PyTorch's
  /// `name in optimizer.defaults`).
  [[nodiscard]] bool has_option(std::string_view name) const;
  /// Group `group`'s option or extra number `name`. IndexError for a group
  /// out of range or a name the group does not have.
  [[nodiscard]] Value option(std::size_t group, std::string_view name) const;
  /// Sets an option (TypeError for a value of the wrong kind), or stores a
  /// number under a name the optimizer has no option for.
  void set_option(std::size_t group, std::string_view name, const Value& value);
  /// Whether group `group` has an option or extra number called `name`
  /// (PyTorch's `name in group`).
  [[nodiscard]] bool group_has(std::size_t group, std::string_view name) const;
  /// Group `group`'s learning rate (group['lr']). IndexError for a group out of range.
  [[nodiscard]] double lr(std::size_t group) const { return option(group, "lr").to_double(); }
  /// Sets group `group`'s learning rate, used from the next step. IndexError for a group out of range.
  void set_lr(std::size_t group, double lr) { set_option(group, "lr", lr); }

  /// The state of parameter `p` (empty before its first step). ValueError
  /// when `p` is not one of the optimizer's parameters.
  [[nodiscard]] ParamState& state(const Tensor& p);
  /// The state of parameter `p`, read-only. ValueError when `p` is not one of the optimizer's parameters.
  [[nodiscard]] const ParamState& state(const Tensor& p) const;

  /// The options and state (see OptimizerStateDict). The state tensors are
  /// the optimizer's own, not copies.
  [[nodiscard]] OptimizerStateDict state_dict() const;
  /// Loads what state_dict() returned, copying the tensors (floating state
  /// is cast to its parameter's dtype, as PyTorch does). ValueError naming
  /// the key for a malformed key, "loaded state dict has a different number
  /// of parameter groups", "loaded state dict contains a parameter group
  /// that doesn't match the size of optimizer's group", a tensor whose shape
  /// does not fit; nothing is changed on error.
  void load_state_dict(const OptimizerStateDict& state_dict);

 protected:
  /// An optimizer with no groups yet; `counts_steps`: whether each parameter's state keeps a step count.
  explicit Optimizer(bool counts_steps) : counts_steps_(counts_steps) {}

  /// Adds the groups a constructor was given ("optimizer got an empty
  /// parameter list" when there are none).
  void init_groups(std::vector<Tensor> params);
  /// Adds each of `groups` as add_param_group() does (its ValueErrors), after
  /// "optimizer got an empty parameter list" when there are none.
  void init_groups(std::vector<ParamGroupSpec> groups);

  /// The update, called by step() under NoGradGuard after the closure ran.
  virtual void update() = 0;
  /// step(): by default, runs the closure with grad on, then update()
  /// without grad. LBFGS replaces it.
  virtual Tensor run_step(const Closure& closure);
  /// Whether a saved state tensor called `name` must have its parameter's
  /// shape (the default: unless 0-dim).
  [[nodiscard]] virtual bool state_has_param_shape(std::string_view name) const;

  // The typed groups, reached from the base (OptimizerWith implements these).
  /// The number of parameter groups.
  [[nodiscard]] virtual std::size_t group_count() const = 0;
  /// The parameters of group `group` (which must be in range: not checked).
  [[nodiscard]] virtual const std::vector<Tensor>& group_params(std::size_t group) const = 0;
  /// The extra numbers of group `group` (which must be in range: not checked).
  [[nodiscard]] virtual std::map<std::string, double>& group_extra(std::size_t group) = 0;
  /// The names of the optimizer's options, in declaration order.
  [[nodiscard]] virtual std::vector<std::string> option_names() const = 0;
  /// Reads field `name` of group `group` into *out; false when there is no such field.
  virtual bool get_field(std::size_t group, std::string_view name, Value* out) const = 0;
  /// Writes field `name` of group `group`; false when there is no such field.
  virtual bool set_field(std::size_t group, std::string_view name, const Value& value) = 0;
  /// Appends a group with the defaults, then `options` applied.
  virtual void push_group(std::vector<Tensor> params, const OptionList& options) = 0;

  /// The state of a parameter, created empty on first use.
  [[nodiscard]] ParamState& state_of(const Tensor& p) { return state_[p.impl()]; }

 private:
  std::unordered_map<const TensorImpl*, ParamState> state_;
  bool counts_steps_;
};

namespace detail {
// Conversions between option fields and Values (TypeError naming the option
// for a value of the wrong kind).
[[nodiscard]] WICK_API Value to_value(double v);
[[nodiscard]] WICK_API Value to_value(bool v);
[[nodiscard]] WICK_API Value to_value(std::int64_t v);
[[nodiscard]] WICK_API Value to_value(const std::array<double, 2>& v);
[[nodiscard]] WICK_API Value to_value(const std::optional<std::int64_t>& v);
[[nodiscard]] WICK_API Value to_value(const std::optional<std::string>& v);
WICK_API void from_value(const Value& v, std::string_view name, double& out);
WICK_API void from_value(const Value& v, std::string_view name, bool& out);
WICK_API void from_value(const Value& v, std::string_view name, std::int64_t& out);
WICK_API void from_value(const Value& v, std::string_view name, std::array<double, 2>& out);
WICK_API void from_value(const Value& v, std::string_view name, std::optional<std::int64_t>& out);
WICK_API void from_value(const Value& v, std::string_view name, std::optional<std::string>& out);
/// A number for a group's `extra` (TypeError otherwise).
[[nodiscard]] WICK_API double extra_number(const Value& v, std::string_view name);
}  // namespace detail

/// The part of an optimizer that knows its options type: the typed groups
/// and the by-name access the base needs. `Options` has
/// `for_each_field(f)`, calling f(name, field) for each option, and an
/// overload of `check_options(const Options&)` that throws PyTorch's
/// ValueErrors. `kCountsSteps`: whether each parameter's state keeps a step
/// count. The optimizers inherit its constructors.
template <class Options, bool kCountsSteps = true>
class OptimizerWith : public Optimizer {
 public:
  /// A parameter group with this optimizer's options.
  using Group = ParamGroup<Options>;

  /// One group of `params`, or parameter groups whose missing options come
  /// from `defaults`. ValueError: check_options's, then "optimizer got an
  /// empty parameter list", "can't optimize a non-leaf Tensor" (and for an
  /// undefined one); a parameter listed twice is kept once.
  explicit OptimizerWith(std::vector<Tensor> params, const Options& defaults = {})
      : Optimizer(kCountsSteps), defaults_(defaults) {
    check_options(defaults_);
    init_groups(std::move(params));
  }
  /// Parameter groups written inline; as the std::vector<ParamGroupSpec> overload.
  OptimizerWith(std::initializer_list<ParamGroupSpec> groups, const Options& defaults = {})
      : OptimizerWith(std::vector<ParamGroupSpec>(groups), defaults) {}
  /// Parameter groups whose missing options come from `defaults`. ValueError:
  /// check_options's, "optimizer got an empty parameter list" for no groups,
  /// add_param_group's for each group; TypeError for an option of the wrong kind.
  OptimizerWith(std::vector<ParamGroupSpec> groups, const Options& defaults = {})
      : Optimizer(kCountsSteps), defaults_(defaults) {
    check_options(defaults_);
    init_groups(std::move(groups));
  }

  /// The groups; changing an option takes effect on the next step.
  [[nodiscard]] std::vector<Group>& param_groups() noexcept { return groups_; }
  /// The groups, read-only.
  [[nodiscard]] const std::vector<Group>& param_groups() const noexcept { return groups_; }
  /// The options given to the constructor (torch's optimizer.defaults).
  [[nodiscard]] const Options& defaults() const noexcept { return defaults_; }

 protected:
  /// Calls f(group options, p, p's gradient) for every parameter that has
  /// a gradient, group by group: the loop of each update().
  template <class F>
  void for_each_grad(F&& f) {
    for (Group& group : groups_) {
      for (Tensor& p : group.params) {
        const Tensor g = p.grad();
        if (g.defined()) f(group.options, p, g);
      }
    }
  }

  /// The number of groups.
  [[nodiscard]] std::size_t group_count() const override { return groups_.size(); }
  /// The parameters of group `group` (unchecked index).
  [[nodiscard]] const std::vector<Tensor>& group_params(std::size_t group) const override {
    return groups_[group].params;
  }
  /// The extra numbers of group `group` (unchecked index).
  [[nodiscard]] std::map<std::string, double>& group_extra(std::size_t group) override { return groups_[group].extra; }
  /// The option names, as `Options::for_each_field` lists them.
  [[nodiscard]] std::vector<std::string> option_names() const override {
    std::vector<std::string> names;
    Options probe = defaults_;
    probe.for_each_field([&](const char* name, auto&) { names.emplace_back(name); });
    return names;
  }
  /// Reads option `name` of group `group` into *out; false when Options has no such field.
  bool get_field(std::size_t group, std::string_view name, Value* out) const override {
    Options copy = groups_[group].options;
    return read_field(copy, name, out);
  }
  /// Writes option `name` of group `group`; false when Options has no such field, TypeError for a
  /// value of the wrong kind.
  bool set_field(std::size_t group, std::string_view name, const Value& value) override {
    return write_field(groups_[group].options, name, value);
  }
  /// Appends a group with the defaults, then `options` applied: an option name sets that field, any
  /// other name is stored in `extra` (TypeError when its value is not a number or of the wrong kind).
  void push_group(std::vector<Tensor> params, const OptionList& options) override {
    Group group{std::move(params), defaults_, {}};
    for (const auto& [name, value] : options) {
      if (!write_field(group.options, name, value)) group.extra[name] = detail::extra_number(value, name);
    }
    groups_.push_back(std::move(group));
  }

  std::vector<Group> groups_;  ///< the parameter groups, in the order they were added
  Options defaults_;           ///< the options given to the constructor

 private:
  static bool read_field(Options& options, std::string_view name, Value* out) {
    bool found = false;
    options.for_each_field([&](const char* field_name, auto& field) {
      if (!found && name == field_name) {
        *out = detail::to_value(field);
        found = true;
      }
    });
    return found;
  }
  static bool write_field(Options& options, std::string_view name, const Value& value) {
    bool found = false;
    options.for_each_field([&](const char* field_name, auto& field) {
      if (!found && name == field_name) {
        detail::from_value(value, name, field);
        found = true;
      }
    });
    return found;
  }
};

/// Hyper-parameters of SGD (the names and defaults of torch.optim.SGD; `lr`
/// has no default).
struct SGDOptions {
  double lr;                ///< learning rate (required; 0 when left out of an initializer); ValueError if < 0
  double momentum = 0;      ///< momentum factor (default 0: none); ValueError if < 0
  double dampening = 0;     ///< dampening of the momentum (default 0)
  double weight_decay = 0;  ///< L2 penalty added to the gradient (default 0); ValueError if < 0
  bool nesterov = false;    ///< Nesterov momentum (default false); needs momentum > 0 and dampening 0
  bool maximize = false;    ///< maximize the objective instead of minimizing it (default false)

  /// Calls f(name, field) for each option, in declaration order (the by-name access of Optimizer).
  template <class F>
  void for_each_field(F&& f) {
    f("lr", lr);
    f("momentum", momentum);
    f("dampening", dampening);
    f("weight_decay", weight_decay);
    f("nesterov", nesterov);
    f("maximize", maximize);
  }
};
/// ValueError, as torch.optim.SGD: "Invalid learning rate: -0.1", "Invalid
/// momentum value: ...", "Invalid weight_decay value: ...", "Nesterov
/// momentum requires a momentum and zero dampening".
WICK_API void check_options(const SGDOptions& options);

/// For each parameter p with gradient g (parameters without one are skipped):
///
///   d = maximize ? -g : g
///   d = d + weight_decay * p                      (when weight_decay != 0)
///   buf = clone(d) on the first step, else momentum * buf + (1 - dampening) * d
///   d = nesterov ? d + momentum * buf : buf       (when momentum != 0)
///   p -= lr * d
///
/// State: "momentum_buffer" (when momentum != 0).
class WICK_API SGD final : public OptimizerWith<SGDOptions, /*kCountsSteps=*/false> {
 public:
  /// ValueError: check_options's, then "optimizer got an empty parameter
  /// list", "can't optimize a non-leaf Tensor" (and for an undefined one). A
  /// parameter listed twice is kept once.
  SGD(std::vector<Tensor> params, SGDOptions options);
  /// Parameter groups written inline; their missing options come from `options`. Errors as above.
  SGD(std::initializer_list<ParamGroupSpec> groups, SGDOptions options);
  /// Parameter groups whose missing options come from `options`. Errors as above, TypeError for an
  /// option of the wrong kind.
  SGD(std::vector<ParamGroupSpec> groups, SGDOptions options);

  /// The defaults (SGD's name for defaults()).
  [[nodiscard]] const SGDOptions& options() const noexcept { return defaults_; }

 private:
  void update() override;
};

}  // namespace wick::optim

#include "wick/optim_algorithms.h"  // IWYU pragma: export
