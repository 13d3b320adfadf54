// tests/core/dtype_test.cpp - the twelve dtypes: PyTorch 1.13's promotion table, 16-bit rounding, conversions.
/// \file
/// The reference (tests/data/reference/torch-1.13-dtypes.json) is written by
/// dump_dtypes.py under PyTorch 1.13. Conversions of tensors and their
/// printing are compared with PyTorch case by case in the differential test
/// (its `conversions` and `promotion` sections).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/test_paths.h"
#include "wick/dtype.h"
#include "wick/error.h"
#include "wick/half.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/scalar.h"
#include "wick/value.h"

namespace {

using wick::ScalarType;

nlohmann::json reference() {
  std::ifstream in(wick_test::reference_dir() + "/torch-1.13-dtypes.json");
  EXPECT_TRUE(in.good());
  return nlohmann::json::parse(in);
}

TEST(Dtype, PromotionIsPyTorchsTableForEveryPair) {
  const nlohmann::json table = reference().at("promote_types");
  int pairs = 0;
  for (const auto& [a, row] : table.items()) {
    for (const auto& [b, want] : row.items()) {
      const ScalarType got = wick::promote_types(wick::parse_dtype(a), wick::parse_dtype(b));
      EXPECT_EQ(std::string(wick::dtype_name(got)), want.get<std::string>()) << a << " with " << b;
      ++pairs;
    }
  }
  EXPECT_EQ(pairs, wick::kNumScalarTypes * wick::kNumScalarTypes);
}

TEST(Dtype, SixteenBitRoundingIsPyTorchs) {
  const nlohmann::json cases = reference().at("rounding");
  ASSERT_GE(cases.size(), 20u);
  for (const auto& c : cases) {
    const float f = std::bit_cast<float>(c.at("float_bits").get<std::uint32_t>());
    EXPECT_EQ(wick::Half(f).bits, c.at("half_bits").get<std::uint16_t>()) << f;
    EXPECT_EQ(wick::BFloat16(f).bits, c.at("bfloat16_bits").get<std::uint16_t>()) << f;
  }
  // Every half converts to float and back unchanged (NaN payloads kept quiet).
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const wick::Half h = wick::Half::from_bits(static_cast<std::uint16_t>(b));
    const float f = h;
    if (std::isnan(f)) continue;
    EXPECT_EQ(wick::Half(f).bits, h.bits) << b;
  }
  EXPECT_EQ(static_cast<float>(std::numeric_limits<wick::Half>::max()), 65504.0f);
  EXPECT_TRUE(std::isnan(static_cast<float>(wick::BFloat16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(Dtype, NamesTitlesAndParsing) {
  EXPECT_EQ(wick::parse_dtype("torch.half"), ScalarType::kFloat16);
  EXPECT_EQ(wick::parse_dtype("cfloat"), ScalarType::kComplex64);
  EXPECT_EQ(wick::parse_dtype("short"), ScalarType::kInt16);
  EXPECT_STREQ(wick::type_title(ScalarType::kUInt8), "Byte");
  EXPECT_STREQ(wick::type_title(ScalarType::kComplex128), "ComplexDouble");
  EXPECT_THROW((void)wick::parse_dtype("complex32"), wick::TypeError);
  EXPECT_EQ(wick::itemsize(ScalarType::kComplex128), 16u);
  EXPECT_FALSE(wick::can_cast(ScalarType::kComplex64, ScalarType::kFloat64));
  EXPECT_TRUE(wick::can_cast(ScalarType::kFloat64, ScalarType::kComplex64));
  EXPECT_FALSE(wick::can_cast(ScalarType::kFloat16, ScalarType::kInt8));
}

TEST(Dtype, ConvertGivesPyTorchsX86Results) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(wick::convert<std::uint8_t>(300.7f), 44);
  EXPECT_EQ(wick::convert<std::uint8_t>(-1.5f), 255);
  EXPECT_EQ(wick::convert<std::uint8_t>(1e10f), 0);
  EXPECT_EQ(wick::convert<std::int8_t>(nan), 0);
  EXPECT_EQ(wick::convert<std::int16_t>(-200.5f), -200);
  EXPECT_EQ(wick::convert<std::int32_t>(nan), std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(wick::convert<std::int64_t>(1e30), std::numeric_limits<std::int64_t>::min());
  EXPECT_FALSE(wick::convert<bool>(std::complex<float>(0.0f, 0.5f)));  // the real part only, as PyTorch
  EXPECT_EQ(wick::convert<double>(std::complex<double>(2.5, -1.0)), 2.5);
  EXPECT_EQ(wick::convert<std::complex<float>>(wick::Half(1.5f)), std::complex<float>(1.5f, 0.0f));
  EXPECT_TRUE(std::isinf(static_cast<float>(wick::convert<wick::Half>(70000))));
}

TEST(Dtype, ScalarAndValueCarryComplexNumbers) {
  const wick::Scalar z(std::complex<double>(1.0, -2.0));
  EXPECT_TRUE(z.is_complex());
  EXPECT_EQ(z.dtype(), ScalarType::kComplex128);
  EXPECT_EQ(z.repr(), "(1-2j)");
  EXPECT_EQ(wick::Scalar(std::complex<double>(0.0, 1.0)).repr(), "1j");
  const wick::Value v(z);
  EXPECT_TRUE(v.is_complex());
  EXPECT_EQ(v.type_name(), "complex");
  EXPECT_EQ(v.to_scalar().to<std::complex<double>>(), std::complex<double>(1.0, -2.0));
  EXPECT_THROW((void)v.to_double(), wick::TypeError);
}

TEST(Dtype, TensorsOfEveryDtypeRoundTripThroughItem) {
  wick::init();
  for (int i = 0; i < wick::kNumScalarTypes; ++i) {
    const auto t = static_cast<ScalarType>(i);
    const wick::Tensor x = wick::full({2}, 3, t);
    EXPECT_EQ(x.dtype(), t);
    EXPECT_EQ(x.select(0, 1).item().to<double>(), t == ScalarType::kBool ? 1.0 : 3.0) << wick::dtype_name(t);
    EXPECT_EQ(x.to(ScalarType::kFloat64).sum().item<double>(), t == ScalarType::kBool ? 2.0 : 6.0);
  }
}

}  // namespace
