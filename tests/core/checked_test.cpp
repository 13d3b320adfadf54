// tests/core/checked_test.cpp - the checked size arithmetic of wick/checked.h and the DimVector bound.
/// \file
#include "wick/checked.h"

#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "tests/autograd/test_util.h"
#include "wick/dim_vector.h"
#include "wick/error.h"
#include "wick/loader.h"
#include "wick/ops.h"

namespace wick {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

TEST(Checked, AddSubMul) {
  EXPECT_EQ(checked_add(kMax - 1, 1, "t"), kMax);
  EXPECT_EQ(checked_sub(kMin + 1, 1, "t"), kMin);
  EXPECT_EQ(checked_mul(std::int64_t{1} << 31, std::int64_t{1} << 31, "t"), std::int64_t{1} << 62);
  WICK_EXPECT_THROW_MSG(checked_add(kMax, 1, "torch.x"), RuntimeError,
                        "torch.x: integer addition overflow (9223372036854775807 + 1)");
  WICK_EXPECT_THROW_MSG(checked_sub(kMin, 1, "torch.x"), RuntimeError, "torch.x: integer subtraction overflow");
  WICK_EXPECT_THROW_MSG(checked_mul(kMax, 2, "torch.x"), RuntimeError, "torch.x: integer multiplication overflow");
  EXPECT_EQ(try_add(kMax, 1), std::nullopt);
  EXPECT_EQ(try_mul(3, 4), 12);
}

TEST(Checked, CeilDivNeverFormsTheSum) {
  EXPECT_EQ(ceil_div(3, kMax, "t"), 1);
  EXPECT_EQ(ceil_div(kMax, 1, "t"), kMax);
  EXPECT_EQ(ceil_div(kMax, 2, "t"), std::int64_t{1} << 62);
  EXPECT_EQ(ceil_div(0, 5, "t"), 0);
  EXPECT_EQ(ceil_div(-7, 2, "t"), -3);
  WICK_EXPECT_THROW_MSG(ceil_div(1, 0, "torch.x"), RuntimeError, "torch.x: integer division by zero");
  EXPECT_THROW((void)ceil_div(1, -1, "t"), RuntimeError);
}

TEST(Checked, MulDivIsExactPastInt64) {
  EXPECT_EQ(mul_div_floor(std::int64_t{1} << 40, std::int64_t{1} << 40, std::int64_t{1} << 30, "t"),
            std::int64_t{1} << 50);
  EXPECT_EQ(mul_div_ceil(kMax, 3, kMax - 1, "t"), 4);
  EXPECT_EQ(mul_div_floor(kMax, 3, kMax - 1, "t"), 3);
  EXPECT_THROW((void)mul_div_floor(kMax, kMax, 1, "t"), RuntimeError);
}

TEST(Checked, NumelIsPyTorchs) {
  EXPECT_EQ(checked_numel({}), 1);
  EXPECT_EQ(checked_numel({2, 3, 4}), 24);
  EXPECT_EQ(checked_numel({kMax, kMax, 0}), 0);  // a zero wins, whatever the rest multiply to
  WICK_EXPECT_THROW_MSG(checked_numel({std::int64_t{1} << 62, 4}), RuntimeError,
                        "numel: integer multiplication overflow");
  WICK_EXPECT_THROW_MSG(checked_numel({-1, 2}), RuntimeError,
                        "Trying to create tensor with negative dimension -1: [-1, 2]");
  EXPECT_EQ(try_numel({kMax, 2}), std::nullopt);
  EXPECT_EQ(try_numel({-1}), std::nullopt);
  EXPECT_EQ(try_numel({kMax, 0}), 0);
}

TEST(Checked, ExtentAndStorageBytes) {
  EXPECT_EQ(checked_extent({2, 3}, {3, 1}), 6);
  EXPECT_EQ(checked_extent({2, 3}, {0, 0}), 1);
  EXPECT_EQ(checked_extent({0, kMax}, {kMax, kMax}), 0);
  WICK_EXPECT_THROW_MSG(checked_extent({3, 3}, {std::int64_t{1} << 62, std::int64_t{1} << 62}), RuntimeError,
                        "Storage size calculation overflowed with sizes=[3, 3] and strides=[4611686018427387904, "
                        "4611686018427387904]");
  EXPECT_THROW((void)checked_extent({2}, {-1}), RuntimeError);
  EXPECT_EQ(storage_nbytes({2, 3}, 4), 24U);
  EXPECT_EQ(storage_nbytes({2, 3}, {3, 1}, 5, 8), 88U);
  // PyTorch 1.13: torch.empty(2**62, 4) -> the same message.
  WICK_EXPECT_THROW_MSG(storage_nbytes({std::int64_t{1} << 62, 4}, 4), RuntimeError,
                        "Storage size calculation overflowed with sizes=[4611686018427387904, 4]");
  EXPECT_THROW((void)storage_nbytes({std::int64_t{1} << 61}, 8), RuntimeError);  // 2**64 bytes
}

TEST(Checked, RangeLength) {
  EXPECT_EQ(range_length(0, 10, 3, "t"), 4);
  EXPECT_EQ(range_length(10, 0, -3, "t"), 4);
  EXPECT_EQ(range_length(0, 10, -1, "t"), 0);
  EXPECT_EQ(range_length(kMin, kMax, std::int64_t{1} << 62, "t"), 4);               // end - start is 2**64 - 1
  EXPECT_EQ(range_element(kMin, std::int64_t{1} << 62, 3), std::int64_t{1} << 62);  // 3 * 2**62 alone overflows
  WICK_EXPECT_THROW_MSG(range_length(kMin, kMax, 1, "torch.arange"), RuntimeError,
                        "torch.arange: invalid size, possible overflow?");
}

TEST(Checked, ListsAndDimVectorAreBounded) {
  EXPECT_EQ(checked_list_length(5, "op", "n"), 5U);
  WICK_EXPECT_THROW_MSG(checked_list_length(kMax, "torch.x", "chunks"), RuntimeError,
                        "torch.x: chunks (9223372036854775807) is more than the 16777216 entries a list can hold");
  WICK_EXPECT_THROW_MSG(checked_list_length(-1, "torch.x", "chunks"), RuntimeError, "torch.x: chunks (-1) is negative");
  WICK_EXPECT_THROW_MSG(DimVector(std::numeric_limits<std::size_t>::max()), RuntimeError,
                        "DimVector: 18446744073709551615 entries are more than the 16777216 a list can hold");
  DimVector v;
  EXPECT_THROW(v.resize(static_cast<std::size_t>(kMaxListLength) + 1), RuntimeError);
  EXPECT_TRUE(v.empty());
}

// The geometry code raises the helpers' errors, with PyTorch's texts.
TEST(Checked, TensorGeometryUsesThem) {
  init();
  WICK_EXPECT_THROW_MSG(empty({std::int64_t{1} << 62, 4}), RuntimeError,
                        "Storage size calculation overflowed with sizes=[4611686018427387904, 4]");
  WICK_EXPECT_THROW_MSG(empty({-1, 2}), RuntimeError, "Trying to create tensor with negative dimension -1: [-1, 2]");
  // PyTorch 1.13: torch.zeros(1).expand(2**62, 4) -> "numel: integer multiplication overflow".
  WICK_EXPECT_THROW_MSG(ones({1}).expand({std::int64_t{1} << 62, 4}), RuntimeError,
                        "numel: integer multiplication overflow");
}

}  // namespace
}  // namespace wick
