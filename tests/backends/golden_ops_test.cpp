// tests/backends/golden_ops_test.cpp - forward values and gradients of tests/data/reference/golden/ops-basic.json.
/// \file
/// Each case's `op` is a PyTorch expression over named inputs; it is evaluated
/// through `wick eval`'s engine with the inputs bound as variables, and every
/// output, and the gradient of the generator's weighted-sum loss with respect
/// to every float64 input, is compared with PyTorch 1.13's (1e-10 relative).
/// Inputs and outputs come in every dtype (complex values as [real, imag]
/// pairs); gradients are taken for the float64 inputs. float32 and
/// complex64 results are compared to 1e-6 relative, float16 and bfloat16
/// ones to one step of their dtype.
/// Cases whose operators arrive with the operator-breadth issue are listed in
/// kPending with that reason: the test fails if any other case does not pass,
/// and also if a pending case starts passing (so the list stays honest).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>
#include <vector>

#include "wick/autograd.h"
#include "tools/wick/eval.h"
#include "tools/wick/eval_internal.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "tests/support/test_paths.h"

namespace wick {
namespace {

using nlohmann::json;

// Cases that may not pass yet, each with its reason. Empty: every golden
// case of ops-basic.json passes, forward and gradients.
const std::set<std::string> kPending = {};

// A complex tensor's spec (values as [real, imag] pairs) as the spec of its
// view_as_real: the real dtype, a last dim of 2, the pairs flattened.
json as_parts(const json& spec) {
  std::vector<std::int64_t> shape = spec["shape"].get<std::vector<std::int64_t>>();
  shape.push_back(2);
  json values = json::array();
  for (const json& pair : spec["values"]) {
    values.push_back(pair[0]);
    values.push_back(pair[1]);
  }
  const ScalarType real = to_real_dtype(parse_dtype(spec["dtype"].get<std::string>()));
  return {{"shape", shape}, {"dtype", std::string(dtype_name(real))}, {"values", values}};
}

Tensor make_input(const json& spec) {
  std::vector<std::int64_t> shape = spec["shape"].get<std::vector<std::int64_t>>();
  const ScalarType dtype = parse_dtype(spec["dtype"].get<std::string>());
  if (is_complex(dtype)) return view_as_complex(make_input(as_parts(spec)));
  Tensor t = make_empty(shape, dtype);
  const json& values = spec["values"];
  visit_dtype(t.dtype(), "golden", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!is_complex_v<T>) {
      T* p = t.data_ptr<T>();
      for (std::size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(values[i].get<compute_type_t<T>>());
    }
  });
  return t;
}

Tensor zeros_like_input(const Tensor& t) { return zeros(t.sizes(), t.dtype()); }

// Compares one output; returns an empty string when it matches.
std::string compare(const Tensor& got, const json& want) {
  std::vector<std::int64_t> shape = want["shape"].get<std::vector<std::int64_t>>();
  if (got.sizes().vec() != shape) return "shape differs";
  if (std::string(dtype_name(got.dtype())) != want["dtype"].get<std::string>()) return "dtype differs";
  if (is_complex(got.dtype())) return compare(view_as_real(got), as_parts(want));
  // Results in float32 may differ in the last bits (PyTorch's vectorised
  // complex multiply and cos/sin round differently); 16-bit ones by a step.
  const double rel = got.dtype() == ScalarType::kFloat32    ? 1e-6
                     : got.dtype() == ScalarType::kFloat16  ? 0x1p-10
                     : got.dtype() == ScalarType::kBFloat16 ? 0x1p-7
                                                            : 1e-10;
  Tensor c = got.contiguous().to(ScalarType::kFloat64);
  const double* p = c.data_ptr<double>();
  const json& values = want["values"];
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double w = values[i].is_boolean() ? (values[i].get<bool>() ? 1.0 : 0.0) : values[i].get<double>();
    const double tol = rel * std::max(1.0, std::abs(w));
    if (!(std::abs(p[i] - w) <= tol)) return "value " + std::to_string(i) + " differs";
  }
  return "";
}

// Checks dL/d input for L = sum_k (outputs[k] * grad_weights[k]).sum(), as
// the generator defines it; returns an empty string when all match.
std::string compare_grads(const std::vector<Tensor>& outs, const std::vector<std::pair<std::string, Tensor>>& leaves,
                          const json& c) {
  Tensor loss;
  for (std::size_t k = 0; k < outs.size(); ++k) {
    const json& w = c["grad_weights"][k];
    if (w.is_null()) continue;
    Tensor term = sum(mul(outs[k], make_input(w)));
    loss = loss.defined() ? add(loss, term) : term;
  }
  if (!loss.defined() || !loss.requires_grad()) return "gradient: the result does not require grad";
  autograd::tensor_list inputs;
  for (const auto& leaf : leaves) inputs.push_back(leaf.second);
  autograd::tensor_list grads = autograd::grad({loss}, inputs, {}, std::nullopt, false, /*allow_unused=*/true);
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    const std::string& name = leaves[i].first;
    Tensor g = grads[i].defined() ? grads[i] : zeros_like_input(leaves[i].second);
    std::string p = compare(g, c["grads"][name]);
    if (!p.empty()) return "gradient of " + name + ": " + p;
  }
  return "";
}

TEST(GoldenOps, ForwardValuesAndGradientsMatchPyTorch) {
  init();
  std::ifstream f(wick_test::reference_dir() + "/golden/ops-basic.json");
  ASSERT_TRUE(f.good());
  json golden = json::parse(f);
  int passed = 0;
  int with_grads = 0;
  for (const json& c : golden["cases"]) {
    const std::string id = c["id"];
    eval::Scope scope;
    std::vector<std::pair<std::string, Tensor>> leaves;  // float64 inputs, as the generator marks them
    for (auto& [name, spec] : c["inputs"].items()) {
      Tensor t = make_input(spec);
      if (t.dtype() == ScalarType::kFloat64) {
        t.requires_grad_();
        leaves.emplace_back(name, t);
      }
      scope[name] = Value(t);
    }
    std::string problem;
    try {
      Value r = eval::evaluate(c["op"].get<std::string>(), scope);
      std::vector<Tensor> outs;
      const auto* named = r.is_object() ? dynamic_cast<const eval::NamedTuple*>(r.to_object().get()) : nullptr;
      if (r.is_tuple() || named != nullptr) {  // torch.max(a, dim=1) is a torch.return_types.max
        for (const Value& v : named != nullptr ? named->items() : r.items()) outs.push_back(v.to_tensor());
      } else {
        outs.push_back(r.to_tensor());
      }
      if (outs.size() != c["outputs"].size()) problem = "wrong number of outputs";
      for (std::size_t i = 0; problem.empty() && i < outs.size(); ++i) problem = compare(outs[i], c["outputs"][i]);
      if (problem.empty() && c.value("differentiable", false)) {
        problem = compare_grads(outs, leaves, c);
        if (!kPending.count(id)) ++with_grads;
      }
    } catch (const Error& e) {
      problem = std::string(e.type_name()) + ": " + e.what();
    }
    if (kPending.count(id)) {
      EXPECT_FALSE(problem.empty()) << id << " now passes: remove it from kPending";
    } else {
      EXPECT_TRUE(problem.empty()) << id << " (" << c["op"].get<std::string>() << "): " << problem;
      ++passed;
    }
  }
  EXPECT_GE(passed, 40);
  EXPECT_GE(with_grads, 30);
}

}  // namespace
}  // namespace wick
