// tests/core/meta_tensor_test.cpp - tensors on the meta device: shapes and dtypes through the meta functions, no data.
/// \file
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <typeinfo>
#include <vector>

#include "tools/wick/eval.h"
#include "wick/autograd.h"
#include "wick/error.h"
#include "wick/loader.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"

namespace wick {
namespace {

Device meta() { return Device(DeviceType::kMeta); }

namespace F = wick::nn::functional;
using Shape = std::vector<std::int64_t>;

std::vector<std::int64_t> sizes(const Tensor& t) { return t.sizes().vec(); }

using T = const Tensor&;

// The first and the last dim; a dim twice, once wrapped.
constexpr std::int64_t kEnds[] = {0, -1};
constexpr std::int64_t kTwice[] = {0, 0};
constexpr std::int64_t kLastTwice[] = {1, -1};

// An operator applied to a tensor of `dtype` and `shape`, once on the CPU
// and once on the meta device.
struct Case {
  const char* what;
  std::function<Tensor(T)> f;
  ScalarType dtype = ScalarType::kFloat32;
  std::vector<std::int64_t> shape = {2, 3, 4};
};

// The result on meta has the CPU result's sizes, strides and dtype.
void expect_same_geometry(const Case& c) {
  const Tensor a = c.f(ones(c.shape, c.dtype));
  const Tensor b = c.f(ones(c.shape, c.dtype, meta()));
  EXPECT_TRUE(b.device().is_meta()) << c.what;
  EXPECT_EQ(sizes(a), sizes(b)) << c.what;
  EXPECT_EQ(a.strides().vec(), b.strides().vec()) << c.what;
  EXPECT_EQ(a.dtype(), b.dtype()) << c.what;
}

// It fails on meta as on the CPU: the same error type and message.
void expect_same_error(const Case& c) {
  auto error_of = [&](const Tensor& x) -> std::tuple<std::string, std::string> {
    try {
      (void)c.f(x);
    } catch (const Error& e) {
      return {typeid(e).name(), e.what()};
    }
    return {"", "no error"};
  };
  const auto [cpu_type, cpu_message] = error_of(ones(c.shape, c.dtype));
  const auto [meta_type, meta_message] = error_of(ones(c.shape, c.dtype, meta()));
  EXPECT_NE(cpu_type, "") << c.what << ": the CPU accepted it";
  EXPECT_EQ(cpu_type, meta_type) << c.what;
  EXPECT_EQ(cpu_message, meta_message) << c.what;
}

class MetaTensor : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

TEST_F(MetaTensor, FactoriesMakeStoragelessTensors) {
  const Tensor t = ones({2, 3}, std::nullopt, meta());
  EXPECT_TRUE(t.device().is_meta());
  EXPECT_EQ(t.sizes().vec(), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(t.data_ptr(), nullptr);
  EXPECT_EQ(Device::parse("meta"), meta());
  // No memory: a size no host could hold is fine.
  const Tensor huge = empty({std::int64_t{1} << 40}, std::nullopt, meta());
  EXPECT_EQ(huge.numel(), std::int64_t{1} << 40);
}

TEST_F(MetaTensor, ElementwiseOperatorsRunThroughTheirMetaFunctions) {
  const Tensor a = ones({4, 1}, ScalarType::kInt64, meta());
  const Tensor b = ones({3}, ScalarType::kFloat64, meta());
  const Tensor c = a + b;
  EXPECT_EQ(c.sizes().vec(), (std::vector<std::int64_t>{4, 3}));
  EXPECT_EQ(c.dtype(), ScalarType::kFloat64);
  EXPECT_EQ(wick::exp(a).dtype(), ScalarType::kFloat32);  // float function of an integer
  EXPECT_EQ(wick::gt(a, 0).dtype(), ScalarType::kBool);
  EXPECT_EQ(wick::div(a, a).dtype(), ScalarType::kFloat32);
  // The same checks as on the CPU.
  EXPECT_THROW((void)(ones({2}, std::nullopt, meta()) + ones({3}, std::nullopt, meta())), RuntimeError);
  EXPECT_THROW((void)wick::neg(ones({2}, ScalarType::kBool, meta())), RuntimeError);
  // Mixing devices is PyTorch's error (a Python number is fine).
  EXPECT_EQ((b * 2).dtype(), ScalarType::kFloat64);
  try {
    (void)(b + ones({3}, ScalarType::kFloat64));
    ADD_FAILURE() << "meta + cpu must fail";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("found at least two devices, meta and cpu"), std::string::npos) << e.what();
  }
}

TEST_F(MetaTensor, OutVariantsAndInPlaceOperators) {
  Tensor out = empty({1}, ScalarType::kFloat64, meta());
  add_out(out, ones({2, 2}, std::nullopt, meta()), ones({2}, std::nullopt, meta()));
  EXPECT_EQ(out.sizes().vec(), (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(out.dtype(), ScalarType::kFloat64);
  Tensor x = zeros({3}, std::nullopt, meta());
  const std::uint32_t before = x.version();
  x.add_(ones({3}, std::nullopt, meta()));
  x.exp_();
  EXPECT_GT(x.version(), before);
  // Copying in is allowed, copying out is not: there is no data.
  Tensor dst = zeros({3}, std::nullopt, meta());
  dst.copy_(ones({3}));
  EXPECT_THROW((void)x.cpu(), NotImplementedError);
  EXPECT_THROW((void)zeros({}, std::nullopt, meta()).item(), RuntimeError);
}

TEST_F(MetaTensor, ReductionsAndScansRunThroughTheirMetaFunctions) {
  using F = ScalarType;
  const std::vector<std::int64_t> scalar;
  const Case cases[] = {
      // sum and mean: dims, keepdim, dtype= and the integer rules.
      {"sum()", [](T x) { return sum(x); }},
      {"sum(dim)", [](T x) { return sum(x, {1}); }},
      {"sum(dims, keepdim)", [](T x) { return sum(x, IntArrayRef(kEnds), true); }},
      {"sum(int32)", [](T x) { return sum(x, {1}); }, F::kInt32},
      {"sum(bool)", [](T x) { return sum(x); }, F::kBool},
      {"sum(dtype)", [](T x) { return sum(x, std::nullopt, false, F::kFloat64); }},
      {"sum(empty)", [](T x) { return sum(x, {1}); }, F::kFloat32, {2, 0}},
      {"mean(dim)", [](T x) { return mean(x, {2}, true); }},
      {"mean(dtype)", [](T x) { return mean(x, std::nullopt, false, F::kFloat64); }, F::kInt64},
      // prod, max, min, amax, amin, argmax, argmin.
      {"prod()", [](T x) { return prod(x); }, F::kInt32},
      {"prod(dim)", [](T x) { return prod(x, -1, true, F::kInt64); }},
      {"max()", [](T x) { return max(x); }},
      {"min()", [](T x) { return min(x); }, F::kInt64},
      {"max(dim).values", [](T x) { return std::get<0>(max(x, 1)); }},
      {"max(dim).indices", [](T x) { return std::get<1>(max(x, 1, true)); }},
      {"min(dim).indices", [](T x) { return std::get<1>(min(x, -1)); }, F::kInt32},
      {"amax()", [](T x) { return amax(x); }},
      {"amin(dims)", [](T x) { return amin(x, kEnds, true); }},
      {"argmax()", [](T x) { return argmax(x); }},
      {"argmax(keepdim)", [](T x) { return argmax(x, std::nullopt, true); }},
      {"argmin(dim)", [](T x) { return argmin(x, 0, true); }, F::kInt64},
      // var, std, norm, logsumexp.
      {"var()", [](T x) { return var(x); }},
      {"var(dim)", [](T x) { return var_correction(x, {1}, 0, true); }},
      {"std(dims)", [](T x) { return std_correction(x, IntArrayRef(kEnds), std::nullopt); }},
      {"norm()", [](T x) { return norm(x, 1); }, F::kFloat64},
      {"norm(dim)", [](T x) { return norm(x, std::nullopt, {1}, true); }},
      {"logsumexp(int64)", [](T x) { return logsumexp(x, {1}); }, F::kInt64},
      // all, any, cumsum, cumprod.
      {"all()", [](T x) { return all(x); }},
      {"any(dim)", [](T x) { return any(x, 1, true); }, F::kInt32},
      {"cumsum(int32)", [](T x) { return cumsum(x, 1); }, F::kInt32},
      {"cumprod(dtype)", [](T x) { return cumprod(x, -1, F::kFloat64); }},
      // 0-dim inputs: dims 0 and -1, reducing nothing.
      {"cumsum(0-dim)", [](T x) { return cumsum(x, 0); }, F::kFloat32, scalar},
      {"sum(0-dim)", [](T x) { return sum(x, IntArrayRef(kEnds), true); }, F::kFloat32, scalar},
      {"max(0-dim, dim)", [](T x) { return std::get<1>(max(x, 0)); }, F::kFloat32, scalar},
  };
  for (const Case& c : cases) expect_same_geometry(c);
}

TEST_F(MetaTensor, ReductionErrorsAreTheCpusOnes) {
  using F = ScalarType;
  const std::vector<std::int64_t> empty_rows = {0, 3};
  const std::vector<std::int64_t> matrix = {2, 3};
  const Case cases[] = {
      {"max(empty)", [](T x) { return max(x); }, F::kFloat32, empty_rows},
      {"min(empty, 0)", [](T x) { return std::get<0>(min(x, 0)); }, F::kFloat32, empty_rows},
      {"amax(empty)", [](T x) { return amax(x); }, F::kFloat32, empty_rows},
      {"amin(empty, 0)", [](T x) { return amin(x, {0}); }, F::kFloat32, empty_rows},
      {"argmax(empty)", [](T x) { return argmax(x); }, F::kFloat32, empty_rows},
      {"argmin(bool)", [](T x) { return argmin(x); }, F::kBool, matrix},
      {"var(int64)", [](T x) { return var(x); }, F::kInt64, matrix},
      {"std(int32)", [](T x) { return std_correction(x, {0}, 1); }, F::kInt32, matrix},
      {"norm(int64)", [](T x) { return norm(x); }, F::kInt64, matrix},
      {"mean(int64)", [](T x) { return mean(x); }, F::kInt64, matrix},
      {"max(dim 2)", [](T x) { return std::get<0>(max(x, 2)); }, F::kFloat32, matrix},
      {"amax(0, 0)", [](T x) { return amax(x, kTwice); }, F::kFloat32, matrix},
      {"sum(1, -1)", [](T x) { return sum(x, IntArrayRef(kLastTwice)); }, F::kFloat32, matrix},
      {"logsumexp(3)", [](T x) { return logsumexp(x, {3}); }, F::kFloat32, matrix},
      {"cumsum(2)", [](T x) { return cumsum(x, 2); }, F::kFloat32, matrix},
      {"all(-3)", [](T x) { return all(x, -3); }, F::kFloat32, matrix},
  };
  for (const Case& c : cases) expect_same_error(c);
}

// The graph of (x * 2 + 1).sum() is recorded on meta tensors and its
// backward runs through meta functions too (sum's backward expands).
TEST_F(MetaTensor, AutogradBuildsAndRunsTheGraph) {
  Tensor x = ones({2, 3}, std::nullopt, meta());
  x.requires_grad_();
  Tensor y = (x * 2 + 1).sum();
  EXPECT_TRUE(y.device().is_meta());
  EXPECT_EQ(y.dim(), 0);
  ASSERT_NE(y.grad_fn(), nullptr);
  EXPECT_EQ(y.grad_fn()->name(), "SumBackward0");
  y.backward();
  const Tensor g = x.grad();
  ASSERT_TRUE(g.defined());
  EXPECT_TRUE(g.device().is_meta());
  EXPECT_EQ(sizes(g), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(g.dtype(), ScalarType::kFloat32);
  // Reductions with formulas of their own. (max.dim's backward makes an
  // arange, which has no Meta kernel yet.)
  Tensor z = ones({2, 3, 4}, ScalarType::kFloat64, meta());
  z.requires_grad_();
  Tensor w = add(amax(z, {1}, true).mean(), max(z));
  w = add(w, add(logsumexp(z, {0}).sum(), cumsum(z, 1).sum()));
  w = add(w, add(prod(z, 1).sum(), cumprod(z, 2).sum()));
  w = add(w, add(var_correction(z, {0, 2}, 1).sum(), norm(z, 3)));
  w = add(w, add(std_correction(z, std::nullopt, 0), norm(z, 2, {1}).sum()));
  w.backward();
  EXPECT_EQ(sizes(z.grad()), (std::vector<std::int64_t>{2, 3, 4}));
  EXPECT_EQ(z.grad().dtype(), ScalarType::kFloat64);
}

TEST_F(MetaTensor, PrintsAsPyTorchDoes) {
  EXPECT_EQ(ones({2, 3}, std::nullopt, meta()).repr(), "tensor(..., device='meta', size=(2, 3))");
  EXPECT_EQ(ones({2}, ScalarType::kInt64, meta()).repr(), "tensor(..., device='meta', size=(2,), dtype=torch.int64)");
  EXPECT_EQ(ones({2}, ScalarType::kInt32, meta()).repr(),
            "tensor(..., device='meta', size=(2,), dtype=torch.int32)");
  EXPECT_EQ(empty({0}, std::nullopt, meta()).repr(), "tensor([], device='meta')");
}

// --- matrix products, indexing and joining, creation functions ----------------------------

using Sizes = std::vector<std::int64_t>;
// An operator call made on the device it is given (its tensors made there).
using OnDevice = std::function<Tensor(Device)>;

// "TypeName: message" of what `call` throws on `device`, or "" when it throws nothing.
std::string thrown_on(const OnDevice& call, Device device) {
  try {
    (void)call(device);
  } catch (const Error& e) {
    return std::string(e.type_name()) + ": " + e.what();
  }
  return "";
}

// The call gives a tensor of the same sizes, strides and dtype on the meta
// device as on the CPU, with no data.
void expect_meta_geometry(const OnDevice& call, const char* what = "") {
  const Tensor cpu = call(Device());
  const Tensor m = call(meta());
  EXPECT_TRUE(m.device().is_meta()) << what;
  EXPECT_EQ(m.sizes().vec(), cpu.sizes().vec()) << what;
  EXPECT_EQ(m.strides().vec(), cpu.strides().vec()) << what;
  EXPECT_EQ(m.dtype(), cpu.dtype()) << what;
  EXPECT_EQ(m.data_ptr(), nullptr) << what;
}

// The call fails with the same error on the meta device as on the CPU.
void expect_meta_error(const OnDevice& call, const char* what = "") {
  const std::string cpu = thrown_on(call, Device());
  EXPECT_FALSE(cpu.empty()) << what << ": the CPU accepted it";
  EXPECT_EQ(thrown_on(call, meta()), cpu) << what;
}

// The checks above, with the caller's line in a failure's trace.
#define EXPECT_META_GEOMETRY(...)      \
  do {                                 \
    SCOPED_TRACE("");                  \
    expect_meta_geometry(__VA_ARGS__); \
  } while (false)
#define EXPECT_META_ERROR(...)      \
  do {                              \
    SCOPED_TRACE("");               \
    expect_meta_error(__VA_ARGS__); \
  } while (false)

Tensor ones_on(Device d, IntArrayRef sizes, ScalarType dtype = ScalarType::kFloat32) { return ones(sizes, dtype, d); }
Tensor ints_on(Device d, std::vector<std::int64_t> values) { return tensor(Value(std::move(values)), std::nullopt, d); }

TEST_F(MetaTensor, MatrixProductsRunThroughTheirMetaFunctions) {
  using S = ScalarType;
  EXPECT_META_GEOMETRY([](Device d) { return mm(ones_on(d, {2, 3}), ones_on(d, {3, 4})); }, "mm");
  EXPECT_META_GEOMETRY(
      [](Device d) {
        return mm(ones_on(d, {2, 3}, S::kInt64), ones_on(d, {3, 0}, S::kInt64));
      },
      "mm of integers, no columns");
  EXPECT_META_GEOMETRY([](Device d) { return bmm(ones_on(d, {5, 2, 3}), ones_on(d, {5, 3, 4})); }, "bmm");
  EXPECT_META_GEOMETRY(
      [](Device d) {
        return addmm(ones_on(d, {4}), ones_on(d, {2, 3}), ones_on(d, {3, 4}), 0.5, 2);
      },
      "addmm");
  EXPECT_META_GEOMETRY(
      [](Device d) {
        return mv(ones_on(d, {2, 3}, S::kFloat64), ones_on(d, {3}, S::kFloat64));
      },
      "mv");
  EXPECT_META_GEOMETRY([](Device d) { return dot(ones_on(d, {3}, S::kInt32), ones_on(d, {3}, S::kInt32)); }, "dot");
  EXPECT_META_GEOMETRY([](Device d) { return matmul(ones_on(d, {7, 2, 3}), ones_on(d, {3})); }, "matmul through bmm");
  EXPECT_META_GEOMETRY([](Device d) { return outer(ones_on(d, {2}), ones_on(d, {3})); }, "outer");

  EXPECT_META_ERROR([](Device d) { return mm(ones_on(d, {2, 3}), ones_on(d, {2, 4})); }, "mm shapes");
  EXPECT_META_ERROR([](Device d) { return mm(ones_on(d, {3}), ones_on(d, {3, 4})); }, "mm of a vector");
  EXPECT_META_ERROR([](Device d) { return mm(ones_on(d, {2, 3}), ones_on(d, {3, 4}, S::kFloat64)); }, "mm dtypes");
  EXPECT_META_ERROR([](Device d) { return bmm(ones_on(d, {2, 2, 3}), ones_on(d, {3, 3, 4})); }, "bmm batches");
  EXPECT_META_ERROR([](Device d) { return bmm(ones_on(d, {2, 2, 3}), ones_on(d, {2, 2, 4})); }, "bmm shapes");
  EXPECT_META_ERROR(
      [](Device d) {
        return addmm(ones_on(d, {3}), ones_on(d, {2, 3}), ones_on(d, {3, 4}));
      },
      "addmm: self does not broadcast");
  EXPECT_META_ERROR(
      [](Device d) {
        return addmm(ones_on(d, {4}), ones_on(d, {2, 3}), ones_on(d, {3, 4}, S::kInt64));
      },
      "addmm dtypes");
  EXPECT_META_ERROR([](Device d) { return mv(ones_on(d, {2, 3}), ones_on(d, {2})); }, "mv sizes");
  EXPECT_META_ERROR([](Device d) { return dot(ones_on(d, {3}, S::kBool), ones_on(d, {3}, S::kBool)); }, "dot of bools");
  EXPECT_META_ERROR([](Device d) { return dot(ones_on(d, {3}), ones_on(d, {2})); }, "dot sizes");

  // Backward runs on meta tensors too: gradients of the inputs' shapes.
  const Tensor a = ones({2, 3}, std::nullopt, meta()).requires_grad_();
  const Tensor b = ones({3, 4}, std::nullopt, meta()).requires_grad_();
  const Tensor bias = ones({2, 4}, std::nullopt, meta()).requires_grad_();
  addmm(bias, a, b, 1, 2).backward(ones({2, 4}, std::nullopt, meta()));
  matmul(a, b).backward(ones({2, 4}, std::nullopt, meta()));
  EXPECT_EQ(a.grad().sizes().vec(), (Sizes{2, 3}));
  EXPECT_EQ(b.grad().sizes().vec(), (Sizes{3, 4}));
  EXPECT_EQ(bias.grad().sizes().vec(), (Sizes{2, 4}));
  EXPECT_TRUE(a.grad().device().is_meta());
  const Tensor v = ones({3}, std::nullopt, meta()).requires_grad_();
  mv(a, v).backward(ones({2}, std::nullopt, meta()));
  dot(v, v).backward(ones({}, std::nullopt, meta()));
  EXPECT_EQ(v.grad().sizes().vec(), (Sizes{3}));
}

TEST_F(MetaTensor, EvalPrintsTheMatmulOfMetaTensors) {
  EXPECT_EQ(eval::format(eval::evaluate(R"(torch.ones(2, 3, device="meta") @ torch.ones(3, 4, device="meta"))")),
            "tensor(..., device='meta', size=(2, 4))");
}

TEST_F(MetaTensor, IndexingAndJoiningRunThroughTheirMetaFunctions) {
  using S = ScalarType;
  EXPECT_META_GEOMETRY(
      [](Device d) {
        return cat({ones_on(d, {2, 3}, S::kInt64), ones_on(d, {0}), ones_on(d, {2, 1})}, -1);
      },
      "cat: promotes, skips a legacy empty tensor");
  EXPECT_META_GEOMETRY(
      [](Device d) {
        return cat({ones_on(d, {0}), ones_on(d, {0}, S::kInt32)});
      },
      "cat of legacy empty tensors only");
  EXPECT_META_GEOMETRY(
      [](Device d) {
        return index_select(ones_on(d, {3, 4}), 1, ints_on(d, {0, 2, 2}));
      },
      "index_select");
  EXPECT_META_GEOMETRY(
      [](Device d) {
        return index_select(ones_on(d, {}), 0, ints_on(d, {0, 0}));
      },
      "index_select of a 0-dim tensor");
  EXPECT_META_GEOMETRY([](Device d) { return gather(ones_on(d, {3, 4}), 0, ones_on(d, {2, 4}, S::kInt64)); }, "gather");
  EXPECT_META_GEOMETRY(
      [](Device d) {
        return scatter(ones_on(d, {3, 4}), 1, ones_on(d, {3, 2}, S::kInt64), 7.5);
      },
      "scatter of a value");
  EXPECT_META_GEOMETRY(
      [](Device d) {
        return scatter_add(ones_on(d, {3, 4}), 0, ones_on(d, {2, 4}, S::kInt64), ones_on(d, {2, 4}));
      },
      "scatter_add");
  EXPECT_META_GEOMETRY(
      [](Device d) {
        return masked_fill(ones_on(d, {2, 1}), ones_on(d, {3}, S::kBool), 0);
      },
      "masked_fill broadcasts");
  EXPECT_META_GEOMETRY([](Device d) { return flip(ones_on(d, {2, 3, 4}, S::kInt32), {0, -1}); }, "flip");
  EXPECT_META_GEOMETRY([](Device d) { return tril(ones_on(d, {2, 3, 4}).transpose(1, 2), 1); }, "tril");
  EXPECT_META_GEOMETRY([](Device d) { return triu(ones_on(d, {3, 3}, S::kBool)); }, "triu");

  EXPECT_META_ERROR([](Device d) { return cat({ones_on(d, {2, 3}), ones_on(d, {3, 3})}, 1); }, "cat sizes");
  EXPECT_META_ERROR([](Device d) { return cat({ones_on(d, {}), ones_on(d, {3})}); }, "cat of a 0-dim tensor");
  EXPECT_META_ERROR([](Device d) { return cat({ones_on(d, {2}), ones_on(d, {2})}, 1); }, "cat dim");
  EXPECT_META_ERROR(
      [](Device d) {
        return index_select(ones_on(d, {3}), 0, ones_on(d, {1, 1}, S::kInt64));
      },
      "index_select of a matrix index");
  EXPECT_META_ERROR([](Device d) { return index_select(ones_on(d, {3}), 0, ones_on(d, {1})); },
                    "index_select of a float index");
  EXPECT_META_ERROR(
      [](Device d) {
        return gather(ones_on(d, {3, 4}), 0, ones_on(d, {2, 5}, S::kInt64));
      },
      "gather: index larger than self");
  EXPECT_META_ERROR(
      [](Device d) {
        return gather(ones_on(d, {3, 4}), 2, ones_on(d, {2, 4}, S::kInt64));
      },
      "gather dim");
  EXPECT_META_ERROR(
      [](Device d) {
        return scatter(ones_on(d, {3, 4}), 0, ones_on(d, {2, 4}, S::kInt64), ones_on(d, {2, 4}, S::kInt64));
      },
      "scatter dtypes");
  EXPECT_META_ERROR(
      [](Device d) {
        return scatter_add(ones_on(d, {3, 4}), 0, ones_on(d, {2, 4}, S::kInt64), wrap_scalar(1.0));
      },
      "scatter_add of a value");
  EXPECT_META_ERROR([](Device d) { return masked_fill(ones_on(d, {3}), ones_on(d, {3}), 0); }, "a float mask");
  EXPECT_META_ERROR([](Device d) { return masked_fill(ones_on(d, {3}), ones_on(d, {2}, S::kBool), 0); },
                    "masked_fill shapes");
  EXPECT_META_ERROR([](Device d) { return masked_fill(ones_on(d, {3}), ones_on(d, {3}, S::kBool), ones_on(d, {1})); },
                    "masked_fill of a 1-D value");
  EXPECT_META_ERROR([](Device d) { return flip(ones_on(d, {2, 3}), {1, -1}); }, "flip of one dim twice");
  EXPECT_META_ERROR([](Device d) { return tril(ones_on(d, {})); }, "tril of a 0-dim tensor");

  // Index values are data: the CPU checks them, the meta device cannot
  // (Note [Index values are the impl's to check]).
  const OnDevice out_of_range = [](Device d) { return index_select(ones_on(d, {3}), 0, ints_on(d, {3})); };
  EXPECT_EQ(thrown_on(out_of_range, Device()), "IndexError: index out of range in self");
  EXPECT_EQ(thrown_on(out_of_range, meta()), "");
  EXPECT_EQ(thrown_on([](Device d) { return gather(ones_on(d, {3}), 0, ints_on(d, {-1})); }, meta()), "");
  EXPECT_EQ(thrown_on([](Device d) { return masked_fill(ones_on(d, {2}), ints_on(d, {0, 2}), 1); }, meta()), "");

  // Backward: scatter_add back into zeros, gather, flip, tril, cat's slices.
  const Tensor x = ones({3, 4}, std::nullopt, meta()).requires_grad_();
  const Tensor seed = ones({3, 2}, std::nullopt, meta());
  index_select(x, 1, ints_on(meta(), {0, 3})).backward(seed);
  gather(x, 1, ones({3, 2}, ScalarType::kInt64, meta())).backward(seed);
  tril(flip(x, {0})).backward(ones({3, 4}, std::nullopt, meta()));
  cat({x, x}).backward(ones({6, 4}, std::nullopt, meta()));
  EXPECT_EQ(x.grad().sizes().vec(), (Sizes{3, 4}));
  EXPECT_TRUE(x.grad().device().is_meta());
}

TEST_F(MetaTensor, CreationFunctionsMakeMetaTensorsFromTheirArguments) {
  using S = ScalarType;
  const Tensor t = tensor(Value::list({Value(std::vector<std::int64_t>{1, 2})}), std::nullopt, meta());
  EXPECT_TRUE(t.device().is_meta());
  EXPECT_EQ(t.sizes().vec(), (Sizes{1, 2}));
  EXPECT_EQ(t.dtype(), S::kInt64);
  EXPECT_EQ(t.data_ptr(), nullptr);
  EXPECT_EQ(eval::format(eval::evaluate(R"(torch.tensor([[1, 2]], device="meta"))")),
            "tensor(..., device='meta', size=(1, 2), dtype=torch.int64)");

  EXPECT_META_GEOMETRY(
      [](Device d) {
        return tensor(Value(std::vector<double>{1, 2.5}), std::nullopt, d);
      },
      "tensor of floats");
  EXPECT_META_GEOMETRY([](Device d) { return tensor(Value::list({}), S::kInt32, d); }, "an empty tensor");
  EXPECT_META_GEOMETRY([](Device d) { return tensor(Value(ones({2, 3}).t()), S::kFloat64, d); }, "tensor of a tensor");
  EXPECT_META_GEOMETRY([](Device d) { return arange(Scalar(5), std::nullopt, 1, std::nullopt, d); }, "arange(5)");
  EXPECT_META_GEOMETRY([](Device d) { return arange(Scalar(10), Scalar(-3), -4, std::nullopt, d); },
                       "arange with a negative step");
  EXPECT_META_GEOMETRY([](Device d) { return arange(Scalar(0), Scalar(5.5), 1, std::nullopt, d); },
                       "arange to a float: float32");
  EXPECT_META_GEOMETRY([](Device d) { return arange(Scalar(0.5), Scalar(2), 0.25, S::kFloat64, d); },
                       "arange in a dtype");
  EXPECT_META_GEOMETRY([](Device d) { return linspace(0, 1, 7, std::nullopt, d); }, "linspace");
  EXPECT_META_GEOMETRY([](Device d) { return linspace(0, 10, 3, S::kInt64, d); }, "linspace of integers");
  EXPECT_META_GEOMETRY([](Device d) { return eye(3, 2, std::nullopt, d); }, "eye");
  EXPECT_META_GEOMETRY([](Device d) { return rand({2, 3}, S::kFloat64, d); }, "rand");
  EXPECT_META_GEOMETRY([](Device d) { return randn({4}, std::nullopt, d); }, "randn");
  EXPECT_META_GEOMETRY([](Device d) { return randint(3, 9, {2, 2}, std::nullopt, d); }, "randint.low");
  EXPECT_META_GEOMETRY([](Device d) { return randint(5, {3}, S::kInt32, d); }, "randint");

  const Value ragged = Value::list({Value(std::vector<std::int64_t>{1, 2}), Value(std::vector<std::int64_t>{3})});
  EXPECT_META_ERROR([&](Device d) { return tensor(ragged, std::nullopt, d); }, "a ragged list");
  EXPECT_META_ERROR([](Device d) { return tensor(Value::list({Value("a")}), std::nullopt, d); }, "a list of strings");
  EXPECT_META_ERROR([](Device d) { return arange(Scalar(0), Scalar(5), 0, std::nullopt, d); }, "arange step 0");
  EXPECT_META_ERROR([](Device d) { return arange(Scalar(0), Scalar(5), -1, std::nullopt, d); }, "arange step sign");
  EXPECT_META_ERROR([](Device d) { return arange(Scalar(0.0), Scalar(5), -1, std::nullopt, d); },
                    "arange step sign, floats");
  EXPECT_META_ERROR([](Device d) { return linspace(0, 1, -1, std::nullopt, d); }, "linspace steps");
  EXPECT_META_ERROR([](Device d) { return linspace(0, 1, 2, S::kBool, d); }, "linspace of bools");
  EXPECT_META_ERROR([](Device d) { return eye(-1, std::nullopt, std::nullopt, d); }, "eye of -1");
  EXPECT_META_ERROR([](Device d) { return rand({2}, S::kInt64, d); }, "rand of integers");
  EXPECT_META_ERROR([](Device d) { return randn({-2}, std::nullopt, d); }, "randn of a negative size");
  EXPECT_META_ERROR([](Device d) { return randint(3, 3, {2}, std::nullopt, d); }, "randint of an empty range");
}

// --- nn, convolution and pooling -----------------------------------------------------

TEST_F(MetaTensor, NnOperatorsRunThroughTheirMetaFunctions) {
  constexpr auto kLong = ScalarType::kInt64;
  constexpr auto kDouble = ScalarType::kFloat64;
  auto x = [](Device d, ScalarType t = ScalarType::kFloat32) { return ones({2, 3, 4}, t, d); };
  auto target = [](Device d, Shape s) { return zeros(s, ScalarType::kInt64, d); };
  EXPECT_META_GEOMETRY([&](Device d) { return softmax(x(d), 1); });
  EXPECT_META_GEOMETRY([&](Device d) { return log_softmax(x(d), -1, kDouble); });
  EXPECT_META_GEOMETRY([&](Device d) { return softmax(ones({}, std::nullopt, d), 0); });
  EXPECT_META_GEOMETRY([&](Device d) { return log_softmax(empty({0, 3}, std::nullopt, d), 1); });
  EXPECT_META_GEOMETRY([&](Device d) { return F::softmax(x(d).transpose(0, 2), 0); });
  EXPECT_META_GEOMETRY([&](Device d) { return F::leaky_relu(x(d, kDouble), 0.2); });
  EXPECT_META_GEOMETRY([&](Device d) { return F::elu(x(d).transpose(1, 2)); });
  EXPECT_META_GEOMETRY([&](Device d) { return F::gelu(x(d), "tanh"); });
  EXPECT_META_GEOMETRY([&](Device d) { return F::silu(x(d)); });
  EXPECT_META_GEOMETRY([&](Device d) { return F::logsigmoid(x(d, kDouble)); });
  for (const char* reduction : {"none", "mean", "sum"}) {
    EXPECT_META_GEOMETRY([&](Device d) { return F::nll_loss(x(d), target(d, {2, 4}), std::nullopt, -100, reduction); });
    EXPECT_META_GEOMETRY([&](Device d) {
      return F::nll_loss(ones({5, 3}, std::nullopt, d), target(d, {5}), ones({3}, std::nullopt, d), 1, reduction);
    });
  }
  EXPECT_META_GEOMETRY([&](Device d) { return F::nll_loss(ones({3}, std::nullopt, d), target(d, {})); });
  EXPECT_META_GEOMETRY([&](Device d) { return F::cross_entropy(ones({5, 3}, std::nullopt, d), target(d, {5})); });
  EXPECT_META_GEOMETRY([&](Device d) {
    return F::layer_norm(x(d, kDouble), {3, 4}, ones({3, 4}, kDouble, d), zeros({3, 4}, kDouble, d));
  });
  EXPECT_META_GEOMETRY([&](Device d) { return F::layer_norm(empty({0, 4}, std::nullopt, d), {4}); });

  // inplace=True writes into the input and returns it, on meta too.
  Tensor z = ones({2, 3}, std::nullopt, meta());
  const std::uint32_t before = z.version();
  EXPECT_TRUE(F::elu(z, 1.0, true).is_same(z));
  EXPECT_TRUE(F::leaky_relu(z, 0.1, true).is_same(z));
  EXPECT_TRUE(F::silu(z, true).is_same(z));
  EXPECT_GT(z.version(), before);

  // The CPU's checks and messages.
  EXPECT_META_ERROR([&](Device d) { return softmax(x(d, kLong), 0); });
  EXPECT_META_ERROR([&](Device d) { return log_softmax(x(d), 0, kLong); });
  EXPECT_META_ERROR([&](Device d) { return softmax(x(d), 3); });
  EXPECT_META_ERROR([&](Device d) { return F::gelu(x(d), "fast"); });
  EXPECT_META_ERROR([&](Device d) { return F::gelu(x(d, kLong)); });
  EXPECT_META_ERROR([&](Device d) { return F::leaky_relu(x(d, ScalarType::kInt32)); });
  EXPECT_META_ERROR([&](Device d) { return F::elu(x(d, ScalarType::kBool)); });
  EXPECT_META_ERROR([&](Device d) { return F::silu(x(d, kLong)); });
  EXPECT_META_ERROR([&](Device d) { return F::logsigmoid(x(d, kLong)); });
  EXPECT_META_ERROR([&](Device d) { return F::nll_loss(ones({2, 3}, std::nullopt, d), target(d, {3})); });
  EXPECT_META_ERROR([&](Device d) { return F::nll_loss(ones({2, 3}, std::nullopt, d), target(d, {2, 1})); });
  EXPECT_META_ERROR([&](Device d) { return F::nll_loss(x(d), target(d, {2, 3})); });
  EXPECT_META_ERROR([&](Device d) { return F::nll_loss(ones({2, 3}, std::nullopt, d), ones({2}, std::nullopt, d)); });
  EXPECT_META_ERROR([&](Device d) { return F::nll_loss(ones({2, 3}, kLong, d), target(d, {2})); });
  EXPECT_META_ERROR([&](Device d) { return F::nll_loss(ones({}, std::nullopt, d), target(d, {})); });
  EXPECT_META_ERROR([&](Device d) {
    return F::nll_loss(ones({2, 3}, std::nullopt, d), target(d, {2}), ones({4}, std::nullopt, d));
  });
  EXPECT_META_ERROR([&](Device d) {
    return F::nll_loss(ones({2, 3}, std::nullopt, d), target(d, {2}), ones({3}, kDouble, d));
  });
  EXPECT_META_ERROR([&](Device d) {
    return F::nll_loss(ones({2, 3}, std::nullopt, d), target(d, {2}), std::nullopt, 0, "avg");
  });
  EXPECT_META_ERROR([&](Device d) { return F::layer_norm(x(d), {3}); });
  EXPECT_META_ERROR([&](Device d) { return F::layer_norm(x(d), {}); });
  EXPECT_META_ERROR([&](Device d) { return F::layer_norm(x(d, kLong), {4}); });
  EXPECT_META_ERROR([&](Device d) { return F::layer_norm(x(d), {4}, ones({3}, std::nullopt, d)); });
  EXPECT_META_ERROR([&](Device d) { return F::layer_norm(x(d), {4}, std::nullopt, ones({4}, kDouble, d)); });
  // A target out of range is data: the CPU finds it, meta has none to read.
  const Tensor bad = tensor(Value(std::vector<std::int64_t>{0, 7}));
  EXPECT_THROW((void)F::nll_loss(ones({2, 3}), bad), IndexError);
  EXPECT_EQ(F::nll_loss(ones({2, 3}, std::nullopt, meta()), target(meta(), {2})).dim(), 0);
}

TEST_F(MetaTensor, ConvolutionAndPoolingRunThroughTheirMetaFunctions) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  auto t = [](Shape s, Device d, ScalarType type = ScalarType::kFloat32) { return ones(s, type, d); };
  const Shape one{1};
  const Shape two{2};
  EXPECT_META_GEOMETRY([&](Device d) {
    return conv2d(t({2, 3, 9, 9}, d), t({4, 3, 3, 3}, d), t({4}, d), Shape{2, 1}, Shape{1, 0}, Shape{1, 2});
  });
  EXPECT_META_GEOMETRY([&](Device d) { return conv2d(t({4, 9, 7}, d), t({6, 2, 3, 1}, d), std::nullopt, 1, 0, 1, 2); });
  EXPECT_META_GEOMETRY([&](Device d) {
    return conv2d(t({1, 2, 5, 5}, d), t({2, 2, 3, 3}, d), std::nullopt, one, "same");
  });
  EXPECT_META_GEOMETRY([&](Device d) { return conv1d(t({3, 10}, d), t({5, 3, 4}, d), t({5}, d), two, 3); });
  EXPECT_META_GEOMETRY([&](Device d) { return F::max_pool2d(t({2, 3, 9, 9}, d), Shape{3}, two, one, one, true); });
  EXPECT_META_GEOMETRY([&](Device d) { return std::get<1>(F::max_pool2d_with_indices(t({3, 8, 7}, d), two)); });
  EXPECT_META_GEOMETRY([&](Device d) { return F::avg_pool2d(t({2, 3, 9, 9}, d), Shape{3}, two, one, true, false, 2); });
  EXPECT_META_GEOMETRY([&](Device d) { return F::avg_pool2d(t({3, 5, 5}, d, ScalarType::kInt64), two); });
  EXPECT_META_GEOMETRY([&](Device d) { return F::adaptive_avg_pool2d(t({2, 3, 9, 9}, d), Shape{4, 3}); });
  EXPECT_META_GEOMETRY([&](Device d) { return F::adaptive_avg_pool2d(t({3, 9, 9}, d), Shape{0, 3}); });
  EXPECT_META_GEOMETRY([&](Device d) { return avg_pool1d(t({2, 3, 9}, d), Shape{3}); });
  EXPECT_META_GEOMETRY([&](Device d) { return adaptive_avg_pool1d(t({3, 9}, d), Shape{4}); });
  // The internal operators, the backwards among them.
  const Shape s11{1, 1};
  const Shape s00{0, 0};
  const Shape s22{2, 2};
  EXPECT_META_GEOMETRY([&](Device d) {
    return aten::convolution2d_input_backward(t({2, 4, 7, 7}, d), t({4, 3, 3, 3}, d), Shape{2, 3, 9, 9}, s11, s00, s11,
                                              1);
  });
  EXPECT_META_GEOMETRY([&](Device d) {
    return aten::convolution2d_weight_backward(t({2, 4, 7, 7}, d), t({2, 3, 9, 9}, d), Shape{4, 3, 3, 3}, s11, s00, s11,
                                               1);
  });
  EXPECT_META_GEOMETRY([&](Device d) {
    return aten::avg_pool2d_backward(t({1, 2, 3, 3}, d), Shape{1, 2, 6, 6}, s22, s22, s00, false, true, std::nullopt);
  });
  EXPECT_META_GEOMETRY([&](Device d) {
    return aten::adaptive_avg_pool2d_backward(t({1, 2, 3, 3}, d), Shape{1, 2, 7, 7});
  });
  // The fuzzer's huge kernel: the 128-bit output size, on meta too.
  EXPECT_META_GEOMETRY([&](Device d) { return F::max_pool2d(t({1, 1, 2, 2}, d), Shape{kMax}, one, Shape{kMax / 2}); });

  // The CPU's checks and messages.
  EXPECT_META_ERROR([&](Device d) { return F::max_pool2d(t({1, 1, 4, 4}, d), two, std::nullopt, two); });
  EXPECT_META_ERROR([&](Device d) { return F::max_pool2d(t({1, 1, 2, 2}, d), Shape{kMax}); });
  EXPECT_META_ERROR([&](Device d) { return F::max_pool2d(t({1, 1, 4, 4}, d, ScalarType::kInt64), two); });
  EXPECT_META_ERROR([&](Device d) { return F::max_pool2d(t({1, 1, 4, 4}, d), two, std::nullopt, 0, Shape{0}); });
  EXPECT_META_ERROR([&](Device d) { return F::avg_pool2d(t({1, 1, 4, 4}, d), two, std::nullopt, 0, false, true, 0); });
  EXPECT_META_ERROR([&](Device d) { return F::avg_pool2d(t({1, 1, 4, 4}, d, ScalarType::kBool), two); });
  EXPECT_META_ERROR([&](Device d) { return F::adaptive_avg_pool2d(t({1, 1, 4, 4}, d, ScalarType::kInt64), two); });
  EXPECT_META_ERROR([&](Device d) { return conv2d(t({1, 2, 4, 4}, d), t({2, 2, 5, 5}, d)); });
  EXPECT_META_ERROR([&](Device d) {
    return conv2d(t({1, 2, 4, 4}, d, ScalarType::kBool), t({2, 2, 3, 3}, d, ScalarType::kBool));
  });
  // Integer convolution computes (as PyTorch's CPU does), with the geometry on meta too.
  EXPECT_META_GEOMETRY([&](Device d) {
    return conv2d(t({1, 2, 4, 4}, d, ScalarType::kInt64), t({2, 2, 3, 3}, d, ScalarType::kInt64));
  });
  EXPECT_META_ERROR([&](Device d) {
    return aten::convolution2d(t({1, 2, 4, 4}, d), t({3, 3, 1, 1}, d), std::nullopt, s11, s00, s11, 1);
  });
  EXPECT_META_ERROR([&](Device d) {
    return aten::convolution2d(t({1, 2, 4, 4}, d), t({3, 2, 1, 1}, d), std::nullopt, s11, Shape{kMax, 0}, s11, 1);
  });
  EXPECT_META_ERROR([&](Device d) {
    return aten::convolution2d(t({1, 2, 4, 4}, d), t({3, 2, 1}, d), std::nullopt, s11, s00, s11, 1);
  });
  EXPECT_META_ERROR([&](Device d) {
    return aten::convolution2d(t({1, 2, 4, 4}, d), t({3, 2, 1, 1}, d, ScalarType::kFloat64), std::nullopt, s11, s00,
                               s11, 1);
  });
  EXPECT_META_ERROR([&](Device d) {
    return aten::convolution2d_input_backward(t({2, 4, 6, 6}, d), t({4, 3, 3, 3}, d), Shape{2, 3, 9, 9}, s11, s00, s11,
                                              1);
  });
  EXPECT_META_ERROR([&](Device d) {
    return aten::avg_pool2d_backward(t({1, 2, 3, 3}, d), Shape{1, 2, 5, 5}, s22, s22, s00, false, true, std::nullopt);
  });
  EXPECT_META_ERROR([&](Device d) {
    return aten::adaptive_avg_pool2d_backward(t({1, 1, 2, 2}, d),
                                              Shape{-2, std::numeric_limits<std::int64_t>::min(), 1, 1});
  });
  // No memory on meta: pooling an image no host could hold.
  const Tensor big = empty({1, 1, std::int64_t{1} << 20, std::int64_t{1} << 20}, std::nullopt, meta());
  EXPECT_EQ(F::max_pool2d(big, two).sizes().vec(), (Shape{1, 1, std::int64_t{1} << 19, std::int64_t{1} << 19}));
  EXPECT_EQ(F::adaptive_avg_pool2d(big, Shape{3, 5}).sizes().vec(), (Shape{1, 1, 3, 5}));
}

// A small CNN's forward on meta tensors, and the backward of its convolution,
// activation and pooling layers: the gradients have the parameters' geometry.
TEST_F(MetaTensor, SmallCnnForwardAndBackward) {
  const Device d = meta();
  const Tensor x = ones({8, 3, 16, 16}, std::nullopt, d);
  Tensor w1 = ones({6, 3, 3, 3}, std::nullopt, d).requires_grad_();
  Tensor w2 = ones({10, 6, 3, 3}, std::nullopt, d).requires_grad_();
  Tensor h = F::leaky_relu(conv2d(x, w1, std::nullopt, 1, 1), 0.1);
  h = F::avg_pool2d(h, Shape{2});
  h = F::silu(conv2d(h, w2));
  h = F::adaptive_avg_pool2d(h, Shape{1, 1}).reshape({8, 10});
  EXPECT_EQ(h.sizes().vec(), (Shape{8, 10}));
  h.backward(ones({8, 10}, std::nullopt, d));
  ASSERT_TRUE(w1.grad().defined());
  EXPECT_TRUE(w1.grad().device().is_meta());
  EXPECT_EQ(w1.grad().sizes().vec(), w1.sizes().vec());
  EXPECT_EQ(w2.grad().sizes().vec(), w2.sizes().vec());
  // A classifier, forward and backward: bias, max pooling, layer_norm, the
  // loss. Their formulas use sum, mean, arange and scatter_add on meta too.
  Tensor w3 = ones({6, 3, 3, 3}, std::nullopt, d).requires_grad_();
  Tensor b3 = zeros({6}, std::nullopt, d).requires_grad_();
  Tensor gamma = ones({8, 8}, std::nullopt, d).requires_grad_();
  Tensor y = F::max_pool2d(F::gelu(conv2d(x, w3, b3, 1, 1)), Shape{2});
  y = F::layer_norm(y, {8, 8}, gamma);
  const Tensor logits = F::adaptive_avg_pool2d(y, Shape{1, 1}).reshape({8, 6});
  const Tensor loss = F::cross_entropy(logits, zeros({8}, ScalarType::kInt64, d));
  EXPECT_TRUE(loss.device().is_meta());
  EXPECT_EQ(loss.dim(), 0);
  loss.backward();
  for (const Tensor& p : {w3, b3, gamma}) {
    ASSERT_TRUE(p.grad().defined());
    EXPECT_TRUE(p.grad().device().is_meta());
    EXPECT_EQ(p.grad().sizes().vec(), p.sizes().vec());
  }
  // padding='same' with an odd total padding pads one side with cat.
  Tensor w4 = ones({2, 3, 2, 2}, std::nullopt, d).requires_grad_();
  conv2d(x, w4, std::nullopt, 1, "same").sum().backward();
  EXPECT_EQ(w4.grad().sizes().vec(), w4.sizes().vec());
}

}  // namespace
}  // namespace wick
