// tests/backends/cpu_broadcast_loop_test.cpp - elementwise loops over broadcast and strided operands, merged and split.
/// \file
/// Note [Merged dims] (backends/cpu/loops.h): off the flat path the dims
/// every operand steps through as one are merged, and long loops split
/// their rows over the threads when the output has no broadcast dim. Each
/// case compares with the same arithmetic on contiguous copies (the flat
/// path), element for element.
#include <gtest/gtest.h>

#include "wick/backends.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/random.h"

namespace wick {
namespace {

class BroadcastLoop : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

// A per-channel operand over (N, C, H, W), as batch_norm's affine: long
// enough to split, rows of H * W once merged.
TEST_F(BroadcastLoop, PerChannelOperandMatchesContiguousArithmetic) {
  manual_seed(1);
  const Tensor x = randn({4, 32, 28, 28});
  const Tensor scale = randn({32}).reshape({1, 32, 1, 1});
  const Tensor full = scale.expand({4, 32, 28, 28}).contiguous();
  EXPECT_TRUE(equal(mul(x, scale), mul(x, full)));
  EXPECT_TRUE(equal(add(scale, x), add(full, x)));
  EXPECT_TRUE(equal(sub(x, scale), sub(x, full)));
  EXPECT_TRUE(equal(div(x, scale), div(x, full)));
}

// Strided operands (a transposed view, a sliced one) and a broadcast row,
// with one thread and with two: the rows of a split loop start mid-shape.
TEST_F(BroadcastLoop, StridedOperandsAnyThreadCount) {
  manual_seed(2);
  const Tensor a = randn({96, 40, 37}).transpose(0, 2);  // (37, 40, 96), strided
  const Tensor b = randn({37, 40, 192}).narrow(2, 5, 96);  // rows of 96 within 192
  const Tensor row = randn({96});
  const Tensor want_ab = mul(a.contiguous(), b.contiguous());
  const Tensor want_row = add(a.contiguous(), row.expand({37, 40, 96}).contiguous());
  const int was = get_num_threads();
  for (const int threads : {1, 2, 3}) {
    SCOPED_TRACE(threads);
    set_num_threads(threads);
    EXPECT_TRUE(equal(mul(a, b), want_ab));
    EXPECT_TRUE(equal(add(a, row), want_row));
    // A strided run calls the scalar exp, a contiguous one libmvec's vector
    // exp (Note [Vector code paths]): they may differ in the last bit.
    EXPECT_TRUE(allclose(exp(a), exp(a.contiguous()), 1e-6, 0.0));
  }
  set_num_threads(was);
}

// An in-place update through a strided view writes every element once.
TEST_F(BroadcastLoop, InPlaceThroughAStridedView) {
  manual_seed(3);
  Tensor base = randn({64, 130});
  const Tensor before = base.clone();
  Tensor view = base.narrow(1, 1, 128);
  view.mul_(randn({1, 128}).fill_(2.0));
  EXPECT_TRUE(equal(base.narrow(1, 1, 128), mul(before.narrow(1, 1, 128), 2.0)));
  EXPECT_TRUE(equal(base.narrow(1, 0, 1), before.narrow(1, 0, 1)));
  EXPECT_TRUE(equal(base.narrow(1, 129, 1), before.narrow(1, 129, 1)));
}

}  // namespace
}  // namespace wick
