// tests/serialization/safetensors_test.cpp - safetensors: loading files written to the spec, round trips, strict validation.
/// \file
#include <cstring>

#include "tests/serialization/serialization_test_util.h"

namespace {

using namespace wick_test::serialization;
using wick::NamedTensors;
using wick::ScalarType;
using wick::Tensor;

class Safetensors : public ::testing::Test {
 protected:
  void SetUp() override { wick::init(); }
  TempDir dir_;

  /// A file of `header` (padded as given) and `data`, under `name`.
  std::string craft(const std::string& name, const std::string& header, const std::string& data,
                    std::uint64_t claimed_length = UINT64_MAX) {
    const std::uint64_t n = claimed_length == UINT64_MAX ? header.size() : claimed_length;
    std::string bytes(8, '\0');
    for (int k = 0; k < 8; ++k) bytes[static_cast<std::size_t>(k)] = static_cast<char>((n >> (8 * k)) & 0xff);
    const std::string path = dir_.file(name);
    write_bytes(path, bytes + header + data);
    return path;
  }
};

TEST_F(Safetensors, LoadsEveryDtypeInHeaderOrderWithMetadata) {
  const wick::SafetensorsContents c = wick::load_safetensors(fixture("dtypes.safetensors"));
  std::vector<std::string> names;
  for (const auto& [k, t] : c.tensors) {
    names.push_back(k);
    expect_matches(t, "dtypes.safetensors", k);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"float32", "float64", "float16", "bfloat16", "int64", "int32", "int16",
                                             "int8", "uint8", "bool", "scalar", "empty"}));
  EXPECT_EQ(c.metadata, (std::map<std::string, std::string>{{"format", "pt"}, {"note", "wick fixtures"}}));
}

TEST_F(Safetensors, LoadsAModelStateDict) {
  const NamedTensors sd = wick::load(fixture("model.safetensors"));
  ASSERT_EQ(sd.size(), 7u);
  for (const auto& [k, t] : sd) expect_matches(t, "model.safetensors", k);
}

TEST_F(Safetensors, RoundTripOfViewsAndMetadata) {
  Tensor base = wick::arange(0, 12, 1, ScalarType::kFloat32).reshape({3, 4});
  const NamedTensors sd{{"view", base.narrow(1, 1, 2).t()},
                        {"b", wick::arange(0, 3, 1, ScalarType::kInt64).to(ScalarType::kBool)},
                        {"h", wick::arange(0, 3, 1, ScalarType::kBFloat16)},
                        {"s", wick::full({}, 3.0, ScalarType::kFloat64)}};
  const std::string path = dir_.file("rt.safetensors");
  wick::save_safetensors(path, sd, {{"framework", "wick"}});
  // The header is padded to 8 bytes and the data follows it.
  const std::string bytes = read_bytes(path);
  std::uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ(n % 8, 0u);
  EXPECT_EQ(bytes[8], '{');
  EXPECT_EQ(bytes.size(), 8 + n + 4 * 2 * 3 + 3 + 3 * 2 + 8);
  const wick::SafetensorsContents c = wick::load_safetensors(path);
  ASSERT_EQ(c.tensors.size(), sd.size());
  for (std::size_t i = 0; i < sd.size(); ++i) {
    EXPECT_EQ(c.tensors[i].first, sd[i].first);
    EXPECT_EQ(c.tensors[i].second.dtype(), sd[i].second.dtype());
    EXPECT_TRUE(c.tensors[i].second.sizes().equals(sd[i].second.sizes()));
    EXPECT_TRUE(c.tensors[i].second.is_contiguous());
    EXPECT_EQ(values(c.tensors[i].second), values(sd[i].second));
  }
  EXPECT_EQ(c.metadata.at("framework"), "wick");
  // By extension, through the generic API.
  const std::string other = dir_.file("t.safetensors");
  wick::save(base, other);
  EXPECT_EQ(values(wick::load_tensor(other)), values(base));
  EXPECT_EQ(wick::load(other)[0].first, "tensor");
}

TEST_F(Safetensors, PythonReadsWhatWickWrites) {
  if (any_python().empty()) GTEST_SKIP() << "no python3 on PATH";
  const std::string path = dir_.file("py.safetensors");
  wick::save_safetensors(path, {{"w", wick::arange(0, 6, 1, ScalarType::kFloat32).reshape({2, 3})}}, {{"k", "v"}});
  // The spec read by hand (the safetensors package is not installed here).
  const std::string script = dir_.file("read.py");
  write_bytes(script, R"(import array, json, struct, sys
raw = open(sys.argv[1], 'rb').read()
n, = struct.unpack('<Q', raw[:8])
h = json.loads(raw[8:8 + n])
assert h['__metadata__'] == {'k': 'v'}, h
e = h['w']
assert e['dtype'] == 'F32' and e['shape'] == [2, 3] and e['data_offsets'] == [0, 24], e
assert array.array('f', raw[8 + n:]).tolist() == [0, 1, 2, 3, 4, 5]
print('OK')
)");
  EXPECT_EQ(std::system((any_python() + " " + script + " " + path + " >/dev/null 2>&1").c_str()), 0);
}

TEST_F(Safetensors, SaveRefusesComplexAndBadNames) {
  const std::string path = dir_.file("bad.safetensors");
  WICK_EXPECT_SERIALIZATION_ERROR(
      wick::save_safetensors(path, {{"z", wick::full({2}, 1.0, ScalarType::kComplex64)}}), path, "z",
      "safetensors has no dtype for complex64");
  Tensor a = wick::full({2}, 1.0, ScalarType::kFloat32);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::save_safetensors(path, {{"a", a}, {"a", a}}), path, "a",
                                  "the name is given twice");
  WICK_EXPECT_SERIALIZATION_ERROR(wick::save_safetensors(path, {{"__metadata__", a}}), path, "__metadata__",
                                  "not a valid tensor name");
  WICK_EXPECT_SERIALIZATION_ERROR(wick::save(wick::full({2}, 1.0, ScalarType::kComplex128), path), path, "tensor",
                                  "no dtype for complex128");
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST_F(Safetensors, ValidatesTheHeaderStrictly) {
  const std::string ok_entry = R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
  const std::string data(8, '\0');
  // Sanity: the well-formed file loads.
  EXPECT_EQ(wick::load_safetensors(craft("ok.safetensors", "{" + ok_entry + "}", data)).tensors.size(), 1u);

  std::string p = dir_.file("tiny.safetensors");
  write_bytes(p, "abc");
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "", "too short");
  p = craft("long.safetensors", "{" + ok_entry + "}", data, 1'000'000);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "", "runs past the end of the file");
  p = craft("huge.safetensors", "{" + ok_entry + "}", data, UINT64_MAX - 1);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "", "runs past the end of the file");
  p = craft("json.safetensors", "{\"a\":", data);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "", "not valid JSON");
  p = craft("array.safetensors", "[1, 2]  ", data);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "", "not a JSON object");
  p = craft("dtype.safetensors", R"({"a":{"dtype":"F8_E4M3","shape":[8],"data_offsets":[0,8]}})", data);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "a", "unknown or unsupported dtype 'F8_E4M3'");
  p = craft("range.safetensors", R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", data);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "a", "lie outside the 8 bytes of data");
  p = craft("backwards.safetensors", R"({"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", data);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "a", "lie outside");
  p = craft("shape.safetensors", R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", data);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "a", "need 12 bytes, data_offsets give 8");
  p = craft("negative.safetensors", R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", data);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "a", "non-negative integer");
  p = craft("overflow.safetensors",
            R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", data);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "a", "overflows");
  p = craft("overlap.safetensors",
            R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
            data);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "b", "overlaps");
  p = craft("gap.safetensors", R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", data);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "a", "gap of 4 bytes");
  p = craft("rest.safetensors", R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", data);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "", "4 bytes of data belong to no tensor");
  p = craft("noshape.safetensors", R"({"a":{"dtype":"F32","data_offsets":[0,8]}})", data);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "a", "no valid shape");
  p = craft("nooffsets.safetensors", R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", data);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "a", "no valid data_offsets");
  p = craft("entry.safetensors", R"({"a":7})", data);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "a", "not an object");
  p = craft("meta.safetensors", "{\"__metadata__\":{\"k\":1}," + ok_entry + "}", data);
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "__metadata__", "is not a string");
  p = dir_.file("missing.safetensors");
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_safetensors(p), p, "", "cannot open the file");
}

TEST_F(Safetensors, EveryTruncationIsAnError) {
  const std::string bytes = read_bytes(fixture("model.safetensors"));
  ASSERT_GT(bytes.size(), 100u);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const std::string p = dir_.file("cut.safetensors");
    write_bytes(p, bytes.substr(0, n));
    EXPECT_THROW((void)wick::load_safetensors(p), wick::SerializationError) << n << " bytes";
  }
}

}  // namespace
