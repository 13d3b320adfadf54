// tests/backends/cpu_reduce_test.cpp - the reductions and scans against PyTorch 1.13's values.
/// \file
/// prod, max, min, amax, amin, argmax, argmin, var, std, norm, logsumexp,
/// cumsum, cumprod, all and any: values, result dtypes, NaN, ties, empty
/// tensors, the errors (type and message), and which overload a boxed call
/// picks. Expected values come from PyTorch 1.13.
#include <cmath>
#include <limits>
#include <tuple>

#include "tests/autograd/test_util.h"
#include "wick/dispatcher.h"

namespace wick::testing {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::nan("");

Tensor fvec(std::vector<double> v) { return vec(std::move(v), ScalarType::kFloat32); }
Tensor ivec(std::vector<std::int64_t> v) { return tensor(Value(std::move(v))); }
Tensor bvec(std::vector<bool> v) {
  std::vector<Value> items;
  for (bool b : v) items.emplace_back(b);
  return tensor(Value::list(items));
}
std::vector<std::int64_t> shape(const Tensor& t) { return t.sizes().vec(); }

// [[0.5, -1.25, 2], [3, 0.25, -4]] in float32.
Tensor sample() { return fvec({0.5, -1.25, 2, 3, 0.25, -4}).reshape({2, 3}); }

class CpuReduce : public AutogradTest {};

TEST_F(CpuReduce, ProdValuesAndDtypes) {
  expect_near(prod(sample()), {3.75}, 1e-6);
  expect_near(prod(sample(), 0), {1.5, -0.3125, -8.0}, 1e-6);
  EXPECT_EQ(shape(prod(sample(), -1, true)), (std::vector<std::int64_t>{2, 1}));
  Tensor i = prod(ivec({1, 2, 3}));
  EXPECT_EQ(i.dtype(), ScalarType::kInt64);
  expect_near(i, {6});
  EXPECT_EQ(prod(bvec({true, true})).dtype(), ScalarType::kInt64);
  EXPECT_EQ(prod(ivec({1, 2}).to(ScalarType::kInt32), 0).dtype(), ScalarType::kInt64);
  // dtype= converts the input first: 1.5 -> 1.
  Tensor cast = prod(fvec({1.5, 2}), ScalarType::kInt64);
  EXPECT_EQ(cast.dtype(), ScalarType::kInt64);
  expect_near(cast, {2});
  EXPECT_EQ(prod(fvec({1, 2}), ScalarType::kFloat64).dtype(), ScalarType::kFloat64);
  // Empty: the identity; int64 products wrap around as PyTorch's.
  expect_near(prod(empty({0, 3})), {1});
  expect_near(prod(empty({0, 3}), 0), {1, 1, 1});
  expect_near(prod(ivec({std::int64_t{1} << 40, std::int64_t{1} << 40})), {0});
}

TEST_F(CpuReduce, MaxMinPropagateNanAndReportTheFirstIndex) {
  Tensor x = fvec({1, 3, 3, kNan, 2, kNan}).reshape({2, 3});
  EXPECT_TRUE(std::isnan(values(max(x))[0]));
  auto [v, ix] = max(x, 1);
  EXPECT_EQ(values(v)[0], 3.0);
  EXPECT_TRUE(std::isnan(values(v)[1]));
  EXPECT_EQ(ix.dtype(), ScalarType::kInt64);
  expect_near(ix, {1, 0});  // ties: the first; NaN: the first NaN
  auto [mv, mi] = min(ivec({2, 1, 1}), 0);
  EXPECT_EQ(mv.dim(), 0);
  expect_near(mv, {1});
  expect_near(mi, {1});
  auto [kv, ki] = min(sample(), 0, true);
  EXPECT_EQ(shape(kv), (std::vector<std::int64_t>{1, 3}));
  expect_near(kv, {0.5, -1.25, -4});
  expect_near(ki, {0, 0, 1});
  EXPECT_EQ(max(bvec({true, false})).dtype(), ScalarType::kBool);
  EXPECT_EQ(max(ivec({1, 2}).to(ScalarType::kInt32)).dtype(), ScalarType::kInt32);
  auto [sv, si] = max(fvec({3}).reshape({}), 0);  // a 0-dim tensor reduces over dim 0
  expect_near(sv, {3});
  expect_near(si, {0});
  // Long rows (the vectorised path for values only): NaN anywhere wins.
  Tensor longrow = arange(0, 40, 1, ScalarType::kFloat64);
  expect_near(max(longrow), {39});
  expect_near(amin(longrow.reshape({2, 20}), {1}), {0, 20});
  EXPECT_TRUE(std::isnan(values(max(where(eq(longrow, wrap_scalar(37)), wrap_scalar(kNan), longrow)))[0]));
  EXPECT_TRUE(std::isnan(values(amin(where(eq(longrow, wrap_scalar(3)), wrap_scalar(kNan), longrow)))[0]));
  expect_near(min(arange(5, 45, 1, ScalarType::kInt64)), {5});
  auto [ev, ei] = max(empty({0, 3}), 1);  // nothing reduced over an empty outer dim
  EXPECT_EQ(shape(ev), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(shape(ei), (std::vector<std::int64_t>{0}));
}

TEST_F(CpuReduce, AmaxAminArgmaxArgmin) {
  expect_near(amax(sample()), {3});
  expect_near(amin(sample(), {1}), {-1.25, -4});
  Tensor k = amax(sample(), {0, 1}, true);
  EXPECT_EQ(shape(k), (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(amax(bvec({true, false})).dtype(), ScalarType::kBool);
  EXPECT_EQ(shape(amax(empty({0, 3}), {1})), (std::vector<std::int64_t>{0}));
  Tensor a = argmax(sample());
  EXPECT_EQ(a.dtype(), ScalarType::kInt64);
  EXPECT_EQ(a.dim(), 0);
  expect_near(a, {3});  // into the flattened tensor
  expect_near(argmin(sample(), 1), {1, 2});
  Tensor kept = argmax(ones({2, 3}), std::nullopt, true);  // ties: the first; keepdim: every dim kept
  EXPECT_EQ(shape(kept), (std::vector<std::int64_t>{1, 1}));
  expect_near(kept, {0});
  expect_near(argmin(fvec({1, 1, 3})), {0});
  expect_near(argmax(fvec({1, kNan, 3, kNan})), {1});
  EXPECT_EQ(shape(argmax(empty({0, 3}), 1)), (std::vector<std::int64_t>{0}));
}

TEST_F(CpuReduce, VarStdCorrections) {
  expect_near(var(sample()), {6.1666665077}, 1e-6);
  expect_near(var_correction(sample(), IntArrayRef{1}, 0), {1.7638888359, 8.2916669846}, 1e-6);
  Tensor s = std(sample(), IntArrayRef{0}, true, true);
  EXPECT_EQ(shape(s), (std::vector<std::int64_t>{1, 3}));
  expect_near(s, {1.7677669525, 1.0606601238, 4.2426404953}, 1e-6);
  expect_near(std(sample(), false), {2.2669117451}, 1e-6);
  EXPECT_EQ(var(vec({1, 2})).dtype(), ScalarType::kFloat64);
  // N <= correction: 0/0 is NaN, x/0 is inf; empty: NaN.
  EXPECT_TRUE(std::isnan(values(var(fvec({1})))[0]));
  EXPECT_EQ(values(var_correction(fvec({1, 2}), IntArrayRef{0}, 2))[0], kInf);
  EXPECT_TRUE(std::isnan(values(var(empty({0, 3})))[0]));
  EXPECT_EQ(shape(var(empty({0, 3}), IntArrayRef{0})), (std::vector<std::int64_t>{3}));
  expect_near(var_correction(ones({2, 3}), std::nullopt, std::nullopt), {0});
}

TEST_F(CpuReduce, NormForEveryKindOfP) {
  const std::vector<std::tuple<double, double, std::vector<double>>> cases = {
      {0, 6, {3, 3}},
      {1, 11, {3.75, 7.25}},
      {2, 5.556527614593506, {2.4109127521514893, 5.006246089935303}},
      {3, 4.658450126647949, {2.1600306034088135, 4.498198986053467}},
      {0.5, 55.82189178466797, {10.493414878845215, 17.910255432128906}},
      {kInf, 4, {2, 4}},
      {-kInf, 0.25, {0.5, 0.25}},
  };
  for (const auto& [p, whole, rows] : cases) {
    SCOPED_TRACE(p);
    expect_near(norm(sample(), p), {whole}, 1e-5);
    expect_near(norm(sample(), Scalar(p), IntArrayRef{1}), rows, 1e-5);
  }
  expect_near(norm(sample(), std::nullopt, IntArrayRef{1}, true), {2.4109127521514893, 5.006246089935303}, 1e-5);
  expect_near(norm(ones({2, 3}), Scalar(3), {}), {1.8171206712722778}, 1e-6);  // an empty dim list: every dim
  expect_near(norm(empty({0})), {0});
  expect_near(norm(empty({0}), -kInf), {0});
}

TEST_F(CpuReduce, LogsumexpIsStable) {
  expect_near(logsumexp(sample(), {1}), {2.232621908187866, 3.062824249267578}, 1e-6);
  expect_near(logsumexp(sample(), {0, 1}), {3.42465877532959}, 1e-6);
  expect_near(logsumexp(vec({1000, 1000}), {0}), {1000 + std::log(2.0)});
  Tensor i = logsumexp(ivec({1, 2}), {0});
  EXPECT_EQ(i.dtype(), ScalarType::kFloat32);
  expect_near(i, {2.3132617}, 1e-6);
  EXPECT_EQ(values(logsumexp(fvec({kInf, 1}), {0}))[0], kInf);
  EXPECT_EQ(values(logsumexp(fvec({-kInf, -kInf}), {0}))[0], -kInf);
  EXPECT_TRUE(std::isnan(values(logsumexp(fvec({kNan, 1}), {0}))[0]));
  EXPECT_EQ(values(logsumexp(empty({0, 3}), {0})), (std::vector<double>{-kInf, -kInf, -kInf}));
}

TEST_F(CpuReduce, CumsumCumprod) {
  expect_near(cumsum(sample(), 0), {0.5, -1.25, 2, 3.5, -1, -2});
  expect_near(cumprod(sample(), 1), {0.5, -0.625, -1.25, 3, 0.75, -3});
  expect_near(cumprod(sample(), -1), {0.5, -0.625, -1.25, 3, 0.75, -3});
  Tensor b = cumsum(bvec({true, true}), 0);
  EXPECT_EQ(b.dtype(), ScalarType::kInt64);
  expect_near(b, {1, 2});
  EXPECT_EQ(cumprod(ivec({1, 2, 3}).to(ScalarType::kInt32), 0).dtype(), ScalarType::kInt64);
  Tensor d = cumprod(fvec({1, 2, 3}), 0, ScalarType::kInt64);
  EXPECT_EQ(d.dtype(), ScalarType::kInt64);
  expect_near(d, {1, 2, 6});
  EXPECT_EQ(cumsum(bvec({true, false}), 0, ScalarType::kFloat32).dtype(), ScalarType::kFloat32);
  expect_near(cumsum(fvec({2}).reshape({}), 0), {2});
  EXPECT_TRUE(cumsum(sample().t(), 1).is_contiguous());
  expect_near(cumsum(sample().t(), 1), {0.5, 3.5, -1.25, -1, 2, -2});
}

TEST_F(CpuReduce, AllAnyGiveBool) {
  Tensor a = all(ivec({1, 2}));
  EXPECT_EQ(a.dtype(), ScalarType::kBool);
  expect_near(a, {1});
  expect_near(any(fvec({0, 1, 0, 0}).reshape({2, 2}), 1), {1, 0});
  expect_near(all(empty({0, 3})), {1});
  expect_near(any(empty({0, 3}), 0), {0, 0, 0});
  Tensor k = all(ones({2, 3}), 1, true);
  EXPECT_EQ(shape(k), (std::vector<std::int64_t>{2, 1}));
  expect_near(all(fvec({kNan})), {1});  // NaN is not zero
}

TEST_F(CpuReduce, ErrorsAsPyTorch) {
  WICK_EXPECT_THROW_MSG((void)max(empty({0, 3})), RuntimeError,
                        "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
                        "dim with the 'dim' argument.");
  WICK_EXPECT_THROW_MSG((void)min(empty({0, 3}), 0), IndexError,
                        "min(): Expected reduction dim 0 to have non-zero size.");
  WICK_EXPECT_THROW_MSG((void)amax(empty({0, 3})), RuntimeError, "amax(): Expected reduction dim to be specified");
  WICK_EXPECT_THROW_MSG((void)amin(empty({0, 3}), {0}), IndexError,
                        "amin(): Expected reduction dim 0 to have non-zero size.");
  WICK_EXPECT_THROW_MSG((void)argmax(empty({0, 3})), IndexError,
                        "argmax(): Expected reduction dim to be specified for input.numel() == 0.");
  WICK_EXPECT_THROW_MSG((void)argmin(bvec({true})), RuntimeError, "\"argmin_cpu\" not implemented for 'Bool'");
  WICK_EXPECT_THROW_MSG((void)var(ivec({1, 2})), RuntimeError,
                        "std and var only support floating point and complex dtypes");
  WICK_EXPECT_THROW_MSG((void)norm(ivec({1, 2})), RuntimeError,
                        "norm(): input dtype should be either floating point or complex. Got Long instead.");
  WICK_EXPECT_THROW_MSG((void)max(ones({2, 3}), 2), IndexError,
                        "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  WICK_EXPECT_THROW_MSG((void)amax(ones({2, 3}), {0, 0}), RuntimeError,
                        "dim 0 appears multiple times in the list of dims");
  WICK_EXPECT_THROW_MSG((void)cumsum(ones({2}), 1), IndexError, "Dimension out of range");
  const std::string m = error_of([] { (void)max(empty({0})); });
  EXPECT_EQ(m.rfind("torch.max: ", 0), 0u) << m;  // names the operator
}

TEST_F(CpuReduce, BoxedCallsPickTheOverloadTheArgumentsFit) {
  Tensor x = sample();
  Value r = call("torch.max", {Value(x), Value(1)});
  ASSERT_TRUE(r.is_tuple());
  expect_near(r.items()[1].to_tensor(), {2, 0});
  Value m = call("torch.Tensor.min", {Value(x)}, {{"dim", Value(0)}, {"keepdim", Value(true)}});
  ASSERT_TRUE(m.is_tuple());
  EXPECT_EQ(shape(m.items()[0].to_tensor()), (std::vector<std::int64_t>{1, 3}));
  // An int is not a bool: torch.var(x, 1) is var.dim, not var(unbiased).
  expect_near(call("torch.var", {Value(x), Value(1)}).to_tensor(), {2.6458332538604736, 12.4375}, 1e-5);
  expect_near(call("torch.var", {Value(x), Value(false)}).to_tensor(), {5.1388888359}, 1e-6);
  expect_near(call("torch.std", {Value(x), Value(1)}, {{"correction", Value(0)}}).to_tensor(),
              {1.3281147480010986, 2.8795254230499268}, 1e-5);
  expect_near(call("torch.prod", {Value(x), Value(0)}, {{"keepdim", Value(true)}}).to_tensor(), {1.5, -0.3125, -8.0},
              1e-6);
  expect_near(call("torch.norm", {Value(x), Value(1), Value(std::vector<std::int64_t>{1})}).to_tensor(), {3.75, 7.25},
              1e-6);
  expect_near(call("torch.all", {Value(x), Value(0)}).to_tensor(), {1, 1, 1});
  // A tensor is not an int: max(x, y) is max.other, the elementwise maximum.
  expect_near(call("torch.Tensor.max", {Value(x), Value(fvec({1, 0, 0}))}).to_tensor(), {1, 0, 2, 3, 0.25, 0});
  expect_near(call("torch.min", {Value(x), Value(fvec({1, 0, 0}))}).to_tensor(), {0.5, -1.25, 0, 1, 0, -4});
  // Nothing fits: PyTorch's "invalid combination" with every overload, and why each refused
  // (Note [Invalid combinations]).
  WICK_EXPECT_THROW_MSG((void)call("torch.max", {Value(x), Value(1), Value(true), Value(2)}), TypeError,
                        "max() received an invalid combination of arguments - got (Tensor, int, bool, int), but "
                        "expected one of:\n * (Tensor input)\n      didn't match: takes 1 positional argument but 4 "
                        "were given\n * (Tensor input, int dim, bool keepdim)\n      didn't match: takes 3 positional "
                        "arguments but 4 were given\n * (Tensor input, Tensor other, *, Tensor out)\n");
  WICK_EXPECT_THROW_MSG((void)call("torch.var", {Value(x)}, {{"correction", Value(0)}}), TypeError,
                        "var() received an invalid combination of arguments - got (Tensor, correction=int), but "
                        "expected one of:\n * (Tensor input, bool unbiased)\n      didn't match: got an unexpected "
                        "keyword argument 'correction'");
  WICK_EXPECT_THROW_MSG((void)call("torch.Tensor.std", {Value(x)}, {{"keepdim", Value(3)}, {"unbiased", Value(2)}}),
                        TypeError,
                        "std() received an invalid combination of arguments - got (unbiased=int, "
                        "keepdim=int, ), but expected one of:\n * (bool unbiased)\n");
  // out= by plain name picks the out variant the arguments fit.
  Tensor o = fvec({0});
  (void)call("torch.all", {Value(x), Value(1)}, {{"out", Value(o)}});
  EXPECT_EQ(shape(o), (std::vector<std::int64_t>{2}));
  // A named overload is the one called.
  WICK_EXPECT_THROW_MSG((void)call("torch.max.dim", {Value(x)}), TypeError,
                        "missing 1 required positional arguments: \"dim\"");
}

}  // namespace
}  // namespace wick::testing
