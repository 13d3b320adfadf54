// tests/cli/random_test.cpp - PyTorch 1.13's random numbers, bit for bit (Note [PyTorch's random numbers]).
/// \file
/// The cases of tests/data/reference/golden/bitwise.json (made by make_bitwise.py under PyTorch 1.13) run through
/// `wick eval`, as a user types them: `torch.manual_seed(0); torch.randn(3)`; and linspace, whose values PyTorch
/// computes in an order of its own (Note [linspace as PyTorch computes it]).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tools/wick/eval.h"
#include "wick/autograd.h"
#include "wick/dispatcher.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/random.h"
#include "wick/tensor.h"
#include "tests/support/test_paths.h"

namespace {

namespace ev = wick::eval;

// The IEEE bits of each element, as make_random.py writes them (hex), or the integers.
std::vector<std::string> bits_of(const wick::Tensor& t) {
  std::vector<std::string> out;
  const wick::Tensor c = t.contiguous();
  char buf[32];
  for (std::int64_t i = 0; i < c.numel(); ++i) {
    if (c.dtype() == wick::ScalarType::kFloat32) {
      std::uint32_t u = 0;
      std::memcpy(&u, static_cast<const float*>(c.data_ptr()) + i, sizeof u);
      std::snprintf(buf, sizeof buf, "%08x", u);
    } else if (c.dtype() == wick::ScalarType::kFloat64) {
      std::uint64_t u = 0;
      std::memcpy(&u, static_cast<const double*>(c.data_ptr()) + i, sizeof u);
      std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(u));
    } else {
      std::snprintf(buf, sizeof buf, "%lld",
                    static_cast<long long>(static_cast<const std::int64_t*>(c.data_ptr())[i]));
    }
    out.emplace_back(buf);
  }
  return out;
}

std::string text_of(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// Each case of `section` evaluated and compared with PyTorch's bits.
void expect_bitwise(const char* section, std::size_t at_least) {
  wick::init();
  const std::string path = wick_test::reference_dir() + "/golden/bitwise.json";
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "cannot open " << path;
  const nlohmann::json doc = nlohmann::json::parse(in);
  ASSERT_GE(doc.at(section).size(), at_least);
  for (const auto& c : doc.at(section)) {
    const std::string expr = c.at("expr");
    SCOPED_TRACE(expr);
    const wick::Tensor t = ev::evaluate(expr).to_tensor();
    EXPECT_EQ(wick::dtype_name(t.dtype()), c.at("dtype").get<std::string>());
    EXPECT_EQ(std::vector<std::int64_t>(t.sizes().begin(), t.sizes().end()),
              c.at("shape").get<std::vector<std::int64_t>>());
    const std::vector<std::string> got = bits_of(t);
    ASSERT_EQ(got.size(), c.at("values").size());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], text_of(c.at("values")[i])) << "element " << i;
  }
}

TEST(Random, PyTorchsNumbersBitForBit) { expect_bitwise("random", 50); }

TEST(Random, LinspaceBitForBit) { expect_bitwise("arithmetic", 24); }

TEST(Random, TheAcceptanceLine) {
  wick::init();
  EXPECT_EQ(ev::format(ev::evaluate("torch.manual_seed(0); torch.randn(3)")), "tensor([ 1.5410, -0.2934, -2.1788])");
}

TEST(Random, AGeneratorWithoutASeedIsNondeterministic) {
  const wick::Generator a;
  const wick::Generator b;
  EXPECT_NE(a.initial_seed(), b.initial_seed());  // equal with probability 2**-63
  EXPECT_LT(a.initial_seed(), std::uint64_t{1} << 63);  // a Python int wick's int64 can hold
  wick::Generator c(5);
  EXPECT_EQ(c.initial_seed(), 5U);
  c.manual_seed(9);
  EXPECT_EQ(c.initial_seed(), 9U);
}

TEST(Random, ReseedingForgetsTheCachedNormal) {
  wick::Generator g(0);
  double first[3];
  double again[3];
  g.normal(first, 3);  // leaves the pair's second value cached
  g.manual_seed(0);
  g.normal(again, 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(first[i], again[i]);
}

// As in PyTorch, a fill replaces self's values with draws that depend on
// nothing differentiable, and torch.normal's values are not reparameterised:
// every gradient is zero, yet the results require grad; a leaf that
// requires grad is refused.
TEST(Random, FillsAndNormalHaveZeroGradients) {
  wick::init();
  const auto call = [](const char* op, std::vector<wick::Value> args) { return wick::call(op, std::move(args)); };
  const std::vector<std::pair<const char*, std::vector<wick::Value>>> fills = {
      {"torch.Tensor.uniform_", {}}, {"torch.Tensor.normal_", {}}, {"torch.Tensor.random_", {}},
      {"torch.Tensor.exponential_", {}}, {"torch.Tensor.geometric_", {wick::Value(0.5)}},
      {"torch.Tensor.cauchy_", {}}, {"torch.Tensor.log_normal_", {}}, {"torch.Tensor.bernoulli_", {}}};
  for (const auto& [op, extra] : fills) {
    SCOPED_TRACE(op);
    const wick::Tensor leaf = wick::ones({3}).requires_grad_();
    wick::Tensor x = wick::mul(leaf, wick::wrap_scalar(wick::Scalar(2.0)));
    std::vector<wick::Value> args = {wick::Value(x)};
    args.insert(args.end(), extra.begin(), extra.end());
    const wick::Tensor y = call(op, args).to_tensor();
    ASSERT_TRUE(y.requires_grad());
    wick::sum(y).backward();
    ASSERT_TRUE(leaf.grad().defined());
    EXPECT_EQ(wick::sum(wick::abs(leaf.grad())).item().to<double>(), 0.0);
    std::vector<wick::Value> on_leaf = {wick::Value(leaf)};
    on_leaf.insert(on_leaf.end(), extra.begin(), extra.end());
    EXPECT_THROW(call(op, on_leaf), wick::RuntimeError);
  }
  const wick::Tensor mean = wick::zeros({3}).requires_grad_();
  const wick::Tensor std = wick::ones({3}).requires_grad_();
  const wick::Tensor y = wick::normal(mean, std);
  ASSERT_TRUE(y.requires_grad());
  wick::sum(y).backward();
  EXPECT_EQ(wick::sum(wick::abs(mean.grad())).item().to<double>(), 0.0);
  EXPECT_EQ(wick::sum(wick::abs(std.grad())).item().to<double>(), 0.0);
}

TEST(Random, ConcurrentDrawsComeFromOneStream) {
  // Two threads drawing from one generator take disjoint parts of the one
  // stream: together they hold exactly the values one thread would draw.
  wick::Generator g(11);
  std::vector<std::int64_t> a(1000);
  std::vector<std::int64_t> b(1000);
  std::thread t1([&] {
    for (std::size_t i = 0; i < a.size(); i += 10) g.integers(a.data() + i, 10, 0, 1 << 30);
  });
  std::thread t2([&] {
    for (std::size_t i = 0; i < b.size(); i += 10) g.integers(b.data() + i, 10, 0, 1 << 30);
  });
  t1.join();
  t2.join();
  std::vector<std::int64_t> both = a;
  both.insert(both.end(), b.begin(), b.end());
  std::vector<std::int64_t> serial(2000);
  wick::Generator h(11);
  h.integers(serial.data(), 2000, 0, 1 << 30);
  std::sort(both.begin(), both.end());
  std::sort(serial.begin(), serial.end());
  EXPECT_EQ(both, serial);
}

TEST(Random, StatementsRunInTurn) {
  EXPECT_EQ(ev::format(ev::evaluate("1; 2")), "2");
  EXPECT_EQ(ev::format(ev::evaluate("1;")), "1");
  EXPECT_EQ(ev::format(ev::evaluate("1; 2, 3")), "(2, 3)");
  EXPECT_EQ(ev::to_string(*ev::parse("1; 2 + 3")), "1; (2 + 3)");
  EXPECT_THROW((void)ev::parse(";"), ev::SyntaxError);
  EXPECT_THROW((void)ev::parse("1;;2"), ev::SyntaxError);
}

}  // namespace
