// tests/nn/modules_reference_test.cpp - the built-in nn modules against PyTorch 1.13: repr, state_dict, forward.
/// \file
/// Each case of tests/data/reference/nn_modules.json (written by
/// tests/nn/make_module_cases.py) is built here with the same options:
/// its printed form, state_dict keys and shapes must match PyTorch's; then
/// the recorded parameter values are loaded, one forward runs in the
/// recorded mode on the recorded inputs, and the outputs and the state
/// afterwards (running statistics, renormalised embeddings) must match.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tests/autograd/test_util.h"
#include "tests/nn/module_cases.h"
#include "tests/support/test_paths.h"

namespace wick::testing {
namespace {

using nlohmann::json;

const json& reference() {
  static const json data = [] {
    std::ifstream in(wick_test::reference_dir() + "/nn_modules.json");
    return json::parse(in);
  }();
  return data;
}

const json* find_case(const std::string& name) {
  for (const json& c : reference()["cases"]) {
    if (c["name"] == name) return &c;
  }
  return nullptr;
}

Tensor from_json(const json& j) {
  std::vector<Value> items;
  const bool integral = j["dtype"] != "float64";
  for (const json& v : j["values"]) {
    items.push_back(integral ? Value(v.get<std::int64_t>()) : Value(v.get<double>()));
  }
  const ScalarType dtype = j["dtype"] == "float64" ? ScalarType::kFloat64
                           : j["dtype"] == "bool"  ? ScalarType::kBool
                                                   : ScalarType::kInt64;
  Tensor flat = tensor(Value::list(items), dtype);
  return flat.reshape(j["shape"].get<std::vector<std::int64_t>>());
}

void expect_matches(const Tensor& got, const json& want, const std::string& what) {
  ASSERT_TRUE(got.defined()) << what;
  EXPECT_EQ(got.sizes().vec(), want["shape"].get<std::vector<std::int64_t>>()) << what;
  const std::vector<double> g = values(got);
  const std::vector<double> w = want["values"].get<std::vector<double>>();
  ASSERT_EQ(g.size(), w.size()) << what;
  for (std::size_t i = 0; i < g.size(); ++i) {
    EXPECT_NEAR(g[i], w[i], 1e-9 * std::max(1.0, std::fabs(w[i]))) << what << " element " << i;
  }
}

class NnModuleReference : public AutogradTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(NnModuleReference, MatchesPyTorch) {
  const std::string name = GetParam();
  const json* c = find_case(name);
  ASSERT_NE(c, nullptr) << "no reference case " << name << "; run tests/nn/make_module_cases.py";
  ModuleCase made = module_cases().at(name)();
  nn::Module& m = *made.module;
  EXPECT_EQ(m.repr(), (*c)["repr"].get<std::string>());
  if (!(*c)["keep_dtype"].get<bool>()) m.to(ScalarType::kFloat64);

  // state_dict: the same keys, in the same order, with the same shapes.
  const auto state = m.state_dict();
  const json& want_state = (*c)["state"];
  ASSERT_EQ(state.size(), want_state.size());
  std::vector<std::pair<std::string, Tensor>> load;
  for (std::size_t i = 0; i < state.size(); ++i) {
    EXPECT_EQ(state[i].first, want_state[i]["key"].get<std::string>());
    EXPECT_EQ(state[i].second.sizes().vec(), want_state[i]["shape"].get<std::vector<std::int64_t>>())
        << state[i].first;
    load.emplace_back(want_state[i]["key"].get<std::string>(), from_json(want_state[i]));
  }
  m.load_state_dict(load);
  if (!c->contains("outputs")) return;

  m.train((*c)["mode"] == "train");
  std::vector<Tensor> inputs;
  for (const json& in : (*c)["inputs"]) inputs.push_back(from_json(in));
  ASSERT_TRUE(made.run) << name << " has a forward in PyTorch";
  const std::vector<Tensor> outputs = made.run(inputs);
  const json& want_out = (*c)["outputs"];
  ASSERT_EQ(outputs.size(), want_out.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) expect_matches(outputs[i], want_out[i], "output " + std::to_string(i));
  const auto after = m.state_dict();
  const json& want_after = (*c)["state_after"];
  ASSERT_EQ(after.size(), want_after.size());
  for (std::size_t i = 0; i < after.size(); ++i) expect_matches(after[i].second, want_after[i], after[i].first);
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& entry : module_cases()) names.push_back(entry.first);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Cases, NnModuleReference, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// Every reference case has a C++ counterpart (a case added to the generator
// without one would otherwise go untested).
TEST(NnModuleReferenceData, EveryCaseIsBuilt) {
  const auto& cases = module_cases();
  for (const json& c : reference()["cases"]) {
    EXPECT_TRUE(cases.count(c["name"].get<std::string>()) == 1) << c["name"];
  }
}

}  // namespace
}  // namespace wick::testing
