// core/frontend/optim.cpp - optim::Optimizer (groups, state, closures) and optim::SGD.
/// \file
/// The state_dict's flat form is in optim_state_dict.cpp.
#include "wick/optim.h"

#include <cmath>
#include <unordered_set>
#include <utility>

#include "wick/autograd.h"
#include "wick/error.h"
#include "wick/nn.h"
#include "wick/ops.h"

namespace wick::optim {

// --- ParamState ------------------------------------------------------------------------------

bool ParamState::contains(std::string_view name) const noexcept {
  for (const auto& entry : tensors) {
    if (entry.first == name) return true;
  }
  return false;
}

const Tensor& ParamState::at(std::string_view name) const {
  for (const auto& entry : tensors) {
    if (entry.first == name) return entry.second;
  }
  WICK_CHECK(false, IndexError, "'", name, "'");
  return tensors.front().second;  // unreachable
}

Tensor& ParamState::at(std::string_view name) {
  return const_cast<Tensor&>(static_cast<const ParamState&>(*this).at(name));
}

Tensor& ParamState::set(std::string_view name, Tensor value) {
  for (auto& entry : tensors) {
    if (entry.first == name) return entry.second = std::move(value);
  }
  tensors.emplace_back(std::string(name), std::move(value));
  return tensors.back().second;
}

// --- option values ---------------------------------------------------------------------------

namespace detail {

Value to_value(double v) { return v; }
Value to_value(bool v) { return v; }
Value to_value(std::int64_t v) { return v; }
Value to_value(const std::array<double, 2>& v) { return std::vector<double>{v[0], v[1]}; }
Value to_value(const std::optional<std::int64_t>& v) { return v ? Value(*v) : Value(); }
Value to_value(const std::optional<std::string>& v) { return v ? Value(*v) : Value(); }

void from_value(const Value& v, std::string_view name, double& out) {
  WICK_CHECK(v.is_double() || v.is_int(), TypeError, "option '", name, "' expects a float, got ", v.repr());
  out = v.to_double();
}

void from_value(const Value& v, std::string_view name, bool& out) {
  WICK_CHECK(v.is_bool(), TypeError, "option '", name, "' expects a bool, got ", v.repr());
  out = v.to_bool();
}

void from_value(const Value& v, std::string_view name, std::int64_t& out) {
  WICK_CHECK(v.is_int(), TypeError, "option '", name, "' expects an int, got ", v.repr());
  out = v.to_int();
}

void from_value(const Value& v, std::string_view name, std::array<double, 2>& out) {
  std::vector<double> items;
  if (v.is_double_list()) {
    items = v.to_double_list();
  } else if (v.is_list() || v.is_tuple()) {
    for (const Value& item : v.items()) {
      WICK_CHECK(item.is_double() || item.is_int(), TypeError, "option '", name, "' expects two floats, got ",
                 v.repr());
      items.push_back(item.to_double());
    }
  }
  WICK_CHECK(items.size() == 2, TypeError, "option '", name, "' expects two floats, got ", v.repr());
  out = {items[0], items[1]};
}

void from_value(const Value& v, std::string_view name, std::optional<std::int64_t>& out) {
  WICK_CHECK(v.is_none() || v.is_int(), TypeError, "option '", name, "' expects an int or None, got ", v.repr());
  out = v.is_none() ? std::nullopt : std::optional<std::int64_t>(v.to_int());
}

void from_value(const Value& v, std::string_view name, std::optional<std::string>& out) {
  WICK_CHECK(v.is_none() || v.is_string(), TypeError, "option '", name, "' expects a str or None, got ", v.repr());
  out = v.is_none() ? std::nullopt : std::optional<std::string>(v.to_string());
}

double extra_number(const Value& v, std::string_view name) {
  WICK_CHECK(v.is_double() || v.is_int(), TypeError, "parameter group entry '", name, "' must be a number, got ",
             v.repr());
  return v.to_double();
}

}  // namespace detail

// --- Optimizer -------------------------------------------------------------------------------

Optimizer::~Optimizer() = default;

void Optimizer::init_groups(std::vector<Tensor> params) {
  WICK_CHECK(!params.empty(), ValueError, "optimizer got an empty parameter list");
  add_param_group({std::move(params), {}});
}

void Optimizer::init_groups(std::vector<ParamGroupSpec> groups) {
  WICK_CHECK(!groups.empty(), ValueError, "optimizer got an empty parameter list");
  for (ParamGroupSpec& group : groups) add_param_group(std::move(group));
}

void Optimizer::add_param_group(ParamGroupSpec group) {
  std::unordered_set<const TensorImpl*> existing;
  for (std::size_t g = 0; g < group_count(); ++g) {
    for (const Tensor& p : group_params(g)) existing.insert(p.impl());
  }
  std::vector<Tensor> params;
  std::unordered_set<const TensorImpl*> seen;
  for (Tensor& p : group.params) {
    WICK_CHECK(p.defined(), ValueError, "can't optimize an undefined Tensor");
    WICK_CHECK(p.is_leaf(), ValueError, "can't optimize a non-leaf Tensor");
    WICK_CHECK(existing.count(p.impl()) == 0, ValueError, "some parameters appear in more than one parameter group");
    if (seen.insert(p.impl()).second) params.push_back(std::move(p));
  }
  push_group(std::move(params), group.options);
}

std::vector<Tensor> Optimizer::params() const {
  std::vector<Tensor> all;
  for (std::size_t g = 0; g < group_count(); ++g) {
    const std::vector<Tensor>& ps = group_params(g);
    all.insert(all.end(), ps.begin(), ps.end());
  }
  return all;
}

bool Optimizer::has_option(std::string_view name) const {
  for (const std::string& n : option_names()) {
    if (n == name) return true;
  }
  return false;
}

Value Optimizer::option(std::size_t group, std::string_view name) const {
  WICK_CHECK(group < group_count(), IndexError, "parameter group ", group, " is out of range (the optimizer has ",
             group_count(), ")");
  Value out;
  if (get_field(group, name, &out)) return out;
  const auto& extra = const_cast<Optimizer*>(this)->group_extra(group);
  auto it = extra.find(std::string(name));
  WICK_CHECK(it != extra.end(), IndexError, "'", name, "'");
  return it->second;
}

bool Optimizer::group_has(std::size_t group, std::string_view name) const {
  if (group >= group_count()) return false;
  Value out;
  if (get_field(group, name, &out)) return true;
  const auto& extra = const_cast<Optimizer*>(this)->group_extra(group);
  return extra.count(std::string(name)) != 0;
}

void Optimizer::set_option(std::size_t group, std::string_view name, const Value& value) {
  WICK_CHECK(group < group_count(), IndexError, "parameter group ", group, " is out of range (the optimizer has ",
             group_count(), ")");
  if (set_field(group, name, value)) return;
  group_extra(group)[std::string(name)] = detail::extra_number(value, name);
}

ParamState& Optimizer::state(const Tensor& p) {
  bool found = false;
  for (std::size_t g = 0; g < group_count() && !found; ++g) {
    for (const Tensor& q : group_params(g)) found = found || q.is_same(p);
  }
  WICK_CHECK(found, ValueError, "the tensor is not a parameter of this optimizer");
  return state_of(p);
}

const ParamState& Optimizer::state(const Tensor& p) const { return const_cast<Optimizer*>(this)->state(p); }

Tensor Optimizer::step(const Closure& closure) { return run_step(closure); }

Tensor Optimizer::run_step(const Closure& closure) {
  Tensor loss;
  if (closure) {
    EnableGradGuard grad_on;
    loss = closure();
  }
  NoGradGuard no_grad;
  update();
  return loss;
}

bool Optimizer::state_has_param_shape(std::string_view /*name*/) const { return true; }

void Optimizer::zero_grad(bool set_to_none) { nn::zero_grad(params(), set_to_none); }

// --- SGD -------------------------------------------------------------------------------------

void check_options(const SGDOptions& o) {
  WICK_CHECK(o.lr >= 0.0, ValueError, "Invalid learning rate: ", python_float_repr(o.lr));
  WICK_CHECK(o.momentum >= 0.0, ValueError, "Invalid momentum value: ", python_float_repr(o.momentum));
  WICK_CHECK(o.weight_decay >= 0.0, ValueError, "Invalid weight_decay value: ", python_float_repr(o.weight_decay));
  WICK_CHECK(!o.nesterov || (o.momentum > 0 && o.dampening == 0), ValueError,
             "Nesterov momentum requires a momentum and zero dampening");
}

SGD::SGD(std::vector<Tensor> params, SGDOptions options) : OptimizerWith(std::move(params), options) {}
SGD::SGD(std::initializer_list<ParamGroupSpec> groups, SGDOptions options) : OptimizerWith(groups, options) {}
SGD::SGD(std::vector<ParamGroupSpec> groups, SGDOptions options) : OptimizerWith(std::move(groups), options) {}

void SGD::update() {
  for_each_grad([&](const SGDOptions& o, Tensor& p, const Tensor& g) {
    Tensor d = o.maximize ? -g : g;
    if (o.weight_decay != 0) d = d.add(p, o.weight_decay);
    if (o.momentum != 0) {
      ParamState& st = state_of(p);
      if (!st.contains("momentum_buffer")) {
        st.set("momentum_buffer", d.clone());
      } else {
        Tensor buf = st.at("momentum_buffer");
        buf.mul_(wrap_scalar(o.momentum));
        buf.add_(d, 1 - o.dampening);
      }
      const Tensor buf = st.at("momentum_buffer");
      d = o.nesterov ? d.add(buf, o.momentum) : buf;
    }
    p.add_(d, -o.lr);
  });
}

}  // namespace wick::optim
