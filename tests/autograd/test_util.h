// tests/autograd/test_util.h - helpers shared by the autograd tests.
/// \file
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "wick/autograd.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/random.h"

namespace wick::testing {

inline Tensor vec(std::vector<double> v, ScalarType t = ScalarType::kFloat64) {
  std::vector<Value> items(v.begin(), v.end());
  return tensor(Value::list(items), t);
}

inline std::vector<double> values(const Tensor& t) {
  Tensor c = t.detach().contiguous().to(ScalarType::kFloat64);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

inline void expect_near(const Tensor& t, const std::vector<double>& want, double tol = 1e-9) {
  ASSERT_TRUE(t.defined());
  std::vector<double> got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

inline Tensor drandn(std::vector<std::int64_t> shape, bool requires_grad = true) {
  Tensor t = randn(IntArrayRef(shape), ScalarType::kFloat64);
  if (requires_grad) t.requires_grad_();
  return t;
}

/// Loads the CPU backend once per test.
class AutogradTest : public ::testing::Test {
 protected:
  void SetUp() override {
    init();
    manual_seed(0);
  }
};

/// The message of the wick::Error `f` throws, or "<no error>".
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

/// Expects `f` to throw a wick::Error whose message contains `want`.
template <class F>
void expect_error_containing(F&& f, const std::string& want) {
  const std::string got = error_of(std::forward<F>(f));
  EXPECT_NE(got.find(want), std::string::npos) << got;
}

/// Expects `stmt` to throw `E` whose message contains `text`.
#define WICK_EXPECT_THROW_MSG(stmt, E, text)                                              \
  do {                                                                                    \
    try {                                                                                 \
      (void)(stmt);                                                                       \
      ADD_FAILURE() << "expected " #E " from: " #stmt;                                    \
    } catch (const E& e) {                                                                \
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();         \
    }                                                                                     \
  } while (0)

}  // namespace wick::testing
