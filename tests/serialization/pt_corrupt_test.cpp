// tests/serialization/pt_corrupt_test.cpp - corrupt, truncated and hostile .pt files: typed errors, never a crash or a hang.
/// \file
#ifdef WICK_TEST_HAVE_LIBZIP
#include <zip.h>
#endif

#include "tests/serialization/serialization_test_util.h"

namespace {

using namespace wick_test::serialization;

class PtCorrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    wick::init();
    if (!wick::pt_format_available()) GTEST_SKIP() << "this build has no .pt support (libzip)";
  }
  TempDir dir_;
};

TEST_F(PtCorrupt, EachBrokenFixtureIsATypedError) {
  struct Case {
    const char* file;
    const char* key;
    const char* text;
  };
  const Case cases[] = {
      {"corrupt_not_zip.pt", "", "not a readable zip archive"},
      {"legacy.pt", "", "PyTorch's legacy format (before 1.6, or _use_new_zipfile_serialization=False)"},
      {"corrupt_no_pkl.pt", "data.pkl", "the archive has no data.pkl record"},
      {"corrupt_no_storage.pt", "data/0", "the storage's record is missing"},
      {"corrupt_short_storage.pt", "data/0", "the record has 12 bytes, too few for 6 elements of float32"},
      {"corrupt_truncated_pickle.pt", "data.pkl", "truncated pickle"},
      {"corrupt_out_of_range.pt", "data.pkl", "a tensor of size 12 at offset 0 does not fit its storage of 6"},
      {"corrupt_opcode.pt", "data.pkl", "unsupported pickle opcode 0x8f"},
      {"corrupt_exec.pt", "data.pkl", "unsupported global 'os.system'"},
      {"corrupt_cycle.pt", "a", "holds a dict, not a tensor"},
  };
  for (const Case& c : cases) {
    const std::string path = fixture(c.file);
    WICK_EXPECT_SERIALIZATION_ERROR(wick::load_pt(path), path, c.key, c.text);
    WICK_EXPECT_SERIALIZATION_ERROR(wick::load_pt_tensor(path), path, c.key, "");
  }
}

TEST_F(PtCorrupt, EveryTruncationOfTheFileIsAnError) {
  const std::string bytes = read_bytes(fixture("model.pt"));
  ASSERT_GT(bytes.size(), 1000u);
  const std::string path = dir_.file("cut.pt");
  for (std::size_t n = 0; n < bytes.size(); n += 7) {
    write_bytes(path, bytes.substr(0, n));
    EXPECT_THROW((void)wick::load_pt(path), wick::SerializationError) << n << " bytes";
  }
}

TEST_F(PtCorrupt, FlippedBytesNeverCrash) {
  // A changed byte anywhere: the zip's checks or CRCs or the pickle machine
  // catch it, or it lands in a tensor's bytes and loads (a different value).
  const std::string bytes = read_bytes(fixture("model.pt"));
  const std::string path = dir_.file("flip.pt");
  int errors = 0;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    std::string b = bytes;
    b[i] = static_cast<char>(b[i] ^ 0x5a);
    write_bytes(path, b);
    try {
      (void)wick::load_pt(path);
    } catch (const wick::SerializationError&) {
      ++errors;
    }
  }
  EXPECT_GT(errors, 0);
}

#ifdef WICK_TEST_HAVE_LIBZIP
/// Writes an archive of stored records (libzip, as the loader reads it).
void write_zip(const std::string& path, const std::vector<std::pair<std::string, std::string>>& records) {
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  ASSERT_NE(z, nullptr);
  for (const auto& [name, data] : records) {
    zip_source_t* s = zip_source_buffer(z, data.data(), data.size(), 0);
    ASSERT_NE(s, nullptr);
    ASSERT_GE(zip_file_add(z, name.c_str(), s, ZIP_FL_OVERWRITE), 0);
  }
  ASSERT_EQ(zip_close(z), 0);
}

std::string record(const std::string& path, const std::string& name) {
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_RDONLY, &err);
  EXPECT_NE(z, nullptr);
  zip_stat_t st;
  EXPECT_EQ(zip_stat(z, name.c_str(), 0, &st), 0);
  std::string out(st.size, '\0');
  zip_file_t* f = zip_fopen(z, name.c_str(), 0);
  EXPECT_EQ(zip_fread(f, out.data(), out.size()), static_cast<zip_int64_t>(out.size()));
  zip_fclose(f);
  zip_discard(z);
  return out;
}

TEST_F(PtCorrupt, EveryTruncationOfThePickleIsAnError) {
  const std::string model = fixture("model.pt");
  const std::string pkl = record(model, "model/data.pkl");
  std::vector<std::pair<std::string, std::string>> records;
  for (int k = 0; k < 7; ++k) {
    const std::string name = "data/" + std::to_string(k);
    records.emplace_back("archive/" + name, record(model, "model/" + name));
  }
  const std::string path = dir_.file("pickle_cut.pt");
  for (std::size_t n = 0; n < pkl.size(); ++n) {
    std::vector<std::pair<std::string, std::string>> rs{{"archive/data.pkl", pkl.substr(0, n)}};
    rs.insert(rs.end(), records.begin(), records.end());
    write_zip(path, rs);
    EXPECT_THROW((void)wick::load_pt(path), wick::SerializationError) << n << " bytes of pickle";
  }
  // The whole pickle loads.
  std::vector<std::pair<std::string, std::string>> rs{{"archive/data.pkl", pkl}};
  rs.insert(rs.end(), records.begin(), records.end());
  write_zip(path, rs);
  EXPECT_EQ(wick::load_pt(path).size(), 7u);
}

TEST_F(PtCorrupt, FlippedPickleBytesNeverCrash) {
  const std::string model = fixture("model.pt");
  const std::string pkl = record(model, "model/data.pkl");
  std::vector<std::pair<std::string, std::string>> records;
  for (int k = 0; k < 7; ++k) {
    const std::string name = "data/" + std::to_string(k);
    records.emplace_back("archive/" + name, record(model, "model/" + name));
  }
  const std::string path = dir_.file("pickle_flip.pt");
  const unsigned char flips[] = {0x01, 0x80, 0xff};
  for (std::size_t i = 0; i < pkl.size(); ++i) {
    for (unsigned char x : flips) {
      std::string p = pkl;
      p[i] = static_cast<char>(static_cast<unsigned char>(p[i]) ^ x);
      std::vector<std::pair<std::string, std::string>> rs{{"archive/data.pkl", p}};
      rs.insert(rs.end(), records.begin(), records.end());
      write_zip(path, rs);
      try {
        (void)wick::load_pt(path);
      } catch (const wick::SerializationError&) {
      }
    }
  }
}

TEST_F(PtCorrupt, HugeSizesInThePickleAllocateNothing) {
  // ('storage', FloatStorage, '0', 'cpu', 2**62) over a 4-byte record.
  using namespace std::string_literals;
  const std::string pkl = "\x80\x02"s + "ctorch._utils\n_rebuild_tensor_v2\n((" + "X\x07\x00\x00\x00storage"s +
                          "ctorch\nFloatStorage\n" + "X\x01\x00\x00\x00"s + "0" + "X\x03\x00\x00\x00"s + "cpu" +
                          "\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x40"s + "tQ" + "K\x00"s + "K\x01\x85K\x01\x85\x89" +
                          "ccollections\nOrderedDict\n)RtR.";
  const std::string path = dir_.file("huge.pt");
  write_zip(path, {{"archive/data.pkl", pkl}, {"archive/data/0", std::string(4, '\0')}});
  WICK_EXPECT_SERIALIZATION_ERROR(wick::load_pt_tensor(path), path, "data/0", "too few for 4611686018427387904");
}
#endif

}  // namespace
