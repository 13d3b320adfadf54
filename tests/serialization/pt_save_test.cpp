// tests/serialization/pt_save_test.cpp - writing .pt files: round trips, and PyTorch 1.13's torch.load reading them.
/// \file
#include <array>
#include <memory>

#include "tests/serialization/serialization_test_util.h"

namespace {

using namespace wick_test::serialization;
using wick::NamedTensors;
using wick::ScalarType;
using wick::Tensor;

class PtSave : public ::testing::Test {
 protected:
  void SetUp() override {
    wick::init();
    if (!wick::pt_format_available()) GTEST_SKIP() << "this build has no .pt support (libzip)";
  }
  TempDir dir_;
};

/// Runs a python3 script that loads `files` with torch.load (as `xs`, the
/// first also as `x`; and again with weights_only=True, PyTorch's loader
/// that allows no global but tensors' and OrderedDict's) and then runs
/// `checks`; true when it printed OK.
bool torch_checks(const std::vector<std::string>& files, const std::string& checks) {
  const std::string script =
      "import sys, torch\nxs = [torch.load(p) for p in sys.argv[1:]]\nx = xs[0]\n"
      "ws = [torch.load(p, weights_only=True) for p in sys.argv[1:]]\n" +  // only tensors and OrderedDicts
      checks + "\nprint('OK')\n";
  const std::string script_path = files[0] + ".check.py";
  write_bytes(script_path, script);
  const std::string out_path = files[0] + ".out";
  std::string cmd = python_with_torch() + " " + script_path;
  for (const std::string& f : files) cmd += " " + f;
  cmd += " >" + out_path + " 2>&1";
  const int rc = std::system(cmd.c_str());
  const std::string out = read_bytes(out_path);
  EXPECT_EQ(rc, 0) << out;
  return out.find("OK") != std::string::npos;
}

NamedTensors sample_state() {
  Tensor base = wick::arange(0, 12, 1, ScalarType::kFloat32).reshape({3, 4});
  NamedTensors sd;
  sd.emplace_back("base", base);
  sd.emplace_back("view", base.narrow(1, 1, 2).t());  // offset 1, strides (1, 4)
  sd.emplace_back("row", base.select(0, 2));
  sd.emplace_back("int64", wick::arange(-3, 3, 1, ScalarType::kInt64) * wick::Scalar(std::int64_t{1'000'000'000'000}));
  sd.emplace_back("bool", wick::arange(0, 5, 1, ScalarType::kInt64).remainder(2).to(ScalarType::kBool));
  sd.emplace_back("half", wick::arange(0, 4, 1, ScalarType::kFloat16));
  sd.emplace_back("bf16", wick::arange(0, 4, 1, ScalarType::kBFloat16));
  sd.emplace_back("f64", wick::arange(0, 3, 1, ScalarType::kFloat64) / 3.0);
  sd.emplace_back("u8", wick::arange(250, 256, 1, ScalarType::kUInt8));
  sd.emplace_back("i8", wick::arange(-2, 2, 1, ScalarType::kInt8));
  sd.emplace_back("i16", wick::arange(-2, 2, 1, ScalarType::kInt16));
  sd.emplace_back("i32", wick::arange(-2, 2, 1, ScalarType::kInt32));
  sd.emplace_back("scalar", wick::full({}, 2.5, ScalarType::kFloat32));
  sd.emplace_back("empty", wick::full({0, 2}, 0.0, ScalarType::kFloat32));
  sd.emplace_back("complex", wick::full({2}, 1.5, ScalarType::kComplex64));
  return sd;
}

TEST_F(PtSave, StateDictRoundTripKeepsValuesViewsAndSharing) {
  const NamedTensors sd = sample_state();
  const std::string path = dir_.file("state.pt");
  wick::save_pt(sd, path);
  const NamedTensors back = wick::load_pt(path);
  ASSERT_EQ(back.size(), sd.size());
  for (std::size_t i = 0; i < sd.size(); ++i) {
    SCOPED_TRACE(sd[i].first);
    EXPECT_EQ(back[i].first, sd[i].first);
    EXPECT_EQ(back[i].second.dtype(), sd[i].second.dtype());
    EXPECT_TRUE(back[i].second.sizes().equals(sd[i].second.sizes()));
    EXPECT_TRUE(back[i].second.strides().equals(sd[i].second.strides()));
    EXPECT_EQ(back[i].second.storage_offset(), sd[i].second.storage_offset());
    EXPECT_EQ(values(back[i].second), values(sd[i].second));
  }
  EXPECT_EQ(back[0].second.storage().get(), back[1].second.storage().get());
  EXPECT_EQ(back[0].second.storage().get(), back[2].second.storage().get());
  EXPECT_NE(back[0].second.storage().get(), back[3].second.storage().get());
}

TEST_F(PtSave, SingleTensorRoundTrip) {
  Tensor t = wick::arange(0, 6, 1, ScalarType::kFloat64).reshape({2, 3}).t();
  const std::string path = dir_.file("one.pt");
  wick::save(t, path);
  const Tensor back = wick::load_tensor(path);
  EXPECT_EQ(values(back), values(t));
  EXPECT_TRUE(back.strides().equals(t.strides()));
}

TEST_F(PtSave, TorchLoadReadsAStateDict) {
  if (!have_torch()) GTEST_SKIP() << "no python3 with torch on PATH";
  const std::string path = dir_.file("for_torch.pt");
  wick::save_pt(sample_state(), path);
  EXPECT_TRUE(torch_checks({path}, R"(
import collections
assert isinstance(x, collections.OrderedDict), type(x)
assert list(x) == ['base', 'view', 'row', 'int64', 'bool', 'half', 'bf16', 'f64', 'u8', 'i8', 'i16', 'i32',
                   'scalar', 'empty', 'complex'], list(x)
base = torch.arange(12.).reshape(3, 4)
assert torch.equal(x['base'], base)
assert torch.equal(x['view'], base[:, 1:3].t()) and x['view'].stride() == (1, 4) and x['view'].storage_offset() == 1
assert x['view'].data_ptr() == x['base'].data_ptr() + 4, 'views share their storage'
assert torch.equal(x['row'], base[2])
assert torch.equal(x['int64'], torch.arange(-3, 3) * 10**12)
assert torch.equal(x['bool'], torch.tensor([False, True, False, True, False]))
assert torch.equal(x['half'], torch.arange(4.).half()) and torch.equal(x['bf16'], torch.arange(4.).bfloat16())
assert torch.equal(x['f64'], torch.arange(3.).double() / 3)
assert torch.equal(x['u8'], torch.arange(250, 256, dtype=torch.uint8))
assert torch.equal(x['i8'], torch.arange(-2, 2, dtype=torch.int8))
assert torch.equal(x['i16'], torch.arange(-2, 2, dtype=torch.int16))
assert torch.equal(x['i32'], torch.arange(-2, 2, dtype=torch.int32))
assert x['scalar'].dim() == 0 and x['scalar'].item() == 2.5
assert x['empty'].shape == (0, 2)
assert torch.equal(x['complex'], torch.full((2,), 1.5, dtype=torch.complex64))
)"));
}

TEST_F(PtSave, TorchLoadReadsATensorAndAModelLoadsTheStateDict) {
  if (!have_torch()) GTEST_SKIP() << "no python3 with torch on PATH";
  const std::string one = dir_.file("tensor.pt");
  Tensor t = wick::arange(0, 6, 1, ScalarType::kFloat32).reshape({2, 3});
  t.requires_grad_(true);
  wick::save(t, one);
  const std::string model = dir_.file("linear.pt");
  wick::save(NamedTensors{{"weight", wick::full({3, 2}, 0.5, ScalarType::kFloat32)},
                          {"bias", wick::arange(0, 3, 1, ScalarType::kFloat32)}},
             model);
  EXPECT_TRUE(torch_checks({one, model}, R"(
assert torch.equal(x, torch.arange(6.).reshape(2, 3)) and x.requires_grad
m = torch.nn.Linear(2, 3)
m.load_state_dict(xs[1])
assert torch.equal(m(torch.ones(1, 2)), torch.tensor([[1., 2., 3.]]))
)"));
}

TEST_F(PtSave, RefusesAmbiguousInput) {
  const std::string path = dir_.file("bad.pt");
  Tensor a = wick::arange(0, 4, 1, ScalarType::kFloat32);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::save_pt(NamedTensors{{"a", a}, {"a", a}}, path), path, "a",
                                  "the name is given twice");
  WICK_EXPECT_SERIALIZATION_ERROR(wick::save_pt(NamedTensors{{"u", Tensor()}}, path), path, "u",
                                  "cannot save an undefined tensor");
  // A float32 storage seen as int32 too (PyTorch refuses the same).
  Tensor as_int = wick::make_view(a, a.sizes(), a.strides(), 0, ScalarType::kInt32);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::save_pt(NamedTensors{{"f", a}, {"i", as_int}}, path), path, "i",
                                  "view the same data as different types");
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
