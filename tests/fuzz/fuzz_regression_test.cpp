// tests/fuzz/fuzz_regression_test.cpp - every bug the fuzzers found, replayed through the public API.
/// \file
/// One test per finding of the libFuzzer targets in tests/fuzz (README,
/// "Fuzzing"). Each input is also kept in its fuzzer's seed corpus, as the
/// file named in the test's comment, so the bounded CI runs replay it too.
/// This file is part of the ordinary test suite (tests/*/*_test.cpp).
#include <string>

#include <gtest/gtest.h>

#include "wick/error.h"
#include "wick/schema.h"

namespace wick {
namespace {

// corpus/schema/regress_huge_fixed_list_size: `int[1277647928] x=1` expanded
// its default to 1.3 billion ints (10 GB) before anything was checked.
TEST(FuzzRegression, SchemaHugeFixedListSizeIsRefused) {
  try {
    (void)parse_schema("conv2d(Tensor input, int[1277647928] dilation=1) -> Tensor");
    FAIL() << "expected SchemaError";
  } catch (const SchemaError& e) {
    EXPECT_NE(std::string(e.what()).find("invalid list size '1277647928' (expected 1 to 64)"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(parse_schema("f(int[64] x=1) -> Tensor").arguments[0].default_value->to_int_list().size(), 64U);
  EXPECT_THROW((void)parse_schema("f(int[65] x) -> Tensor"), SchemaError);
}

}  // namespace
}  // namespace wick
