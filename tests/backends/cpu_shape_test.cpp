// tests/backends/cpu_shape_test.cpp - shape, indexing and *_like operators against PyTorch 1.13.
/// \file
/// Expected values, dtypes and messages were taken from PyTorch 1.13.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "wick/autograd.h"
#include "wick/catalog.h"
#include "wick/dispatcher.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/random.h"

namespace wick {
namespace {

using Shape = std::vector<std::int64_t>;
using Doubles = std::vector<double>;

Tensor ivec(std::vector<std::int64_t> v) { return tensor(Value(std::move(v))); }
Tensor imat(std::vector<std::int64_t> v, IntArrayRef shape) { return ivec(std::move(v)).reshape(shape); }
// 0..11 as a 3x4 float32 matrix.
Tensor a34() { return arange(12, std::nullopt, 1, ScalarType::kFloat32).reshape({3, 4}); }

Doubles values(const Tensor& t) {
  Tensor c = t.contiguous().to(ScalarType::kFloat64);
  const double* p = c.data_ptr<double>();
  return Doubles(p, p + c.numel());
}
Shape shape(const Tensor& t) { return t.sizes().vec(); }

// Runs `fn`, expecting error type E with `message` in its text.
template <class E>
void expect_error(const std::function<void()>& fn, const std::string& message) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

class CpuShape : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

TEST_F(CpuShape, CatPromotesSkipsLegacyEmptiesAndChecksShapes) {
  Tensor a = a34();
  EXPECT_EQ(values(cat({a, mul(a.narrow(0, 0, 1), wrap_scalar(10))})),
            (Doubles{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 10, 20, 30}));
  Tensor mixed = cat({a.to(ScalarType::kInt32), ones({3, 1}, ScalarType::kFloat64)}, 1);
  EXPECT_EQ(mixed.dtype(), ScalarType::kFloat64);
  EXPECT_EQ(values(mixed), (Doubles{0, 1, 2, 3, 1, 4, 5, 6, 7, 1, 8, 9, 10, 11, 1}));
  Tensor legacy = zeros({0}, ScalarType::kFloat64);
  EXPECT_EQ(cat({legacy, a.to(ScalarType::kInt32)}).dtype(), ScalarType::kFloat64);  // promotes, then skipped
  EXPECT_EQ(shape(cat({legacy, a})), (Shape{3, 4}));
  EXPECT_EQ(shape(cat({zeros({0}), zeros({0})}, 1)), (Shape{0}));
  EXPECT_EQ(cat({ones({2}, ScalarType::kBool), ones({2}, ScalarType::kInt32)}).dtype(), ScalarType::kInt32);
  expect_error<RuntimeError>([] { (void)cat({}); }, "torch.cat(): expected a non-empty list of Tensors");
  expect_error<RuntimeError>([&] { (void)cat({a, zeros({3})}); },
                             "Tensors must have same number of dimensions: got 2 and 1");
  expect_error<RuntimeError>([&] { (void)cat({a, zeros({3, 3})}); },
                             "Sizes of tensors must match except in dimension 0. Expected size 4 but got size 3 for "
                             "tensor number 1 in the list.");
  expect_error<RuntimeError>([&] { (void)cat({a, zeros({})}); },
                             "zero-dimensional tensor (at position 1) cannot be concatenated");
  expect_error<IndexError>([&] { (void)cat({a, a}, 2); },
                           "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

TEST_F(CpuShape, StackSplitChunk) {
  Tensor a = a34();
  EXPECT_EQ(values(stack({a.select(0, 0), a.select(0, 1)}, 1)), (Doubles{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_EQ(shape(stack({a, a}, -1)), (Shape{3, 4, 2}));
  expect_error<RuntimeError>([] { (void)stack({}); }, "stack expects a non-empty TensorList");
  expect_error<RuntimeError>([&] { (void)stack({a, zeros({2, 4})}); },
                             "stack expects each tensor to be equal size, but got [3, 4] at entry 0 and [2, 4] at "
                             "entry 1");
  expect_error<IndexError>([&] { (void)stack({a, a}, 3); },
                           "Dimension out of range (expected to be in range of [-3, 2], but got 3)");

  auto parts = split(a, 3, 1);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(shape(parts[0]), (Shape{3, 3}));
  EXPECT_EQ(shape(parts[1]), (Shape{3, 1}));
  EXPECT_EQ(parts[1].storage().get(), a.storage().get());  // views
  EXPECT_EQ(values(parts[1]), (Doubles{3, 7, 11}));
  Value boxed = call("torch.split", {Value(a), Value(std::vector<std::int64_t>{1, 2})});
  ASSERT_EQ(boxed.to_tensor_list().size(), 2u);
  EXPECT_EQ(shape(boxed.to_tensor_list()[1]), (Shape{2, 4}));
  EXPECT_EQ(split_with_sizes(a, {1, 3}, -1)[1].size(1), 3);
  expect_error<RuntimeError>([&] { (void)split(a, -1); },
                             "split expects split_size be non-negative, but got split_size=-1");
  expect_error<RuntimeError>([&] { (void)split(a, 0); },
                             "split_size can only be 0 if dimension size is 0, but got dimension size of 3");
  expect_error<RuntimeError>([&] { (void)split_with_sizes(a, {1, 1}); },
                             "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at "
                             "dimension 0), but got split_sizes=[1, 1]");
  expect_error<RuntimeError>([&] { (void)split_with_sizes(a, {4, -1}); },
                             "split_with_sizes expects split_sizes have only non-negative entries, but got "
                             "split_sizes=[4, -1]");
  expect_error<RuntimeError>([] { (void)split(zeros({}), 1); }, "split expects at least a 1-dimensional tensor");

  auto five = chunk(arange(5), 3);
  ASSERT_EQ(five.size(), 3u);
  EXPECT_EQ(five[2].numel(), 1);
  EXPECT_EQ(chunk(arange(6), 4).size(), 3u);  // as PyTorch: chunks of ceil(6 / 4) = 2
  EXPECT_EQ(chunk(zeros({0}), 3).size(), 3u);
  expect_error<RuntimeError>([&] { (void)chunk(a, 0); }, "chunk expects `chunks` to be greater than 0, got: 0");
  expect_error<RuntimeError>([] { (void)chunk(zeros({}), 1); }, "chunk expects at least a 1-dimensional tensor");
}

TEST_F(CpuShape, FlattenUnflattenExpandAsRepeat) {
  EXPECT_EQ(shape(flatten(zeros({2, 3, 4, 5}), 1, 2)), (Shape{2, 12, 5}));
  EXPECT_EQ(shape(flatten(zeros({}))), (Shape{1}));
  Tensor a = a34();
  EXPECT_EQ(flatten(a).storage().get(), a.storage().get());
  expect_error<RuntimeError>([&] { (void)flatten(a, 1, 0); },
                             "flatten() has invalid args: start_dim cannot come after end_dim");
  expect_error<IndexError>([&] { (void)flatten(a, 3); },
                           "Dimension out of range (expected to be in range of [-2, 1], but got 3)");
  EXPECT_EQ(shape(unflatten(zeros({2, 12}), 1, {3, -1})), (Shape{2, 3, 4}));
  expect_error<RuntimeError>([&] { (void)unflatten(a, 1, {3}); },
                             "unflatten: Provided sizes [3] don't multiply up to the size of dim 1 (4) in the input "
                             "tensor");
  expect_error<RuntimeError>([&] { (void)unflatten(a, 1, {}); }, "unflatten: sizes must be non-empty");

  EXPECT_EQ(shape(zeros({3, 1}).expand_as(zeros({2, 3, 4}))), (Shape{2, 3, 4}));
  expect_error<RuntimeError>([&] { (void)a.expand_as(zeros({2, 3})); },
                             "The expanded size of the tensor (3) must match the existing size (4) at non-singleton "
                             "dimension 1");

  EXPECT_EQ(shape(a.repeat({2, 1, 2})), (Shape{2, 3, 8}));
  EXPECT_EQ(values(ivec({1, 2}).repeat({2, 2})), (Doubles{1, 2, 1, 2, 1, 2, 1, 2}));
  Tensor same = a.repeat({1, 1});
  EXPECT_NE(same.storage().get(), a.storage().get());  // always a copy
  expect_error<RuntimeError>([&] { (void)a.repeat({2}); },
                             "Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                             "tensor");
  expect_error<RuntimeError>([&] { (void)a.repeat({-1, 2}); },
                             "Trying to create tensor with negative dimension -3: [-3, 8]");
  // Tensor.repeat takes its sizes as varargs.
  EXPECT_EQ(shape(call("torch.Tensor.repeat", {Value(a), Value(2), Value(1)}).to_tensor()), (Shape{6, 4}));
}

TEST_F(CpuShape, IndexSelectGather) {
  Tensor a = a34();
  EXPECT_EQ(values(index_select(a, 1, ivec({3, 0, 3}))), (Doubles{3, 0, 3, 7, 4, 7, 11, 8, 11}));
  EXPECT_EQ(shape(index_select(a, 0, ivec({2, 0}).to(ScalarType::kInt32))), (Shape{2, 4}));
  EXPECT_EQ(shape(index_select(a, 0, ivec({1}).reshape({}))), (Shape{1, 4}));
  EXPECT_EQ(shape(index_select(full({}, 5.0), 0, ivec({0, 0}))), (Shape{}));
  EXPECT_EQ(values(index_select(a.t(), 0, ivec({1}))), (Doubles{1, 5, 9}));  // strided input
  expect_error<RuntimeError>([&] { (void)index_select(a, 0, zeros({2})); },
                             "index_select(): Expected dtype int32 or int64 for index");
  expect_error<IndexError>([&] { (void)index_select(a, 0, ivec({5})); }, "index out of range in self");
  expect_error<IndexError>([&] { (void)index_select(a, 0, ivec({-1})); }, "index out of range in self");
  expect_error<IndexError>([&] { (void)index_select(a, 0, imat({0}, {1, 1})); },
                           "index_select(): Index is supposed to be a vector");
  expect_error<IndexError>([&] { (void)index_select(a, 2, ivec({0})); },
                           "Dimension out of range (expected to be in range of [-2, 1], but got 2)");

  Tensor i = imat({0, 2, 1, 0, 2, 0, 0, 1}, {2, 4});
  EXPECT_EQ(values(gather(a, 0, i)), (Doubles{0, 9, 6, 3, 8, 1, 2, 7}));
  EXPECT_EQ(values(gather(a, 1, imat({3, 0, 1, 1, 2, 2}, {3, 2}))), (Doubles{3, 0, 5, 5, 10, 10}));
  EXPECT_EQ(gather(a.to(ScalarType::kInt64), 0, i).dtype(), ScalarType::kInt64);
  expect_error<RuntimeError>([&] { (void)gather(a, 0, i.to(ScalarType::kInt32)); },
                             "gather(): Expected dtype int64 for index");
  expect_error<RuntimeError>([&] { (void)gather(a, 0, ivec({0})); },
                             "Index tensor must have the same number of dimensions as input tensor");
  expect_error<RuntimeError>([&] { (void)gather(a, 0, imat({5}, {1, 1})); },
                             "index 5 is out of bounds for dimension 0 with size 3");
  expect_error<RuntimeError>([&] { (void)gather(a, 1, imat({-1}, {1, 1})); },
                             "index -1 is out of bounds for dimension 1 with size 4");
  expect_error<RuntimeError>([&] { (void)gather(a, 0, zeros({2, 5}, ScalarType::kInt64)); },
                             "Size does not match at dimension 1 expected index [2, 5] to be smaller than self [3, 4] "
                             "apart from dimension 0");
}

TEST_F(CpuShape, ScatterAndScatterAdd) {
  Tensor a = a34();
  Tensor i = imat({0, 2, 1, 0, 2, 0, 0, 1}, {2, 4});
  EXPECT_EQ(values(scatter(zeros({3, 4}), 0, i, a)), (Doubles{0, 5, 6, 3, 0, 0, 2, 7, 4, 1, 0, 0}));
  EXPECT_EQ(values(scatter(zeros({3, 4}), 1, imat({3, 0, 1}, {3, 1}), Scalar(7.5))),
            (Doubles{0, 0, 0, 7.5, 7.5, 0, 0, 0, 0, 7.5, 0, 0}));
  Tensor ints = scatter(zeros({3, 4}, ScalarType::kInt32), 0, zeros({2, 2}, ScalarType::kInt64), Scalar(2.7));
  EXPECT_EQ(ints.dtype(), ScalarType::kInt32);
  EXPECT_EQ(values(ints)[0], 2);
  EXPECT_EQ(values(scatter_add(ones({3, 4}), 0, i, a)), (Doubles{1, 6, 7, 4, 1, 1, 3, 8, 5, 2, 1, 1}));
  Tensor boxed = call("torch.scatter", {Value(zeros({2})), Value(0), Value(ivec({1})), Value(3)}).to_tensor();
  EXPECT_EQ(values(boxed), (Doubles{0, 3}));
  expect_error<RuntimeError>([&] { (void)scatter(a, 0, zeros({2, 5}, ScalarType::kInt64), a); },
                             "Expected index [2, 5] to be smaller than self [3, 4] apart from dimension 0 and to be "
                             "smaller size than src [3, 4]");
  expect_error<RuntimeError>([&] { (void)scatter(a, 0, zeros({2, 2}, ScalarType::kInt64), a.to(ScalarType::kFloat64)); },
                             "scatter(): Expected self.dtype to be equal to src.dtype");
  expect_error<RuntimeError>([&] { (void)scatter(a, 0, zeros({2, 2}, ScalarType::kInt32), a); },
                             "scatter(): Expected dtype int64 for index");
  expect_error<RuntimeError>([&] { (void)scatter(a, 0, imat({7}, {1, 1}), a); },
                             "index 7 is out of bounds for dimension 0 with size 3");
  expect_error<RuntimeError>([&] { (void)scatter(a, 0, zeros({2}, ScalarType::kInt64), a); },
                             "Index tensor must have the same number of dimensions as self tensor");
  expect_error<RuntimeError>([&] { (void)scatter(a, 0, zeros({2, 2}, ScalarType::kInt64), full({}, 2.0)); },
                             "Index tensor must have the same number of dimensions as src tensor");
  expect_error<RuntimeError>([&] { (void)scatter(a, 0, zeros({1, 5}, ScalarType::kInt64), Scalar(1)); },
                             "Expected index [1, 5] to be smaller than self [3, 4] apart from dimension 0");
  expect_error<RuntimeError>(
      [&] { (void)scatter_add(a, 0, zeros({2, 2}, ScalarType::kInt64), a.to(ScalarType::kFloat64)); },
      "scatter_add(): Expected self.dtype to be equal to src.dtype");
}

TEST_F(CpuShape, MaskedFill) {
  Tensor a = a34();
  Tensor mask = tensor(Value::list({Value(true), Value(false), Value(true), Value(false)}));
  EXPECT_EQ(values(masked_fill(a, mask, Scalar(-1.0))), (Doubles{-1, 1, -1, 3, -1, 5, -1, 7, -1, 9, -1, 11}));
  EXPECT_EQ(shape(masked_fill(a, ones({2, 3, 4}, ScalarType::kBool), Scalar(1.0))), (Shape{2, 3, 4}));
  EXPECT_EQ(masked_fill(a.to(ScalarType::kInt32), mask, Scalar(1.5)).dtype(), ScalarType::kInt32);
  EXPECT_EQ(values(masked_fill(a.to(ScalarType::kInt32), mask, Scalar(1.5)))[0], 1);
  EXPECT_EQ(masked_fill(a, mask, full({}, 1.5, ScalarType::kFloat64)).dtype(), ScalarType::kFloat32);
  EXPECT_EQ(values(masked_fill(a, mask.to(ScalarType::kInt64), Scalar(9.0)))[0], 9);  // 1.13 takes 0/1 integer masks
  expect_error<RuntimeError>([&] { (void)masked_fill(a, mul(mask.to(ScalarType::kInt64), wrap_scalar(2)), Scalar(1)); },
                             "Mask tensor can take 0 and 1 values only");
  expect_error<RuntimeError>([&] { (void)masked_fill(a, mask, ones({2})); },
                             "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 "
                             "dimension(s).");
}

TEST_F(CpuShape, FlipRollTriangles) {
  Tensor a = a34();
  EXPECT_EQ(values(flip(a, {0, 1})), (Doubles{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(values(flip(a, {-1})), (Doubles{3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8}));
  EXPECT_EQ(values(flip(a.t(), {0})), (Doubles{3, 7, 11, 2, 6, 10, 1, 5, 9, 0, 4, 8}));
  expect_error<RuntimeError>([&] { (void)flip(a, {0, 0}); }, "dim 0 appears multiple times in the list of dims");
  EXPECT_EQ(values(roll(a, {1})), (Doubles{11, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(values(roll(a, {-1, 5}, {0, 1})), (Doubles{7, 4, 5, 6, 11, 8, 9, 10, 3, 0, 1, 2}));
  expect_error<RuntimeError>([&] { (void)roll(a, {1, 2}, {0}); }, "shifts and dimensions must align. shifts: 2, dims:1");
  expect_error<RuntimeError>([&] { (void)roll(a, {}, {}); }, "`shifts` required");
  EXPECT_EQ(values(tril(a)), (Doubles{0, 0, 0, 0, 4, 5, 0, 0, 8, 9, 10, 0}));
  EXPECT_EQ(values(triu(a, 1)), (Doubles{0, 1, 2, 3, 0, 0, 6, 7, 0, 0, 0, 11}));
  EXPECT_EQ(values(tril(a, -1)), (Doubles{0, 0, 0, 0, 4, 0, 0, 0, 8, 9, 0, 0}));
  EXPECT_EQ(tril(ones({2, 2, 2}, ScalarType::kBool)).dtype(), ScalarType::kBool);
  expect_error<IndexError>([] { (void)tril(zeros({3})); },
                           "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
  expect_error<IndexError>([] { (void)triu(zeros({})); }, "Dimension specified as -2 but tensor has no dimensions");
}

TEST_F(CpuShape, LikeLinspaceRandint) {
  Tensor a = a34();
  EXPECT_EQ(zeros_like(a, ScalarType::kInt64).dtype(), ScalarType::kInt64);
  EXPECT_EQ(values(ones_like(a.to(ScalarType::kInt32)))[11], 1);
  Tensor f = full_like(a.to(ScalarType::kInt32), Scalar(2.5));
  EXPECT_EQ(f.dtype(), ScalarType::kInt32);
  EXPECT_EQ(values(f)[0], 2);
  EXPECT_EQ(shape(rand_like(a)), (Shape{3, 4}));
  EXPECT_EQ(randn_like(a, ScalarType::kFloat64).dtype(), ScalarType::kFloat64);
  expect_error<RuntimeError>([&] { (void)rand_like(a.to(ScalarType::kInt64)); },
                             "\"check_uniform_bounds\" not implemented for 'Long'");
  expect_error<RuntimeError>([&] { (void)randn_like(a.to(ScalarType::kInt64)); },
                             "\"normal_kernel_cpu\" not implemented for 'Long'");

  EXPECT_EQ(values(linspace(-1, 1, 5, ScalarType::kFloat64)), (Doubles{-1, -0.5, 0, 0.5, 1}));
  EXPECT_EQ(values(linspace(0, 10, 5, ScalarType::kInt64)), (Doubles{0, 2, 5, 7, 10}));
  Tensor seven = linspace(0, 10, 7);
  EXPECT_EQ(seven.dtype(), ScalarType::kFloat32);
  EXPECT_FLOAT_EQ(static_cast<float>(values(seven)[1]), 1.6666666269302368F);
  EXPECT_EQ(linspace(0, 1, 0).numel(), 0);
  EXPECT_EQ(values(linspace(0, 1, 1)), (Doubles{0}));
  EXPECT_EQ(values(linspace(-5, 5, 3, ScalarType::kInt64)), (Doubles{-5, 0, 5}));
  expect_error<RuntimeError>([] { (void)linspace(0, 1, -1); }, "number of steps must be non-negative");

  manual_seed(0);
  Tensor r = randint(5, {1000});
  EXPECT_EQ(r.dtype(), ScalarType::kInt64);
  Doubles v = values(r);
  EXPECT_EQ(*std::min_element(v.begin(), v.end()), 0);
  EXPECT_EQ(*std::max_element(v.begin(), v.end()), 4);
  manual_seed(0);
  EXPECT_EQ(values(randint(0, 5, {1000})), v);  // seeded
  Tensor boxed = call("torch.randint", {Value(2), Value(4), Value(std::vector<std::int64_t>{3})}).to_tensor();
  for (double x : values(boxed)) EXPECT_TRUE(x == 2 || x == 3);
  EXPECT_EQ(shape(call("torch.randint", {Value(3), Value(std::vector<std::int64_t>{2, 2})}).to_tensor()),
            (Shape{2, 2}));
  EXPECT_EQ(randint(0, 2, {3}, ScalarType::kBool).dtype(), ScalarType::kBool);
  expect_error<RuntimeError>([] { (void)randint(5, 2, {3}); },
                             "random_ expects 'from' to be less than 'to', but got from=5 >= to=2");
  expect_error<TypeError>([] { (void)call("torch.randint", {Value(3)}); }, "missing 1 required positional arguments: \"size\"");
}

TEST_F(CpuShape, CatalogEntries) {
  // torch.Tensor aliases share the kernels; creation functions without a tensor argument are ignored.
  EXPECT_EQ(values(call("torch.Tensor.flip", {Value(ivec({1, 2})), Value(std::vector<std::int64_t>{0})}).to_tensor()),
            (Doubles{2, 1}));
  const auto ignored = ignored_functions("torch");
  auto has = [&](const char* name) { return std::find(ignored.begin(), ignored.end(), name) != ignored.end(); };
  EXPECT_TRUE(has("torch.linspace"));
  EXPECT_TRUE(has("torch.randint"));
  EXPECT_FALSE(has("torch.zeros_like"));  // takes a tensor: overridable, as in PyTorch
}

TEST_F(CpuShape, FormulasNameTheirNodesAndKeepInputDtypes) {
  Tensor x = ones({2, 3}).requires_grad_();
  Tensor y = ones({1, 3}, ScalarType::kFloat64).requires_grad_();
  Tensor c = cat({x, y});
  EXPECT_EQ(c.dtype(), ScalarType::kFloat64);
  EXPECT_EQ(c.grad_fn()->name(), "CatBackward0");
  mul(c, arange(9, std::nullopt, 1, ScalarType::kFloat64).reshape({3, 3})).sum().backward();
  EXPECT_EQ(x.grad().dtype(), ScalarType::kFloat32);  // each input gets its gradient in its own dtype
  EXPECT_EQ(values(x.grad()), (Doubles{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(values(y.grad()), (Doubles{6, 7, 8}));

  Tensor value = full({}, 2.0).requires_grad_();
  Tensor mask = tensor(Value::list({Value(true), Value(false), Value(true)}));
  Tensor filled = masked_fill(x, mask, value);
  EXPECT_EQ(filled.grad_fn()->name(), "MaskedFillBackward1");
  EXPECT_EQ(x.masked_fill(mask, 0.5).grad_fn()->name(), "MaskedFillBackward0");
  filled.sum().backward();
  EXPECT_EQ(values(value.grad()), (Doubles{4}));  // two rows, two masked entries each

  Tensor idx = imat({1, 0, 0}, {1, 3});
  EXPECT_EQ(scatter(x, 0, idx, Scalar(1.0)).grad_fn()->name(), "ScatterBackward1");
  EXPECT_EQ(scatter(x, 0, idx, x).grad_fn()->name(), "ScatterBackward0");
  EXPECT_EQ(scatter_add(x, 0, idx, x).grad_fn()->name(), "ScatterAddBackward0");
  EXPECT_EQ(x.gather(0, idx).grad_fn()->name(), "GatherBackward0");
  EXPECT_EQ(x.index_select(1, ivec({2})).grad_fn()->name(), "IndexSelectBackward0");
  EXPECT_EQ(x.flip({0}).grad_fn()->name(), "FlipBackward0");
  EXPECT_EQ(tril(x).grad_fn()->name(), "TrilBackward0");
  EXPECT_EQ(triu(x).grad_fn()->name(), "TriuBackward0");
  EXPECT_FALSE(zeros_like(x).requires_grad());
  EXPECT_FALSE(index_select(x, 0, ivec({0})).to(ScalarType::kInt64).requires_grad());
}

TEST_F(CpuShape, TensorMethods) {
  Tensor a = a34();
  EXPECT_EQ(shape(a.flatten()), (Shape{12}));
  EXPECT_EQ(shape(a.narrow(0, 0, 1).expand_as(a)), (Shape{3, 4}));
  EXPECT_EQ(shape(a.repeat({2, 1})), (Shape{6, 4}));
  EXPECT_EQ(values(a.flip({1}).select(0, 0)), (Doubles{3, 2, 1, 0}));
  EXPECT_EQ(a.split(2).size(), 2u);
  EXPECT_EQ(a.chunk(2, 1).size(), 2u);
  EXPECT_EQ(values(a.index_select(0, ivec({2})).flatten()), (Doubles{8, 9, 10, 11}));
}

// Note [Resizing a tensor] (dispatch/ops/tensor.ops), with PyTorch 1.13's results.
TEST_F(CpuShape, ResizeKeepsTheElementsItHolds) {
  Tensor x = arange(6, std::nullopt, 1, ScalarType::kFloat32);
  const Tensor same = x;
  x.resize_({2, 2});
  EXPECT_TRUE(x.is_same(same));
  EXPECT_EQ(shape(x), (Shape{2, 2}));
  EXPECT_EQ(values(x.flatten()), (Doubles{0, 1, 2, 3}));
  // Growing keeps the elements held (the storage grows), from the storage offset.
  Tensor tail = arange(6, std::nullopt, 1, ScalarType::kFloat32).narrow(0, 1, 5);
  tail.resize_({7});
  EXPECT_EQ(tail.storage_offset(), 1);
  EXPECT_EQ(values(tail.narrow(0, 0, 5)), (Doubles{1, 2, 3, 4, 5}));
  // The strides become contiguous, unless the sizes stay.
  Tensor t = ones({2, 3}).t();
  t.resize_({3, 2});
  EXPECT_EQ(t.strides().vec(), (Shape{1, 3}));
  t.resize_({2, 3});
  EXPECT_EQ(t.strides().vec(), (Shape{3, 1}));
  Tensor m = empty({2}, ScalarType::kFloat32, Device(DeviceType::kMeta));
  m.resize_as_(ones({4, 5}));
  EXPECT_EQ(shape(m), (Shape{4, 5}));
  Tensor g = ones({3}).requires_grad_();
  try {
    g.resize_({2});
    ADD_FAILURE() << "resized a tensor that requires grad";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot resize variables that require grad"), std::string::npos);
  }
  try {
    x.resize_({2, -3});
    ADD_FAILURE() << "resized to a negative size";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("numel: integer multiplication overflow"), std::string::npos);
  }
  // The deprecated out-of-place forms reshape, keeping the number of elements.
  const Tensor w = arange(6, std::nullopt, 1, ScalarType::kFloat64).requires_grad_();
  const Tensor r = w.resize_as(ones({3, 2}));
  EXPECT_EQ(shape(r), (Shape{3, 2}));
  r.sum().backward();
  EXPECT_EQ(values(w.grad()), (Doubles{1, 1, 1, 1, 1, 1}));
  try {
    (void)w.resize({4});
    ADD_FAILURE() << "resize changed the number of elements";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("requested resize to 4 (4 elements in total), but the given tensor has a "
                                         "size of 6 (6 elements)"),
              std::string::npos);
  }
}

TEST_F(CpuShape, FloatPowerInPlaceNeedsItsResultDtype) {
  Tensor d = arange(4, std::nullopt, 1, ScalarType::kFloat64);
  EXPECT_TRUE(d.float_power_(2).is_same(d));
  EXPECT_EQ(values(d), (Doubles{0, 1, 4, 9}));
  Tensor f = arange(4, std::nullopt, 1, ScalarType::kFloat32);
  try {
    f.float_power_(2);
    ADD_FAILURE() << "float_power_ wrote a float64 result into float32";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("the base given to float_power_ has dtype Float but the operation's result "
                                         "requires dtype Double"),
              std::string::npos);
  }
  EXPECT_EQ(values(f), (Doubles{0, 1, 2, 3}));
}

// Note [Transposing copies]: copies between layouts contiguous along
// different dims run in tiles; every element must land where the element
// loop puts it, for each element size, ragged tile edges and outer dims.
TEST_F(CpuShape, TransposingCopiesPutEveryElementInPlace) {
  const Shape sizes{2, 35, 3, 40};
  const std::int64_t perm[] = {0, 3, 2, 1};
  for (const ScalarType t : {ScalarType::kUInt8, ScalarType::kInt16, ScalarType::kInt32, ScalarType::kInt64}) {
    const Tensor x = arange(2 * 35 * 3 * 40, std::nullopt, 1, ScalarType::kInt64).reshape(sizes).to(t);
    const Tensor y = x.permute(perm).contiguous();
    ASSERT_EQ(shape(y), (Shape{2, 40, 3, 35}));
    const Tensor got = y.to(ScalarType::kInt64).reshape({-1});
    const std::int64_t* p = got.data_ptr<std::int64_t>();
    const std::int64_t wrap = t == ScalarType::kUInt8 ? 256 : std::int64_t{1} << 40;  // uint8 keeps the value mod 256
    std::int64_t k = 0;
    std::int64_t wrong = 0;
    for (std::int64_t a = 0; a < 2; ++a)  // y[a, d, c, b] = x[a, b, c, d], in y's order
      for (std::int64_t d = 0; d < 40; ++d)
        for (std::int64_t c = 0; c < 3; ++c)
          for (std::int64_t b = 0; b < 35; ++b) wrong += p[k++] != (((a * 35 + b) * 3 + c) * 40 + d) % wrap;
    EXPECT_EQ(wrong, 0) << dtype_name(t);
  }
  // A matrix and its transpose, sizes off the tile: x.t().contiguous() and a copy into a transposed destination.
  const Tensor m = randn({70, 33}, ScalarType::kFloat64);
  const Tensor mt = m.t().contiguous();
  Tensor back = empty({33, 70}, ScalarType::kFloat64).t();
  back.copy_(m);
  const double* col = back.t().contiguous().data_ptr<double>();  // back's memory, column-major m: no transposing copy
  for (std::int64_t i = 0; i < 70; ++i)
    for (std::int64_t j = 0; j < 33; ++j) {
      ASSERT_EQ(mt.data_ptr<double>()[j * 70 + i], m.data_ptr<double>()[i * 33 + j]) << i << ", " << j;
      ASSERT_EQ(col[j * 70 + i], m.data_ptr<double>()[i * 33 + j]) << i << ", " << j;
    }
}

}  // namespace
}  // namespace wick
