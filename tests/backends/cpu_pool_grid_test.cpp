// tests/backends/cpu_pool_grid_test.cpp - the composed nn.functional operators against independent computations.
/// \file
/// PyTorch 1.13's values and messages are checked by the differential test;
/// here each operator is checked against a computation that shares nothing
/// with it: max and average pooling in three dims against loops over every
/// window, bilinear and nearest interpolation against PyTorch's formulas
/// computed per output element, CTC against the sum over every alignment, grid sampling of an
/// identity grid, fold of unfold, and a C++ distance function in
/// triplet_margin_with_distance_loss.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <wick/autograd.h>
#include <wick/callable.h>
#include <wick/error.h>
#include <wick/ops.h>
#include <wick/random.h>

namespace wick {
namespace {

namespace F = nn::functional;
using I64 = std::int64_t;

std::vector<double> values_of(const Tensor& t) {
  const Tensor c = t.detach().to(ScalarType::kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

std::vector<I64> ints_of(const Tensor& t) {
  const Tensor c = t.detach().to(ScalarType::kInt64).contiguous();
  const I64* p = c.data_ptr<I64>();
  return std::vector<I64>(p, p + c.numel());
}

// Output size of one pooled dim, as PyTorch defines it (ceil_mode's last window starts inside).
I64 pooled(I64 in, I64 k, I64 s, I64 p, I64 d, bool ceil) {
  const I64 span = in + 2 * p - d * (k - 1) - 1;
  I64 out = (ceil ? (span + s - 1) / s : span / s) + 1;
  if (ceil && (out - 1) * s >= in + p) --out;
  return out;
}

TEST(PoolNd, MaxPool3dMatchesALoopOverEveryWindow) {
  manual_seed(7);
  const I64 n = 2, c = 3, depth = 5, height = 6, width = 7;
  const Tensor x = randn({n, c, depth, height, width}, ScalarType::kFloat64).requires_grad_();
  const I64 k[] = {2, 3, 2}, s[] = {1, 2, 2}, p[] = {1, 1, 0}, d[] = {1, 1, 2};
  auto [out, idx] = F::max_pool3d_with_indices(x, IntArrayRef(k, 3), IntArrayRef(s, 3), IntArrayRef(p, 3), IntArrayRef(d, 3), true);
  const I64 od = pooled(depth, k[0], s[0], p[0], d[0], true), oh = pooled(height, k[1], s[1], p[1], d[1], true),
            ow = pooled(width, k[2], s[2], p[2], d[2], true);
  ASSERT_TRUE(out.sizes().equals({n, c, od, oh, ow}));
  const std::vector<double> xv = values_of(x);
  const std::vector<double> got = values_of(out);
  const std::vector<I64> got_idx = ints_of(idx);
  std::vector<double> grad_want(xv.size(), 0.0);
  std::size_t at = 0;
  for (I64 plane = 0; plane < n * c; ++plane)
    for (I64 a = 0; a < od; ++a)
      for (I64 b = 0; b < oh; ++b)
        for (I64 e = 0; e < ow; ++e, ++at) {
          double best = -std::numeric_limits<double>::infinity();
          I64 best_at = -1;
          for (I64 i = 0; i < k[0]; ++i)
            for (I64 j = 0; j < k[1]; ++j)
              for (I64 l = 0; l < k[2]; ++l) {
                const I64 z = a * s[0] - p[0] + i * d[0], y = b * s[1] - p[1] + j * d[1], w = e * s[2] - p[2] + l * d[2];
                if (z < 0 || z >= depth || y < 0 || y >= height || w < 0 || w >= width) continue;
                const I64 flat = (z * height + y) * width + w;
                const double v = xv[static_cast<std::size_t>(plane * depth * height * width + flat)];
                if (v > best) best = v, best_at = flat;
              }
          EXPECT_EQ(got[at], best) << "window " << at;
          EXPECT_EQ(got_idx[at], best_at) << "window " << at;
          grad_want[static_cast<std::size_t>(plane * depth * height * width + best_at)] += 1.0;
        }
  sum(out).backward();
  EXPECT_EQ(values_of(x.grad()), grad_want);
}

TEST(PoolNd, AvgPool3dMatchesALoopOverEveryWindow) {
  manual_seed(8);
  const I64 depth = 4, height = 5, width = 6;
  const Tensor x = randn({2, depth, height, width}, ScalarType::kFloat64);  // unbatched: 2 channels
  const I64 k[] = {3, 2, 3}, s[] = {2, 2, 1}, p[] = {1, 1, 1};
  for (const bool include_pad : {true, false}) {
    const Tensor out = F::avg_pool3d(x, IntArrayRef(k, 3), IntArrayRef(s, 3), IntArrayRef(p, 3), true, include_pad);
    const I64 od = pooled(depth, k[0], s[0], p[0], 1, true), oh = pooled(height, k[1], s[1], p[1], 1, true),
              ow = pooled(width, k[2], s[2], p[2], 1, true);
    ASSERT_TRUE(out.sizes().equals({2, od, oh, ow}));
    const std::vector<double> xv = values_of(x);
    const std::vector<double> got = values_of(out);
    std::size_t at = 0;
    for (I64 ch = 0; ch < 2; ++ch)
      for (I64 a = 0; a < od; ++a)
        for (I64 b = 0; b < oh; ++b)
          for (I64 e = 0; e < ow; ++e, ++at) {
            double total = 0;
            I64 inside = 0;
            I64 padded = 1;
            const I64 start[] = {a * s[0] - p[0], b * s[1] - p[1], e * s[2] - p[2]};
            const I64 size[] = {depth, height, width};
            for (int q = 0; q < 3; ++q) padded *= std::min(start[q] + k[q], size[q] + p[q]) - start[q];
            for (I64 z = start[0]; z < start[0] + k[0]; ++z)
              for (I64 y = start[1]; y < start[1] + k[1]; ++y)
                for (I64 w = start[2]; w < start[2] + k[2]; ++w) {
                  if (z < 0 || z >= depth || y < 0 || y >= height || w < 0 || w >= width) continue;
                  total += xv[static_cast<std::size_t>(((ch * depth + z) * height + y) * width + w)];
                  ++inside;
                }
            EXPECT_NEAR(got[at], total / static_cast<double>(include_pad ? padded : inside), 1e-12) << at;
          }
  }
}

TEST(PoolNd, AdaptiveMaxPoolAndUnpoolRoundTrip) {
  manual_seed(9);
  const Tensor x = randn({1, 2, 6, 8}, ScalarType::kFloat64);
  const I64 size[] = {3, 4};
  auto [out, idx] = F::adaptive_max_pool2d_with_indices(x, IntArrayRef(size, 2));
  // Each window is a 2 x 2 block here: unpooling puts every maximum back where it was.
  const Tensor back = F::max_unpool2d(out, idx, 2);
  const std::vector<double> xv = values_of(x);
  const std::vector<double> bv = values_of(back);
  const std::vector<I64> iv = ints_of(idx);
  for (std::size_t i = 0; i < iv.size(); ++i) {
    const std::size_t plane = i / 12;
    EXPECT_EQ(bv[plane * 48 + static_cast<std::size_t>(iv[i])], xv[plane * 48 + static_cast<std::size_t>(iv[i])]);
  }
  EXPECT_THROW((void)F::max_unpool2d(out, add(idx, wrap_scalar(Scalar(100))), 2), RuntimeError);
}

// -log of the summed probability of every path of T labels that collapses
// (repeats merged, then blanks dropped) to `target`.
double ctc_by_enumeration(const std::vector<std::vector<double>>& log_probs, const std::vector<I64>& target) {
  const std::size_t frames = log_probs.size();
  const auto labels = static_cast<I64>(log_probs[0].size());
  double total = 0;
  std::vector<I64> path(frames, 0);
  for (;;) {
    std::vector<I64> collapsed;
    for (std::size_t t = 0; t < frames; ++t)
      if (path[t] != 0 && (t == 0 || path[t] != path[t - 1])) collapsed.push_back(path[t]);
    if (collapsed == target) {
      double lp = 0;
      for (std::size_t t = 0; t < frames; ++t) lp += log_probs[t][static_cast<std::size_t>(path[t])];
      total += std::exp(lp);
    }
    std::size_t t = 0;
    while (t < frames && ++path[t] == labels) path[t++] = 0;
    if (t == frames) break;
  }
  return -std::log(total);
}

TEST(Ctc, LossIsMinusTheLogOfEveryAlignmentsProbability) {
  manual_seed(10);
  const I64 frames = 5, labels = 3;
  const Tensor lp = log_softmax(randn({frames, 2, labels}, ScalarType::kFloat64), -1);
  const Tensor targets = tensor(Value(std::vector<I64>{1, 2, 2, 1, 1, 0}), ScalarType::kInt64).reshape({2, 3});
  const std::vector<I64> input_lengths{5, 4};
  const std::vector<I64> target_lengths{3, 1};
  const Tensor loss = F::ctc_loss(lp, targets, input_lengths, target_lengths, 0, "none");
  const std::vector<double> got = values_of(loss);
  for (I64 b = 0; b < 2; ++b) {
    std::vector<std::vector<double>> rows;
    for (I64 t = 0; t < input_lengths[static_cast<std::size_t>(b)]; ++t)
      rows.push_back(values_of(lp.select(0, t).select(0, b)));
    std::vector<I64> target;
    for (I64 i = 0; i < target_lengths[static_cast<std::size_t>(b)]; ++i)
      target.push_back(ints_of(targets)[static_cast<std::size_t>(b * 3 + i)]);
    EXPECT_NEAR(got[static_cast<std::size_t>(b)], ctc_by_enumeration(rows, target), 1e-12) << "sequence " << b;
  }
  // No alignment fits 3 labels with a repeat into 3 frames: inf, or 0 with zero_infinity.
  const std::vector<I64> short_input{3, 4};
  EXPECT_TRUE(std::isinf(values_of(F::ctc_loss(lp, targets, short_input, target_lengths, 0, "none"))[0]));
  EXPECT_EQ(values_of(F::ctc_loss(lp, targets, short_input, target_lengths, 0, "none", true))[0], 0.0);
}

TEST(GridSample, AnIdentityGridReadsTheInputBack) {
  manual_seed(11);
  const Tensor x = randn({2, 3, 4, 5}, ScalarType::kFloat64);
  const Tensor theta = tensor(Value(std::vector<double>{1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0}), ScalarType::kFloat64)
                           .reshape({2, 2, 3});
  for (const bool align : {true, false}) {
    const Tensor grid = F::affine_grid(theta, {2, 3, 4, 5}, align);
    for (const char* mode : {"bilinear", "nearest", "bicubic"}) {
      const Tensor y = F::grid_sample(x, grid, mode, "zeros", align);
      EXPECT_TRUE(allclose(y, x, 1e-12, 1e-12)) << mode << " align_corners=" << align;
    }
  }
  const Tensor x5 = randn({1, 2, 3, 4, 2}, ScalarType::kFloat64);
  const Tensor theta3 =
      tensor(Value(std::vector<double>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}), ScalarType::kFloat64).reshape({1, 3, 4});
  const Tensor grid3 = F::affine_grid(theta3, {1, 2, 3, 4, 2}, false);
  EXPECT_TRUE(allclose(F::grid_sample(x5, grid3, "bilinear", "border", false), x5, 1e-12, 1e-12));
}

TEST(Fold, FoldOfUnfoldCountsEachElementsBlocks) {
  manual_seed(12);
  const Tensor x = randn({2, 3, 5, 6}, ScalarType::kFloat64);
  const I64 k[] = {2, 3}, d[] = {1, 2}, p[] = {1, 1}, s[] = {1, 2};
  const I64 out[] = {5, 6};
  const Tensor blocks = F::unfold(x, IntArrayRef(k, 2), IntArrayRef(d, 2), IntArrayRef(p, 2), IntArrayRef(s, 2));
  const Tensor counts = F::fold(F::unfold(ones_like(x), IntArrayRef(k, 2), IntArrayRef(d, 2), IntArrayRef(p, 2), IntArrayRef(s, 2)),
                                     IntArrayRef(out, 2), IntArrayRef(k, 2), IntArrayRef(d, 2), IntArrayRef(p, 2),
                                     IntArrayRef(s, 2));
  EXPECT_TRUE(allclose(F::fold(blocks, IntArrayRef(out, 2), IntArrayRef(k, 2), IntArrayRef(d, 2), IntArrayRef(p, 2),
                                  IntArrayRef(s, 2)), mul(x, counts), 1e-12, 1e-12));
}

// PyTorch's bilinear source position and taps along one dim (UpSample.h's
// rule), for one output index.
struct Tap {
  I64 lo, hi;
  double t;
};
Tap linear_tap(I64 in, I64 out, I64 i, bool align_corners) {
  const double scale = align_corners ? (out > 1 ? double(in - 1) / double(out - 1) : 0.0) : double(in) / double(out);
  const double x = align_corners ? i * scale : std::max((i + 0.5) * scale - 0.5, 0.0);
  const auto lo = static_cast<I64>(std::floor(x));
  return {lo, std::min(lo + 1, in - 1), x - double(lo)};
}

TEST(Interpolate, BilinearMatchesTheFormulaAtEveryOutput) {
  manual_seed(11);
  const I64 n = 2, c = 3, h = 5, w = 7, oh = 9, ow = 4;
  // A transposed (non-contiguous) input: the passes read any layout.
  const Tensor x = randn({n, c, w, h}, ScalarType::kFloat64).transpose(2, 3);
  for (const bool corners : {false, true}) {
    const Tensor out = F::interpolate(x, Value(std::vector<I64>{oh, ow}), {}, "bilinear", corners);
    ASSERT_TRUE(out.sizes().equals({n, c, oh, ow}));
    const std::vector<double> got = values_of(out);
    const std::vector<double> xv = values_of(x);
    for (I64 p = 0; p < n * c; ++p)
      for (I64 i = 0; i < oh; ++i)
        for (I64 j = 0; j < ow; ++j) {
          const Tap r = linear_tap(h, oh, i, corners), q = linear_tap(w, ow, j, corners);
          auto at = [&](I64 y, I64 z) { return xv[static_cast<std::size_t>((p * h + y) * w + z)]; };
          const double want = (1 - r.t) * ((1 - q.t) * at(r.lo, q.lo) + q.t * at(r.lo, q.hi)) +
                              r.t * ((1 - q.t) * at(r.hi, q.lo) + q.t * at(r.hi, q.hi));
          EXPECT_NEAR(got[static_cast<std::size_t>((p * oh + i) * ow + j)], want, 1e-12)
              << "corners " << corners << " at " << p << ", " << i << ", " << j;
        }
  }
}

TEST(Interpolate, BilinearGradientSendsEachOutputBackWithItsWeights) {
  manual_seed(12);
  const I64 h = 3, w = 4, oh = 5, ow = 6;
  const Tensor x = randn({1, 1, h, w}, ScalarType::kFloat64).requires_grad_();
  const Tensor g = randn({1, 1, oh, ow}, ScalarType::kFloat64);
  const Tensor out = F::interpolate(x, Value(std::vector<I64>{oh, ow}), {}, "bilinear", false);
  const Tensor grad = autograd::grad({out}, {x}, {g})[0];
  std::vector<double> want(static_cast<std::size_t>(h * w), 0.0);
  const std::vector<double> gv = values_of(g);
  for (I64 i = 0; i < oh; ++i)
    for (I64 j = 0; j < ow; ++j) {
      const Tap r = linear_tap(h, oh, i, false), q = linear_tap(w, ow, j, false);
      const double gij = gv[static_cast<std::size_t>(i * ow + j)];
      want[static_cast<std::size_t>(r.lo * w + q.lo)] += gij * (1 - r.t) * (1 - q.t);
      want[static_cast<std::size_t>(r.lo * w + q.hi)] += gij * (1 - r.t) * q.t;
      want[static_cast<std::size_t>(r.hi * w + q.lo)] += gij * r.t * (1 - q.t);
      want[static_cast<std::size_t>(r.hi * w + q.hi)] += gij * r.t * q.t;
    }
  const std::vector<double> got = values_of(grad);
  for (std::size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-12) << k;
}

TEST(Interpolate, NearestCopiesTheSourceRowsOfAnyDtype) {
  const Tensor x = arange(0, 2 * 3 * 4, 1, ScalarType::kUInt8).reshape({1, 2, 3, 4});
  const Tensor out = F::interpolate(x, Value(std::vector<I64>{5, 3}), {}, "nearest");
  ASSERT_EQ(out.dtype(), ScalarType::kUInt8);
  const std::vector<I64> got = ints_of(out);
  std::size_t k = 0;
  for (I64 p = 0; p < 2; ++p)
    for (I64 i = 0; i < 5; ++i)
      for (I64 j = 0; j < 3; ++j) EXPECT_EQ(got[k++], p * 12 + (i * 3 / 5) * 4 + j * 4 / 3);
}

TEST(Interpolate, TheTapsOperatorRefusesBadTaps) {
  const Tensor x = randn({2, 3, 4});
  const Tensor index = tensor({{0, 1, 4}}, ScalarType::kInt64);
  try {
    (void)aten::interpolate_taps(x, 2, index, std::nullopt);
    FAIL() << "an index past the dim was taken";
  } catch (const IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("aten.interpolate_taps: index 4 is out of bounds for dimension 2 with size 4"),
              std::string::npos)
        << e.what();
  }
  const Tensor ok = tensor({{0, 1, 3}}, ScalarType::kInt64);
  EXPECT_THROW((void)aten::interpolate_taps(x, 2, ok, randn({1, 3}, ScalarType::kFloat64)), RuntimeError);
  EXPECT_THROW((void)aten::interpolate_taps(x, 2, ok, randn({2, 3})), RuntimeError);
  EXPECT_THROW((void)aten::interpolate_taps(x, 2, ok.to(ScalarType::kInt32), std::nullopt), RuntimeError);
  EXPECT_THROW((void)aten::interpolate_taps(x, 3, ok, std::nullopt), IndexError);
  EXPECT_THROW((void)aten::interpolate_taps(randn({}), 0, ok, std::nullopt), RuntimeError);
  // The backward: indices within input_size, one index position per gradient row.
  try {
    (void)aten::interpolate_taps_backward(randn({2, 3, 3}), 2, ok, std::nullopt, 3);
    FAIL() << "an index past input_size was taken";
  } catch (const IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("aten.interpolate_taps_backward: index 3 is out of bounds for dimension 2 "
                                         "with size 3"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)aten::interpolate_taps_backward(randn({2, 3, 5}), 2, ok, std::nullopt, 4), RuntimeError);
  EXPECT_THROW((void)aten::interpolate_taps_backward(randn({2, 3, 3}), 2, ok, std::nullopt, -1), RuntimeError);
  const Tensor gi = aten::interpolate_taps_backward(ones({1, 3}), 1, ok, std::nullopt, 5);
  EXPECT_EQ(values_of(gi), (std::vector<double>{1, 1, 0, 1, 0}));
}

TEST(Callable, TripletMarginWithDistanceLossTakesACppFunction) {
  manual_seed(13);
  const Tensor a = randn({4, 3}, ScalarType::kFloat64);
  const Tensor p = randn({4, 3}, ScalarType::kFloat64);
  const Tensor n = randn({4, 3}, ScalarType::kFloat64);
  const I64 last[] = {-1};
  const auto l1 = std::make_shared<Callable>([&](const std::vector<Value>& args) {
    return Value(sum(abs(sub(args[0].to_tensor(), args[1].to_tensor())), IntArrayRef(last, 1)));
  });
  const Tensor got = F::triplet_margin_with_distance_loss(a, p, n, Value(l1), 0.5, false, "none");
  const Tensor d_pos = sum(abs(sub(a, p)), IntArrayRef(last, 1));
  const Tensor d_neg = sum(abs(sub(a, n)), IntArrayRef(last, 1));
  const Tensor want = clamp_min(sub(add(d_pos, wrap_scalar(Scalar(0.5))), d_neg), Scalar(0));
  EXPECT_TRUE(allclose(got, want, 1e-12, 1e-12));
  // Without a function: pairwise_distance, as PyTorch.
  EXPECT_TRUE(allclose(F::triplet_margin_with_distance_loss(a, p, n),
                       F::triplet_margin_loss(a, p, n, 1.0, 2.0, 1e-6, false), 1e-12, 1e-12));
  const auto wrong = std::make_shared<Callable>([](const std::vector<Value>&) { return Value(std::int64_t{3}); });
  EXPECT_THROW((void)F::triplet_margin_with_distance_loss(a, p, n, Value(wrong)), TypeError);
  EXPECT_THROW((void)F::triplet_margin_with_distance_loss(a, p, n, Value("l1")), TypeError);
  const auto throws = std::make_shared<Callable>([](const std::vector<Value>&) -> Value {
    throw ValueError("distance failed");
  });
  EXPECT_THROW((void)F::triplet_margin_with_distance_loss(a, p, n, Value(throws)), ValueError);
}

}  // namespace
}  // namespace wick
