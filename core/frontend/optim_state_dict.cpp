// core/frontend/optim_state_dict.cpp - Optimizer::state_dict and load_state_dict in their flat form.
/// \file
/// Note [The optimizer's flat state_dict]
/// PyTorch's optimizer.state_dict() is a nested dict: {'state': {0: {...},
/// 1: {...}}, 'param_groups': [{'lr': ..., 'params': [0, 1]}, ...]}, the
/// parameters numbered across groups in order. wick flattens it into
/// (key, tensor) pairs, the form the serialization layer saves: the nesting
/// becomes dotted keys and every number becomes a float64 tensor (see
/// OptimizerStateDict in wick/optim.h). Loading maps saved parameter numbers
/// to the optimizer's parameters by position, as PyTorch does, and checks
/// everything before it changes anything.
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "wick/error.h"
#include "wick/ops.h"
#include "wick/optim.h"

namespace wick::optim {
namespace {

constexpr std::string_view kStatePrefix = "state.";
constexpr std::string_view kGroupPrefix = "param_groups.";

std::string shape_str(const Tensor& t) {
  std::string s = "[";
  for (std::int64_t i = 0; i < t.dim(); ++i) s += (i ? ", " : "") + std::to_string(t.size(i));
  return s + "]";
}

Tensor number_tensor(double v) { return full({}, v, ScalarType::kFloat64); }

Tensor value_to_tensor(const Value& v) {
  if (v.is_none()) return number_tensor(std::numeric_limits<double>::quiet_NaN());
  if (v.is_double_list()) return tensor(v, ScalarType::kFloat64);
  if (v.is_string()) {
    std::vector<Value> codes;
    for (unsigned char c : v.to_string()) codes.emplace_back(static_cast<std::int64_t>(c));
    if (codes.empty()) return empty({0}, ScalarType::kInt64);
    return tensor(Value::list(codes), ScalarType::kInt64);
  }
  return number_tensor(v.to_double());
}

// The Value for an option whose current value is `like`, from the saved tensor `t`.
Value tensor_to_value(const Tensor& t, const Value& like, const std::string& key) {
  WICK_CHECK(t.defined(), ValueError, "optimizer state_dict entry '", key, "' is an undefined tensor");
  const bool scalar = t.dim() == 0;
  if (like.is_double_list()) {
    WICK_CHECK(t.dim() == 1 && t.numel() == 2, ValueError, "optimizer state_dict entry '", key,
               "' must hold 2 numbers, got a tensor of shape ", shape_str(t));
    Tensor c = t.to(ScalarType::kFloat64).contiguous();
    return std::vector<double>{c.data_ptr<double>()[0], c.data_ptr<double>()[1]};
  }
  if (!scalar && t.dim() == 1 && t.scalar_type() == ScalarType::kInt64 && !like.is_double() && !like.is_bool() &&
      !like.is_int()) {  // a string option
    Tensor c = t.contiguous();
    std::string s;
    for (std::int64_t i = 0; i < c.numel(); ++i) s.push_back(static_cast<char>(c.data_ptr<std::int64_t>()[i]));
    return s;
  }
  WICK_CHECK(scalar, ValueError, "optimizer state_dict entry '", key, "' must be a 0-dim tensor, got shape ",
             shape_str(t));
  const double x = t.item<double>();
  if (like.is_bool()) return x != 0;
  if (like.is_int() || (like.is_none() && !std::isnan(x))) {
    WICK_CHECK(std::isfinite(x) && x == std::floor(x), ValueError, "optimizer state_dict entry '", key,
               "' must be an integer, got ", python_float_repr(x));
    return static_cast<std::int64_t>(x);
  }
  if (like.is_none() || (like.is_string() && std::isnan(x))) return Value();
  return x;
}

// "12.rest" -> (12, "rest"); false when malformed.
bool split_index(std::string_view s, std::size_t& index, std::string& rest) {
  const std::size_t dot = s.find('.');
  if (dot == 0 || dot == std::string_view::npos || dot + 1 == s.size() || dot > 9) return false;
  index = 0;
  for (std::size_t i = 0; i < dot; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    index = index * 10 + static_cast<std::size_t>(s[i] - '0');
  }
  rest = std::string(s.substr(dot + 1));
  return true;
}

}  // namespace

OptimizerStateDict Optimizer::state_dict() const {
  OptimizerStateDict out;
  const std::vector<Tensor> all = params();
  for (std::size_t i = 0; i < all.size(); ++i) {
    auto it = state_.find(all[i].impl());
    if (it == state_.end() || it->second.empty()) continue;
    const std::string prefix = std::string(kStatePrefix) + std::to_string(i) + ".";
    if (counts_steps_) out.emplace_back(prefix + "step", number_tensor(static_cast<double>(it->second.step)));
    for (const auto& [name, t] : it->second.tensors) out.emplace_back(prefix + name, t);
  }
  std::int64_t next = 0;
  const std::vector<std::string> names = option_names();
  for (std::size_t g = 0; g < group_count(); ++g) {
    const std::string prefix = std::string(kGroupPrefix) + std::to_string(g) + ".";
    std::vector<Value> ids;
    for (std::size_t k = 0; k < group_params(g).size(); ++k) ids.emplace_back(next++);
    out.emplace_back(prefix + "params",
                     ids.empty() ? empty({0}, ScalarType::kInt64) : tensor(Value::list(ids), ScalarType::kInt64));
    for (const std::string& name : names) out.emplace_back(prefix + name, value_to_tensor(option(g, name)));
    for (const auto& [name, v] : const_cast<Optimizer*>(this)->group_extra(g)) {
      out.emplace_back(prefix + name, number_tensor(v));
    }
  }
  return out;
}

void Optimizer::load_state_dict(const OptimizerStateDict& state_dict) {
  // 1. Sort the keys into groups and per-parameter entries.
  std::map<std::size_t, std::vector<std::pair<std::string, const Tensor*>>> saved_groups;
  std::map<std::size_t, std::vector<std::pair<std::string, const Tensor*>>> saved_state;
  for (const auto& [key, t] : state_dict) {
    std::size_t index = 0;
    std::string rest;
    const std::string_view k = key;
    bool ok = false;
    if (k.substr(0, kStatePrefix.size()) == kStatePrefix) {
      ok = split_index(k.substr(kStatePrefix.size()), index, rest);
      if (ok) saved_state[index].emplace_back(rest, &t);
    } else if (k.substr(0, kGroupPrefix.size()) == kGroupPrefix) {
      ok = split_index(k.substr(kGroupPrefix.size()), index, rest);
      if (ok) saved_groups[index].emplace_back(rest, &t);
    }
    WICK_CHECK(ok, ValueError, "unexpected key in optimizer state_dict: '", key, "'");
  }

  // 2. The groups: their number and sizes, and the saved parameter numbers.
  WICK_CHECK(saved_groups.size() == group_count() &&
                 (saved_groups.empty() || saved_groups.rbegin()->first + 1 == group_count()),
             ValueError, "loaded state dict has a different number of parameter groups");
  std::unordered_map<std::int64_t, Tensor> id_map;
  struct Pending {
    std::size_t group;
    std::string name;
    Value value;
  };
  std::vector<Pending> options;
  std::vector<std::map<std::string, double>> extras(group_count());
  const std::vector<std::string> names = option_names();
  for (const auto& [g, entries] : saved_groups) {
    const std::string prefix = std::string(kGroupPrefix) + std::to_string(g) + ".";
    const Tensor* ids = nullptr;
    for (const auto& [name, t] : entries) {
      if (name == "params") ids = t;
    }
    WICK_CHECK(ids != nullptr, ValueError, "missing key in optimizer state_dict: '", prefix, "params'");
    WICK_CHECK(ids->defined() && ids->dim() == 1 && ids->scalar_type() == ScalarType::kInt64, ValueError,
               "optimizer state_dict entry '", prefix, "params' must be a 1-D int64 tensor");
    const std::vector<Tensor>& current = group_params(g);
    WICK_CHECK(static_cast<std::size_t>(ids->numel()) == current.size(), ValueError,
               "loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
    Tensor c = ids->contiguous();
    for (std::size_t k = 0; k < current.size(); ++k) id_map[c.data_ptr<std::int64_t>()[k]] = current[k];
    for (const auto& [name, t] : entries) {
      if (name == "params") continue;
      const std::string key = prefix + name;
      bool is_option = false;
      for (const std::string& n : names) is_option = is_option || n == name;
      if (is_option) {
        options.push_back({g, name, tensor_to_value(*t, option(g, name), key)});
      } else {
        extras[g][name] = tensor_to_value(*t, Value(0.0), key).to_double();
      }
    }
  }

  // 3. The state, checked against the parameters it belongs to.
  std::unordered_map<const TensorImpl*, ParamState> new_state;
  for (const auto& [id, entries] : saved_state) {
    const std::string prefix = std::string(kStatePrefix) + std::to_string(id) + ".";
    auto found = id_map.find(static_cast<std::int64_t>(id));
    WICK_CHECK(found != id_map.end(), ValueError, "optimizer state_dict entry '", prefix, entries.front().first,
               "' refers to no parameter of the loaded groups");
    const Tensor& p = found->second;
    ParamState& st = new_state[p.impl()];
    for (const auto& [name, t] : entries) {
      const std::string key = prefix + name;
      WICK_CHECK(t->defined(), ValueError, "optimizer state_dict entry '", key, "' is an undefined tensor");
      if (name == "step") {
        st.step = tensor_to_value(*t, Value(std::int64_t{0}), key).to_int();
        continue;
      }
      if (t->dim() != 0 && state_has_param_shape(name)) {
        WICK_CHECK(t->sizes() == p.sizes(), ValueError, "optimizer state_dict entry '", key, "' has shape ",
                   shape_str(*t), ", but its parameter has shape ", shape_str(p));
      }
      const bool cast = is_floating(t->scalar_type()) && is_floating(p.scalar_type());
      st.set(name, cast ? t->to(p.device(), p.scalar_type()).clone() : t->clone());
    }
  }

  // 4. Commit; an option the group refuses puts back what was set before it.
  std::vector<Pending> undo;
  try {
    for (const Pending& o : options) {
      undo.push_back({o.group, o.name, option(o.group, o.name)});
      set_field(o.group, o.name, o.value);
    }
  } catch (const Error& e) {
    for (auto it = undo.rbegin(); it != undo.rend(); ++it) set_field(it->group, it->name, it->value);
    WICK_CHECK(false, ValueError, "optimizer state_dict: ", e.what());
  }
  for (std::size_t g = 0; g < group_count(); ++g) group_extra(g) = std::move(extras[g]);
  state_ = std::move(new_state);
}

}  // namespace wick::optim
