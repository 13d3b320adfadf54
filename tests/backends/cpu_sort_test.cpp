// tests/backends/cpu_sort_test.cpp - sorting order, searching, unique, histc and bincount through the C++ API, against PyTorch 1.13.
/// \file
/// Expected values and messages were taken from PyTorch 1.13 (the
/// differential test covers the same operators through `wick eval`); these
/// check what only C++ reaches: the typed functions, the aten operators with
/// all three results of unique, out= and the meta device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "tests/autograd/test_util.h"
#include "wick/autograd.h"
#include "wick/dispatcher.h"
#include "wick/loader.h"
#include "wick/ops.h"

namespace wick {
namespace {

using Doubles = std::vector<double>;
using Shape = std::vector<std::int64_t>;

Tensor ivec(std::vector<std::int64_t> v) { return tensor(Value(std::move(v))); }
Tensor fvec(std::vector<double> v) { return tensor(Value(std::move(v))).to(ScalarType::kFloat32); }
Doubles values(const Tensor& t) {
  const Tensor c = t.contiguous().to(ScalarType::kFloat64);
  const double* p = c.data_ptr<double>();
  return Doubles(p, p + c.numel());
}
Shape shape(const Tensor& t) { return t.sizes().vec(); }
const Device kMetaDevice(DeviceType::kMeta);

class CpuSort : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

TEST_F(CpuSort, SearchsortedFindsBothSidesInRowsAndThroughASorter) {
  const Tensor s = fvec({1, 3, 5, 7});
  const Tensor v = fvec({0, 3, 6, 8, 1, 5}).reshape({2, 3});
  Tensor left = searchsorted(s, v);
  EXPECT_EQ(left.dtype(), ScalarType::kInt64);
  EXPECT_EQ(shape(left), (Shape{2, 3}));
  EXPECT_EQ(values(left), (Doubles{0, 1, 3, 4, 0, 2}));
  EXPECT_EQ(values(searchsorted(s, v, false, true)), (Doubles{0, 2, 3, 4, 1, 3}));
  Tensor side = searchsorted(s, v, true, false, "right");
  EXPECT_EQ(side.dtype(), ScalarType::kInt32);
  EXPECT_EQ(values(side), (Doubles{0, 2, 3, 4, 1, 3}));
  // One row of boundaries per row of values.
  const Tensor rows = fvec({1, 2, 3, 4}).reshape({2, 2});
  EXPECT_EQ(values(searchsorted(rows, fvec({1.5, 3.5}).reshape({2, 1}))), (Doubles{1, 1}));
  // A sorter gives the order of unsorted boundaries.
  EXPECT_EQ(values(searchsorted(fvec({5, 1, 3}), fvec({0, 2, 4, 6}), false, false, std::nullopt, ivec({1, 2, 0}))),
            (Doubles{0, 1, 2, 3}));
  // Compared in the promoted dtype; NaN values go past every number.
  EXPECT_EQ(values(searchsorted(ivec({1, 3, 5}), fvec({2.5, 3}))), (Doubles{1, 1}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(values(searchsorted(fvec({1, 2, nan}), fvec({nan, 2.5, 2}))), (Doubles{3, 3, 1}));
  // bucketize swaps the arguments; a number is a value (the Scalar overload).
  EXPECT_EQ(values(bucketize(v, s, false, true)), (Doubles{0, 2, 3, 4, 1, 3}));
  EXPECT_EQ(call("torch.bucketize", {Value(3), Value(s)}).to_tensor().dim(), 0);
  EXPECT_EQ(call("torch.searchsorted", {Value(ivec({1, 3, 5})), Value(3.5)}).to_tensor().item().to<std::int64_t>(), 2);
}

TEST_F(CpuSort, SearchsortedRefusesWithPyTorchsMessages) {
  const Tensor s = fvec({1, 3, 5});
  WICK_EXPECT_THROW_MSG(searchsorted(s, s, false, true, "left"), RuntimeError,
                        "side and right can't be set to opposites, got side of left while right was True");
  WICK_EXPECT_THROW_MSG(searchsorted(s, s, false, false, "middle"), RuntimeError,
                        "side can only be 'left' or 'right' but got middle");
  WICK_EXPECT_THROW_MSG(searchsorted(ones({2, 3}), ones({3, 3})), RuntimeError,
                        "but we got boundaries tensor [2, 3] and input value tensor [3, 3]");
  WICK_EXPECT_THROW_MSG(searchsorted(ones({}), ones({2})), RuntimeError,
                        "boundaries tensor should have positive dimension, but got 0 dimension");
  WICK_EXPECT_THROW_MSG(searchsorted(s, s, false, false, std::nullopt, ivec({0, 1})), RuntimeError,
                        "boundary and sorter must have the same size");
  WICK_EXPECT_THROW_MSG(searchsorted(s, s, false, false, std::nullopt, fvec({0, 1, 2})), RuntimeError,
                        "sorter must be a tensor of long dtype but got dtype Float");
  WICK_EXPECT_THROW_MSG(searchsorted(s, s, false, false, std::nullopt, ivec({0, 1, 3})), IndexError,
                        "sorter index 3 is out of range");
  WICK_EXPECT_THROW_MSG(searchsorted(s.to(ScalarType::kComplex64), s.to(ScalarType::kComplex64)), RuntimeError,
                        "\"searchsorted_out_cpu\" not implemented for 'ComplexFloat'");
  WICK_EXPECT_THROW_MSG(bucketize(s, ones({2, 2})), RuntimeError, "boundaries tensor must be 1 dimension, but got dim(2)");
  // out= takes only the index dtype out_int32 asks for.
  Tensor out = empty({0}, ScalarType::kInt32);
  WICK_EXPECT_THROW_MSG(searchsorted_out(out, s, s), RuntimeError,
                        "output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) depending on "
                        "whether out_int32 flag is True, but we got output tensor's dtype Int and out_int32 flag is "
                        "False");
  searchsorted_out(out, s, fvec({4, 0}), true);
  EXPECT_EQ(values(out), (Doubles{2, 0}));
  Tensor b = empty({0}, ScalarType::kInt64);
  bucketize_out(b, fvec({4, 0}), s);
  EXPECT_EQ(values(b), (Doubles{2, 0}));
}

TEST_F(CpuSort, SearchingRunsOnMetaTensors) {
  const Tensor s = zeros({2, 5}, std::nullopt, kMetaDevice);
  const Tensor r = searchsorted(s, zeros({2, 3}, std::nullopt, kMetaDevice), true);
  EXPECT_TRUE(r.device().is_meta());
  EXPECT_EQ(shape(r), (Shape{2, 3}));
  EXPECT_EQ(r.dtype(), ScalarType::kInt32);
  WICK_EXPECT_THROW_MSG(bucketize(zeros({3}, std::nullopt, kMetaDevice), s), RuntimeError, "must be 1 dimension");
}

TEST_F(CpuSort, UniqueGivesSortedValuesInverseAndCounts) {
  const Tensor x = ivec({3, 1, 2, 3, 1, 5});
  const auto [v, inverse, counts] = aten::_unique2(x, true, true, true);
  EXPECT_EQ(values(v), (Doubles{1, 2, 3, 5}));
  EXPECT_EQ(values(inverse), (Doubles{2, 0, 1, 2, 0, 3}));
  EXPECT_EQ(values(counts), (Doubles{2, 1, 2, 1}));
  EXPECT_EQ(values(unique(x)), (Doubles{1, 2, 3, 5}));
  EXPECT_EQ(values(x.unique()), (Doubles{1, 2, 3, 5}));
  // Not asked for: empty.
  EXPECT_EQ(std::get<1>(aten::_unique2(x)).numel(), 0);
  // The inverse has self's shape; a 0-dim self gives 1-D values.
  const auto [v2, inv2, c2] = aten::_unique2(ivec({1, 2, 1, 2}).reshape({2, 2}), true, true, false);
  EXPECT_EQ(shape(inv2), (Shape{2, 2}));
  EXPECT_EQ(values(inv2), (Doubles{0, 1, 0, 1}));
  EXPECT_EQ(shape(std::get<0>(aten::_unique2(full({}, 3.0)))), (Shape{1}));
  // Slices along a dim, sorted lexicographically.
  const Tensor m = ivec({1, 2, 1, 2, 0, 5}).reshape({3, 2});
  const auto [rows, rinv, rcounts] = aten::unique_dim(m, 0, true, true, true);
  EXPECT_EQ(shape(rows), (Shape{2, 2}));
  EXPECT_EQ(values(rows), (Doubles{0, 5, 1, 2}));
  EXPECT_EQ(values(rinv), (Doubles{1, 1, 0}));
  EXPECT_EQ(values(rcounts), (Doubles{1, 2}));
  EXPECT_EQ(values(unique(fvec({2, 1, 1, 2}).reshape({2, 2}), true, 1)), (Doubles{1, 2, 2, 1}));
  // Runs of equal consecutive values.
  const auto [cv, cinv, ccounts] = aten::unique_consecutive(ivec({1, 1, 2, 2, 3, 1, 1, 2}), true, true);
  EXPECT_EQ(values(cv), (Doubles{1, 2, 3, 1, 2}));
  EXPECT_EQ(values(cinv), (Doubles{0, 0, 1, 1, 2, 3, 3, 4}));
  EXPECT_EQ(values(ccounts), (Doubles{2, 2, 1, 2, 1}));
  EXPECT_EQ(values(unique_consecutive(ivec({1, 1, 2, 2, 1, 1, 1, 1}).reshape({4, 2}), 0)), (Doubles{1, 1, 2, 2, 1, 1}));
}

TEST_F(CpuSort, UniqueInPythonsFormsAndItsRefusals) {
  const Value r = call("torch.functional.unique", {Value(ivec({2, 2, 1}))},
                       {{"return_inverse", Value(true)}, {"return_counts", Value(true)}});
  ASSERT_TRUE(r.is_tuple());
  ASSERT_EQ(r.items().size(), 3u);
  EXPECT_EQ(values(r.items()[1].to_tensor()), (Doubles{1, 1, 0}));
  const Value only = call("torch.Tensor.unique_consecutive", {Value(ivec({2, 2, 1}))}, {{"return_counts", Value(true)}});
  ASSERT_TRUE(only.is_tuple());
  EXPECT_EQ(values(only.items()[1].to_tensor()), (Doubles{2, 1}));
  EXPECT_TRUE(call("torch.functional.unique", {Value(ivec({2, 2, 1}))}).is_tensor());
  WICK_EXPECT_THROW_MSG(unique(ones({2}, ScalarType::kFloat16)), RuntimeError, "\"unique\" not implemented for 'Half'");
  WICK_EXPECT_THROW_MSG(unique(ones({2, 2}, ScalarType::kComplex64), true, 0), RuntimeError,
                        "\"unique_dim\" not implemented for 'ComplexFloat'");
  WICK_EXPECT_THROW_MSG(unique(ones({2, 0, 3}), true, 0), RuntimeError,
                        "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
  WICK_EXPECT_THROW_MSG(unique(ones({}), true, 0), IndexError, "Dimension specified as 0 but tensor has no dimensions");
  WICK_EXPECT_THROW_MSG(unique(ones({2}, std::nullopt, kMetaDevice)), NotImplementedError, "meta tensor");
  // No derivative, as in PyTorch: backward through it fails naming it.
  Tensor x = ones({3});
  x.requires_grad_();
  Tensor u = unique(x);
  EXPECT_TRUE(u.requires_grad());
  WICK_EXPECT_THROW_MSG(u.sum().backward(), RuntimeError, "unique' is not implemented");
}

TEST_F(CpuSort, HistcCountsInTheRangeInSelfsDtype) {
  const Tensor h = fvec({1, 2, 1, 0.5, 7, 3});
  EXPECT_EQ(values(histc(h, 4)), (Doubles{4, 1, 0, 1}));
  EXPECT_EQ(values(histc(h, 4, 0, 3)), (Doubles{1, 2, 1, 1}));
  EXPECT_EQ(values(histc(fvec({2, 2}), 4)), (Doubles{0, 0, 2, 0}));
  // Rounding as PyTorch's float32 arithmetic: 0.3 lands in the first of three bins over [0.1, 1].
  EXPECT_EQ(values(histc(fvec({0.1, 0.2, 0.3, 0.7, 1.0}), 3, 0.1, 1)), (Doubles{3, 1, 1}));
  EXPECT_EQ(histc(h.to(ScalarType::kFloat64), 4).dtype(), ScalarType::kFloat64);
  EXPECT_EQ(values(h.histc(2, 0, 2)), (Doubles{1, 3}));  // 2 itself in the last bin
  WICK_EXPECT_THROW_MSG(histc(h, 0), RuntimeError, "bins must be > 0, but got 0 for dimension 0");
  WICK_EXPECT_THROW_MSG(histc(h, 4, 3, 1), RuntimeError, "torch.histc: max must be larger than min");
  WICK_EXPECT_THROW_MSG(histc(ivec({1, 2}), 4), RuntimeError, "\"histogram_cpu\" not implemented for 'Long'");
  Tensor out = empty({0});
  histc_out(out, h, 2, 0, 4);
  EXPECT_EQ(values(out), (Doubles{3, 2}));
}

TEST_F(CpuSort, BincountCountsOrSumsWeights) {
  const Tensor b = ivec({1, 3, 1, 0});
  EXPECT_EQ(values(bincount(b)), (Doubles{1, 2, 0, 1}));
  EXPECT_EQ(bincount(b).dtype(), ScalarType::kInt64);
  EXPECT_EQ(values(bincount(b, std::nullopt, 6)), (Doubles{1, 2, 0, 1, 0, 0}));
  const Tensor w = bincount(b, fvec({0.5, 1, 2, 3}));
  EXPECT_EQ(w.dtype(), ScalarType::kFloat32);
  EXPECT_EQ(values(w), (Doubles{3, 2.5, 0, 1}));
  EXPECT_EQ(bincount(b, ivec({1, 1, 2, 3})).dtype(), ScalarType::kFloat64);
  EXPECT_EQ(values(bincount(zeros({0}, ScalarType::kInt64), std::nullopt, 3)), (Doubles{0, 0, 0}));
  WICK_EXPECT_THROW_MSG(bincount(ivec({-1, 2})), RuntimeError, "bincount only supports 1-d non-negative integral inputs.");
  WICK_EXPECT_THROW_MSG(bincount(fvec({1, 2})), RuntimeError, "\"bincount_cpu\" not implemented for 'Float'");
  WICK_EXPECT_THROW_MSG(bincount(b, fvec({1})), RuntimeError, "weights should be 1-d and have the same length as input");
  WICK_EXPECT_THROW_MSG(bincount(b, std::nullopt, -1), RuntimeError, "minlength should be >= 0");
}

TEST_F(CpuSort, TopkAndKthvalueOfAZeroDimTensor) {
  const Tensor x = full({}, 3.0);
  const auto [v, i] = topk(x, 0);
  EXPECT_EQ(v.dim(), 0);
  EXPECT_EQ(values(v), (Doubles{3}));
  EXPECT_EQ(i.dim(), 0);
  const auto [kv, ki] = kthvalue(x, 1);
  EXPECT_EQ(kv.dim(), 0);
  EXPECT_EQ(values(ki), (Doubles{0}));
  WICK_EXPECT_THROW_MSG(topk(x, 2), RuntimeError, "selected index k out of range");
}

// The stable order of `line`: ascending with NaN last, or descending with
// NaN first; equal values (-0.0 and 0.0 too) keep their order.
std::vector<std::int64_t> stable_order(const Doubles& line, bool descending) {
  std::vector<std::int64_t> order(line.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(i);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    const double x = line[a];
    const double y = line[b];
    if (std::isnan(x) || std::isnan(y)) return descending ? std::isnan(x) && !std::isnan(y) : std::isnan(y) && !std::isnan(x);
    return descending ? y < x : x < y;
  });
  return order;
}

// Long lines, in every ordered dtype, with ties, NaN, infinities and both
// zeros: argsort is the stable order, and topk's and kthvalue's positions
// are its first k, whether k is small (a selection) or not (a whole sort).
TEST_F(CpuSort, ArgsortTopkAndKthvalueFollowTheStableOrderInEveryDtype) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const double pool[] = {nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 3.0, 7.0, -7.0, 100.0, -100.0, 0.5};
  const std::int64_t rows = 3;
  const std::int64_t n = 700;
  for (const ScalarType dtype : {ScalarType::kFloat32, ScalarType::kFloat64, ScalarType::kFloat16, ScalarType::kBFloat16,
                                 ScalarType::kInt8, ScalarType::kInt16, ScalarType::kInt32, ScalarType::kInt64,
                                 ScalarType::kUInt8, ScalarType::kBool}) {
    SCOPED_TRACE(std::string(type_title(dtype)));
    const bool floating = is_floating(dtype);
    Doubles data;
    std::uint32_t state = 12345;
    for (std::int64_t i = 0; i < rows * n; ++i) {
      state = state * 1664525u + 1013904223u;
      const double v = pool[(state >> 8) % std::size(pool)];
      data.push_back(floating ? v : dtype == ScalarType::kBool ? double(v > 0) : std::isfinite(v) ? std::trunc(std::abs(v)) : 5.0);
    }
    const Tensor x = tensor(Value(data)).to(dtype).reshape({rows, n});
    const Doubles seen = values(x);
    for (const bool descending : {false, true}) {
      const Tensor order = argsort(x, 1, descending);
      for (std::int64_t r = 0; r < rows; ++r) {
        const Doubles line(seen.begin() + r * n, seen.begin() + (r + 1) * n);
        const std::vector<std::int64_t> expected = stable_order(line, descending);
        ASSERT_EQ(values(order.select(0, r)), Doubles(expected.begin(), expected.end())) << "argsort, row " << r;
      }
      for (const std::int64_t k : {std::int64_t{0}, std::int64_t{5}, std::int64_t{43}, std::int64_t{600}, n}) {
        if (dtype == ScalarType::kBool) {  // sort orders bools; PyTorch's selection refuses them
          WICK_EXPECT_THROW_MSG(topk(x, k, 1, descending), RuntimeError, "\"topk_cpu\" not implemented for 'Bool'");
          continue;
        }
        const Tensor first = std::get<1>(topk(x, k, 1, descending));
        for (std::int64_t r = 0; r < rows; ++r) {
          const Doubles line(seen.begin() + r * n, seen.begin() + (r + 1) * n);
          const std::vector<std::int64_t> expected = stable_order(line, descending);
          const Doubles got = values(first.select(0, r));
          ASSERT_EQ(got, Doubles(expected.begin(), expected.begin() + k)) << "topk " << k << ", row " << r;
          if (!descending && k > 0) {
            const Doubles kth = values(std::get<1>(kthvalue(x.select(0, r), k)));
            ASSERT_EQ(kth, (Doubles{double(expected[k - 1])})) << "kthvalue " << k << ", row " << r;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace wick
