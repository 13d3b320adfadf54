// core/frontend/opcheck.cpp - wick opcheck and wick test-backend: operators against their definitions and the CPU.
/// \file
/// See wick/opcheck.h for what each check asserts. Every check runs the
/// operator through the boxed API (`wick::call`) on the samples of its
/// definition, and reports each failure with the sample that showed it.
#include "wick/opcheck.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <optional>
#include <string>
#include <typeinfo>
#include <vector>

#include "core/demangle.h"
#include "core/device_runtime.h"
#include "core/frontend/out_variant.h"
#include "wick/autograd.h"
#include "wick/catalog.h"
#include "wick/distributed.h"
#include "wick/error.h"
#include "wick/gradcheck.h"
#include "wick/ops.h"
#include "wick/random.h"
#include "wick/schema.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

CheckResult result(const std::string& op, const char* check, CheckStatus status, std::string message = {}) {
  return CheckResult{op, check, status, std::move(message)};
}

using Tags = std::vector<std::string>;

bool has_tag(const Tags& tags, std::string_view tag) { return std::find(tags.begin(), tags.end(), tag) != tags.end(); }

std::optional<std::string> tag_value(const Tags& tags, std::string_view key) {
  for (const std::string& t : tags) {
    if (t.size() > key.size() && t.starts_with(key) && t[key.size()] == '=') return t.substr(key.size() + 1);
  }
  return std::nullopt;
}

SampleDomain domain_of(const std::string& op, const Tags& tags) {
  const auto d = tag_value(tags, "domain");
  if (!d) return SampleDomain::kAwayFromZero;
  if (*d == "positive") return SampleDomain::kPositive;
  if (*d == "unit") return SampleDomain::kInsideUnit;
  if (*d == "probability") return SampleDomain::kProbability;
  if (*d == "above_one") return SampleDomain::kAboveOne;
  if (*d == "invertible") return SampleDomain::kInvertible;
  if (*d == "spd") return SampleDomain::kSpd;
  if (*d == "hermitian") return SampleDomain::kHermitian;
  throw ValueError(detail::str_cat(op, ": unknown tag domain=", *d));
}

// The reason the checks that run an operator cannot run here (its `device=`
// tag names a device type none of which is available), or nothing.
std::optional<std::string> missing_device(const Tags& tags) {
  if (has_tag(tags, "process_group") && !distributed::is_initialized())
    return "a collective (tagged process_group): needs an initialised process group, and none is (tests/distributed "
           "runs the collectives across processes)";
  const auto d = tag_value(tags, "device");
  if (!d) return std::nullopt;
  const DeviceType type = Device::parse(*d).type();
  const DeviceRuntime* rt = device_runtime(type);
  if (rt != nullptr && rt->device_count() > 0) return std::nullopt;
  return detail::str_cat("needs a ", *d, " device, and none is available");
}

// Note [Seeding per operator]
// The checks draw their inputs from the default generator. Each overload
// reseeds it from its name (FNV-1a) first, so that what an overload is
// checked on does not depend on which overloads ran before it: `wick
// opcheck --all` and `wick opcheck torch.pow` see the same inputs.
void seed_for(std::string_view op) {
  std::uint64_t h = 14695981039346656037ULL;
  for (const char c : op) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  manual_seed(h);
}

// The tensors of a result: a tensor, a tuple of them, a tensor list.
std::vector<Tensor> tensors_of(const Value& v) {
  if (v.is_tensor()) return {v.to_tensor()};
  if (v.is_tensor_list()) return v.to_tensor_list();
  std::vector<Tensor> out;
  if (v.is_tuple() || v.is_list()) {
    for (const Value& item : v.items()) {
      if (item.is_tensor()) out.push_back(item.to_tensor());
    }
  }
  return out;
}

// Equal values, NaN equal to NaN.
bool same_values(const Tensor& a, const Tensor& b) {
  if (!a.sizes().equals(b.sizes()) || a.dtype() != b.dtype()) return false;
  if (a.numel() == 0) return true;
  const Tensor x = a.to(ScalarType::kFloat64);
  const Tensor y = b.to(ScalarType::kFloat64);
  return logical_or(eq(x, y), logical_and(ne(x, x), ne(y, y))).all().item<bool>();
}

bool close_values(const Tensor& a, const Tensor& b, double rtol, double atol) {
  if (!is_floating(a.dtype())) return same_values(a, b);
  if (a.numel() == 0) return true;
  const Tensor x = a.to(ScalarType::kFloat64);
  const Tensor y = b.to(ScalarType::kFloat64);
  const Tensor close = le(abs(sub(x, y)), add(mul(abs(y), rtol), atol));
  return logical_or(close, logical_or(eq(x, y), logical_and(ne(x, x), ne(y, y)))).all().item<bool>();
}

// "RuntimeError: ..." for wick's errors, the C++ type otherwise.
std::string error_text(const std::exception& e) {
  if (const auto* w = dynamic_cast<const Error*>(&e)) return detail::str_cat(w->type_name(), ": ", e.what());
  return detail::str_cat(demangle(typeid(e)), ": ", e.what());
}

using frontend::is_out_variant;

// The operator an out= variant writes the result of: the first overload of
// its lookup chain (Note [Sample lookup]) that is not an out= variant.
// An alias's out= (torch.absolute.out) passes through its target's first.
std::string out_variant_base(const std::string& op) {
  const std::vector<std::string> chain = sample_lookup_chain(op);
  for (std::size_t i = 1; i < chain.size(); ++i)
    if (!is_out_variant(find_op(chain[i]).schema())) return chain[i];
  return op.substr(0, op.rfind('.'));
}

// `call` with its `device` argument (positional or keyword) set to `device`,
// when the schema has one.
void set_device_argument(const FunctionSchema& s, SampleCall& call, Device device) {
  const int i = s.find_argument("device");
  if (i < 0) return;
  if (static_cast<std::size_t>(i) < call.args.size()) {
    call.args[static_cast<std::size_t>(i)] = Value(device);
    return;
  }
  for (auto& [name, v] : call.kwargs) {
    if (name == "device") {
      v = Value(device);
      return;
    }
  }
  call.kwargs.emplace_back("device", Value(device));
}

// A tensor argument of a call, with the schema argument it binds to.
struct BoundTensor {
  Tensor tensor;
  const SchemaArgument* arg = nullptr;
};

std::vector<BoundTensor> bound_tensors(const FunctionSchema& s, const SampleCall& call) {
  std::vector<BoundTensor> out;
  auto add = [&](const Value& v, const SchemaArgument* a) {
    if (v.is_tensor() && v.to_tensor().defined()) out.push_back({v.to_tensor(), a});
    if (v.is_tensor_list())
      for (const Tensor& t : v.to_tensor_list()) out.push_back({t, a});
  };
  // Positional values from a variadic argument on are its items (Note
  // [Variadic arguments] in dispatch/schema.cpp).
  std::size_t variadic = s.arguments.size();
  for (std::size_t i = 0; i < s.arguments.size(); ++i)
    if (s.arguments[i].variadic) variadic = i;
  for (std::size_t i = 0; i < call.args.size(); ++i) {
    const std::size_t a = std::min(i, variadic);
    add(call.args[i], a < s.arguments.size() ? &s.arguments[a] : nullptr);
  }
  for (const auto& [name, v] : call.kwargs) {
    const int i = s.find_argument(name);
    add(v, i >= 0 ? &s.arguments[static_cast<std::size_t>(i)] : nullptr);
  }
  return out;
}

// --- the checks -----------------------------------------------------------------------

CheckResult check_schema(const std::string& op) {
  const FunctionSchema s = find_op(op).schema();
  const std::string text = s.str();
  try {
    const FunctionSchema again = parse_schema(text);
    if (again.str() != text) {
      return result(op, "schema", CheckStatus::kFailed, "prints back as " + again.str() + ", not " + text);
    }
  } catch (const std::exception& e) {
    return result(op, "schema", CheckStatus::kFailed, "its printed schema does not parse: " + error_text(e));
  }
  return result(op, "schema", CheckStatus::kPassed);
}

// Adds `out=` for an out= variant: an empty tensor of the result's dtype, so
// that the kernel has to resize it.
void add_out_argument(const std::string& op, const FunctionSchema& s, SampleCall& call, Device device) {
  if (!is_out_variant(s)) return;
  const std::string base = out_variant_base(op);
  SampleCall plain = call;
  const Value probe = wick::call(base, plain.args, plain.kwargs);
  const std::vector<Tensor> results = tensors_of(probe);
  const ScalarType t = results.empty() ? ScalarType::kFloat32 : results.front().dtype();
  call.kwargs.emplace_back("out", Value(empty({0}, t, device)));
}

CheckResult check_aliasing(const std::string& op, const FunctionSchema& s, const std::vector<Sample>& samples,
                           SampleDomain domain, bool may_alias) {
  for (const Sample& sample : samples) {
    const std::string where = detail::str_cat("sample (", sample.text, "): ");
    SampleCall call = make_sample_call(sample, ScalarType::kFloat32, Device(), domain);
    add_out_argument(op, s, call, Device());
    const std::vector<BoundTensor> args = bound_tensors(s, call);
    std::vector<Tensor> before;
    std::vector<std::uint32_t> versions;
    for (const BoundTensor& b : args) {
      before.push_back(b.tensor.clone());
      versions.push_back(b.tensor.version());
    }
    Value out;
    try {
      out = wick::call(op, call.args, call.kwargs);
    } catch (const std::exception& e) {
      return result(op, "aliasing", CheckStatus::kFailed, where + error_text(e));
    }
    for (std::size_t i = 0; i < args.size(); ++i) {
      const SchemaArgument* a = args[i].arg;
      const bool writes = a != nullptr && a->alias && a->alias->is_write;
      const std::string name = a != nullptr ? a->name : "?";
      // An optional written argument (batch_norm's running statistics) is
      // written in some modes only, as in PyTorch's `Tensor(a!)?`.
      if (writes && !a->type.optional && args[i].tensor.version() == versions[i]) {
        return result(op, "aliasing", CheckStatus::kFailed,
                      where + "'" + name + "' is marked (a!) but its version counter did not move");
      }
      if (!writes && (args[i].tensor.version() != versions[i] || !same_values(args[i].tensor, before[i]))) {
        return result(op, "aliasing", CheckStatus::kFailed, where + "'" + name + "' is not marked (a!) but changed");
      }
    }
    // Each result: the (a!) argument itself, a view of a Tensor(a) argument,
    // or memory of its own. Every tensor of a list result (Tensor(a)[])
    // answers to the one return.
    const std::vector<Tensor> results = tensors_of(out);
    for (std::size_t r = 0; r < results.size() && (r < s.returns.size() || s.returns.size() == 1); ++r) {
      const auto& alias = s.returns[s.returns.size() == 1 ? 0 : r].alias;
      const Tensor& t = results[r];
      // The argument it aliases: one tensor, or (Tensor(a)[]) the list item
      // whose storage it shares.
      const BoundTensor* owner = nullptr;
      for (const BoundTensor& b : args) {
        if (!alias || b.arg == nullptr || !b.arg->alias || b.arg->alias->set != alias->set) continue;
        if (owner == nullptr || (t.numel() > 0 && t.storage().get() == b.tensor.storage().get())) owner = &b;
      }
      if (alias && alias->is_write) {
        if (owner == nullptr || !t.is_same(owner->tensor)) {
          return result(op, "aliasing", CheckStatus::kFailed,
                        where + "result " + std::to_string(r) + " is marked (a!) but is not that argument itself");
        }
        continue;
      }
      const bool shares_owner = owner != nullptr && t.numel() > 0 && t.storage().get() == owner->tensor.storage().get();
      if (alias && owner != nullptr && t.numel() > 0 && !shares_owner && !may_alias) {
        return result(op, "aliasing", CheckStatus::kFailed,
                      where + "result " + std::to_string(r) + " is marked as a view (" + alias->set +
                          ") but does not share the argument's storage");
      }
      if (!shares_owner) {
        // New memory, or (may_alias) an argument returned as it is.
        for (const BoundTensor& b : args) {
          if (may_alias && t.is_same(b.tensor)) break;
          if (t.numel() > 0 && t.storage().get() == b.tensor.storage().get()) {
            return result(op, "aliasing", CheckStatus::kFailed,
                          where + "result " + std::to_string(r) + " shares storage with argument '" +
                              (b.arg != nullptr ? b.arg->name : "?") + "' but the schema says it is new");
          }
        }
      }
    }
  }
  return result(op, "aliasing", CheckStatus::kPassed);
}

CheckResult check_meta(const std::string& op, const FunctionSchema& s, const std::vector<Sample>& samples,
                       SampleDomain domain) {
  const Device meta(DeviceType::kMeta);
  for (const Sample& sample : samples) {
    const std::string where = detail::str_cat("sample (", sample.text, "): ");
    SampleCall cpu = make_sample_call(sample, ScalarType::kFloat32, Device(), domain);
    add_out_argument(op, s, cpu, Device());
    SampleCall on_meta = sample_call_on(cpu, meta);
    set_device_argument(s, on_meta, meta);
    Value expected;
    try {
      expected = wick::call(op, cpu.args, cpu.kwargs);
    } catch (const std::exception& e) {
      return result(op, "meta", CheckStatus::kFailed, where + "on the CPU: " + error_text(e));
    }
    Value got;
    try {
      got = wick::call(op, on_meta.args, on_meta.kwargs);
    } catch (const std::exception& e) {
      return result(op, "meta", CheckStatus::kFailed, where + "on meta tensors: " + error_text(e));
    }
    const std::vector<Tensor> want = tensors_of(expected);
    const std::vector<Tensor> have = tensors_of(got);
    if (want.size() != have.size()) {
      return result(op, "meta", CheckStatus::kFailed,
                    where + "the meta call returned " + std::to_string(have.size()) + " tensors, the CPU " +
                        std::to_string(want.size()));
    }
    for (std::size_t i = 0; i < want.size(); ++i) {
      const Tensor& w = want[i];
      const Tensor& h = have[i];
      if (!h.device().is_meta() || !h.sizes().equals(w.sizes()) || h.dtype() != w.dtype() ||
          (w.numel() > 1 && !h.strides().equals(w.strides()))) {
        return result(op, "meta", CheckStatus::kFailed,
                      detail::str_cat(where, "result ", i, ": meta gives ", h.device().str(), " ",
                                      format_shape(h.sizes()), " strides ", format_shape(h.strides()), " ",
                                      dtype_name(h.dtype()), ", the CPU ", format_shape(w.sizes()), " strides ",
                                      format_shape(w.strides()), " ", dtype_name(w.dtype())));
      }
    }
  }
  return result(op, "meta", CheckStatus::kPassed);
}

// All of a result's floating tensors, flattened into one (what gradcheck compares).
Tensor as_one_tensor(const Value& v) {
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors_of(v)) {
    if (t.defined() && autograd::is_differentiable_type(t.dtype())) parts.push_back(t.reshape({-1}));
  }
  if (parts.empty()) return Tensor();
  return parts.size() == 1 ? parts.front() : cat(parts);
}

bool has_input(const Sample& sample) {
  const auto input = [](const SampleArg& a) {
    const auto* t = std::get_if<SampleTensor>(&a);
    return (t != nullptr && t->kind == SampleTensor::Kind::kInput) || std::holds_alternative<SampleTensorList>(a);
  };
  return std::any_of(sample.args.begin(), sample.args.end(), input) ||
         std::any_of(sample.kwargs.begin(), sample.kwargs.end(), [&](const auto& kw) { return input(kw.second); });
}

// A `nondifferentiable` operator: results of inputs that require grad must
// not require grad (zeros_like's result does not depend on their values).
CheckResult check_not_differentiable(const std::string& op, const FunctionSchema& s, const std::vector<Sample>& samples,
                                     SampleDomain domain) {
  for (const Sample& sample : samples) {
    const std::string where = detail::str_cat("sample (", sample.text, "): ");
    SampleCall call = make_sample_call(sample, ScalarType::kFloat64, Device(), domain);
    add_out_argument(op, s, call, Device());
    for (Tensor& t : call.inputs) {
      if (is_floating(t.dtype())) t.requires_grad_();
    }
    try {
      for (const Tensor& t : tensors_of(wick::call(op, call.args, call.kwargs))) {
        if (t.defined() && t.requires_grad()) {
          return result(op, "autograd", CheckStatus::kFailed,
                        where + "tagged nondifferentiable, yet its result requires grad");
        }
      }
    } catch (const std::exception& e) {
      return result(op, "autograd", CheckStatus::kFailed, where + error_text(e));
    }
  }
  return result(op, "autograd", CheckStatus::kPassed,
                "nondifferentiable (tagged): results of inputs that require grad do not");
}

// A `refuses_grad` operator (resize_): a call with inputs that require grad
// must fail, as PyTorch's does, rather than record a wrong graph.
CheckResult check_refuses_grad(const std::string& op, const std::vector<Sample>& samples, SampleDomain domain) {
  for (const Sample& sample : samples) {
    SampleCall call = make_sample_call(sample, ScalarType::kFloat64, Device(), domain);
    if (call.inputs.empty()) continue;
    for (Tensor& t : call.inputs) {
      if (is_floating(t.dtype())) t.requires_grad_();
    }
    try {
      (void)wick::call(op, call.args, call.kwargs);
    } catch (const RuntimeError&) {
      continue;
    }
    return result(
        op, "autograd", CheckStatus::kFailed,
        detail::str_cat("sample (", sample.text, "): tagged refuses_grad, yet it ran on inputs that require grad"));
  }
  return result(op, "autograd", CheckStatus::kPassed,
                "refuses inputs that require grad (tagged refuses_grad), as PyTorch");
}

CheckResult check_autograd(const std::string& op, const FunctionSchema& s, const Tags& tags,
                           const std::vector<Sample>& samples, SampleDomain domain) {
  if (std::none_of(samples.begin(), samples.end(), has_input)) {
    return result(op, "autograd", CheckStatus::kSkipped, "no input tensor to differentiate");
  }
  if (has_tag(tags, "nondifferentiable") && !is_out_variant(s)) return check_not_differentiable(op, s, samples, domain);
  if (has_tag(tags, "refuses_grad")) return check_refuses_grad(op, samples, domain);
  if (has_tag(tags, "random")) {
    return result(op, "autograd", CheckStatus::kSkipped,
                  "random results (tagged: gradcheck calls the operator many times and needs the same result)");
  }
  if (is_out_variant(s)) {
    return result(op, "autograd", CheckStatus::kSkipped, "an out= variant (out= arguments are not differentiated)");
  }
  const bool inplace = !s.arguments.empty() && s.arguments[0].alias && s.arguments[0].alias->is_write;
  // A formula (an Autograd kernel), or a composite whose parts record: else
  // a call that needs a gradient must say so, not return a wrong one.
  const std::vector<DispatchTableRow> rows = dispatch_table(op);
  // Tagged no_derivative: like PyTorch's, a backward through it must fail.
  const bool has_formula =
      !has_tag(tags, "no_derivative") && std::any_of(rows.begin(), rows.end(), [](const DispatchTableRow& r) {
        return (r.key == DispatchKey::kAutograd && (r.source == "kernel" || r.source == "alias")) ||
               r.source == "composite";
      });
  const double eps = std::stod(tag_value(tags, "eps").value_or("1e-6"));
  const double atol = std::stod(tag_value(tags, "atol").value_or("1e-5"));
  bool differentiable = false;
  std::string forward_note;
  for (const Sample& sample : samples) {
    const std::string where = detail::str_cat("sample (", sample.text, "): ");
    SampleCall call = make_sample_call(sample, ScalarType::kFloat64, Device(), domain);
    if (call.inputs.empty()) continue;
    for (Tensor& t : call.inputs) {
      if (is_floating(t.dtype())) t.requires_grad_();
    }
    // The call with `in` in place of the sample's inputs (self cloned for an
    // in-place operator, so that the inputs stay leaves). In a symmetric
    // domain the operator sees the symmetric part of its first input:
    // gradcheck perturbs each element alone, and such operators read one
    // triangle (PyTorch's own checks wrap them the same way).
    const bool symmetric = domain == SampleDomain::kSpd || domain == SampleDomain::kHermitian;
    auto fn = [&](const autograd::tensor_list& given) {
      autograd::tensor_list in = given;
      if (symmetric && !in.empty()) in[0] = mul(add(in[0], in[0].transpose(-2, -1)), 0.5);
      SampleCall c = call;
      std::size_t k = 0;
      auto replace = [&](Value& v) {
        if (v.is_tensor() && k < in.size() && v.to_tensor().is_same(call.inputs[k])) v = Value(in[k++]);
      };
      for (Value& v : c.args) {
        if (v.is_tensor_list()) {
          std::vector<Tensor> list = v.to_tensor_list();
          for (Tensor& t : list) t = in[k++];
          v = Value(std::move(list));
        } else {
          replace(v);
        }
      }
      for (auto& [name, v] : c.kwargs) replace(v);
      if (inplace && !c.args.empty() && c.args[0].is_tensor()) c.args[0] = Value(c.args[0].to_tensor().clone());
      return as_one_tensor(wick::call(op, c.args, c.kwargs));
    };
    if (!has_formula) {
      // Its result must carry a node whose backward says it is not
      // implemented, as PyTorch's autograd fallback does.
      try {
        const Tensor probe = fn(call.inputs);
        if (!probe.defined()) continue;
        if (!probe.requires_grad()) {
          return result(op, "autograd", CheckStatus::kFailed,
                        where + "no formula, and the result of inputs that require grad does not require grad");
        }
        // A complex result is summed through its real view (backward needs a real loss).
        (is_complex(probe.dtype()) ? wick::view_as_real(probe) : probe).sum().backward();
      } catch (const std::exception& e) {
        if (std::string(e.what()).find("is not implemented") != std::string::npos) {
          return result(op, "autograd", CheckStatus::kPassed,
                        "no formula: a backward through it raises \"the derivative ... is not implemented\"");
        }
        return result(op, "autograd", CheckStatus::kFailed, where + error_text(e));
      }
      return result(op, "autograd", CheckStatus::kFailed, where + "no formula, yet a backward through it ran");
    }
    try {
      const Tensor probe = fn(call.inputs);
      if (!probe.defined()) continue;  // no floating result: nothing to differentiate
      differentiable = true;
      if (!probe.requires_grad()) {
        return result(op, "autograd", CheckStatus::kFailed,
                      where + "a floating result of floating inputs does not require grad: no formula");
      }
      // Forward mode is real only (Note [Complex gradients] in wick/autograd.h):
      // not for a complex result, nor through complex values on the way.
      autograd::GradcheckOptions opt{.eps = eps, .atol = atol, .check_forward_ad = !is_complex(probe.dtype())};
      bool passed = false;
      try {
        passed = autograd::gradcheck(autograd::GradcheckFn1(fn), call.inputs, opt);
      } catch (const NotImplementedError& e) {
        if (std::string(e.what()).find("forward-mode AD of complex tensors") == std::string::npos) throw;
        opt.check_forward_ad = false;
        forward_note = "forward mode not checked: complex values on the way, which it does not handle";
        passed = autograd::gradcheck(autograd::GradcheckFn1(fn), call.inputs, opt);
      }
      if (!passed) return result(op, "autograd", CheckStatus::kFailed, where + "gradcheck failed");
      if (!autograd::gradgradcheck(autograd::GradcheckFn1(fn), call.inputs, {}, opt)) {
        return result(op, "autograd", CheckStatus::kFailed, where + "gradgradcheck failed");
      }
    } catch (const std::exception& e) {
      return result(op, "autograd", CheckStatus::kFailed, where + error_text(e));
    }
  }
  if (!differentiable) return result(op, "autograd", CheckStatus::kSkipped, "no floating result");
  return result(op, "autograd", CheckStatus::kPassed, forward_note);
}

std::vector<std::string> overloads_of(std::string_view op) {
  if (try_find_op(op)) {
    const std::string name(op);
    for (const CatalogEntry& e : catalog_entries())
      if (e.qualified_name == name) return e.overloads;
    return {name};
  }
  throw ValueError(detail::str_cat("opcheck: unknown operator '", op, "'"));
}

}  // namespace

std::vector<CheckResult> opcheck(std::string_view op_name) {
  std::vector<CheckResult> out;
  for (const std::string& op : overloads_of(op_name)) {
    seed_for(op);
    out.push_back(check_schema(op));
    const FunctionSchema s = find_op(op).schema();
    std::vector<Sample> samples;
    Tags tags;
    SampleDomain domain = SampleDomain::kAwayFromZero;
    std::optional<std::string> no_device;
    try {
      samples = samples_for(op);
      tags = tags_for(op);
      domain = domain_of(op, tags);
      no_device = missing_device(tags);
    } catch (const std::exception& e) {
      for (const char* check : {"aliasing", "meta", "autograd"})
        out.push_back(result(op, check, CheckStatus::kFailed, "its samples: " + error_text(e)));
      continue;
    }
    if (samples.empty()) {
      for (const char* check : {"aliasing", "meta", "autograd"})
        out.push_back(result(op, check, CheckStatus::kSkipped,
                             "no sample: the definition has none and the schema "
                             "has arguments a sample cannot be made for"));
      continue;
    }
    if (no_device) {
      for (const char* check : {"aliasing", "meta", "autograd"})
        out.push_back(result(op, check, CheckStatus::kSkipped, *no_device));
      continue;
    }
    out.push_back(check_aliasing(op, s, samples, domain, has_tag(tags, "may_alias")));
    if (has_tag(tags, "device_copy")) {
      out.push_back(result(op, "meta", CheckStatus::kSkipped,
                           "copies data to another device (tagged device_copy): a meta tensor has no data to copy"));
    } else if (has_tag(tags, "process_group")) {
      out.push_back(result(op, "meta", CheckStatus::kSkipped,
                           "a collective (tagged process_group) moves data between processes: a meta tensor has none"));
    } else if (has_tag(tags, "device_dependent")) {
      out.push_back(result(op, "meta", CheckStatus::kSkipped,
                           "the result depends on the tensor's device (tagged device_dependent), as PyTorch's does: "
                           "a meta tensor's answer is not the CPU's"));
    } else if (has_tag(tags, "data_dependent")) {
      out.push_back(result(op, "meta", CheckStatus::kSkipped,
                           "the result's shape depends on the data (tagged data_dependent), which a meta tensor "
                           "does not have"));
    } else {
      out.push_back(check_meta(op, s, samples, domain));
    }
    out.push_back(check_autograd(op, s, tags, samples, domain));
  }
  return out;
}

std::vector<CheckResult> test_backend(DispatchKey key) {
  WICK_CHECK(is_backend_key(key), ValueError, "test_backend: ", dispatch_key_name(key), " is not a backend key");
  const Device device(device_type_of(key));
  std::vector<CheckResult> out;
  for (const CatalogEntry& e : catalog_entries()) {
    for (const std::string& op : e.overloads) {
      const std::vector<DispatchTableRow> rows = dispatch_table(op);
      const bool has_kernel = std::any_of(rows.begin(), rows.end(), [&](const DispatchTableRow& r) {
        return r.key == key && (r.source == "kernel" || r.source == "alias");
      });
      if (!has_kernel || !operator_info(op).alias_of.empty()) continue;
      seed_for(op);
      const FunctionSchema s = find_op(op).schema();
      std::vector<Sample> samples;
      Tags tags;
      SampleDomain domain = SampleDomain::kAwayFromZero;
      try {
        samples = samples_for(op);
        tags = tags_for(op);
        domain = domain_of(op, tags);
      } catch (const std::exception& err) {
        out.push_back(result(op, "backend", CheckStatus::kFailed, "its samples: " + error_text(err)));
        continue;
      }
      if (samples.empty()) {
        out.push_back(result(op, "backend", CheckStatus::kSkipped, "no sample"));
        continue;
      }
      const bool random = has_tag(tags, "random");
      std::optional<CheckResult> failure;
      for (const Sample& sample : samples) {
        const std::string where = detail::str_cat("sample (", sample.text, "): ");
        SampleCall cpu = make_sample_call(sample, ScalarType::kFloat32, Device(), domain);
        add_out_argument(op, s, cpu, Device());
        SampleCall dev = sample_call_on(cpu, device);
        set_device_argument(s, dev, device);
        Value want;
        Value have;
        std::string want_error;
        std::string have_error;
        try {
          want = wick::call(op, cpu.args, cpu.kwargs);
        } catch (const std::exception& err) {
          want_error = error_text(err);
        }
        try {
          have = wick::call(op, dev.args, dev.kwargs);
        } catch (const std::exception& err) {
          have_error = error_text(err);
        }
        if (!want_error.empty() || !have_error.empty()) {
          if (want_error != have_error) {
            failure = result(op, "backend", CheckStatus::kFailed,
                             where + "the CPU " + (want_error.empty() ? "succeeds" : "raises " + want_error) + "; " +
                                 device.str() + " " + (have_error.empty() ? "succeeds" : "raises " + have_error));
          }
          continue;
        }
        const std::vector<Tensor> w = tensors_of(want);
        const std::vector<Tensor> h = tensors_of(have);
        if (w.size() != h.size()) {
          failure = result(op, "backend", CheckStatus::kFailed, where + "a different number of results");
          continue;
        }
        for (std::size_t i = 0; i < w.size() && !failure; ++i) {
          const Tensor back = h[i].cpu();
          if (h[i].device().type() != device.type() || back.dtype() != w[i].dtype() ||
              !back.sizes().equals(w[i].sizes())) {
            failure =
                result(op, "backend", CheckStatus::kFailed,
                       detail::str_cat(where, "result ", i, ": ", h[i].device().str(), " ", format_shape(back.sizes()),
                                       " ", dtype_name(back.dtype()), " against the CPU's ", format_shape(w[i].sizes()),
                                       " ", dtype_name(w[i].dtype())));
          } else if (!random && !close_values(back, w[i], 1e-4, 1e-5)) {
            failure = result(op, "backend", CheckStatus::kFailed,
                             detail::str_cat(where, "result ", i, ": the values differ from the CPU's"));
          }
        }
      }
      out.push_back(failure ? *failure : result(op, "backend", CheckStatus::kPassed));
    }
  }
  return out;
}

}  // namespace wick
