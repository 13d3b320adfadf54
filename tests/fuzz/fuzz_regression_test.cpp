// tests/fuzz/fuzz_regression_test.cpp - every bug the fuzzers found, replayed through the public API.
/// \file
/// One test per finding of the libFuzzer targets in tests/fuzz (tests/README.md,
/// "Fuzzing"). Each input is also kept in its fuzzer's seed corpus, as the
/// file named in the test's comment, so the bounded CI runs replay it too.
/// This file is part of the ordinary test suite (tests/*/*_test.cpp).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/autograd/test_util.h"
#include "tools/wick/eval.h"
#include "wick/dispatcher.h"
#include "wick/error.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/schema.h"
#include "wick/tensor.h"

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

// corpus/eval/regress_int_attribute: `5 .j` (an attribute of an int, as
// Python allows) printed as "5.j", which lexes as a complex literal.
TEST(FuzzRegression, EvalAttributeOfAnIntPrintsInParentheses) {
  const std::string printed = eval::to_string(*eval::parse("5 .j"));
  EXPECT_EQ(printed, "(5).j");
  EXPECT_EQ(eval::to_string(*eval::parse(printed)), printed);
  EXPECT_EQ(eval::to_string(*eval::parse("5.5.j")), "5.5.j");
}

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

Tensor int64_tensor(std::initializer_list<std::int64_t> values) {
  Tensor t = empty({static_cast<std::int64_t>(values.size())}, ScalarType::kInt64);
  std::int64_t* p = t.data_ptr<std::int64_t>();
  for (const std::int64_t v : values) *p++ = v;
  return t;
}

std::int64_t item(const Value& v) { return v.to_tensor().data_ptr<std::int64_t>()[0]; }

// corpus/boxed_call/regress_empty_view_offset_{sum,any}: a view with a
// storage offset over an empty storage computed nullptr + offset (undefined
// behaviour, reported by UBSan in the asan preset) for its data pointer.
TEST(FuzzRegression, EmptyViewWithAnOffsetHasNoDataPointer) {
  init();
  const Tensor t = empty({2, 0, 1}, ScalarType::kInt64).narrow(0, 1, 1);
  ASSERT_GT(t.storage_offset(), 0);
  EXPECT_EQ(t.data_ptr(), nullptr);
  EXPECT_EQ(item(call("torch.sum", {t})), 0);
  EXPECT_FALSE(
      call("torch.any", {empty({1, 1, 3}, ScalarType::kInt32).narrow(1, 1, 0)}).to_tensor().data_ptr<bool>()[0]);
}

// corpus/boxed_call/regress_int64_{sum,neg,rsub}_wraps: int64 arithmetic that
// overflows was undefined behaviour in the CPU kernels; it wraps around, as
// in PyTorch.
TEST(FuzzRegression, Int64ArithmeticWrapsAround) {
  init();
  EXPECT_EQ(item(call("torch.sum", {int64_tensor({kMax, kMax, kMax})})), kMax - 2);
  EXPECT_EQ(item(call("torch.neg", {int64_tensor({kMin})})), kMin);
  EXPECT_EQ(item(call("torch.abs", {int64_tensor({kMin})})), kMin);
  EXPECT_EQ(item(call("torch.add", {int64_tensor({kMax}), 1})), kMin);
  EXPECT_EQ(item(call("torch.Tensor.__rsub__", {int64_tensor({kMin}), 1})), kMin + 1);
  EXPECT_EQ(item(call("torch.square", {int64_tensor({kMin})})), 0);
}

// corpus/boxed_call/regress_pool_backward_input_size: the internal backward
// took its input_size argument on trust and multiplied INT64_MIN by itself.
TEST(FuzzRegression, PoolBackwardChecksTheInputSize) {
  init();
  try {
    (void)call("aten.adaptive_avg_pool2d_backward", {wrap_scalar(-2), kMin});
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("aten.adaptive_avg_pool2d_backward: invalid input size"), std::string::npos)
        << e.what();
  }
}

// corpus/boxed_call/regress_pool_backward_bool_grad: a bool 0-dim gradient
// and an empty pooled output skipped the dtype and shape checks, and the CPU
// kernel zero-filled a bool tensor as doubles (a heap overflow under ASan).
TEST(FuzzRegression, PoolBackwardOfAnEmptyOutputChecksTheGradient) {
  init();
  try {
    (void)call("aten.adaptive_avg_pool2d_backward", {wrap_scalar(true), 5});
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("grad_output of shape [] does not match the pooling's output"),
              std::string::npos)
        << e.what();
  }
  try {
    (void)call("aten.adaptive_avg_pool2d_backward", {zeros({5, 5, 0, 0}, ScalarType::kBool), 5});
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("\"adaptive_avg_pool2d\" not implemented for 'Bool'"), std::string::npos)
        << e.what();
  }
}

// corpus/boxed_call/regress_max_pool_huge_kernel: kernel_size=2**63-1
// overflowed the output-size arithmetic; with padding 2**62 - 1 (allowed: at
// most half the kernel) the window start was found by stepping 2**62 times.
TEST(FuzzRegression, MaxPoolWithAHugeKernel) {
  init();
  const Tensor x = ones({1, 1, 2, 2});
  EXPECT_THROW((void)call("torch.nn.functional.max_pool2d", {x, kMax}), RuntimeError);
  const Value r = call("torch.nn.functional.max_pool2d", {x, kMax}, {{"stride", 1}, {"padding", kMax / 2}});
  EXPECT_EQ(r.to_tensor().sizes().vec(), (std::vector<std::int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(r.to_tensor().data_ptr<float>()[0], 1.0F);
}

// corpus/boxed_call/regress_repeat_empty_by_huge: repeating an empty tensor
// by 2**63 - 1 made a view whose element count overflowed int64 before the
// zero size was reached; views now count 0 for any zero size and check
// the product.
TEST(FuzzRegression, ElementCountOfHugeViews) {
  init();
  const Value r = call("torch.Tensor.repeat", {empty({0}, ScalarType::kInt32), std::vector<std::int64_t>{5, kMax}});
  EXPECT_EQ(r.to_tensor().sizes().vec(), (std::vector<std::int64_t>{5, 0}));
  // corpus/boxed_call/regress_repeat_overflow: 3 * (2**63 - 1) overflowed.
  EXPECT_THROW((void)call("torch.Tensor.repeat", {ones({3, 2}), std::vector<std::int64_t>{kMax, 1}}), RuntimeError);
  // corpus/boxed_call/regress_reshape_size_overflow: reshape's size
  // inference multiplied (2**63 - 1) * (2**63 - 1) before reaching the 0.
  EXPECT_EQ(call("torch.Tensor.repeat", {ones({}), std::vector<std::int64_t>{kMax, kMax, kMax, 0}}).to_tensor().numel(),
            0);
  EXPECT_THROW((void)call("torch.reshape", {ones({4}), std::vector<std::int64_t>{kMax, kMax, -1}}), RuntimeError);
  EXPECT_THROW((void)call("torch.Tensor.expand", {empty({1}), std::vector<std::int64_t>{1LL << 62, 1LL << 62}}),
               RuntimeError);
}

// corpus/boxed_call/regress_empty_view_contiguity (found by CI's 50-s run):
// the contiguity check of an empty view multiplied its nonzero sizes,
// 6 * (2**63 - 1); an empty tensor is contiguous whatever its sizes.
TEST(FuzzRegression, EmptyViewWithHugeSizesIsContiguous) {
  init();
  const Tensor r = call("torch.Tensor.repeat", {empty({0, 6, 1}), std::vector<std::int64_t>{1, 1, kMax}}).to_tensor();
  EXPECT_EQ(r.sizes().vec(), (std::vector<std::int64_t>{0, 6, kMax}));
  EXPECT_TRUE(r.is_contiguous());
  EXPECT_EQ(r.numel(), 0);
}

// Found by a 20-min fork-mode run: split_with_sizes summed [5, 2**63 - 1]
// past int64 before comparing the sum with the size.
TEST(FuzzRegression, SplitWithSizesSumOverflow) {
  init();
  EXPECT_THROW((void)call("torch.split_with_sizes", {ones({5}), std::vector<std::int64_t>{5, kMax}}), RuntimeError);
}

// corpus/boxed_call/regress_fork_run_2 (found by the same fork-mode run,
// failed CI's next run from the seed corpus): adaptive pooling of an empty
// batch to 2**63 - 1 built a window table of that length (length_error);
// an empty input or gradient now makes no window table.
TEST(FuzzRegression, AdaptivePoolOfAnEmptyBatchMakesNoWindowTable) {
  init();
  const Tensor y = call("aten.adaptive_avg_pool2d",
                        {empty({0, 2, 3, 2}, ScalarType::kFloat64), std::vector<std::int64_t>{kMax, kMax}})
                       .to_tensor();
  EXPECT_EQ(y.sizes().vec(), (std::vector<std::int64_t>{0, 2, kMax, kMax}));
  const Tensor g =
      call("aten.adaptive_avg_pool2d_backward", {empty({1, 1, 0, kMax}), std::vector<std::int64_t>{1, 1, 3, 3}})
          .to_tensor();
  EXPECT_EQ(g.sizes().vec(), (std::vector<std::int64_t>{1, 1, 3, 3}));
  EXPECT_EQ(abs(g).sum().item<double>(), 0.0);
}

// From a 10-min fork-mode run after the fixes above. corpus/boxed_call/
// regress_float_to_int_{inf,nan}: converting NaN or an infinity to an
// integer dtype was a plain C++ cast (undefined behaviour); it now gives the
// integer's lowest value, as x86 and so PyTorch there do.
TEST(FuzzRegression, FloatToIntegerConversionOfNanAndInf) {
  init();
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor x = tensor(Value(std::vector<double>{std::nan(""), inf, -inf, 1e30, -2.5}));
  const Tensor l = x.to(ScalarType::kInt64);
  const std::int64_t* pl = l.data_ptr<std::int64_t>();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(pl[i], std::numeric_limits<std::int64_t>::min()) << i;
  EXPECT_EQ(pl[4], -2);
  const Tensor n = x.to(ScalarType::kInt32);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(n.data_ptr<std::int32_t>()[i], std::numeric_limits<std::int32_t>::min()) << i;
  EXPECT_TRUE(x.to(ScalarType::kBool).data_ptr<bool>()[0]);
}

// corpus/boxed_call/regress_pad_overflow and regress_split_overflow: pad
// added a padding of 2**63 - 1 to the size, and split rounded the piece
// count up with size + split_size, both past int64.
TEST(FuzzRegression, PadAndSplitNearInt64Max) {
  init();
  EXPECT_THROW((void)call("torch.nn.functional.pad", {ones({1, 2}), std::vector<std::int64_t>{kMax, 6}}), RuntimeError);
  // corpus/boxed_call/regress_pad_int64_min (the seed-1 CI run): a padding
  // of INT64_MIN on one side, 2**63 - 1 on the other, was negated.
  EXPECT_THROW((void)call("torch.nn.functional.pad",
                          {ones({1, 2}), std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(), kMax}}),
               RuntimeError);
  const Value pieces = call("torch.Tensor.split", {ones({4, 3}), kMax});
  ASSERT_EQ(pieces.to_tensor_list().size(), 1U);
  EXPECT_EQ(pieces.to_tensor_list()[0].sizes().vec(), (std::vector<std::int64_t>{4, 3}));
}

// corpus/boxed_call/regress_fill_int_from_inf (a 240-s seed-1 run):
// Scalar::to<int64_t>() of -inf, filling an int64 tensor, was a plain C++
// cast (undefined behaviour; this test is the check under the asan preset's
// UBSan). It now gives the lowest int64, as x86 does; PyTorch raises "value
// cannot be converted to type int64_t without overflow" here instead, which
// wick does not check yet.
TEST(FuzzRegression, FillingAnIntegerTensorWithInfinity) {
  init();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(Scalar(-inf).to<std::int64_t>(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(Scalar(std::nan("")).to<std::int32_t>(), std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(Scalar(-2.5).to<std::int64_t>(), -2);
  Tensor t = empty({2}, ScalarType::kInt64);
  t.fill_(-inf);
  EXPECT_EQ(t.data_ptr<std::int64_t>()[1], std::numeric_limits<std::int64_t>::min());
}

// Issue 25, the two crashes of random-seed boxed_call_fuzz runs.
// corpus/boxed_call/regress_chunk_overflow: torch.chunk of a 3x4 tensor
// into 2**63 - 1 chunks computed size + chunks - 1 past int64 (UBSan:
// signed integer overflow). PyTorch 1.13 raises a RuntimeError for this
// call too, from its wrapped sum ("split expects split_size be
// non-negative, but got split_size=-1"; along dim 1, "split_size can only
// be 0 if dimension size is 0, but got dimension size of 4"); wick's names
// the overflow. A count that fits gives PyTorch's pieces.
TEST(FuzzRegression, ChunkCountNearInt64Max) {
  init();
  WICK_EXPECT_THROW_MSG(call("torch.chunk", {ones({3, 4}), kMax}), RuntimeError,
                        "torch.chunk: integer addition overflow (3 + 9223372036854775806)");
  EXPECT_THROW((void)call("torch.chunk", {ones({3, 4}), kMax, 1}), RuntimeError);
  const std::vector<Tensor> rows = call("torch.chunk", {ones({3, 4}), std::int64_t{1} << 62}).to_tensor_list();
  ASSERT_EQ(rows.size(), 3U);  // PyTorch 1.13: three pieces of [1, 4]
  EXPECT_EQ(rows[2].sizes().vec(), (std::vector<std::int64_t>{1, 4}));
  EXPECT_EQ(call("torch.chunk", {ones({3, 4}), std::int64_t{1} << 62, 1}).to_tensor_list().size(), 4U);
}

// corpus/boxed_call/regress_chunk_empty_huge: torch.Tensor.chunk of an
// empty tensor into 2**63 - 1 chunks built a DimVector of SIZE_MAX zeros
// (ASan: allocation of 0xffffffffffffffff bytes). PyTorch 1.13 raises a
// RuntimeError ("cannot create std::vector larger than max_size()"); wick
// bounds the list (kMaxListLength, wick/checked.h) and names the argument.
TEST(FuzzRegression, ChunkOfAnEmptyTensorIntoHugeCount) {
  init();
  WICK_EXPECT_THROW_MSG(call("torch.Tensor.chunk", {empty({0}), kMax}), RuntimeError,
                        "torch.chunk: chunks of an empty dimension (9223372036854775807) is more than the 16777216 "
                        "entries a list can hold");
  EXPECT_EQ(call("torch.Tensor.chunk", {empty({0}), 5}).to_tensor_list().size(), 5U);  // PyTorch 1.13: 5
  // The DimVector itself refuses SIZE_MAX entries rather than asking for them.
  EXPECT_THROW((void)DimVector(std::numeric_limits<std::size_t>::max()), RuntimeError);
}

// corpus/boxed_call/regress_interpolate_size_text: F.interpolate's error for
// a size of the wrong length printed each int through a double, and
// converting 2**63 - 1 back from 2**63 is undefined behaviour (UBSan, CI's
// fixed-seed run). The ints are printed from the argument now, exactly as
// PyTorch 1.13 prints them.
TEST(FuzzRegression, InterpolateSizeNearInt64MaxInItsError) {
  init();
  const Value size(std::vector<std::int64_t>{3, 5, kMax});
  WICK_EXPECT_THROW_MSG(call("torch.nn.functional.interpolate", {ones({1}), size, Value()}), ValueError,
                        "but got input with spatial dimensions of [] and output size of [3, 5, 9223372036854775807]. "
                        "Please provide input tensor in (N, C, d1, d2, ...,dK) format");
  WICK_EXPECT_THROW_MSG(call("torch.nn.functional.interpolate", {ones({1, 1, 2, 2}), size}), ValueError,
                        "spatial dimensions of [2, 2] and output size of [3, 5, 9223372036854775807]");
}

// corpus/boxed_call/regress_interpolate_huge_size and
// regress_interpolate_empty_batch_huge_size (tools/fuzz_long.sh, a random
// seed): F.interpolate to a size of 2**63 - 1 built one tap per output
// position before it allocated any output, and grew a vector until
// libFuzzer's 512 MiB malloc limit (or the machine) gave out. PyTorch 1.13
// refuses such sizes from the output's storage size, an empty batch too;
// an output that fits in int64 but in no memory fails in the allocator
// before any tap is built.
TEST(FuzzRegression, InterpolateToAHugeSize) {
  init();
  const auto interpolate = [](const Tensor& x, Value size) {
    return call("torch.nn.functional.interpolate", {x, std::move(size)});
  };
  WICK_EXPECT_THROW_MSG(interpolate(ones({4, 4, 4, 4}, ScalarType::kFloat64), Value(kMax)), RuntimeError,
                        "torch.nn.functional.interpolate: Storage size calculation overflowed with sizes=[4, 4, "
                        "9223372036854775807, 9223372036854775807]");
  WICK_EXPECT_THROW_MSG(
      interpolate(zeros({0, 4, 4, 4}, ScalarType::kFloat64), Value(std::vector<std::int64_t>{5, kMax})), RuntimeError,
      "Storage size calculation overflowed with sizes=[0, 4, 5, 9223372036854775807]");
  // 2**61 floats: an int64 count, but 8 EiB.
  EXPECT_THROW((void)interpolate(ones({1, 1, 2, 2}), Value(std::vector<std::int64_t>{1, std::int64_t{1} << 61})),
               RuntimeError);
  // Sizes that fit still work, an empty batch included.
  EXPECT_EQ(interpolate(ones({1, 1, 2, 2}), Value(std::int64_t{3})).to_tensor().sizes().vec(),
            (std::vector<std::int64_t>{1, 1, 3, 3}));
  EXPECT_EQ(interpolate(zeros({0, 2, 2, 2}), Value(std::int64_t{3})).to_tensor().sizes().vec(),
            (std::vector<std::int64_t>{0, 2, 3, 3}));
}

// corpus/boxed_call/regress_one_hot_max_class: F.one_hot without
// num_classes of a tensor holding 2**63 - 1 computed max + 1 past int64
// (UBSan). PyTorch 1.13 wraps to -2**63 and fails on that size; wick
// refuses the sum.
TEST(FuzzRegression, OneHotOfTheLargestInt64) {
  init();
  const Tensor classes = tensor(Value(std::vector<std::int64_t>{8, kMax}), ScalarType::kInt64);
  WICK_EXPECT_THROW_MSG(call("torch.nn.functional.one_hot", {classes}), RuntimeError,
                        "torch.nn.functional.one_hot: num_classes (the largest class value + 1): integer addition "
                        "overflow (9223372036854775807 + 1)");
  EXPECT_EQ(call("torch.nn.functional.one_hot", {tensor(Value(std::vector<std::int64_t>{0, 2}), ScalarType::kInt64)})
                .to_tensor()
                .sizes()
                .vec(),
            (std::vector<std::int64_t>{2, 3}));
}

}  // namespace
}  // namespace wick
