// tests/serialization/module_serialization_test.cpp - wick::save / wick::load of modules: round trips and checked loading.
/// \file
#include "tests/serialization/serialization_test_util.h"
#include "wick/nn.h"

namespace {

using namespace wick_test::serialization;
using wick::NamedTensors;
using wick::ScalarType;
using wick::Tensor;

/// torch.nn.Linear(3, 2)'s tensors.
struct Affine : wick::nn::Module {
  Affine() {
    weight = register_parameter("weight", wick::full({2, 3}, 0.0, ScalarType::kFloat32));
    bias = register_parameter("bias", wick::full({2}, 0.0, ScalarType::kFloat32));
  }
  Tensor weight, bias;
};

/// torch.nn.BatchNorm1d(2)'s tensors.
struct Norm : wick::nn::Module {
  Norm() {
    register_parameter("weight", wick::full({2}, 0.0, ScalarType::kFloat32));
    register_parameter("bias", wick::full({2}, 0.0, ScalarType::kFloat32));
    register_buffer("running_mean", wick::full({2}, 0.0, ScalarType::kFloat32));
    register_buffer("running_var", wick::full({2}, 0.0, ScalarType::kFloat32));
    register_buffer("num_batches_tracked", wick::full({}, 0, ScalarType::kInt64));
  }
};

/// The fixture's torch.nn.Sequential(Linear(3, 2), BatchNorm1d(2)).
struct Net : wick::nn::Module {
  Net() {
    register_module("0", std::make_shared<Affine>());
    register_module("1", std::make_shared<Norm>());
  }
};

class ModuleSerialization : public ::testing::Test {
 protected:
  void SetUp() override { wick::init(); }
  TempDir dir_;
};

TEST_F(ModuleSerialization, LoadsPyTorchsStateDictIntoAModel) {
  if (!wick::pt_format_available()) GTEST_SKIP() << "this build has no .pt support (libzip)";
  for (const char* file : {"model.pt", "model.safetensors"}) {
    Net net;
    const wick::nn::IncompatibleKeys keys = wick::load(net, fixture(file));
    EXPECT_TRUE(keys.missing_keys.empty());
    EXPECT_TRUE(keys.unexpected_keys.empty());
    for (const auto& [k, t] : net.state_dict()) expect_matches(t, file, k);
  }
}

TEST_F(ModuleSerialization, SaveThenLoadRoundTripsInBothFormats) {
  for (const char* name : {"net.pt", "net.safetensors"}) {
    if (std::string(name).ends_with(".pt") && !wick::pt_format_available()) continue;
    Net a;
    a.load_state_dict(wick::load(fixture("model.safetensors")));
    const std::string path = dir_.file(name);
    wick::save(a, path);
    Net b;
    wick::load(b, path);
    const NamedTensors sa = a.state_dict();
    const NamedTensors sb = b.state_dict();
    ASSERT_EQ(sa.size(), sb.size());
    for (std::size_t i = 0; i < sa.size(); ++i) EXPECT_EQ(values(sa[i].second), values(sb[i].second)) << sa[i].first;
  }
}

TEST_F(ModuleSerialization, MismatchesAreTypedErrorsAndLoadNothing) {
  const NamedTensors good = wick::load(fixture("model.safetensors"));
  auto with = [&](const std::string& key, const Tensor& t) {
    NamedTensors sd = good;
    for (auto& [k, v] : sd) {
      if (k == key) v = t;
    }
    return sd;
  };
  auto without = [&](const std::string& key) {
    NamedTensors sd;
    for (const auto& [k, v] : good) {
      if (k != key) sd.emplace_back(k, v);
    }
    return sd;
  };
  Net net;
  const std::vector<double> before = values(net.state_dict()[0].second);

  const std::string shape = dir_.file("shape.safetensors");
  wick::save(with("0.weight", wick::full({3, 2}, 1.0, ScalarType::kFloat32)), shape);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load(net, shape), shape, "0.weight",
                                  "the file's tensor has shape [3, 2], the model's has shape [2, 3]");
  const std::string dtype = dir_.file("dtype.safetensors");
  wick::save(with("1.running_var", wick::full({2}, 1.0, ScalarType::kFloat64)), dtype);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load(net, dtype), dtype, "1.running_var",
                                  "the file's tensor is float64, the model's is float32");
  const std::string missing = dir_.file("missing.safetensors");
  wick::save(without("1.num_batches_tracked"), missing);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load(net, missing), missing, "1.num_batches_tracked",
                                  "missing from the file (the model Net has it)");
  NamedTensors extra = good;
  extra.emplace_back("2.weight", wick::full({1}, 1.0, ScalarType::kFloat32));
  const std::string unexpected = dir_.file("unexpected.safetensors");
  wick::save(extra, unexpected);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load(net, unexpected), unexpected, "2.weight",
                                  "the model Net has no such parameter or buffer");
  // Nothing was copied by any of them (the first tensor's values came after the checks).
  EXPECT_EQ(values(net.state_dict()[0].second), before);

  // Not strict: missing and unexpected keys are reported, the rest loads.
  const wick::nn::IncompatibleKeys keys = wick::load(net, missing, wick::SerializationFormat::kAuto, false);
  EXPECT_EQ(keys.missing_keys, std::vector<std::string>{"1.num_batches_tracked"});
  EXPECT_NE(values(net.state_dict()[0].second), before);
  const wick::nn::IncompatibleKeys keys2 = wick::load(net, unexpected, wick::SerializationFormat::kSafetensors, false);
  EXPECT_EQ(keys2.unexpected_keys, std::vector<std::string>{"2.weight"});
}

TEST_F(ModuleSerialization, FormatFromExtensionOrArgument) {
  EXPECT_EQ(wick::resolve_format("a/b.safetensors", wick::SerializationFormat::kAuto),
            wick::SerializationFormat::kSafetensors);
  EXPECT_EQ(wick::resolve_format("a/b.pt", wick::SerializationFormat::kAuto), wick::SerializationFormat::kPyTorch);
  EXPECT_EQ(wick::resolve_format("a/b.bin", wick::SerializationFormat::kAuto), wick::SerializationFormat::kPyTorch);
  EXPECT_EQ(wick::resolve_format("a/b.pt", wick::SerializationFormat::kSafetensors),
            wick::SerializationFormat::kSafetensors);
  // A safetensors file under another name, read by saying so.
  const std::string path = dir_.file("weights.bin");
  wick::save(NamedTensors{{"x", wick::full({2}, 7.0, ScalarType::kFloat32)}}, path, wick::SerializationFormat::kSafetensors);
  EXPECT_EQ(values(wick::load_tensor(path, wick::SerializationFormat::kSafetensors)), (std::vector<double>{7, 7}));
  if (wick::pt_format_available()) {
    WICK_EXPECT_SERIALIZATION_ERROR(wick::load(path), path, "", "not a readable zip archive");
  }
}

}  // namespace
