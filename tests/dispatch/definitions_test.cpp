// tests/dispatch/definitions_test.cpp - operators defined once, in .ops files: the catalog and typed API derived from
// them.
/// \file
/// tests/plugins/defined is a plugin whose operators come from defined.ops
/// (wick_add_plugin OPS); this binary compiles the typed API generated from
/// the same file (wick_generate_ops in tests/CMakeLists.txt), as an
/// application using a plugin's operators would.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "test_defined_api_ops.h"
#include "tests/support/test_paths.h"
#include "wick/catalog.h"
#include "wick/dispatcher.h"
#include "wick/library.h"
#include "wick/loader.h"
#include "wick/meta.h"
#include "wick/ops.h"

namespace wick {
namespace {

/// Loads tests/plugins/defined for one test and unloads it after.
class DefinedPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    init();
    load_plugin(wick_test::plugin_dir() + "/libwick_test_defined.so");
  }
  void TearDown() override { unload_plugin("test_defined"); }
};

double first(const Tensor& t) { return t.contiguous().data_ptr<float>()[0]; }

TEST_F(DefinedPlugin, OneDefinitionGivesEntriesAliasesAndDunders) {
  for (const char* name :
       {"testdefined.scale", "testdefined.Tensor.scale", "testdefined.Tensor.__rshift__", "testdefined.offset"}) {
    EXPECT_TRUE(try_find_op(name).has_value()) << name;
  }
  const auto all = overridable_functions("testdefined.Tensor");
  EXPECT_NE(std::find(all.begin(), all.end(), "testdefined.Tensor.scale"), all.end());
  // The alias has the definition's schema under its own name.
  EXPECT_EQ(find_op("testdefined.Tensor.scale").schema().str(), "scale(Tensor self, float factor=2.0) -> Tensor");
  // Where it came from: the .ops file and line, for conflict messages.
  const auto rows = dispatch_table("testdefined.scale");
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.back().provider, "test_defined");
}

TEST_F(DefinedPlugin, BoxedCallsReachTheKernels) {
  const Tensor x = full({2}, 3.0);
  EXPECT_EQ(first(call("testdefined.scale", {x}).to_tensor()), 6.0);
  EXPECT_EQ(first(call("testdefined.scale", {x}, {{"factor", 0.5}}).to_tensor()), 1.5);
  EXPECT_EQ(first(call("testdefined.Tensor.scale", {x, 4.0}).to_tensor()), 12.0);
  EXPECT_EQ(first(call("testdefined.offset", {x, 1}, {{"alpha", 2}}).to_tensor()), 5.0);
}

// Note [Numbers for tensor arguments]: `numbers: other` in the plugin's
// .ops lets offset's other be a number; scale's self is a Tensor only, and
// a definition naming an argument that is not a Tensor is refused.
TEST_F(DefinedPlugin, NumbersOnlyWhereTheDefinitionTakesThem) {
  EXPECT_TRUE(find_op("testdefined.offset").schema().arguments[1].takes_number);
  EXPECT_FALSE(find_op("testdefined.offset").schema().arguments[0].takes_number);
  try {
    call("testdefined.scale", {2.0});
    ADD_FAILURE() << "a number for scale's self";
  } catch (const TypeError& e) {
    EXPECT_STREQ(e.what(), "testdefined.scale(): argument 'input' (position 1) must be Tensor, not float");
  }
  Library lib("testnumbers", std::nullopt, "test");
  auto numbers = [](const char* names) {
    DefOptions o;
    o.numbers = names;
    return o;
  };
  EXPECT_THROW(lib.def("f(Tensor self, float factor) -> Tensor", numbers("factor")), ValueError);
  EXPECT_THROW(lib.def("g(Tensor self) -> Tensor", numbers("other")), ValueError);
  lib.def("h(Tensor self, Tensor other) -> Tensor", numbers(" other "));
  EXPECT_TRUE(find_op("testnumbers.h").schema().arguments[1].takes_number);
}

TEST_F(DefinedPlugin, GeneratedTypedApiFunctionsAndMethods) {
  const Tensor x = full({2}, 3.0);
  EXPECT_EQ(first(testdefined::scale(x)), 6.0);
  EXPECT_EQ(first(testdefined::scale(x, 10.0)), 30.0);
  EXPECT_EQ(first(testdefined::offset(x, ones({2}), 3)), 6.0);
  EXPECT_EQ(first(testdefined::offset(x, 1.5)), 4.5);  // the cpp_scalar overload
  // Methods of testdefined.Tensor live on testdefined::Tensor, a wick::Tensor.
  EXPECT_EQ(first(testdefined::Tensor(x).scale(2.0)), 6.0);
}

TEST_F(DefinedPlugin, MetaFunctionGivesTheOutVariantAndTheMetaBackend) {
  const Tensor x = full({2}, 3.0);
  // out= is derived from the meta function and the CPU impl.
  Tensor out = empty({5}, ScalarType::kFloat64);
  call("testdefined.scale", {x, 4.0}, {{"out", out}});
  EXPECT_EQ(out.sizes().vec(), (std::vector<std::int64_t>{2}));  // resized
  EXPECT_EQ(out.dtype(), ScalarType::kFloat64);
  EXPECT_EQ(out.select(0, 0).item<double>(), 12.0);
  Tensor int_out = empty({2}, ScalarType::kInt64);
  try {
    call("testdefined.scale", {x}, {{"out", int_out}});
    ADD_FAILURE() << "a float result into an int64 out= must fail";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("result type Float can't be cast to the desired output type Long"),
              std::string::npos)
        << e.what();
  }
  // The Meta backend: shapes and dtypes without data.
  const Tensor m = empty({3, 4}, ScalarType::kInt64, Device(DeviceType::kMeta));
  const Tensor r = call("testdefined.scale", {m}).to_tensor();
  EXPECT_TRUE(r.device().is_meta());
  EXPECT_EQ(r.sizes().vec(), (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(r.dtype(), ScalarType::kFloat32);  // the meta function: integers scale in float
  EXPECT_EQ(testdefined::Tensor(m).scale().dtype(), ScalarType::kFloat32);
  // An operator without a meta function fails on meta tensors, saying so.
  try {
    (void)call("testdefined.offset", {m, m});
    ADD_FAILURE() << "offset has no meta function";
  } catch (const NotImplementedError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("testdefined.offset: no kernel for dispatch key Meta"), std::string::npos) << what;
    EXPECT_NE(what.find("The operator has no meta function"), std::string::npos) << what;
  }
}

TEST_F(DefinedPlugin, ImplStructuredChecksTheImplType) {
  Library lib("testdefined", DispatchKey::kCUDA, "test");
  auto wrong = +[](const OutputMeta&, const Tensor&, const Tensor&, double) {};
  try {
    lib.impl_structured("scale", wrong);
    ADD_FAILURE() << "an impl of the wrong type must be refused";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("its meta function's impl is"), std::string::npos) << e.what();
  }
  auto plain = +[](const Tensor& t, const Tensor&, const Scalar&) { return t; };
  try {
    lib.impl_structured("offset", plain);
    ADD_FAILURE() << "an operator without a meta function has no structured impls";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("has no meta function"), std::string::npos) << e.what();
  }
}

// Note [self and input]: functions spell the schema's `self` as `input`,
// methods as `self`, in signatures, keywords and notes; plugins included.
TEST_F(DefinedPlugin, FunctionsTakeInputAndMethodsTakeSelf) {
  EXPECT_EQ(python_signature("testdefined.scale"), "(input, factor=2.0, *, out=None)");
  EXPECT_EQ(python_signature("testdefined.Tensor.scale"), "(self, factor=2.0)");
  EXPECT_EQ(python_signature("torch.add"), "(input, other, *, alpha=1, out=None)");
  EXPECT_EQ(python_signature("torch.Tensor.add"), "(self, other, *, alpha=1)");
  const Tensor x = full({2}, 3.0);
  EXPECT_EQ(first(call("testdefined.scale", {}, {{"input", x}}).to_tensor()), 6.0);
  EXPECT_EQ(first(call("testdefined.Tensor.scale", {}, {{"self", x}}).to_tensor()), 6.0);
  auto error_of = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const TypeError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error_of([&] {
              (void)call("testdefined.scale", {}, {{"self", x}});
            }),
            "testdefined.scale() got an unexpected keyword argument 'self': a function spells it 'input' (its "
            "method, in a namespace ending in .Tensor, spells it 'self')");
  EXPECT_EQ(error_of([&] {
              (void)call("testdefined.Tensor.scale", {}, {{"input", x}});
            }),
            "testdefined.Tensor.scale() got an unexpected keyword argument 'input'");
  EXPECT_EQ(error_of([&] {
              (void)call("torch.neg", {}, {{"self", x}});
            }),
            "neg() got an unexpected keyword argument 'self': a function spells it 'input' (its method, in a "
            "namespace ending in .Tensor, spells it 'self')");
  // Error notes name the arguments the same way.
  try {
    (void)call("testdefined.scale", {Value("x")});
    ADD_FAILURE();
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("argument 'input' (position 1)"), std::string::npos) << e.what();
  }
}

TEST(Definitions, TorchCatalogComesFromTheOpsFiles) {
  init();
  // Derived entries: out and in-place variants, method aliases, dunders.
  for (const char* name : {"torch.add", "torch.add.out", "torch.Tensor.add", "torch.Tensor.__add__",
                           "torch.Tensor.exp_", "torch.Tensor.transpose_", "torch.Tensor.__imod__"}) {
    EXPECT_TRUE(try_find_op(name).has_value()) << name;
  }
  EXPECT_EQ(find_op("torch.add.out").schema().str(),
            "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(find_op("torch.Tensor.exp_").schema().str(), "exp_(Tensor(a!) self) -> Tensor(a!)");
  // Typed API and methods generated from them.
  const Tensor x = ones({2, 3});
  EXPECT_EQ(x.sum(0).sizes().vec(), (std::vector<std::int64_t>{3}));
  EXPECT_EQ(wick::sum(x, {1}, true).sizes().vec(), (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(x.softmax(1).sizes().vec(), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(wick::pow(x, 2).sum().item<double>(), 6.0);
}

}  // namespace
}  // namespace wick
