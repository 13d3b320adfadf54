// tests/serialization/pt_load_test.cpp - loading .pt files written by PyTorch 1.13's torch.save.
/// \file
#include "tests/serialization/serialization_test_util.h"

namespace {

using namespace wick_test::serialization;
using wick::NamedTensors;
using wick::Tensor;

class PtLoad : public ::testing::Test {
 protected:
  void SetUp() override {
    wick::init();
    if (!wick::pt_format_available()) GTEST_SKIP() << "this build has no .pt support (libzip)";
  }
};

std::vector<std::string> keys(const NamedTensors& sd) {
  std::vector<std::string> out;
  for (const auto& [k, v] : sd) out.push_back(k);
  return out;
}

TEST_F(PtLoad, FloatTensor) {
  const Tensor t = wick::load_pt_tensor(fixture("float.pt"));
  expect_matches(t, "float.pt", "");
  EXPECT_FALSE(t.requires_grad());
}

TEST_F(PtLoad, NonContiguousViewKeepsOffsetAndStrides) {
  const Tensor t = wick::load_pt_tensor(fixture("view.pt"));
  expect_matches(t, "view.pt", "");
  EXPECT_EQ(t.storage_offset(), 6);
  EXPECT_FALSE(t.is_contiguous());
  // The whole storage came along, as torch.save writes it.
  EXPECT_EQ(t.storage()->nbytes(), 24u * 4u);
}

TEST_F(PtLoad, EveryDtypeInFileOrder) {
  const NamedTensors sd = wick::load_pt(fixture("dtypes.pt"));
  EXPECT_EQ(keys(sd), (std::vector<std::string>{"float32", "float64", "float16", "bfloat16", "int64", "int32", "int16",
                                                "int8", "uint8", "bool", "complex64", "scalar", "empty"}));
  for (const auto& [k, t] : sd) expect_matches(t, "dtypes.pt", k);
}

TEST_F(PtLoad, ModelStateDictWithZeroDimBuffer) {
  const NamedTensors sd = wick::load_pt(fixture("model.pt"));
  EXPECT_EQ(keys(sd), (std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias", "1.running_mean",
                                                "1.running_var", "1.num_batches_tracked"}));
  for (const auto& [k, t] : sd) expect_matches(t, "model.pt", k);
  EXPECT_EQ(sd.back().second.dim(), 0);
  EXPECT_EQ(sd.back().second.dtype(), wick::ScalarType::kInt64);
}

TEST_F(PtLoad, SharedStorageLoadsShared) {
  const NamedTensors sd = wick::load_pt(fixture("shared.pt"));
  ASSERT_EQ(sd.size(), 3u);
  for (const auto& [k, t] : sd) expect_matches(t, "shared.pt", k);
  EXPECT_EQ(sd[0].second.storage().get(), sd[1].second.storage().get());
  EXPECT_EQ(sd[0].second.storage().get(), sd[2].second.storage().get());
  // A write through one is seen through the others.
  Tensor whole = sd[0].second;
  whole.copy_(wick::full_like(whole, -1.0));
  EXPECT_EQ(values(sd[1].second), (std::vector<double>{-1, -1, -1, -1}));
}

TEST_F(PtLoad, CudaTensorsLoadOnTheCpu) {
  const NamedTensors sd = wick::load_pt(fixture("cuda.pt"));
  ASSERT_EQ(sd.size(), 1u);
  expect_matches(sd[0].second, "cuda.pt", "w");
}

TEST_F(PtLoad, ParameterKeepsRequiresGrad) {
  const Tensor t = wick::load_pt_tensor(fixture("parameter.pt"));
  expect_matches(t, "parameter.pt", "");
  EXPECT_TRUE(t.requires_grad());
  EXPECT_TRUE(t.is_leaf());
}

TEST_F(PtLoad, PlainDictKeepsInsertionOrder) {
  const NamedTensors sd = wick::load_pt(fixture("plain_dict.pt"));
  EXPECT_EQ(keys(sd), (std::vector<std::string>{"b", "a"}));
  for (const auto& [k, t] : sd) expect_matches(t, "plain_dict.pt", k);
}

TEST_F(PtLoad, GenericLoadPicksThePtFormat) {
  const NamedTensors sd = wick::load(fixture("model.pt"));
  EXPECT_EQ(sd.size(), 7u);
  expect_matches(wick::load_tensor(fixture("float.pt")), "float.pt", "");
  // An explicit format wins over the extension.
  EXPECT_EQ(wick::load(fixture("model.pt"), wick::SerializationFormat::kPyTorch).size(), 7u);
}

TEST_F(PtLoad, RefusesWhatIsNotTensors) {
  const std::string not_tensors = fixture("not_tensors.pt");
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_pt(not_tensors), not_tensors, "epoch", "holds an int, not a tensor");
  const std::string list = fixture("list.pt");
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_pt(list), list, "", "the file holds a list");
  const std::string counter = fixture("counter.pt");
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_pt(counter), counter, "data.pkl",
                                  "unsupported global 'collections.Counter'");
  const std::string model = fixture("model.pt");
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_pt_tensor(model), model, "", "a dict of tensors, not one tensor");
  const std::string one = fixture("float.pt");
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_pt(one), one, "", "one tensor, not a dict");
}

TEST_F(PtLoad, MissingFile) {
  const std::string path = fixture("no_such_file.pt");
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_pt(path), path, "", "cannot open the file");
}

}  // namespace
